package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ExpectedSamplesTest {

    private static final long T = 1795300857000L;

    private static SourcePoint point(String instance, long t, double v) {
        return new SourcePoint(
                "node_load1", instance == null ? Map.of() : Map.of("instanceNo", instance), "node", t, v);
    }

    @Test
    void timeMultiplierSixGivesSamplesTenSecondsApart() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("h", T, 0.5)), 6, 1, 60_000);

        String key = "node_load1{instanceNo=\"h\",productKey=\"node\"}";
        assertThat(e.sampleCount()).isEqualTo(6);
        assertThat(e.timestamps(key)).containsExactly(T, T + 10_000, T + 20_000, T + 30_000, T + 40_000, T + 50_000);
        assertThat(e.value(key, T + 50_000)).hasValue(0.5);
        assertThat(e.value(key, T + 60_000)).isEmpty();
    }

    @Test
    void timeStepsUseIntegerMillisecondsWithoutDrift() {
        assertThat(ExpectedSamples.sampleTimestampMs(T, 1, 7, 60_000)).isEqualTo(T + 8571);
        assertThat(ExpectedSamples.sampleTimestampMs(T, 6, 7, 60_000)).isEqualTo(T + 51428);
        assertThat(ExpectedSamples.sampleTimestampMs(T, 11, 12, 60_000)).isEqualTo(T + 55_000);
    }

    @Test
    void instanceMultiplierTenGivesTheOriginalAndNineNumberedVariants() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("node-0001", T, 1)), 1, 10, 60_000);

        assertThat(e.seriesCount()).isEqualTo(10);
        assertThat(e.seriesKeys())
                .contains(
                        "node_load1{instanceNo=\"node-0001\",productKey=\"node\"}",
                        "node_load1{instanceNo=\"node-0001-1\",productKey=\"node\"}",
                        "node_load1{instanceNo=\"node-0001-9\",productKey=\"node\"}")
                .doesNotContain("node_load1{instanceNo=\"node-0001-10\",productKey=\"node\"}");
    }

    @Test
    void aPointWithoutInstanceUsesUnknown() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point(null, T, 1)), 1, 3, 60_000);

        assertThat(e.seriesKeys())
                .containsExactlyInAnyOrder(
                        "node_load1{instanceNo=\"unknown\",productKey=\"node\"}",
                        "node_load1{instanceNo=\"unknown-1\",productKey=\"node\"}",
                        "node_load1{instanceNo=\"unknown-2\",productKey=\"node\"}");
    }

    @Test
    void productKeyWinsOverADimensionOfThatName() {
        SourcePoint p = new SourcePoint("m", Map.of("productKey", "dim", "instanceNo", "h"), "field", T, 1);

        assertThat(ExpectedSamples.of(List.of(p), 1, 1, 60_000).seriesKeys())
                .containsExactly("m{instanceNo=\"h\",productKey=\"field\"}");
    }

    @Test
    void expectedSamplesArePointsTimesMTimesNForTheRealScrapes() throws Exception {
        List<SourcePoint> points = RealInput.load(NodeExporterFiles.all(), "node-0001", "node", OptionalLong.empty());

        ExpectedSamples e = ExpectedSamples.of(points, 6, 10, 60_000);

        assertThat(e.sourcePointCount()).isEqualTo(10_140);
        assertThat(e.sampleCount()).isEqualTo(10_140L * 6 * 10);
        assertThat(e.seriesCount()).isEqualTo(507 * 10);
        assertThat(e.collapsedSamples()).isZero();
        assertThat(e.minTimestampMs()).isEqualTo(1795300857000L);
        assertThat(e.maxTimestampMs()).isEqualTo(1795301997000L + 50_000);
    }

    @Test
    void samplesOnTheSameSeriesAndTimestampCollapseAndAcceptEitherValue() {
        ExpectedSamples e = ExpectedSamples.of(
                List.of(point("h", T, 1), point("h", T, 2), point("h", T + 60_000, 3)), 2, 1, 60_000);

        assertThat(e.sampleCount()).isEqualTo(4);
        assertThat(e.collapsedSamples()).isEqualTo(2);
    }

    @Test
    void overlappingTimeStepsOfNeighbouringPointsCollapse() {
        // points 30 s apart with a 60 s interval and M=2: t+30s of the first meets the second point
        ExpectedSamples e = ExpectedSamples.of(List.of(point("h", T + 30_000, 2), point("h", T, 1)), 2, 1, 60_000);

        String key = "node_load1{instanceNo=\"h\",productKey=\"node\"}";
        assertThat(e.timestamps(key)).containsExactly(T, T + 30_000, T + 60_000);
        assertThat(e.collapsedSamples()).isEqualTo(1);
    }

    @Test
    void variantsOfDifferentSourceSeriesThatCoincideMergeIntoOneSeries() {
        // "a" with N=2 makes "a-1", which is also a source instance
        ExpectedSamples e = ExpectedSamples.of(List.of(point("a", T, 1), point("a-1", T + 60_000, 2)), 1, 2, 60_000);

        String key = "node_load1{instanceNo=\"a-1\",productKey=\"node\"}";
        assertThat(e.seriesCount()).isEqualTo(3);
        assertThat(e.timestamps(key)).containsExactly(T, T + 60_000);
        assertThat(e.sampleCount()).isEqualTo(4);
    }

    @Test
    void refusesMultipliersOutOfRange() {
        assertThatThrownBy(() -> ExpectedSamples.builder(0, 1, 60_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExpectedSamples.builder(1, 100_001, 60_000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExpectedSamples.builder(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
