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
}
