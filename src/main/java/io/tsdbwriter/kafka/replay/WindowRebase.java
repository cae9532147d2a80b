package io.tsdbwriter.kafka.replay;

import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.segment.SegmentConsumer;
import io.tsdbwriter.pipeline.RecordDecoders;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where pass 0 of a replay lands (docs/capacity-testing.md): the window's first sample — the smallest source
 * timestamp of the first decodable record of each partition's window, found by a probe of at most
 * {@value #PROBE_RECORDS} records per partition with a consumer of its own — and {@code shift₀}, which puts that
 * sample at {@code --rebase-time} (0 without it). Then the one line at start when the (shifted) window is older than
 * the target's retention.
 *
 * <p>Threading: {@link #place} runs on the replay thread, which owns the probe's {@code KafkaConsumer};
 * {@link #wakeup()} may be called from any thread (the replay's stop).
 */
final class WindowRebase {

    private static final Logger log = LoggerFactory.getLogger(WindowRebase.class);
    private static final Duration WAIT = Duration.ofMillis(100);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    /** Records read per partition, at most, to find the window's first sample. */
    static final int PROBE_RECORDS = 100;
    /** Without a readable retention: a window older than this gets a warning at start. */
    static final Duration DEFAULT_RETENTION = Duration.ofDays(31);

    private final ReplayMember.Settings settings;
    private final IntakeSettings workerSettings;
    private final BooleanSupplier closed;
    private volatile KafkaConsumer<byte[], byte[]> probe;

    /**
     * Pass 0's place on the time line.
     *
     * @param windowStartMs the window's first sample (epoch ms), or {@link Long#MAX_VALUE} when none decodes
     * @param shift0        added to every source timestamp of pass 0 (ms)
     */
    record Placement(long windowStartMs, long shift0) {
        /** Where the window's first sample lands (churn generation 0 starts there); 0 when it is unknown. */
        long origin() {
            return windowStartMs == Long.MAX_VALUE ? 0 : windowStartMs + shift0;
        }
    }

    /**
     * @param settings       the replay: the Kafka client settings, {@code --rebase-time}, the target's retention
     * @param workerSettings the decoders' input (each topic's format) and the record size limit
     * @param closed         true once the replay is stopping
     */
    WindowRebase(ReplayMember.Settings settings, IntakeSettings workerSettings, BooleanSupplier closed) {
        this.settings = settings;
        this.workerSettings = workerSettings;
        this.closed = closed;
    }

    /**
     * Probes the window's first sample, places it at {@code --rebase-time} (a warning when nothing decodes there) and
     * checks the result against the target's retention.
     *
     * @param windows each partition's window {@code [start, stop)}
     */
    Placement place(Map<TopicPartition, long[]> windows) {
        long windowStartMs = probeFirstSample(windows);
        long shift0 = 0;
        ReplayConfig r = settings.replay();
        if (r.rebase() != null) {
            if (windowStartMs == Long.MAX_VALUE) {
                log.warn(
                        "replay: no decodable sample at the window's start: --rebase-time cannot place it; writing at the records' own times");
            } else {
                shift0 = r.rebase().resolve(System.currentTimeMillis()) - windowStartMs;
            }
        }
        Placement placement = new Placement(windowStartMs, shift0);
        checkRetention(windowStartMs, shift0);
        return placement;
    }

    /**
     * The window's first sample: the smallest source timestamp of the first decodable record at each partition's
     * window start (up to {@value #PROBE_RECORDS} records each).
     *
     * @return epoch ms, or {@link Long#MAX_VALUE} when no record of the window start decodes
     */
    private long probeFirstSample(Map<TopicPartition, long[]> windows) {
        long first = Long.MAX_VALUE;
        DecodedPoints points = new DecodedPoints();
        points.histograms().accept(true); // only timestamps are read: a record of native histograms has them too
        Rejections rejections = new Rejections();
        TimestampWindow any = new TimestampWindow(0, Long.MAX_VALUE);
        Map<TopicPartition, Integer> left = new HashMap<>(); // partitions still probed: records they may still read
        windows.forEach((tp, w) -> {
            if (w[0] < w[1]) {
                left.put(tp, PROBE_RECORDS);
            }
        });
        // a consumer of its own, closed after: reassigning the window reader would leave its offset fetches dangling
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(SegmentConsumer.readerProps(
                settings.consumerProps(),
                "tsdb-writer-replay-probe-" + ProcessHandle.current().pid()))) {
            probe = c;
            if (closed.getAsBoolean()) {
                return first;
            }
            c.assign(left.keySet());
            left.keySet().forEach(tp -> c.seek(tp, windows.get(tp)[0]));
            long deadline = System.nanoTime() + PROBE_TIMEOUT.toNanos();
            while (!left.isEmpty() && !closed.getAsBoolean() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(WAIT)) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Integer n = left.get(tp);
                    if (n == null) {
                        continue;
                    }
                    if (r.offset() >= windows.get(tp)[1] || n <= 0) {
                        left.remove(tp);
                        continue;
                    }
                    left.put(tp, n - 1);
                    RecordDecoders.create(
                                    workerSettings.input().formatOf(tp.topic()),
                                    workerSettings.maxRecordBytes(),
                                    workerSettings.input().influxPrecision(),
                                    any)
                            .decode(
                                    r.value(),
                                    r.timestamp() >= 0 ? r.timestamp() : System.currentTimeMillis(),
                                    points,
                                    rejections);
                    if (points.count() > 0) {
                        first = Math.min(first, points.shiftTimestamps(0));
                        left.remove(tp);
                    }
                }
                c.pause(c.assignment().stream()
                        .filter(tp -> !left.containsKey(tp))
                        .toList());
            }
        } finally {
            probe = null;
        }
        return first;
    }

    /**
     * Samples older than the target's retention are answered 2xx and dropped by VictoriaMetrics; the decoders refuse
     * them (TimestampWindow) — here the one line at start that says so, or a warning when the retention is unknown.
     */
    private void checkRetention(long windowStartMs, long shiftMs) {
        if (windowStartMs == Long.MAX_VALUE) {
            return;
        }
        long first = windowStartMs + shiftMs;
        long now = System.currentTimeMillis();
        Duration retention = settings.retention();
        if (retention != null && first < now - retention.toMillis()) {
            log.error(
                    "replay: the window's first sample ({}) is older than the target's retention ({} days): VictoriaMetrics "
                            + "would answer 2xx and drop such samples, so they are refused (implausible_timestamp); replay with "
                            + "--rebase-time now",
                    Instant.ofEpochMilli(first),
                    retention.toDays());
        } else if (retention == null && first < now - DEFAULT_RETENTION.toMillis()) {
            log.warn(
                    "replay: the window's first sample ({}) is older than a month, VictoriaMetrics' default retention; "
                            + "the target's retention could not be read: if it is shorter, its samples are dropped - replay with "
                            + "--rebase-time now",
                    Instant.ofEpochMilli(first));
        }
    }

    /** Wakes the probe's consumer, if one is polling (the replay's stop; any thread). */
    void wakeup() {
        KafkaConsumer<byte[], byte[]> p = probe;
        if (p != null) {
            p.wakeup();
        }
    }
}
