package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.PointExemplars;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A data point's exemplar ({@code metrics.proto} {@code Exemplar}: {@code filtered_attributes} = 7,
 * {@code time_unix_nano} = 2, {@code as_double} = 3 or {@code as_int} = 6, {@code span_id} = 4, {@code trace_id} = 5)
 * into the record's {@link PointExemplars}, as Prometheus' OTLP translator makes it: the string-valued filtered
 * attributes as labels (other value kinds are left out), then {@code span_id} and {@code trace_id} in lower-case hex
 * when present; its time in ms (the data point's when it has none). Which exemplars of a data point are kept, and
 * for which point, is the caller's ({@link NumberPoints}: the first; {@link HistogramPoints},
 * {@link ExponentialHistogramPoints}: all). Read per exemplar kept; allocates nothing.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class OtlpExemplars {

    private static final byte[] SPAN_ID = "span_id".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRACE_ID = "trace_id".getBytes(StandardCharsets.US_ASCII);

    private final WireReader w;

    // the exemplars of the data point being read (collect): per exemplar its message's start and end, and its value
    private int[] ranges = new int[16];
    private double[] values = new double[8];
    private int collected;

    OtlpExemplars(WireReader wire) {
        this.w = wire;
    }

    /** Starts a data point: none of its exemplars collected. */
    void reset() {
        collected = 0;
    }

    /** Collects the data point's {@code Exemplar} message {@code [s, e)}, in the order the data point lists them. */
    void collect(int s, int e) {
        if (collected == values.length) {
            values = Arrays.copyOf(values, collected * 2);
            ranges = Arrays.copyOf(ranges, collected * 4);
        }
        ranges[collected * 2] = s;
        ranges[collected * 2 + 1] = e;
        values[collected++] = value(s, e);
    }

    /** Exemplars collected for the data point. */
    int collected() {
        return collected;
    }

    /**
     * Keeps the collected exemplars from the {@code next}th on as point {@code p}'s while their value is not above
     * {@code bound} (a NaN value is not), stopping at the first that is, as Prometheus' OTLP translator walks a
     * histogram's exemplars along its buckets; the point's exemplars then ordered by time ({@link
     * PointExemplars#sortByTime}). With {@code bound} {@code +Inf} all the rest are kept.
     *
     * @param pointTs the data point's timestamp, epoch ms
     * @return the index of the first exemplar not kept
     */
    int keepUpTo(int next, double bound, int p, long pointTs, PointExemplars out) {
        int from = next;
        for (; next < collected && !(values[next] > bound); next++) {
            keep(ranges[next * 2], ranges[next * 2 + 1], p, next > from, pointTs, out);
        }
        if (next - from > 1) {
            out.sortByTime(p);
        }
        return next;
    }

    /**
     * Keeps the {@code Exemplar} message {@code [s, e)} of the record being read as point {@code p}'s: its first, or
     * (when {@code another}) a further one after those kept for {@code p} just before ({@link PointExemplars#another}).
     *
     * @param pointTs the data point's timestamp, epoch ms
     */
    void keep(int s, int e, int p, boolean another, long pointTs, PointExemplars out) {
        WireReader w = this.w;
        byte[] b = w.buf;
        if (another) {
            out.another(p);
        } else {
            out.begin(p);
        }
        long time = 0;
        double value = 0;
        int span = -1;
        int spanLen = 0;
        int trace = -1;
        int traceLen = 0;
        for (int q = s; q < e; ) {
            q = w.varint(q, e);
            int t = (int) w.v;
            switch (t) {
                case 2 << 3 | 1 -> {
                    time = w.fixed64(q, e);
                    q += 8;
                }
                case 3 << 3 | 1 -> {
                    value = Double.longBitsToDouble(w.fixed64(q, e));
                    q += 8;
                }
                case 6 << 3 | 1 -> {
                    value = w.fixed64(q, e);
                    q += 8;
                }
                case 4 << 3 | 2, 5 << 3 | 2, 7 << 3 | 2 -> {
                    q = w.varint(q, e);
                    int end = w.end(q, e);
                    if (t == (4 << 3 | 2)) {
                        span = q;
                        spanLen = end - q;
                    } else if (t == (5 << 3 | 2)) {
                        trace = q;
                        traceLen = end - q;
                    } else {
                        attribute(q, end, out);
                    }
                    q = end;
                }
                default -> q = w.skip(q, e, t);
            }
        }
        if (spanLen > 0) {
            out.labelHex(SPAN_ID, b, span, spanLen);
        }
        if (traceLen > 0) {
            out.labelHex(TRACE_ID, b, trace, traceLen);
        }
        out.end(value, time == 0 ? pointTs : Math.floorDiv(time, 1_000_000L));
    }

    /** The value of the {@code Exemplar} message {@code [s, e)}: {@code as_double} or {@code as_int}, 0 when neither. */
    double value(int s, int e) {
        WireReader w = this.w;
        double value = 0;
        for (int q = s; q < e; ) {
            q = w.varint(q, e);
            int t = (int) w.v;
            if (t == (3 << 3 | 1)) {
                value = Double.longBitsToDouble(w.fixed64(q, e));
                q += 8;
            } else if (t == (6 << 3 | 1)) {
                value = w.fixed64(q, e);
                q += 8;
            } else {
                q = w.skip(q, e, t);
            }
        }
        return value;
    }

    /** A {@code KeyValue} {@code [s, e)}: a label when its value is a string ({@code AnyValue.string_value} = 1). */
    private void attribute(int s, int e, PointExemplars out) {
        int key = -1;
        int keyLen = 0;
        int value = -1;
        int valueLen = 0;
        for (int q = s; q < e; ) {
            q = w.varint(q, e);
            int t = (int) w.v;
            if (t == (1 << 3 | 2) || t == (2 << 3 | 2)) {
                q = w.varint(q, e);
                int end = w.end(q, e);
                if (t == (1 << 3 | 2)) {
                    key = q;
                    keyLen = end - q;
                } else {
                    for (int r = q; r < end; ) { // AnyValue: string_value = 1 only
                        r = w.varint(r, end);
                        int at = (int) w.v;
                        if (at == (1 << 3 | 2)) {
                            r = w.varint(r, end);
                            value = r;
                            valueLen = w.end(r, end) - r;
                            r += valueLen;
                        } else {
                            r = w.skip(r, end, at);
                        }
                    }
                }
                q = end;
            } else {
                q = w.skip(q, e, t);
            }
        }
        if (keyLen > 0 && value >= 0 && valueLen > 0) {
            w.utf8(key, key + keyLen, "exemplar attribute key");
            w.utf8(value, value + valueLen, "exemplar attribute value");
            out.label(w.buf, key, keyLen, value, valueLen, false);
        }
    }
}
