package io.tsdbwriter.decode.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.PointHistograms;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ClassicHistogram} against Prometheus' own table, {@code util/convertnhcb/convertnhcb_test.go}
 * ({@code TestNHCBConvert}): every case with the histogram or the error Prometheus expects, plus the cases of its
 * rules that table leaves out (no {@code +Inf} bucket with a larger count, duplicates, runs of empty buckets).
 */
class ClassicHistogramTest {

    private final ClassicHistogram h = new ClassicHistogram();

    private NativeHistogramMessage written() {
        assertThat(h.convert()).isNull();
        PointHistograms out = new PointHistograms();
        out.begin(0);
        h.write(out);
        out.end();
        NativeHistogramMessage m = NativeHistogramMessage.parse(out.bytes(), out.offset(0), out.length(0));
        assertThat(m.schema()).isEqualTo(-53);
        assertThat(m.zeroThreshold()).isZero();
        assertThat(m.negativeSpans()).isEmpty();
        assertThat(m.resetHint()).isZero();
        return m;
    }

    private static List<List<Integer>> spans(NativeHistogramMessage m) {
        return m.positiveSpans().stream().map(s -> List.of(s[0], s[1])).toList();
    }

    @Test
    void empty() {
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isZero();
        assertThat(m.sum()).isZero();
        assertThat(m.positiveSpans()).isEmpty();
        assertThat(m.positiveDeltas()).isEmpty();
        assertThat(m.customValues()).isEmpty();
    }

    @Test
    void sumOnly() {
        h.sum(1000.25);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isZero();
        assertThat(m.sum()).isEqualTo(1000.25);
        assertThat(m.positiveSpans()).isEmpty();
        assertThat(m.customValues()).isEmpty();
    }

    @Test
    void singleIntegerBucket() {
        h.sum(1000.25);
        h.bucket(0.5, 1000);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isEqualTo(1000);
        assertThat(m.sum()).isEqualTo(1000.25);
        assertThat(spans(m)).containsExactly(List.of(0, 1));
        assertThat(m.positiveDeltas()).containsExactly(1000L);
        assertThat(m.customValues()).containsExactly(0.5);
    }

    @Test
    void singleFloatBucket() {
        h.sum(1000.25);
        h.bucket(0.5, 1337.42);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isNull();
        assertThat(m.countFloat()).isEqualTo(1337.42);
        assertThat(spans(m)).containsExactly(List.of(0, 1));
        assertThat(m.positiveCounts()).containsExactly(1337.42);
        assertThat(m.positiveDeltas()).isEmpty();
        assertThat(m.customValues()).containsExactly(0.5);
    }

    @Test
    void happyCaseIntegerBucket() {
        h.count(1000);
        h.sum(1000.25);
        h.bucket(0.5, 50);
        h.bucket(1.0, 950);
        h.bucket(Double.POSITIVE_INFINITY, 1000);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isEqualTo(1000);
        assertThat(m.sum()).isEqualTo(1000.25);
        assertThat(spans(m)).containsExactly(List.of(0, 3));
        assertThat(m.positiveDeltas()).containsExactly(50L, 850L, -850L);
        assertThat(m.customValues()).containsExactly(0.5, 1.0);
    }

    @Test
    void happyCaseFloatBucket() {
        h.count(1000);
        h.sum(1000.25);
        h.bucket(0.5, 50);
        h.bucket(1.0, 950.5);
        h.bucket(Double.POSITIVE_INFINITY, 1000);
        NativeHistogramMessage m = written();
        assertThat(m.countFloat()).isEqualTo(1000);
        assertThat(spans(m)).containsExactly(List.of(0, 3));
        assertThat(m.positiveCounts()).containsExactly(50.0, 900.5, 49.5);
        assertThat(m.customValues()).containsExactly(0.5, 1.0);
    }

    @Test
    void nonCumulativeBucket() {
        h.count(1000);
        h.sum(1000.25);
        h.bucket(0.5, 50);
        h.bucket(1.0, 950);
        h.bucket(Double.POSITIVE_INFINITY, 900);
        assertThat(h.convert()).startsWith("count is not cumulative");
    }

    @Test
    void negativeCount() {
        h.count(-1000);
        h.sum(1000.25);
        h.bucket(0.5, 50);
        assertThat(h.convert()).startsWith("count must be non-negative");
    }

    @Test
    void nanBucketUpperBound() {
        h.bucket(1.0, 5);
        h.bucket(Double.NaN, 10);
        assertThat(h.convert()).isEqualTo("bucket boundary must not be NaN");
    }

