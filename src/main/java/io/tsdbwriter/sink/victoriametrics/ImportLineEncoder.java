package io.tsdbwriter.sink.victoriametrics;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.tsdbwriter.amplify.AmplificationPlan;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes amplified samples as VictoriaMetrics JSON lines for {@code /api/v1/import}
 * (VictoriaMetrics docs, "How to import data in JSON line format"): one line per series variant carrying the M
 * samples of one source point:
 * <pre>{"metric":{"__name__":"m","a":"b","instanceNo":"host-3"},"values":[v,v,…],"timestamps":[t0,t1,…]}\n</pre>
 *
 * <p>Label prefixes are built once per series ({@link #prepare}); {@link #encodePoint} allocates nothing per
 * sample (it formats the value once per point and the timestamps as ASCII digits straight into the buffer).
 * VictoriaMetrics answers 204 even for a line it skips, so this encoder only emits well-formed lines: labels come
 * from {@link io.tsdbwriter.record.PointDecoder}-validated names, values are finite, strings are JSON-escaped.
 *
 * <p>Immutable and thread-safe.
 */
public final class ImportLineEncoder {

    private static final byte[] VALUES_END_TIMESTAMPS_START = "],\"timestamps\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LINE_END = "]}\n".getBytes(StandardCharsets.US_ASCII);

    private final AmplificationPlan plan;
    /** {@code plan.sampleTimestampMs(t, i) - t} for each i: the per-sample offsets, computed once. */
    private final long[] offsets;

    /** @param plan the amplification plan whose M and N lines are encoded for */
    public ImportLineEncoder(AmplificationPlan plan) {
        this.plan = plan;
        this.offsets = new long[plan.timeMultiplier()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = plan.sampleTimestampMs(0, i);
        }
    }

    /** The plan this encoder follows. */
    public AmplificationPlan plan() {
        return plan;
    }

    /**
     * Builds the N line prefixes of a series: called once per series.
     *
     * @param metric      metric name (valid Prometheus name)
     * @param labelNames  label names, sorted, valid, unique in {@code [from, to)}
     * @param labelValues label values alongside
     */
    public SeriesLines prepare(String metric, String[] labelNames, String[] labelValues, int from, int to) {
        String original = null;
        for (int i = from; i < to; i++) {
            if (AmplificationPlan.INSTANCE_LABEL.equals(labelNames[i])) {
                original = labelValues[i];
            }
        }
        String[] variants = plan.instanceVariants(original);
        byte[][] prefixes = new byte[variants.length][];
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        for (int j = 0; j < variants.length; j++) {
            out.reset();
            write(out, "{\"metric\":{\"__name__\":");
            writeString(out, metric);
            boolean instanceWritten = false;
            for (int i = from; i < to; i++) {
                String name = labelNames[i];
                if (!instanceWritten && name.compareTo(AmplificationPlan.INSTANCE_LABEL) >= 0) {
                    writeLabel(out, AmplificationPlan.INSTANCE_LABEL, variants[j]);
                    instanceWritten = true;
                    if (name.equals(AmplificationPlan.INSTANCE_LABEL)) {
                        continue;
                    }
                }
                writeLabel(out, name, labelValues[i]);
            }
            if (!instanceWritten) {
                writeLabel(out, AmplificationPlan.INSTANCE_LABEL, variants[j]);
            }
            write(out, "},\"values\":[");
            prefixes[j] = out.toByteArray();
        }
        return new SeriesLines(prefixes);
    }

    /**
     * Appends the N lines (M samples each) of one source point to {@code out}.
     *
     * @param valueText the point's value as a JSON number in ASCII, from {@link #formatValue(double)}
     * @return samples written (M × N)
     */
    public int encodePoint(SeriesLines series, long timestampMs, byte[] valueText, ByteBuf out) {
        long[] offs = offsets;
        int m = offs.length;
        byte[][] prefixes = series.prefixes;
        for (byte[] prefix : prefixes) {
            out.put(prefix);
            for (int i = 0; i < m; i++) {
                if (i > 0) {
                    out.put((byte) ',');
                }
                out.put(valueText);
            }
            out.put(VALUES_END_TIMESTAMPS_START);
            for (int i = 0; i < m; i++) {
                if (i > 0) {
                    out.put((byte) ',');
                }
                out.putLong(timestampMs + offs[i]);
            }
            out.put(LINE_END);
        }
        return m * prefixes.length;
    }

    /**
     * The value as a JSON number in ASCII: integral values within ±2^53 without a fraction, others in Java's
     * shortest round-trip form ({@link Double#toString}), which VictoriaMetrics parses back to the same double.
     * Called once per source point.
     *
     * @throws IllegalArgumentException when {@code v} is NaN or infinite (not a JSON number)
     */
    public static byte[] formatValue(double v) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("not a JSON number: " + v);
        }
        String s;
        if (v == Math.rint(v) && Math.abs(v) < 9.007199254740992E15 && !(v == 0 && 1 / v < 0)) {
            s = Long.toString((long) v);
        } else {
            s = Double.toString(v);
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void writeLabel(ByteArrayOutputStream out, String name, String value) {
        out.write(',');
        writeString(out, name);
        out.write(':');
        writeString(out, value);
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        out.write('"');
        byte[] b = JsonStringEncoder.getInstance().quoteAsUTF8(s);
        out.write(b, 0, b.length);
        out.write('"');
    }

    private static void write(ByteArrayOutputStream out, String ascii) {
        byte[] b = ascii.getBytes(StandardCharsets.US_ASCII);
        out.write(b, 0, b.length);
    }
}
