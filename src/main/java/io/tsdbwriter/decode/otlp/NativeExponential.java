package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.PointHistograms;
import java.util.Arrays;

/**
 * An OTLP exponential histogram data point as a Prometheus native histogram, the mapping of Prometheus' own OTLP
 * receiver ({@code storage/remote/otlptranslator/prometheusremotewrite/histograms.go}): the scale is the schema; a scale
 * above 8 becomes schema 8, each 2^(scale − 8) adjacent buckets merged into one; a scale below −4 has no schema and is
 * refused by the caller ({@link #MIN_SCALE}). OTLP bucket {@code o + i} of a {@code Buckets} message with offset
 * {@code o} spans {@code (base^(o+i), base^(o+i+1)]}, Prometheus' bucket k spans {@code (base^(k−1), base^k]}: so its
 * index is {@code ((o + i) >> (scale − schema)) + 1}. The non-empty buckets become spans of integer count deltas
 * ({@link NativeSpans}); empty buckets at either end of the range are left out. The count is an integer count, the sum
 * is set when the point has one, the reset hint is {@code UNKNOWN}; the zero bucket keeps the point's
 * {@code zero_count}, its threshold is the point's {@code zero_threshold}, or Prometheus' default 1e-128 when the point
 * gives none (0). A staleness marker (no recorded value) carries Prometheus' stale NaN as sum and its bits as count, as
 * the receiver writes it.
 *
 * <p>Allocates nothing once its scratch arrays have grown. Not thread-safe: one per {@link ExponentialHistogramPoints}.
 */
final class NativeExponential {

    /** The smallest scale a native histogram schema has. */
    static final int MIN_SCALE = -4;
    /** The largest. */
    static final int MAX_SCALE = 8;
    /** Prometheus' zero threshold for an OTLP point that gives none. */
    static final double DEFAULT_ZERO_THRESHOLD = 1e-128;

    /** Prometheus' stale NaN: a staleness marker's sum, and its bits its count. */
    static final long STALE_NAN_BITS = 0x7ff0000000000002L;

    private final WireReader w;
    private final NativeSpans layout = new NativeSpans();
    private long[] counts = new long[64];
    private int countN;

    NativeExponential(WireReader wire) {
        this.w = wire;
    }

    /**
     * Writes the open histogram of {@code out} (its point begun by the caller): every field of
     * {@link PointHistograms} but the timestamp.
     *
     * @param scale the point's scale, at least {@link #MIN_SCALE}
     * @param posStart the positive {@code Buckets} message's range, -1 when absent; likewise {@code negStart}
     */
    void write(
            PointHistograms out,
            long count,
            boolean hasSum,
            double sum,
            boolean stale,
            int scale,
            double zeroThreshold,
            long zeroCount,
            int posStart,
            int posEnd,
            int negStart,
            int negEnd) {
        int schema = Math.min(scale, MAX_SCALE);
        int scaleDown = scale - schema;
        out.putVarint(PointHistograms.COUNT_INT, stale ? STALE_NAN_BITS : count);
        if (stale) {
            out.putDouble(PointHistograms.SUM, Double.longBitsToDouble(STALE_NAN_BITS), true);
        } else if (hasSum) {
            out.putDouble(PointHistograms.SUM, sum, false);
        }
        out.putSint(PointHistograms.SCHEMA, schema);
        out.putDouble(
                PointHistograms.ZERO_THRESHOLD, zeroThreshold > 0 ? zeroThreshold : DEFAULT_ZERO_THRESHOLD, false);
        out.putVarint(PointHistograms.ZERO_COUNT_INT, zeroCount);
        if (negStart >= 0 && layout(negStart, negEnd, scaleDown)) {
            layout.put(out, PointHistograms.NEGATIVE_SPANS, PointHistograms.NEGATIVE_DELTAS);
        }
        if (posStart >= 0 && layout(posStart, posEnd, scaleDown)) {
            layout.put(out, PointHistograms.POSITIVE_SPANS, PointHistograms.POSITIVE_DELTAS);
        }
    }

    /**
     * Reads the {@code Buckets} message {@code [s, e)} ({@code sint32 offset = 1; repeated uint64 bucket_counts = 2})
     * into spans and deltas at {@code 2^scaleDown} OTLP buckets per native bucket; false when no bucket is non-empty.
     */
    private boolean layout(int s, int e, int scaleDown) {
        WireReader w = this.w;
        int offset = 0;
        countN = 0;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (1 << 3)) {
                p = w.varint(p, e);
                offset = (int) (w.v >>> 1) ^ -(int) (w.v & 1);
            } else if (tag == (2 << 3 | 2)) { // packed
                p = w.varint(p, e);
                int pe = w.end(p, e);
                while (p < pe) {
                    p = w.varint(p, pe);
                    addCount(w.v);
                }
            } else if (tag == (2 << 3)) {
                p = w.varint(p, e);
                addCount(w.v);
            } else {
                p = w.skip(p, e, tag);
            }
        }
        return layout(counts, countN, offset, scaleDown);
    }

    private void addCount(long c) {
        if (countN == counts.length) {
            counts = Arrays.copyOf(counts, countN * 2);
        }
        counts[countN++] = c;
    }

    /** Spans and deltas of {@code bucketCounts[0, n)} from OTLP index {@code offset}; false when all are empty. */
    boolean layout(long[] bucketCounts, int n, int offset, int scaleDown) {
        layout.clear();
        int index = Integer.MIN_VALUE;
        long merged = 0;
        for (int i = 0; i < n; i++) {
            int k = ((offset + i) >> scaleDown) + 1;
            if (k != index) {
                if (merged != 0) {
                    layout.bucket(index, merged);
                }
                index = k;
                merged = 0;
            }
            merged += bucketCounts[i];
        }
        if (merged != 0) {
            layout.bucket(index, merged);
        }
        return !layout.isEmpty();
    }

    /** Spans made by the last {@link #layout}: offset and length of span k at {@code [2k, 2k + 1]}. */
    int[] spans() {
        return layout.spans();
    }

    /** Deltas made by the last {@link #layout}. */
    long[] deltas() {
        return layout.deltas();
    }
}
