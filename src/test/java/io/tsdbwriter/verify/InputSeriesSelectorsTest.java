package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InputSeriesSelectorsTest {

    private static final long T = 1795300857000L;

    private static SourcePoint point(String metric, String productKey) {
        return new SourcePoint(metric, Map.of("instanceNo", "h"), productKey, T, 1);
    }

    @Test
    void oneSelectorPerMetricNamesItAndItsProductKey() {
        ExpectedSamples e =
                ExpectedSamples.of(List.of(point("node_load1", "node"), point("node_load5", "node")), 1, 3, 60_000);

        assertThat(InputSeriesSelectors.batches(e, InputSeriesSelectors.DEFAULT_MAX_BATCH_CHARS))
                .containsExactly(List.of(
                        "{__name__=\"node_load1\",productKey=\"node\"}",
                        "{__name__=\"node_load5\",productKey=\"node\"}"));
    }

    @Test
    void severalProductKeysOfAMetricBecomeAQuotedAlternation() {
        ExpectedSamples e =
                ExpectedSamples.of(List.of(point("m", "b.x"), point("m", "a|z"), point("m", null)), 1, 1, 60_000);

        assertThat(InputSeriesSelectors.batches(e, 1024))
                .containsExactly(List.of("{__name__=\"m\",productKey=~\"|a\\\\|z|b\\\\.x\"}"));
    }

    @Test
    void aPointWithoutAProductKeySelectsTheSeriesWithoutTheLabel() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("m", null)), 1, 1, 60_000);

        assertThat(InputSeriesSelectors.batches(e, 1024)).containsExactly(List.of("{__name__=\"m\",productKey=\"\"}"));
    }

    @Test
    void batchesStayWithinTheLimitAndEveryProductKeyIsSelectedOnce() {
        List<SourcePoint> points = new ArrayList<>();
        for (int m = 0; m < 30; m++) {
            for (int k = 0; k < 40; k++) {
                points.add(point("metric_" + m, "product-" + k));
            }
        }
        ExpectedSamples e = ExpectedSamples.of(points, 1, 1, 60_000);

        List<List<String>> batches = InputSeriesSelectors.batches(e, 300);

        assertThat(batches).hasSizeGreaterThan(1);
        int alternatives = 0;
        for (List<String> batch : batches) {
            assertThat(batch.stream().mapToInt(String::length).sum()).isLessThanOrEqualTo(300);
            for (String s : batch) {
                alternatives += s.substring(s.indexOf("productKey=")).split("\\|").length;
            }
        }
        assertThat(alternatives).isEqualTo(30 * 40);
    }

    @Test
    void nothingExpectedReadsNothing() {
        assertThat(InputSeriesSelectors.batches(ExpectedSamples.of(List.of(), 1, 1, 60_000), 1024))
                .isEmpty();
    }

    @Test
    void refusesALimitTooSmallForOneSelector() {
        ExpectedSamples e = ExpectedSamples.of(List.of(), 1, 1, 60_000);
        assertThatThrownBy(() -> InputSeriesSelectors.batches(e, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------------ querySelectors

    @Test
    void metricsOfTheSameProductKeysShareOneQuerySelectorCountingTheirSeries() {
        ExpectedSamples e = ExpectedSamples.of(
                List.of(
                        point("node_load1", "node"),
                        point("node_load5", "node"),
                        point("a:b", "x"),
                        point("a:b", "y"),
                        point("c", "x"),
                        point("c", "y"),
                        point("d", "x")),
                1,
                3,
                60_000);

        assertThat(InputSeriesSelectors.querySelectors(e, 1024, 1000))
                .containsExactlyInAnyOrder(
                        new InputSeriesSelectors.Counted("{__name__=~\"a:b|c\",productKey=~\"x|y\"}", 12),
                        new InputSeriesSelectors.Counted("{__name__=\"d\",productKey=\"x\"}", 3),
                        new InputSeriesSelectors.Counted(
                                "{__name__=~\"node_load1|node_load5\",productKey=\"node\"}", 6));
    }

    @Test
    void aQuerySelectorHoldsMetricsUpToTheSeriesAndLengthBounds() {
        List<SourcePoint> points = new ArrayList<>();
        for (int m = 0; m < 30; m++) {
            points.add(point("metric_" + m, "node"));
        }
        ExpectedSamples e = ExpectedSamples.of(points, 1, 2, 60_000);

        List<InputSeriesSelectors.Counted> bySeries = InputSeriesSelectors.querySelectors(e, 16 * 1024, 7);
        assertThat(bySeries).hasSize(10).allSatisfy(c -> assertThat(c.series()).isEqualTo(6));
        List<InputSeriesSelectors.Counted> byLength = InputSeriesSelectors.querySelectors(e, 256, 1000);
        assertThat(byLength)
                .hasSizeGreaterThan(1)
                .allSatisfy(c -> assertThat(c.selector().length()).isLessThanOrEqualTo(256));
        assertThat(byLength.stream()
                        .mapToLong(InputSeriesSelectors.Counted::series)
                        .sum())
                .isEqualTo(60);
        assertThat(String.join(
                                "",
                                byLength.stream()
                                        .map(InputSeriesSelectors.Counted::selector)
                                        .toList())
                        .split("metric_"))
                .hasSize(31);
    }

    @Test
    void aMetricOverTheSeriesBoundStandsAloneAndOneOverTheLengthIsSplitByProductKey() {
        List<SourcePoint> points = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
            points.add(point("wide", "product-" + k));
        }
        points.add(point("small", "product-0"));
        ExpectedSamples e = ExpectedSamples.of(points, 1, 1, 60_000);

        List<InputSeriesSelectors.Counted> selectors = InputSeriesSelectors.querySelectors(e, 300, 1);

        assertThat(selectors)
                .filteredOn(c -> c.selector().contains("wide"))
                .hasSizeGreaterThan(1)
                .allSatisfy(c -> assertThat(c.series()).isEqualTo(40));
        assertThat(selectors)
                .contains(new InputSeriesSelectors.Counted("{__name__=\"small\",productKey=\"product-0\"}", 1));
        assertThat(InputSeriesSelectors.querySelectors(ExpectedSamples.of(List.of(), 1, 1, 60_000), 1024, 1))
                .isEmpty();
        assertThatThrownBy(() -> InputSeriesSelectors.querySelectors(e, 1024, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
