package io.tsdbwriter.encode.vmimport;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesVariants;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.wire.ByteBuf;
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
 * from {@link io.tsdbwriter.decode.json.PointDecoder}-validated names, values are finite, strings are JSON-escaped.
 *
 * <p>Not thread-safe: one per encoding thread. It keeps the text of the last line's M timestamps, which every series
 * of one scrape (the same source timestamp) writes again as a copy instead of M formatted numbers.
 */
public final class ImportLineEncoder {

    private static final byte[] VALUES_END_TIMESTAMPS_START = "],\"timestamps\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LINE_END = "]}\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] METRIC_START = "{\"metric\":{\"__name__\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NAME_VALUE_SEPARATOR = "\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LABELS_END_VALUES_START = "},\"values\":[".getBytes(StandardCharsets.US_ASCII);

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
        return new SeriesLines(prepareLines(metric, labelNames, labelValues, from, to), 0);
    }

    /**
     * {@link #prepare} as bytes, to be kept with the series' key in one array (see
     * {@link io.tsdbwriter.amplify.SeriesCache}): {@code [N: 4 bytes][length of prefix 0: 4 bytes][prefix 0]…},
     * integers big-endian. Read by {@link #encodePoint(byte[], int, long, byte[], ByteBuf)}.
     */
    public byte[] prepareLines(String metric, String[] labelNames, String[] labelValues, int from, int to) {
        return prepareLines(metric, labelNames, labelValues, from, to, null);
    }

    /** {@link #prepareLines(String, String[], String[], int, int)} in one churn generation ({@code -g3}; null = none). */
    public byte[] prepareLines(
            String metric, String[] labelNames, String[] labelValues, int from, int to, String instanceSuffix) {
        return SeriesVariants.build(
                plan, labelNames, labelValues, from, to, instanceSuffix, (names, values, count, line) -> {
                    write(line, "{\"metric\":{\"__name__\":");
                    writeString(line, metric);
                    for (int i = 0; i < count; i++) {
                        writeLabel(line, names[i], values[i]);
                    }
                    write(line, "},\"values\":[");
                });
    }

    /**
     * Appends the N lines (M samples each) of one source point to {@code out}.
     *
     * @param valueText the point's value as a JSON number in ASCII, from {@link #formatValue(double)}
     * @return samples written (M × N)
     */
    public int encodePoint(SeriesLines series, long timestampMs, byte[] valueText, ByteBuf out) {
        return encodePoint(series.bytes, series.offset, timestampMs, valueText, valueText.length, out);
    }

    /**
     * Appends the N lines (M samples each) of one source point to {@code out}, its series' line prefixes read from
     * {@code lines} at {@code at} (the layout of {@link #prepareLines}).
     *
     * @param valueText   the point's value as a JSON number in ASCII ({@link ValueText}, {@link #formatValue(double)})
     * @param valueLength its length in bytes
     * @return samples written (M × N)
     */
    public int encodePoint(byte[] lines, int at, long timestampMs, byte[] valueText, int valueLength, ByteBuf out) {
        int n = SeriesVariants.count(lines, at);
        int pos = SeriesVariants.first(at);
        for (int j = 0; j < n; j++) {
            out.put(lines, pos + 4, SeriesVariants.length(lines, pos));
            pos = SeriesVariants.next(lines, pos);
            writeSamples(timestampMs, valueText, 0, valueLength, out);
        }
        return offsets.length * n;
    }

    /**
     * At N = 1, appends point {@code p}'s one line of M samples to {@code out}, its metric name and labels copied
     * verbatim from the decoded record — no series lookup: at N = 1 the only variant is the point's own labels, as
     * they are (no instance label added, DESIGN §3), so the line prefix costs one copy of bytes the decoder just read,
     * less than a lookup over hundreds of thousands of series (docs/benchmarks-archive.md).
     *
     * @param valueText   holds the point's value as a JSON number in ASCII at {@code valueOffset}: {@link ValueText}'s,
     *                    or the record's own text ({@link DecodedPoints#valueTextLength})
     * @param valueLength its length in bytes
     * @throws IllegalStateException when N ≠ 1 or the record's strings are not {@link DecodedPoints#jsonSafe()}
     * @return samples written (M)
     */
    public int encodePointVerbatim(
            DecodedPoints points, int p, byte[] valueText, int valueOffset, int valueLength, ByteBuf out) {
        if (plan.instanceMultiplier() != 1 || !points.jsonSafe()) {
            throw new IllegalStateException("verbatim encoding needs N = 1 and JSON-safe strings");
        }
        byte[] a = points.arena();
        out.put(METRIC_START);
        out.put(a, points.metricOffset(p), points.metricLength(p));
        out.put((byte) '"');
        // the labels as the record had them: VictoriaMetrics sorts a series' labels itself
        for (int i = points.labelStartAsRead(p), end = points.labelEndAsRead(p); i < end; i++) {
            out.put((byte) ',')
                    .put((byte) '"')
                    .put(a, points.nameOffset(i), points.nameLength(i))
                    .put(NAME_VALUE_SEPARATOR);
            out.put(a, points.valueOffset(i), points.valueLength(i)).put((byte) '"');
        }
        out.put(LABELS_END_VALUES_START);
        writeSamples(points.timestampMs(p), valueText, valueOffset, valueLength, out);
        return offsets.length;
    }

    private void writeSamples(long timestampMs, byte[] valueText, int valueOffset, int valueLength, ByteBuf out) {
        long[] offs = offsets;
        int m = offs.length;
        if (timestampMs != timestampsOf) { // the series of one scrape share their timestamp: its M-timestamp text too
            timestampsText.reset();
            timestampsText.putLongs(timestampMs, offs);
            timestampsOf = timestampMs;
        }
        int timestampsLength = timestampsText.length();
        // the rest of the line with one capacity check (a put per value and comma was 5 % of M=12's CPU samples)
        byte[] a = out.reserve(
                m * (valueLength + 1) + VALUES_END_TIMESTAMPS_START.length + timestampsLength + LINE_END.length);
        int w = out.length();
        for (int i = 0; i < m; i++) {
            if (i > 0) {
                a[w++] = ',';
            }
            for (int j = 0; j < valueLength; j++) { // a value is a few bytes: a loop beats arraycopy's call
                a[w + j] = valueText[valueOffset + j];
            }
            w += valueLength;
        }
        System.arraycopy(VALUES_END_TIMESTAMPS_START, 0, a, w, VALUES_END_TIMESTAMPS_START.length);
        w += VALUES_END_TIMESTAMPS_START.length;
        System.arraycopy(timestampsText.array(), 0, a, w, timestampsLength);
        w += timestampsLength;
        System.arraycopy(LINE_END, 0, a, w, LINE_END.length);
        w += LINE_END.length;
        out.advance(w - out.length());
    }

    /** The text of the M timestamps of the line last written ({@link ByteBuf#putLongs}), and its source timestamp. */
    private final ByteBuf timestampsText = new ByteBuf(256);

    private long timestampsOf = Long.MIN_VALUE;

    /**
     * The value as a JSON number in ASCII: integral values within ±2^53 without a fraction, others in Java's
     * shortest round-trip form ({@link Double#toString}), which VictoriaMetrics parses back to the same double.
     * Called once per source point.
     *
     * ±Inf as {@code +Inf}/{@code -Inf} ({@link ValueText#set}).
     *
     * @throws IllegalArgumentException when {@code v} is NaN (the import API drops it)
     */
    public static byte[] formatValue(double v) {
        if (Double.isInfinite(v)) {
            return (v > 0 ? "+Inf" : "-Inf").getBytes(StandardCharsets.US_ASCII);
        }
        if (Double.isNaN(v)) {
            throw new IllegalArgumentException("NaN has no form the import API stores");
        }
        String s;
        if (isPlainInteger(v)) {
            s = Long.toString((long) v);
        } else {
            s = Double.toString(v);
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Integral, within ±2^53 and not -0.0: written without a fraction. */
    static boolean isPlainInteger(double v) {
        return v == Math.rint(v) && Math.abs(v) < 9.007199254740992E15 && !(v == 0 && 1 / v < 0);
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
