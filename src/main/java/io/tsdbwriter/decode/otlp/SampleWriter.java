package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampCheck;
import io.tsdbwriter.decode.TimestampWindow;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where the OTLP data points' samples go: the record's {@link DecodedPoints} arena and {@link Rejections}, the label
 * stack the attributes are pushed on (resource, then scope, then data point: each level popped back to its mark when
 * done), the current metric's name and its {@code _count}/{@code _sum}/{@code _bucket} variants, and the checks a data
 * point passes before its samples are written (the "no recorded value" flag, a finite value, the plausible-timestamp
 * window; cumulative temporality). A sample is the metric name given plus every label of the stack with a non-empty
 * value, as VictoriaMetrics' OpenTelemetry mapping drops empty labels; of duplicate names the last wins
 * ({@link DecodedPoints#canonicalize}).
 *
 * <p>No allocation per sample: the stack holds arena ranges (name offset, length, value offset, length), names and
 * constants are copied into the arena once per record or metric. Refusal details are built only when
 * {@link Rejections#wantsDetail} asks for them.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}, holding the record being decoded.
 */
final class SampleWriter {

    // constants copied into the arena once per record, by slot (constant(slot), length(slot))
    static final int SCOPE_NAME = 0;
    static final int UNKNOWN = 1;
    static final int SCOPE_VERSION = 2;
    static final int SCOPE_ATTRIBUTES = 3;
    static final int TRUE = 4;
    static final int FALSE = 5;
    static final int LE = 6;
    static final int INF = 7;
    static final int VMRANGE = 8;
    static final int QUANTILE = 9;
    private static final byte[][] CONSTANTS = {
        ascii("scope.name"),
        ascii("unknown"),
        ascii("scope.version"),
        ascii("scope.attributes"),
        ascii("true"),
        ascii("false"),
        ascii("le"),
        ascii("+Inf"),
        ascii("vmrange"),
        ascii("quantile")
    };
    private static final byte[][] SUFFIXES = {ascii("_count"), ascii("_sum"), ascii("_bucket")};
    private static final int TEMPORALITY_DELTA = 1;

    private final WireReader wire;
    private final TimestampWindow window;
    private final TimestampCheck timestamps;

    // per record
    DecodedPoints out;
    Rejections rejections;
    private long kafkaTimestampMs;
    private final int[] constOff = new int[CONSTANTS.length];

    // the label stack: arena ranges nameOff, nameLen, valueOff, valueLen
    private int[] stack = new int[64 * 4];
    private int top;

    // the current metric's names in the arena: base, _count, _sum, _bucket (-1 until needed)
    private int metricOff;
    private int metricLen;
    private final int[] suffixOff = new int[3];
    private final int[] suffixLen = new int[3];
    private String metricText;

    private final byte[] digits = new byte[24];
    /** The current data point's start timestamp in epoch ms ({@link #startTime}), 0 for none. */
    private long startMs;

    SampleWriter(WireReader wire, TimestampWindow window) {
        this.wire = wire;
        this.window = window;
        this.timestamps = new TimestampCheck(window);
    }

    /** Starts a record: samples into {@code out}, refusals into {@code rejections}; the arena constants not yet copied. */
    void start(DecodedPoints out, Rejections rejections, long kafkaTimestampMs) {
        this.out = out;
        this.rejections = rejections;
        this.kafkaTimestampMs = kafkaTimestampMs;
        this.stale = false;
        this.startMs = 0;
        Arrays.fill(constOff, -1);
    }

    /** Ends a record (its arena and rejections are the caller's again). */
    void finish() {
        this.out = null;
        this.rejections = null;
    }

    // ------------------------------------------------------------------ the label stack

    /** The stack's height, for {@link #restore}. */
    int mark() {
        return top;
    }

    /** Pops the stack back to {@code mark}. */
    void restore(int mark) {
        top = mark;
    }

    void push(int nameOff, int nameLen, int valueOff, int valueLen) {
        if ((top + 1) * 4 > stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
        }
        int k = top++ * 4;
        stack[k] = nameOff;
        stack[k + 1] = nameLen;
        stack[k + 2] = valueOff;
        stack[k + 3] = valueLen;
    }

    /** Pushes a label whose value is {@code x} in decimal, written straight into the arena. */
    void pushLong(int nameOff, int nameLen, long x) {
        byte[] d = digits;
        int n = d.length;
        long r = x;
        do {
            d[--n] = (byte) ('0' + Math.abs(r % 10));
            r /= 10;
        } while (r != 0);
        if (x < 0) {
            d[--n] = '-';
        }
        int len = d.length - n;
        push(nameOff, nameLen, out.copy(d, n, len), len);
    }

    void pushText(int nameOff, int nameLen, String value) {
        int off = out.copy(value);
        push(nameOff, nameLen, off, out.lastLength());
    }

    /** Sets the value of stack entry {@code i} to the arena range {@code [off, off + len)}. */
    void setValue(int i, int off, int len) {
        stack[i * 4 + 2] = off;
        stack[i * 4 + 3] = len;
    }

    /** Sets the value of stack entry {@code i} to {@code text} (copied into the arena). */
    void setText(int i, String text) {
        stack[i * 4 + 2] = out.copy(text);
        stack[i * 4 + 3] = out.lastLength();
    }

    int valueOffset(int i) {
        return stack[i * 4 + 2];
    }

    int valueLength(int i) {
        return stack[i * 4 + 3];
    }

    /** The arena offset of constant {@code slot}, copied once per record. */
    int constant(int slot) {
        if (constOff[slot] < 0) {
            constOff[slot] = out.copy(CONSTANTS[slot], 0, CONSTANTS[slot].length);
        }
        return constOff[slot];
    }

    /** The byte length of constant {@code slot}. */
    static int length(int slot) {
        return CONSTANTS[slot].length;
    }

    // ------------------------------------------------------------------ the metric

    /** The current metric's name is the arena range {@code [off, off + len)}; {@code off} -1 when it has none. */
    void metric(int off, int len) {
        metricOff = off;
        metricLen = len;
        suffixOff[0] = suffixOff[1] = suffixOff[2] = -1;
        metricText = null;
    }

    boolean hasMetric() {
        return metricOff >= 0;
    }

    int metricOffset() {
        return metricOff;
    }

    int metricLength() {
        return metricLen;
    }

    /** The arena offset of the current metric's name + suffix k (0 {@code _count}, 1 {@code _sum}, 2 {@code _bucket}). */
    int suffix(int k) {
        if (suffixOff[k] < 0) {
            byte[] sfx = SUFFIXES[k];
            byte[] a = out.arenaForWrite(metricLen + sfx.length);
            int at = out.arenaLength();
            System.arraycopy(a, metricOff, a, at, metricLen);
            System.arraycopy(sfx, 0, a, at + metricLen, sfx.length);
            suffixLen[k] = metricLen + sfx.length;
            suffixOff[k] = out.commitArena(suffixLen[k]);
        }
        return suffixOff[k];
    }

    /** The length of the name {@link #suffix suffix(k)} returned. */
    int suffixLength(int k) {
        return suffixLen[k];
    }

    /** The current metric's name as text, for refusal details (made once per metric, when first asked). */
    String metricText() {
        if (metricText == null) {
            metricText = metricOff < 0 ? "" : new String(out.arena(), metricOff, metricLen, StandardCharsets.UTF_8);
        }
        return metricText;
    }

    // ------------------------------------------------------------------ samples

    /**
     * Sets the start timestamp of the data point whose samples come next from its {@code start_time_unix_nano} (÷ 10^6,
     * epoch ms; OTLP's 0 = unset): each of its samples carries it ({@link DecodedPoints#setStartTimestamp}: dropped
     * unless earlier than the sample's timestamp), as Prometheus' OTLP receiver appends them with it. 0 for a data point
     * without one (a gauge's: the OTLP data model ignores it). Set per data point, before its samples.
     */
    void startTime(long startTimeUnixNano) {
        startMs = startTimeUnixNano == 0 ? 0 : Long.divideUnsigned(startTimeUnixNano, 1_000_000L);
    }

    /** A data point's timestamp in epoch ms: {@code time_unix_nano} ÷ 10^6, the Kafka record's when it has none. */
    long timestamp(long timeUnixNano) {
        return timeUnixNano == 0 ? kafkaTimestampMs : Long.divideUnsigned(timeUnixNano, 1_000_000L);
    }

    /**
     * Whether the Sum, Histogram or ExponentialHistogram message {@code [s, e)} is delta: then each of its data points
     * is refused ({@link DecodeError#UNSUPPORTED_TEMPORALITY}: cumulative only).
     */
    boolean refuseDelta(int s, int e, String kind) {
        if (wire.temporality(s, e) != TEMPORALITY_DELTA) {
            return false;
        }
        int points = wire.dataPoints(s, e);
        for (int i = 0; i < points; i++) {
            rejections.add(
                    DecodeError.UNSUPPORTED_TEMPORALITY,
                    rejections.wantsDetail(DecodeError.UNSUPPORTED_TEMPORALITY)
                            ? "delta " + kind + " '" + metricText()
                                    + "': cumulative only (the Collector's deltatocumulative processor converts)"
                            : "");
        }
        return true;
    }

    /**
     * Whether a data point's samples may be written: its flags and timestamp; refusals counted. A point flagged
     * {@code DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK} is a staleness marker: where the output carries NaN
     * ({@link Rejections.NonFinite#KEEP}) each of its samples is written as Prometheus' marker, as Prometheus' own OTLP
     * receiver does; elsewhere it is counted and skipped.
     */
    boolean admit(long ts, int flags, double value) {
        stale = false;
        if ((flags & 1) != 0) { // DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK: a staleness marker
            if (rejections.skips(STALE_MARKER)) {
                rejections.add(
                        DecodeError.NON_FINITE_VALUE,
                        rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                                ? "'" + metricText() + "': no recorded value (a staleness marker) skipped"
                                : "");
                return false;
            }
            stale = true;
        }
        if (rejections.skips(value)) {
            rejections.add(
                    DecodeError.NON_FINITE_VALUE,
                    rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                            ? "'" + metricText() + "': value " + value + " skipped"
                            : "");
            return false;
        }
        if (ts < 0 || !timestamps.contains(ts)) {
            rejections.add(
                    DecodeError.IMPLAUSIBLE_TIMESTAMP,
                    rejections.wantsDetail(DecodeError.IMPLAUSIBLE_TIMESTAMP)
                            ? "'" + metricText() + "': " + window.describe(ts)
                            : "");
            return false;
        }
        return true;
    }

    /**
     * {@link #emit} for a value that may be NaN or infinite (a sum, a quantile): such a sample is counted, not written,
     * where the output cannot carry it.
     */
    void emitChecked(int nameOff, int nameLen, long ts, double value) {
        if (!stale && rejections.skips(value)) {
            rejections.add(
                    DecodeError.NON_FINITE_VALUE,
                    rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                            ? "'" + metricText() + "': value " + value + " skipped"
                            : "");
            return;
        }
        emit(nameOff, nameLen, ts, value);
    }

    /** One point: the metric name given, every label of the stack (empty values dropped), canonical order. */
    void emit(int nameOff, int nameLen, long ts, double value) {
        point(nameOff, nameLen, ts, stale ? STALE_MARKER : value);
    }

    /**
     * One native histogram point: the current metric's name, every label of the stack (as {@link #emit}); its
     * histogram is begun ({@link io.tsdbwriter.decode.PointHistograms#begin}), the caller writes its fields and ends it.
     */
    void beginHistogram(long ts) {
        int pt = point(metricOff, metricLen, ts, 0);
        out.histograms().begin(pt);
    }

    /** Whether the data point {@link #admit} let through last is a staleness marker. */
    boolean stale() {
        return stale;
    }

    private int point(int nameOff, int nameLen, long ts, double value) {
        DecodedPoints o = out;
        int pt = o.begin();
        o.setMetric(pt, nameOff, nameLen);
        int[] st = stack;
        for (int k = 0, n = top * 4; k < n; k += 4) {
            if (st[k + 3] > 0) {
                o.addLabel(pt, st[k], st[k + 1], st[k + 2], st[k + 3]);
            }
        }
        o.set(pt, ts, value);
        if (startMs != 0) {
            o.setStartTimestamp(pt, startMs);
        }
        o.canonicalize(pt);
        o.exemplars().none(pt); // a point index a refused data point used is not left with its exemplar
        return pt;
    }

    /** Prometheus' staleness marker. */
    private static final double STALE_MARKER = Double.longBitsToDouble(Rejections.STALE_MARKER_BITS);
    /** The data point being written is a staleness marker: its samples carry {@link #STALE_MARKER}. */
    private boolean stale;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
