package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.LatencyHistograms;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StepHistogramsTest {

    /** A week before now, on the minute: inside the decoders' timestamp window. */
    private static final long T0 = (System.currentTimeMillis() - 7L * 24 * 3_600_000) / 60_000 * 60_000;

    @ParameterizedTest(name = "{0} before, {1} in it, {2} a round: round {3}")
    @CsvSource({
        "0, 1, 1, 0", //
        "1, 1, 1, 1",
        "0, 10, 3, 3", // its last point is point 9: round 3
        "0, 10, 10, 0",
        "10, 10, 10, 1",
        "20, 10, 25, 1", // points 20..29 cross from round 0 into round 1
        "0, 0, 5, 0"
    })
    void aRecordsRoundIsItsLastPoints(long before, int points, int series, long round) {
        assertThat(StepHistograms.round(before, points, series)).isEqualTo(round);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"120000, 120000", "179999, 120000", "180000, 180000", "1, 0"})
    void theFirstRoundIsTheFirstPointsMinute(long newestMs, long firstMs) {
        assertThat(StepHistograms.firstRoundMs(newestMs)).isEqualTo(firstMs);
    }

    @Test
    void atLeastOneSeries() {
        assertThatThrownBy(() -> new StepHistograms(0, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(">= 1");
    }

    @Test
    void eachRoundIsSentOnceThePointsReachItAndTheNextStepGoesOnWhereTheLastStopped() {
        StepHistograms h = new StepHistograms(2, true);
        AtomicLong newest = new AtomicLong(T0 + 30_000); // the rounds start at T0: round 0 is due, round 1 not
        StepHistograms.Running first = new StepHistograms.Running();
        List<byte[]> sent = drain(h.values(() -> 1, newest::get, () -> true, first));
        assertThat(sent).hasSize(1); // two series: one record of 2 data points a round
        assertThat(first.points()).isEqualTo(2);
        assertThat(first.samples()).isEqualTo(2); // native histograms: one sample each

        newest.set(T0 + 150_000); // round 1, taken but not sent above, is the next step's first; then round 2
        StepHistograms.Running second = new StepHistograms.Running();
        assertThat(drain(h.values(() -> 1, newest::get, () -> true, second))).hasSize(2);
        assertThat(second.points()).isEqualTo(4);
        assertThat(second.samples()).isEqualTo(4);
    }

    @Test
    void nothingIsSentBeforeThePointsStart() {
        StepHistograms h = new StepHistograms(2, true);
        StepHistograms.Running run = new StepHistograms.Running();
        assertThat(drain(h.values(() -> 0, () -> T0 + 3_600_000, () -> true, run)))
                .isEmpty();
        // the rounds start at the first point's minute, not at the time read before it
        assertThat(drain(h.values(() -> 1, () -> T0 + 1_000, () -> true, run))).hasSize(1);
    }

    @Test
    void throughTheImportApiADataPointIsItsCountSumAndNonEmptyBuckets() {
        StepHistograms imported = new StepHistograms(3, false);
        StepHistograms.Running run = new StepHistograms.Running();
        List<byte[]> sent = drain(imported.values(() -> 1, () -> T0, () -> true, run));
        assertThat(sent).hasSize(1);
        assertThat(run.points()).isEqualTo(3);
        // each first data point has seen at least one request: _count, _sum and at least one vmrange bucket
        assertThat(run.samples()).isGreaterThanOrEqualTo(3 * 3);
        StepHistograms nativeOnes = new StepHistograms(3, true);
        assertThat(nativeOnes.samples(sent.get(0))).isEqualTo(3);
        assertThat(imported.samples(sent.get(0))).isEqualTo(run.samples());
    }

    @Test
    void theLineAndTheProgressTextNameTheFigures() {
        assertThat(StepRunner.histogramText(1200, 1200, 1200, 96_000))
                .isEqualTo(
                        " (+ 1,200 histogram data points: 1,200 samples before M x N; 1,200 native histograms written,"
                                + " 96,000 buckets)");
        assertThat(CapacitySearch.histogramLine(new StepHistograms(480, true)))
                .contains("480 series of " + LatencyHistograms.METRIC, "<step topic>-histograms", "native histograms");
        assertThat(CapacitySearch.histogramLine(new StepHistograms(480, false))).contains("vmrange bucket series");
    }

    private static List<byte[]> drain(Iterator<byte[]> it) {
        List<byte[]> out = new ArrayList<>();
        while (it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }
}
