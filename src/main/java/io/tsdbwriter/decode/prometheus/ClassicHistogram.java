package io.tsdbwriter.decode.prometheus;

import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.decode.otlp.NativeSpans;
import java.util.Arrays;

/**
 * One classic histogram of an exposition, collected sample by sample and made a native histogram with custom buckets
 * (NHCB, schema −53), by the rules of Prometheus' scrape path ({@code util/convertnhcb} {@code TempHistogram}, which
 * {@code convert_classic_histograms_to_nhcb} uses):
 * <ul>
 *   <li>{@link #bucket}: cumulative counts by upper bound {@code le}, in any order; a bound seen before keeps its first
 *       count; a count below the one of a lower bound or above the one of a higher bound (not cumulative), a negative
 *       count or a NaN bound makes the histogram {@link #convert fail};</li>
 *   <li>{@link #count}, {@link #sum}: the last one given wins; a negative count fails; without a count the count is the
 *       highest bound's count (0 without buckets);</li>
 *   <li>without a {@code +Inf} bucket one is added holding the count; the count must then equal the {@code +Inf}
 *       bucket's (else it fails: "count mismatch"), and an added one must not hold less than the highest bound (a
 *       negative bucket, which Prometheus' {@code Validate} refuses);</li>
 *   <li>the custom values are the bounds but {@code +Inf}; bucket i holds {@code le[i]}'s count less {@code le[i−1]}'s;
 *       when every count is an integer, an integer histogram (count, deltas) whose empty buckets are left out as
 *       Prometheus' {@code Compact(2)} does ({@link NativeSpans}: at most two empty buckets stay inside a span), else
 *       a float histogram (count, absolute bucket counts) without any empty bucket ({@code Compact(0)}). No zero
 *       bucket, no negative side, reset hint {@code UNKNOWN}.</li>
 * </ul>
 * Allocates nothing once its arrays have grown. Not thread-safe: one per {@link ClassicHistogramGroups}.
 */
final class ClassicHistogram {

    /** Prometheus' schema of native histograms with custom buckets. */
    static final int SCHEMA = -53;

    /** Doubles at or above this are no int64 (Go's {@code int64(x)} of them is not {@code x}). */
    private static final double TWO_63 = 0x1p63;

    private double[] bounds = new double[16];
    private double[] cumulative = new double[16];
    private int n;
    private double count;
    private boolean hasCount;
    private double sum;
    private String error;
    private boolean integer;
    private final NativeSpans spans = new NativeSpans();
    private int[] floatSpans = new int[16];
    private double[] floatCounts = new double[16];

    /** Forgets everything given. */
    void reset() {
        n = 0;
        count = 0;
        hasCount = false;
        sum = 0;
        error = null;
    }

    /** A {@code _bucket} sample: the cumulative {@code c} of the bucket up to {@code le}. */
    void bucket(double le, double c) {
        if (error != null) {
            return;
        }
        if (Double.isNaN(le)) {
            error = "bucket boundary must not be NaN";
            return;
        }
        if (c < 0) {
            error = "bucket count must be non-negative: le=" + le + ", count=" + c;
            return;
        }
        if (n == 0 || bounds[n - 1] < le) {
            if (n > 0 && c < cumulative[n - 1]) {
                error = "count is not cumulative: " + c + " < " + cumulative[n - 1];
                return;
            }
            insert(n, le, c);
            return;
        }
        int i = 0;
        while (bounds[i] < le) {
            i++;
        }
        if (bounds[i] == le) {
            return; // a duplicate sample: the first count stays
        }
        if (i > 0 && c < cumulative[i - 1]) {
            error = "count is not cumulative: " + c + " < " + cumulative[i - 1];
        } else if (c > cumulative[i]) {
            error = "count is not cumulative: " + c + " > " + cumulative[i];
        } else {
            insert(i, le, c);
        }
    }

    /** A {@code _count} sample. */
    void count(double c) {
        if (error != null) {
            return;
        }
        if (c < 0) {
            error = "count must be non-negative: count=" + c;
            return;
        }
        count = c;
        hasCount = true;
    }

    /** A {@code _sum} sample. */
    void sum(double s) {
        if (error == null) {
            sum = s;
        }
    }

