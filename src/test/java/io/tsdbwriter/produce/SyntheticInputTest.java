package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyntheticInputTest {

    @Test
    void generatesSeriesTimesPointsGoingBackOneIntervalAtATime() {
        SyntheticInput in = new SyntheticInput(3, 4, "host", "node", 1795305000000L, 60_000);
        List<SourcePoint> points = new ArrayList<>();
        in.forEach(points::add);

        assertThat(in.size()).isEqualTo(12);
        assertThat(points).hasSize(12);
        assertThat(points.get(0).timestampMs()).isEqualTo(1795305000000L - 3 * 60_000);
        assertThat(points.get(11).timestampMs()).isEqualTo(1795305000000L);
        assertThat(points.subList(0, 3))
                .extracting(p -> p.labels().get("series"))
                .containsExactly("0", "1", "2");
        assertThat(points).allSatisfy(p -> {
            assertThat(p.metric()).isEqualTo("synthetic_metric");
            assertThat(p.labels()).containsEntry("instanceNo", "host");
            assertThat(p.productKey()).isEqualTo("node");
        });
        assertThat(points.get(11).value()).isEqualTo(2 + 3 / 4.0);
    }

    @Test
    void isRepeatable() {
        SyntheticInput in = new SyntheticInput(2, 2, "h", null, 1795305000000L, 1000);
        List<SourcePoint> a = new ArrayList<>();
        List<SourcePoint> b = new ArrayList<>();
        in.forEach(a::add);
        in.forEach(b::add);

        assertThat(a).isEqualTo(b);
    }

    @Test
    void alignsNowDownToTheInterval() {
        assertThat(SyntheticInput.alignedNow(1795305246789L, 60_000)).isEqualTo(1795305240000L);
    }

    @Test
    void refusesEmptyOrPreEpochRanges() {
        assertThatThrownBy(() -> new SyntheticInput(0, 1, "h", null, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SyntheticInput(1, 10, "h", null, 1000, 1000))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
