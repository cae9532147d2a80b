package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.PointHistograms;

/**
 * An OTLP explicit-bucket histogram data point as a Prometheus native histogram with custom buckets (NHCB), the mapping
 * of Prometheus' own OTLP receiver with {@code otlp: convert_histograms_to_nhcb: true}
 * ({@code storage/remote/otlptranslator/prometheusremotewrite/histograms.go}): schema −53, the explicit bounds as they
 * are the custom values (the {@code +Inf} bucket is implied), bucket i (counting from 0, {@code (bound[i−1],
 * bound[i]]}) native bucket i of the positive side, no zero bucket (its count 0, no threshold), no negative side. The
 * spans ({@link NativeSpans}) start at the first non-empty bucket and cover every non-empty one and always the last
 * (the {@code +Inf} bucket, empty or not) as the receiver lays them out; a point whose buckets are all empty has none.
 * The count is an integer count, the sum is set when the point has one, the reset hint is {@code UNKNOWN}; a staleness
 * marker carries Prometheus' stale NaN as sum and its bits as count.
 *
 * <p>{@link #valid} is what Prometheus checks before it stores such a histogram (its {@code Validate}): bounds without
 * NaN, strictly increasing, the last not {@code +Inf}; the bucket counts add up to the count (at most the count when
 * the sum is NaN; not compared for a staleness marker). Allocates nothing once its scratch arrays have grown. Not thread-safe: one per
 * {@link HistogramPoints}.
 */
final class NativeCustomBuckets {

    /** Prometheus' schema of native histograms with custom buckets. */
    static final int SCHEMA = -53;

    private final NativeSpans layout = new NativeSpans();

    /**
     * Why Prometheus would refuse this data point as a custom-bucket histogram, null when it would not.
     *
     * @param counts the bucket counts, {@code boundCount + 1} of them
     */
    static String valid(
            long count, boolean hasSum, double sum, boolean stale, long[] counts, double[] bounds, int boundCount) {
        for (int i = 0; i < boundCount; i++) {
            if (Double.isNaN(bounds[i])) {
                return "bound " + i + " is NaN";
            }
            if (i > 0 && bounds[i] <= bounds[i - 1]) {
                return "bound " + i + " (" + bounds[i] + ") not above the one before (" + bounds[i - 1] + ")";
            }
        }
        if (boundCount > 0 && bounds[boundCount - 1] == Double.POSITIVE_INFINITY) {
            return "the last bound is +Inf (the +Inf bucket is implied)";
        }
        if (stale) {
            return null; // its sum is the stale NaN, its count the NaN's bits: the counts are not compared
        }
        long total = 0;
        for (int i = 0; i <= boundCount; i++) {
            total += counts[i];
        }
        boolean nanSum = hasSum && Double.isNaN(sum);
        if (nanSum ? Long.compareUnsigned(total, count) > 0 : total != count) {
            return "bucket counts add up to " + Long.toUnsignedString(total) + ", the count is "
                    + Long.toUnsignedString(count);
        }
        return null;
    }

    /**
     * Writes the open histogram of {@code out} (its point begun by the caller): every field of {@link PointHistograms}
     * but the timestamp.
     *
     * @param counts the bucket counts, {@code boundCount + 1} of them
     */
    void write(
            PointHistograms out,
            long count,
            boolean hasSum,
            double sum,
            boolean stale,
            long[] counts,
            double[] bounds,
            int boundCount) {
        out.putVarint(PointHistograms.COUNT_INT, stale ? NativeExponential.STALE_NAN_BITS : count);
        if (stale) {
            out.putDouble(PointHistograms.SUM, Double.longBitsToDouble(NativeExponential.STALE_NAN_BITS), true);
        } else if (hasSum) {
            out.putDouble(PointHistograms.SUM, sum, false);
        }
        out.putSint(PointHistograms.SCHEMA, SCHEMA);
        out.putVarint(PointHistograms.ZERO_COUNT_INT, 0);
        if (layout(counts, boundCount + 1)) {
            layout.put(out, PointHistograms.POSITIVE_SPANS, PointHistograms.POSITIVE_DELTAS);
        }
        out.putPackedDouble(PointHistograms.CUSTOM_VALUES, bounds, boundCount);
    }

    /** Spans and deltas of {@code counts[0, n)}; false when all are empty. */
    boolean layout(long[] counts, int n) {
        layout.clear();
        for (int i = 0; i < n; i++) {
            if (counts[i] != 0 || (i == n - 1 && !layout.isEmpty())) {
                layout.bucket(i, counts[i]);
            }
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