    @Test
    void mixedOrder() {
        h.bucket(0.5, 50);
        h.bucket(Double.POSITIVE_INFINITY, 1000);
        h.bucket(1.0, 950);
        h.count(1000);
        h.sum(1000.25);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isEqualTo(1000);
        assertThat(spans(m)).containsExactly(List.of(0, 3));
        assertThat(m.positiveDeltas()).containsExactly(50L, 850L, -850L);
        assertThat(m.customValues()).containsExactly(0.5, 1.0);
    }

    // ---------------------------------------------------------------- the rules beyond Prometheus' table

    @Test
    void withoutAnInfBucketTheCountIsItAndMustNotBeBelowTheHighestBounds() {
        h.bucket(1, 3);
        h.count(5);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isEqualTo(5);
        assertThat(spans(m)).containsExactly(List.of(0, 2));
        assertThat(m.positiveDeltas()).containsExactly(3L, -1L);
        assertThat(m.customValues()).containsExactly(1.0);

        h.reset();
        h.bucket(1, 3);
        h.count(2); // the +Inf bucket added with 2: a negative bucket, which Prometheus' Validate refuses
        assertThat(h.convert()).isEqualTo("bucket 1 has a negative observation count: -1.0");
    }

    @Test
    void aCountOtherThanTheInfBucketsIsAMismatchAndOnlyCountSumOrBucketsMayBeMissing() {
        h.bucket(1, 3);
        h.bucket(Double.POSITIVE_INFINITY, 4);
        h.count(5);
        assertThat(h.convert()).startsWith("count mismatch");

        h.reset();
        h.count(7);
        NativeHistogramMessage m = written(); // only _count: everything in the +Inf bucket
        assertThat(m.countInt()).isEqualTo(7);
        assertThat(spans(m)).containsExactly(List.of(0, 1));
        assertThat(m.positiveDeltas()).containsExactly(7L);
        assertThat(m.customValues()).isEmpty();
    }

    @Test
    void aBoundGivenTwiceKeepsItsFirstCountAndAnInsertedBoundIsCheckedBothWays() {
        h.bucket(1, 3);
        h.bucket(1, 9);
        h.bucket(4, 6);
        h.bucket(2, 5);
        NativeHistogramMessage m = written();
        assertThat(m.customValues()).containsExactly(1.0, 2.0, 4.0);
        assertThat(m.positiveDeltas()).containsExactly(3L, -1L, -1L); // 3, 2, 1 and the empty +Inf bucket left out

        h.reset();
        h.bucket(1, 3);
        h.bucket(4, 6);
        h.bucket(2, 7);
        assertThat(h.convert()).isEqualTo("count is not cumulative: 7.0 > 6.0");

        h.reset();
        h.bucket(1, 3);
        h.bucket(4, 6);
        h.bucket(2, 2);
        assertThat(h.convert()).isEqualTo("count is not cumulative: 2.0 < 3.0");

        h.reset();
        h.bucket(1, -1);
        assertThat(h.convert()).startsWith("bucket count must be non-negative");
    }

    @Test
    void integerBucketsKeepRunsOfAtMostTwoEmptyOnesInASpanFloatBucketsNone() {
        double[] bounds = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        long[] counts = {0, 2, 0, 0, 3, 0, 0, 0, 4, 0, 0}; // the last: +Inf
        long cumulative = 0;
        for (int i = 0; i < bounds.length; i++) {
            cumulative += counts[i];
            h.bucket(bounds[i], cumulative);
        }
        h.bucket(Double.POSITIVE_INFINITY, cumulative);
        NativeHistogramMessage m = written();
        assertThat(m.countInt()).isEqualTo(9);
        assertThat(spans(m)).containsExactly(List.of(1, 4), List.of(3, 1));
        assertThat(m.positiveDeltas()).containsExactly(2L, -2L, 0L, 3L, 1L);
        assertThat(m.customValues()).hasSize(10);

        h.reset();
        double c = 0;
        for (int i = 0; i < bounds.length; i++) {
            c += counts[i] + (counts[i] == 0 ? 0 : 0.5);
            h.bucket(bounds[i], c);
        }
        NativeHistogramMessage f = written();
        assertThat(f.countFloat()).isEqualTo(10.5);
        assertThat(f.zeroCountInt()).isNull();
        assertThat(spans(f)).containsExactly(List.of(1, 1), List.of(2, 1), List.of(3, 1));
        assertThat(f.positiveCounts()).containsExactly(2.5, 3.5, 4.5);
    }
}