    /**
     * Completes the histogram (the implied {@code +Inf} bucket, the count) for {@link #write}.
     *
     * @return null when it is a valid native histogram, else why Prometheus would not make one of it
     */
    String convert() {
        if (error != null) {
            return error;
        }
        if (!hasCount && n > 0) {
            count = cumulative[n - 1];
        }
        if (n == 0 || bounds[n - 1] != Double.POSITIVE_INFINITY) {
            insert(n, Double.POSITIVE_INFINITY, count);
        }
        integer = isInteger(count);
        for (int i = 0; i < n && integer; i++) {
            integer = isInteger(cumulative[i]);
        }
        if (!(count == cumulative[n - 1])) {
            return "count mismatch: count=" + count + " != le=" + bounds[n - 1] + " count=" + cumulative[n - 1];
        }
        if (n > 1 && cumulative[n - 1] < cumulative[n - 2]) { // the +Inf bucket added below the highest bound's
            return "bucket " + (n - 1) + " has a negative observation count: "
                    + (cumulative[n - 1] - cumulative[n - 2]);
        }
        return null;
    }

    /** Writes the histogram {@link #convert} completed: every field of {@link PointHistograms} but the timestamp. */
    void write(PointHistograms out) {
        if (integer) {
            out.putVarint(PointHistograms.COUNT_INT, (long) count);
            out.putDouble(PointHistograms.SUM, sum, false);
            out.putSint(PointHistograms.SCHEMA, SCHEMA);
            out.putVarint(PointHistograms.ZERO_COUNT_INT, 0);
            NativeSpans s = spans;
            s.clear();
            long before = 0;
            for (int i = 0; i < n; i++) {
                long c = (long) cumulative[i];
                if (c != before) {
                    s.bucket(i, c - before);
                }
                before = c;
            }
            if (!s.isEmpty()) {
                s.put(out, PointHistograms.POSITIVE_SPANS, PointHistograms.POSITIVE_DELTAS);
            }
        } else {
            out.putDouble(PointHistograms.COUNT_FLOAT, count, true);
            out.putDouble(PointHistograms.SUM, sum, false);
            out.putSint(PointHistograms.SCHEMA, SCHEMA);
            out.putDouble(PointHistograms.ZERO_COUNT_FLOAT, 0, true);
            writeFloatBuckets(out);
        }
        out.putPackedDouble(PointHistograms.CUSTOM_VALUES, bounds, n - 1);
    }

    /** The non-empty buckets' absolute counts, a new span after every run of empty ones ({@code Compact(0)}). */
    private void writeFloatBuckets(PointHistograms out) {
        if (floatCounts.length < n) {
            floatCounts = new double[bounds.length];
        }
        if (floatSpans.length < n * 2) {
            floatSpans = new int[bounds.length * 2];
        }
        int spanN = 0;
        int k = 0;
        int last = -1;
        double before = 0;
        for (int i = 0; i < n; i++) {
            double c = cumulative[i] - before;
            before = cumulative[i];
            if (c == 0) {
                continue;
            }
            if (spanN == 0 || i - last > 1) {
                floatSpans[spanN * 2] = spanN == 0 ? i : i - last - 1;
                floatSpans[spanN * 2 + 1] = 0;
                spanN++;
            }
            floatSpans[spanN * 2 - 1]++;
            floatCounts[k++] = c;
            last = i;
        }
        for (int j = 0; j < spanN; j++) {
            out.putSpan(PointHistograms.POSITIVE_SPANS, floatSpans[j * 2], floatSpans[j * 2 + 1]);
        }
        out.putPackedDouble(PointHistograms.POSITIVE_COUNTS, floatCounts, k);
    }

    /** Whether Prometheus keeps {@code x} in an integer histogram: {@code float64(int64(math.Round(x))) == x}. */
    private static boolean isInteger(double x) {
        return x == Math.rint(x) && Math.abs(x) < TWO_63;
    }

    private void insert(int i, double le, double c) {
        if (n == bounds.length) {
            bounds = Arrays.copyOf(bounds, n * 2);
            cumulative = Arrays.copyOf(cumulative, n * 2);
        }
        System.arraycopy(bounds, i, bounds, i + 1, n - i);
        System.arraycopy(cumulative, i, cumulative, i + 1, n - i);
        bounds[i] = le;
        cumulative[i] = c;
        n++;
    }
}
