package io.tsdbwriter.lab;

import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.produce.LatencyHistograms;
import java.util.Iterator;
import java.util.List;

/**
 * A histogram share beside a topic of points ({@code bench --histogram-series S}, {@code capacity --histogram-series S}):
 * S series of OpenTelemetry exponential latency histograms ({@link LatencyHistograms}, as {@code produce
 * --histogram-series} sends them; each record value an OTLP protobuf request of up to {@link #POINTS_PER_RECORD} data
 * points) in a topic of their own ({@link #topic}), which the writers read beside the points with
 * {@code --topic-format TOPIC=otlp} ({@link #writerArgs}). Every series has one data point per {@link #INTERVAL_MS} of
 * the points' sample time.
 *
 * <p>The samples the writer writes for a record are its points as the writer decodes it ({@link Samples}): one per
 * data point where the output carries native histograms (remote write), else {@code <name>_count}, {@code <name>_sum}
 * and one {@code <name>_bucket{vmrange="…"}} series per non-empty bucket (the import API); each is amplified M × N as
 * the points are. Stateless; thread-safe.
 */
public final class HistogramShare {

    /** Sample time between two data points of a series, ms: the writers' default source interval. */
    public static final long INTERVAL_MS = 60_000;
    /** Data points per record value at most. */
    public static final int POINTS_PER_RECORD = 10;
    /** The seed of the histograms: every run draws the same latencies. */
    public static final long SEED = 1;

    private static final String[] SUFFIXES = {"", "_count", "_sum", "_bucket"};

    private HistogramShare() {}

    /** The histogram topic beside the points' topic {@code pointsTopic}: {@code <pointsTopic>-histograms}. */
    public static String topic(String pointsTopic) {
        return pointsTopic + "-histograms";
    }

    /** What a writer is given beside its {@code --topic pointsTopic}: the histogram topic, read as OTLP. */
    public static List<String> writerArgs(String pointsTopic) {
        return List.of("--topic", topic(pointsTopic), "--topic-format", topic(pointsTopic) + "=otlp");
    }

    /**
     * Whether {@code args} (a writer's {@code run} arguments) make it write remote write, and so native histograms: the
     * last {@code --output X} or {@code --output=X} is {@code remote-write}.
     */
    public static boolean remoteWrite(List<String> args) {
        String output = "import";
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--output") && i + 1 < args.size()) {
                output = args.get(++i);
            } else if (a.startsWith("--output=")) {
                output = a.substring("--output=".length());
            }
        }
        return output.equals("remote-write");
    }

    /**
     * Whether a stored metric name is the histograms': {@value LatencyHistograms#METRIC} itself (native histograms) or
     * its {@code _count}, {@code _sum} and {@code _bucket} series ({@code vmrange} buckets).
     */
    public static boolean isHistogramName(String name) {
        for (String suffix : SUFFIXES) {
            if (name.equals(LatencyHistograms.METRIC + suffix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The histograms of {@code series} series covering a span of points: one data point per series each
     * {@link #INTERVAL_MS} of the {@code spanMs} up to {@code newestMs} (at least one), the newest at {@code newestMs}
     * down to the minute.
     *
     * @throws IllegalArgumentException when {@code series} < 1
     */
    public static LatencyHistograms covering(int series, long newestMs, long spanMs) {
        int points = (int) Math.max(1, Math.min(Integer.MAX_VALUE, spanMs / INTERVAL_MS));
        long newest = Math.floorDiv(newestMs, INTERVAL_MS) * INTERVAL_MS;
        return new LatencyHistograms(series, points, null, newest, INTERVAL_MS, SEED);
    }

    /** What a produce of a share sent: its records and data points, and their samples each way (before M × N). */
    public record Fed(long records, long points, long importSamples) {

        /** Nothing fed. */
        public static final Fed NONE = new Fed(0, 0, 0);

        /**
         * The samples (before M × N) a writer writes for these: the data points where it writes native histograms,
         * else the {@code vmrange} bucket series' samples.
         */
        public long samples(boolean nativeHistograms) {
            return nativeHistograms ? points : importSamples;
        }
    }

    /**
     * Produces every record of {@code histograms} to {@code topic} (created by the caller), up to
     * {@link #POINTS_PER_RECORD} data points each, and counts what it sent.
     *
     * @throws IllegalStateException when a send failed
     */
    public static Fed produce(KafkaFeeder kafka, String topic, LatencyHistograms histograms, int series) {
        Iterator<LatencyHistograms.Record> records = histograms.records(Math.min(POINTS_PER_RECORD, series));
        Samples imported = new Samples(false);
        long[] points = new long[1];
        long[] samples = new long[1];
        Iterator<byte[]> values = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return records.hasNext();
            }

            @Override
            public byte[] next() {
                LatencyHistograms.Record r = records.next();
                points[0] += r.points();
                samples[0] += imported.of(r.value());
                return r.value();
            }
        };
        KafkaFeeder.Sent sent = kafka.produceValues(topic, values, Long.MAX_VALUE, 0, () -> false);
        return new Fed(sent.ackedRecords(), points[0], samples[0]);
    }

    /** Counts the samples the writer writes for a record value (before M × N). Not thread-safe. */
    public static final class Samples {
        private final OtlpDecoder decoder = new OtlpDecoder(Integer.MAX_VALUE);
        private final DecodedPoints decoded = new DecodedPoints();
        private final Rejections rejections = new Rejections();

        /** @param nativeHistograms whether the writer's output carries native histograms (remote write) */
        public Samples(boolean nativeHistograms) {
            decoded.histograms().accept(nativeHistograms);
        }

        /** The points the writer decodes {@code value} to. */
        public long of(byte[] value) {
            decoder.decode(value, 0, decoded, rejections);
            return decoded.count();
        }
    }
}
