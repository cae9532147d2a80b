package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.InputRate;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class BenchGridTest {

    @Test
    void parsesCommaSeparatedPositiveIntsInOrder() {
        assertThat(BenchGrid.parsePositiveInts("--parallelism", "1,3,6", 1000)).containsExactly(1, 3, 6);
        assertThat(BenchGrid.parsePositiveInts("--parallelism", " 6 , 1 ", 1000))
                .containsExactly(6, 1);
        assertThat(BenchGrid.parsePositiveInts("--time-multiplier", "12", 3600)).containsExactly(12);
    }

    @Test
    void refusesBadIntListsNamingTheFlag() {
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--parallelism", "", 10))
                .hasMessageContaining("--parallelism");
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--parallelism", "1,,3", 10))
                .hasMessageContaining("'' is not a whole number");
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--parallelism", "1,x", 10))
                .hasMessageContaining("'x'");
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--time-multiplier", "0", 3600))
                .hasMessageContaining("out of range 1..3600");
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--time-multiplier", "3601", 3600))
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> BenchGrid.parsePositiveInts("--parallelism", "3,3", 10))
                .hasMessageContaining("listed twice");
    }

    @Test
    void parsesWriteModesCaseInsensitively() {
        assertThat(BenchGrid.parseWriteModes("async,sync")).containsExactly("async", "sync");
        assertThat(BenchGrid.parseWriteModes("SYNC")).containsExactly("sync");
        assertThatThrownBy(() -> BenchGrid.parseWriteModes("async,batch")).hasMessageContaining("'batch'");
        assertThatThrownBy(() -> BenchGrid.parseWriteModes("sync,sync")).hasMessageContaining("twice");
        assertThatThrownBy(() -> BenchGrid.parseWriteModes(" ")).hasMessageContaining("--write-mode");
    }

    @Test
    void cellsSpanTheGridOrderedByNThenMThenPThenMode() {
        List<BenchCell> cells =
                BenchGrid.cells(List.of(1, 6), List.of(1, 12), List.of(1, 10), List.of("async", "sync"));
        assertThat(cells).hasSize(16);
        assertThat(cells.subList(0, 4))
                .containsExactly(
                        new BenchCell(1, 1, 1, "async"), new BenchCell(1, 1, 1, "sync"),
                        new BenchCell(6, 1, 1, "async"), new BenchCell(6, 1, 1, "sync"));
        assertThat(cells.get(4)).isEqualTo(new BenchCell(1, 12, 1, "async"));
        assertThat(cells.get(8)).isEqualTo(new BenchCell(1, 1, 10, "async"));
        assertThat(cells.get(15)).isEqualTo(new BenchCell(6, 12, 10, "sync"));
    }

    @Test
    void shapesAreTheDistinctMAndNInRunOrder() {
        List<BenchCell> cells = BenchGrid.cells(List.of(1, 3), List.of(12, 1), List.of(1), List.of("async"));
        assertThat(BenchGrid.shapes(cells)).containsExactly(new BenchCell.Shape(12, 1), new BenchCell.Shape(1, 1));
    }

    @Test
    void importAndRemoteWriteCellsOfOneMAndNHaveACeilingEachInTheirOwnProtocol() {
        List<BenchCell> cells = List.of(
                new BenchCell(3, 12, 1, "async"),
                new BenchCell(3, 12, 1, "async", "remote-write"),
                new BenchCell(3, 12, 1, "async", "remote-write-2"),
                new BenchCell(6, 12, 1, "async", "remote-write"));

        assertThat(BenchGrid.shapes(cells))
                .containsExactly(
                        new BenchCell.Shape(12, 1),
                        new BenchCell.Shape(12, 1, "remote-write", null),
                        new BenchCell.Shape(12, 1, "remote-write-2", null));
        assertThat(BenchGrid.shapes(cells).get(1).label()).isEqualTo("M=12 N=1 remote-write");
    }

    @Test
    void shareCellsFollowTheCellsOfTheFirstParallelismOncePerProcessCount() {
        List<BenchCell> cells = BenchGrid.withShareCells(
                BenchGrid.cells(List.of(3, 6), List.of(1, 12), List.of(1), List.of("async")), List.of(1, 3, 6), 2);
        assertThat(cells)
                .extracting(BenchCell::label)
                .containsExactly(
                        "async P=3 M=1 N=1",
                        "async P=6 M=1 N=1",
                        "async P=3 M=12 N=1",
                        "async P=6 M=12 N=1",
                        "async share×1 P=2 M=1 N=1",
                        "async share×3 P=2 M=1 N=1",
                        "async share×6 P=2 M=1 N=1",
                        "async share×1 P=2 M=12 N=1",
                        "async share×3 P=2 M=12 N=1",
                        "async share×6 P=2 M=12 N=1");
        assertThat(cells.get(5).shareMode()).isTrue();
        assertThat(cells.get(5).shareProcesses()).isEqualTo(3);
        assertThat(cells.get(0).shareMode()).isFalse();
        assertThat(BenchGrid.withShareCells(cells.subList(0, 2), List.of(), 1)).hasSize(2);
    }

    @Test
    void cellLabelsAndSamplesPerPoint() {
        BenchCell c = new BenchCell(3, 12, 10, "sync");
        assertThat(c.label()).isEqualTo("sync P=3 M=12 N=10");
        assertThat(c.samplesPerPoint()).isEqualTo(120);
        assertThat(c.shape().label()).isEqualTo("M=12 N=10");
    }

    @Test
    void inputRateIsAbsoluteOrAShareOfCapacity() {
        InputRate abs = InputRate.parse("50000");
        assertThat(abs.relative()).isFalse();
        assertThat(abs.pointsPerSecond(1e9)).isEqualTo(50000);
        InputRate pct = InputRate.parse("80%");
        assertThat(pct.relative()).isTrue();
        assertThat(pct.pointsPerSecond(100_000)).isEqualTo(80_000, Offset.offset(1e-6));
        assertThat(pct.toString()).isEqualTo("80% of capacity");
        assertThatThrownBy(() -> InputRate.parse("0")).hasMessageContaining("positive");
        assertThatThrownBy(() -> InputRate.parse("-5%")).hasMessageContaining("positive");
        assertThatThrownBy(() -> InputRate.parse("fast")).hasMessageContaining("'fast'");
    }

    @Test
    void outputsAreAGridDimensionInnermostSoOneShapesCellsRunTogether() {
        List<BenchCell> cells = BenchGrid.cells(
                List.of(1),
                List.of(1, 12),
                List.of(1),
                List.of("async"),
                BenchGrid.parseOutputs("import,remote-write"));
        assertThat(cells)
                .containsExactly(
                        new BenchCell(1, 1, 1, "async", "import"),
                        new BenchCell(1, 1, 1, "async", "remote-write"),
                        new BenchCell(1, 12, 1, "async", "import"),
                        new BenchCell(1, 12, 1, "async", "remote-write"));
        assertThat(cells.get(1).label()).isEqualTo("async remote-write P=1 M=1 N=1");
        assertThat(new BenchCell(1, 1, 1, "async")).isEqualTo(cells.get(0));
        Assertions.assertThatThrownBy(() -> BenchGrid.parseOutputs("import,import"))
                .hasMessageContaining("twice");
        Assertions.assertThatThrownBy(() -> BenchGrid.parseOutputs("json")).hasMessageContaining("--output");
    }

    @Test
    void twoRemoteWriteUrlsRunEachRemoteWriteCellOncePerReceiverInOneRun() {
        String vm = "http://127.0.0.1:8428/api/v1/write";
        String prometheus = "http://127.0.0.1:9090/api/v1/write";
        List<BenchCell> cells = BenchGrid.cells(
                List.of(3),
                List.of(12),
                List.of(1),
                List.of("async"),
                BenchGrid.parseOutputs("import,remote-write"),
                List.of(vm, prometheus));
        assertThat(cells)
                .containsExactly(
                        new BenchCell(3, 12, 1, "async", "import"),
                        new BenchCell(3, 12, 1, "async", "remote-write", vm),
                        new BenchCell(3, 12, 1, "async", "remote-write", prometheus));
        assertThat(cells.get(2).label()).isEqualTo("async remote-write → 127.0.0.1:9090 P=3 M=12 N=1");
        assertThat(BenchGrid.cells(
                        List.of(3), List.of(12), List.of(1), List.of("async"), List.of("remote-write"), List.of(vm)))
                .containsExactly(new BenchCell(3, 12, 1, "async", "remote-write"));
    }
}
