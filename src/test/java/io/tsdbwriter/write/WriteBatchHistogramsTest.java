package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A batch's native histograms and their buckets, kept per point so that a split batch's halves count theirs. */
class WriteBatchHistogramsTest {

    private static WriteBatch<String, Void> batch() {
        WriteBatch<String, Void> b = new WriteBatch<>(64, 1); // one point of room: the per-point arrays grow
        b.body().put(new byte[] {1});
        b.addPoint(4, "samples-0");
        b.body().put(new byte[] {2});
        b.addPoint(3, "histograms-1");
        b.histogramPoint(5);
        b.body().put(new byte[] {3});
        b.addPoint(2, "samples-2");
        b.body().put(new byte[] {4});
        b.addPoint(6, "histograms-3");
        b.histogramPoint(0);
        return b;
    }

    @Test
    void eachSampleOfAHistogramPointIsAHistogramOfItsBuckets() {
        WriteBatch<String, Void> b = batch();
        assertThat(b.samples()).isEqualTo(15);
        assertThat(b.histograms()).isEqualTo(9);
        assertThat(b.histogramBuckets()).isEqualTo(15);
    }

    @Test
    void aBatchWithoutHistogramPointsHasNone() {
        WriteBatch<String, Void> b = new WriteBatch<>(64);
        b.addPoint(4, "samples-0");
        assertThat(b.histograms()).isZero();
        assertThat(b.histogramBuckets()).isZero();
    }

    @Test
    void aSliceCountsTheHistogramsOfItsOwnPoints() {
        WriteBatch<String, Void> b = batch();
        WriteBatch<String, Void> first = b.slice(0, 2);
        WriteBatch<String, Void> second = b.slice(2, 4);
        assertThat(first.histograms()).isEqualTo(3);
        assertThat(first.histogramBuckets()).isEqualTo(15);
        assertThat(second.histograms()).isEqualTo(6);
        assertThat(second.histogramBuckets()).isZero();
        assertThat(b.slice(0, 1).histograms()).isZero();
        assertThat(second.samples()).isEqualTo(8);
    }
}
