package io.tsdbwriter.produce;

import java.util.Arrays;

/**
 * One cumulative base-2 exponential histogram as the OpenTelemetry SDKs' {@code Base2ExponentialBucketHistogram}
 * aggregation keeps it: it starts at {@link #MAX_SCALE} and keeps at most {@link #MAX_SIZE} positive buckets; an
 * observation whose bucket would widen the window of populated buckets past that size first lowers the scale by the
 * least amount that makes the window fit, merging each 2<sup>d</sup> adjacent buckets into one. Bucket {@code i} at
 * scale {@code s} spans {@code (2^(i·2^-s), 2^((i+1)·2^-s)]}; a value of exactly 0 counts in the zero bucket (threshold
 * 0). Counts only grow; the scale only falls (cumulative temporality keeps one state for the life of the series).
 *
 * <p>Holds only finite values ≥ 0 (latencies). Not thread-safe.
 */
final class CumulativeExponentialHistogram {

    /** The SDK's default and largest scale. */
    static final int MAX_SCALE = 20;
    /** The SDK's default largest number of buckets of one sign. */
    static final int MAX_SIZE = 160;

    private int scale = MAX_SCALE;
    /** Bucket index of {@code counts[0]}; meaningful only when {@link #length} > 0. */
    private int start;

    private int length;
    private long[] counts = new long[16];
    private long count;
    private long zeroCount;
    private double sum;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    /**
     * Records {@code n} observations of {@code value}.
     *
     * @throws IllegalArgumentException when {@code value} is negative or not finite, or {@code n} is negative
     */
    void record(double value, long n) {
        if (!(value >= 0) || Double.isInfinite(value) || n < 0) {
            throw new IllegalArgumentException("a latency is finite and >= 0, n >= 0: got " + value + " x " + n);
        }
        if (n == 0) {
            return;
        }
        count += n;
        sum += value * n;
        min = Math.min(min, value);
        max = Math.max(max, value);
        if (value == 0) {
            zeroCount += n;
            return;
        }
        int index = index(value, scale);
        if (length == 0) {
            start = index;
            length = 1;
            counts[0] = n;
            return;
        }
        int lo = Math.min(start, index);
        int hi = Math.max(start + length - 1, index);
        int by = 0;
        while (hi - lo + 1 > MAX_SIZE) {
            lo >>= 1;
            hi >>= 1;
            by++;
        }
        if (by > 0) {
            downscale(by);
            index >>= by;
        }
        add(index, n);
    }

    /** Adds {@code n} to bucket {@code index}, which lies within {@link #MAX_SIZE} of the window. */
    private void add(int index, long n) {
        if (index < start) {
            int grow = start - index;
            ensure(length + grow);
            System.arraycopy(counts, 0, counts, grow, length);
            Arrays.fill(counts, 0, grow, 0);
            start = index;
            length += grow;
        } else if (index >= start + length) {
            ensure(index - start + 1);
            length = index - start + 1;
        }
        counts[index - start] += n;
    }

    private void ensure(int size) {
        if (size > counts.length) {
            counts = Arrays.copyOf(counts, Math.min(MAX_SIZE, Math.max(size, counts.length * 2)));
        }
    }

    /** Lowers the scale by {@code by}, merging each {@code 2^by} adjacent buckets. */
    private void downscale(int by) {
        int newStart = start >> by;
        int newLength = ((start + length - 1) >> by) - newStart + 1;
        long[] merged = new long[counts.length];
        for (int i = 0; i < length; i++) {
            merged[((start + i) >> by) - newStart] += counts[i];
        }
        counts = merged;
        start = newStart;
        length = newLength;
        scale -= by;
    }

    /**
     * The bucket of {@code value} > 0 at {@code scale}: the {@code i} with {@code 2^(i·2^-s) < value ≤ 2^((i+1)·2^-s)}.
     * Exact for powers of two and at scales ≤ 0; by the natural logarithm otherwise (as the SDKs, off by one at most
     * right at a bucket boundary).
     */
    static int index(double value, int scale) {
        int exponent = Math.getExponent(value);
        boolean powerOfTwo = (Double.doubleToRawLongBits(value) & 0xFFFFFFFFFFFFFL) == 0;
        if (scale <= 0) {
            return (powerOfTwo ? exponent - 1 : exponent) >> -scale;
        }
        if (powerOfTwo) {
            return (exponent << scale) - 1;
        }
        return (int) Math.ceil(Math.log(value) * Math.scalb(1 / Math.log(2), scale)) - 1;
    }

    int scale() {
        return scale;
    }

    /** The index of the first bucket of {@link #bucketCounts}; 0 when there is none. */
    int offset() {
        return length == 0 ? 0 : start;
    }

    /** The populated window of positive buckets, first to last non-empty one; a new array. */
    long[] bucketCounts() {
        return Arrays.copyOf(counts, length);
    }

    long count() {
        return count;
    }

    long zeroCount() {
        return zeroCount;
    }

    double sum() {
        return sum;
    }

    /** The smallest value recorded; +∞ before the first. */
    double min() {
        return min;
    }

    /** The largest value recorded; −∞ before the first. */
    double max() {
        return max;
    }
}
