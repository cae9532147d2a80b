package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CumulativeExponentialHistogramTest {

    @Test
    void indexFollowsTheSpecificationsBucketBoundaries() {
        // scale 0: (1, 2] is bucket 0, (2, 4] bucket 1, (0.5, 1] bucket -1
        assertThat(CumulativeExponentialHistogram.index(2, 0)).isZero();
        assertThat(CumulativeExponentialHistogram.index(1.5, 0)).isZero();
        assertThat(CumulativeExponentialHistogram.index(2.0000001, 0)).isOne();
        assertThat(CumulativeExponentialHistogram.index(1, 0)).isEqualTo(-1);
        // scale -1: (1, 4] is bucket 0
        assertThat(CumulativeExponentialHistogram.index(4, -1)).isZero();
        assertThat(CumulativeExponentialHistogram.index(4.5, -1)).isOne();
        // scale 1: base √2, (√2, 2] is bucket 1; powers of two exact
        assertThat(CumulativeExponentialHistogram.index(2, 1)).isOne();
        assertThat(CumulativeExponentialHistogram.index(1.5, 1)).isOne();
        assertThat(CumulativeExponentialHistogram.index(1.3, 1)).isZero();
        assertThat(CumulativeExponentialHistogram.index(0.001, 3)).isEqualTo(-80);
        assertThat(CumulativeExponentialHistogram.index(1024, 20)).isEqualTo((10 << 20) - 1);
    }

    @Test
    void startsAtScale20AndDownscalesJustEnoughToKeep160Buckets() {
        CumulativeExponentialHistogram h = new CumulativeExponentialHistogram();
        h.record(1.5, 1);
        assertThat(h.scale()).isEqualTo(20);
        assertThat(h.bucketCounts()).containsExactly(1);
        h.record(3, 2); // one octave apart: 2^20 buckets at scale 20, 160 fit at scale 7 (128 per octave)
        assertThat(h.scale()).isEqualTo(7);
        assertThat(h.bucketCounts().length).isLessThanOrEqualTo(160);
        assertThat(h.offset()).isEqualTo(CumulativeExponentialHistogram.index(1.5, 7));
        assertThat(h.offset() + h.bucketCounts().length - 1).isEqualTo(CumulativeExponentialHistogram.index(3, 7));
        assertThat(h.count()).isEqualTo(3);
        assertThat(h.sum()).isEqualTo(7.5);
        h.record(0, 4);
        assertThat(h.zeroCount()).isEqualTo(4);
        assertThat(h.min()).isZero();
        assertThat(h.max()).isEqualTo(3);
    }

    @Test
    void manyValuesKeepTheCountsConsistent() {
        CumulativeExponentialHistogram h = new CumulativeExponentialHistogram();
        SplittableRandom r = new SplittableRandom(9);
        for (int i = 0; i < 10_000; i++) {
            double v = Math.exp(-4 + 3 * r.nextGaussian());
            int before = h.scale();
            h.record(v, 1 + r.nextInt(3));
            assertThat(h.scale()).isLessThanOrEqualTo(before);
            long[] counts = h.bucketCounts();
            assertThat(counts.length).isBetween(1, 160);
            int index = CumulativeExponentialHistogram.index(v, h.scale());
            assertThat(index).isBetween(h.offset() - 1, h.offset() + counts.length); // ±1 at a boundary
        }
        long[] counts = h.bucketCounts();
        assertThat(Arrays.stream(counts).sum() + h.zeroCount()).isEqualTo(h.count());
        assertThat(counts[0]).isPositive();
        assertThat(counts[counts.length - 1]).isPositive();
        assertThat(h.scale()).isBetween(0, 4);
    }

    @Test
    void refusesNegativeAndNonFiniteValues() {
        CumulativeExponentialHistogram h = new CumulativeExponentialHistogram();
        assertThatThrownBy(() -> h.record(-1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.record(Double.NaN, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.record(Double.POSITIVE_INFINITY, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.record(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
