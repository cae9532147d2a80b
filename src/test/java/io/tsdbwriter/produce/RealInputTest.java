package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RealInputTest {

    @Test
    void turnsTheTwentyRealScrapesIntoPoints() throws Exception {
        RealInput.Loaded loaded = RealInput.read(NodeExporterFiles.all(), "node-0001", "node", OptionalLong.empty());

        assertThat(loaded.files()).isEqualTo(20);
        assertThat(loaded.points()).hasSize(20 * 507);
        assertThat(loaded.skippedNonFinite()).isZero();
        assertThat(loaded.skippedReserved()).isZero();
        assertThat(loaded.droppedEmptyLabels()).isEqualTo(20 * 24);
        assertThat(loaded.points()).allSatisfy(p -> {
            assertThat(p.labels()).containsEntry("instanceNo", "node-0001");
            assertThat(p.productKey()).isEqualTo("node");
        });
        Set<String> samples = new HashSet<>();
        for (SourcePoint p : loaded.points()) {
            samples.add(p.seriesKey() + "@" + p.timestampMs());
        }
        assertThat(samples).as("no two points share series and timestamp").hasSize(20 * 507);
    }

    @Test
    void takesTheTimestampFromTheFileNameInMilliseconds() throws Exception {
        List<SourcePoint> points = RealInput.load(NodeExporterFiles.all(), "h", "node", OptionalLong.empty());

        assertThat(points.get(0).timestampMs()).isEqualTo(1795300857000L);
        assertThat(points.get(points.size() - 1).timestampMs()).isEqualTo(1795301997000L);
        assertThat(points.stream().map(SourcePoint::timestampMs).distinct()).hasSize(20);
    }

    @Test
    void usesTheLastRunOfDigitsInTheFileName() {
        assertThat(RealInput.timestampFromFileName(Path.of("x/node-exporter-2-1795300857.prom")))
                .hasValue(1795300857000L);
        assertThat(RealInput.timestampFromFileName(Path.of("scrape.prom"))).isEmpty();
        assertThatThrownBy(() -> RealInput.timestampFromFileName(Path.of("n-99999999999999999999.prom")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExplicitTimestampOverridesTheFileName() throws Exception {
        List<SourcePoint> points =
                RealInput.load(List.of(NodeExporterFiles.first()), "h", "node", OptionalLong.of(1795305000123L));

        assertThat(points).allSatisfy(p -> assertThat(p.timestampMs()).isEqualTo(1795305000123L));
    }

    @Test
    void fallsBackToTheSampleTimestampWhenTheNameHasNone(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("scrape.prom");
        Files.writeString(f, "a 1 1795300857123\n");
        Path g = dir.resolve("other.prom");
        Files.writeString(g, "a 1\n");

        assertThat(RealInput.load(List.of(f), "h", "node", OptionalLong.empty())
                        .get(0)
                        .timestampMs())
                .isEqualTo(1795300857123L);
        assertThatThrownBy(() -> RealInput.load(List.of(g), "h", "node", OptionalLong.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no scrape time");
    }

    @Test
    void replacesAnInstanceNoOfTheScrapeAndSkipsReservedLabels(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("s-1795300857.prom");
        Files.writeString(f, "a{instanceNo=\"old\",x=\"1\"} 1\nb{__meta=\"x\"} 2\nc NaN\n");

        RealInput.Loaded loaded = RealInput.read(List.of(f), "new", null, OptionalLong.empty());

        assertThat(loaded.points()).hasSize(1);
        assertThat(loaded.points().get(0).labels())
                .containsEntry("instanceNo", "new")
                .containsEntry("x", "1");
        assertThat(loaded.points().get(0).productKey()).isNull();
        assertThat(loaded.skippedReserved()).isEqualTo(1);
        assertThat(loaded.skippedNonFinite()).isEqualTo(1);
    }

    @Test
    void keepsTheScrapeLabelsWithoutAnInstance(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("s-1795300857.prom");
        Files.writeString(f, "a{x=\"1\"} 1\n");

        assertThat(RealInput.load(List.of(f), null, "node", OptionalLong.empty())
                        .get(0)
                        .labels())
                .containsOnlyKeys("x");
    }

    @Test
    void thePresentShiftIsTheWholeMinutesThatBringTheNewestToWithinTheMinuteBeforeNow() {
        long newest = 1795301997000L;
        assertThat(RealInput.presentShiftMs(newest, newest)).isZero();
        assertThat(RealInput.presentShiftMs(newest, newest + 59_999)).isZero();
        assertThat(RealInput.presentShiftMs(newest, newest + 60_000)).isEqualTo(60_000);
        assertThat(RealInput.presentShiftMs(newest, newest + 3_600_000 + 1)).isEqualTo(3_600_000);
        assertThat(RealInput.presentShiftMs(newest, newest - 1))
                .as("data in the future moves back")
                .isEqualTo(-60_000);
    }

    @Test
    void relativeToMovesEveryPointByTheSameShiftAndKeepsOrderAndSpacing() throws Exception {
        RealInput.Loaded dated = RealInput.read(NodeExporterFiles.all(), "h", "node", OptionalLong.empty());
        long now = 1795301997000L + 86_400_000L + 12_345;

        RealInput.Loaded present = dated.relativeTo(now);

        assertThat(present.shiftMs()).isEqualTo(86_400_000L);
        assertThat(present.newestMs()).hasValue(1795301997000L + 86_400_000L);
        assertThat(present.points()).hasSameSizeAs(dated.points());
        for (int i = 0; i < dated.points().size(); i++) {
            SourcePoint a = dated.points().get(i);
            SourcePoint b = present.points().get(i);
            assertThat(b.timestampMs()).isEqualTo(a.timestampMs() + 86_400_000L);
            assertThat(b.seriesKey()).isEqualTo(a.seriesKey());
            assertThat(b.value()).isEqualTo(a.value());
        }
        assertThat(dated.shiftMs()).as("the loaded points are left as they are").isZero();
    }
}
