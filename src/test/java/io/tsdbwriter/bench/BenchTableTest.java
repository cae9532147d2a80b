package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import io.tsdbwriter.lab.IngestDelays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchTableTest {

    private static final BenchCell.Shape M12 = new BenchCell.Shape(12, 1);
    /** 2,000,000 samples/s for 10 s; VictoriaMetrics 10 CPU-s → 0.5 CPU-s per million. */
    private static final CeilingResult CEILING = CeilingResult.builder()
            .shape(M12)
            .concurrency(8)
            .samples(20_000_000)
            .requests(2000)
            .failures(0)
            .seconds(10.0)
            .vmCpuSeconds(10.0)
            .clientCpuSeconds(0.5)
            .poolBodies(100)
            .poolSamples(1_000_000)
            .build();

    private static CellResult cell(
            String mode, int p, long written, double seconds, double writerCpu, double vmCpu, int exit) {
        return CellResult.builder()
                .cell(new BenchCell(p, 12, 1, mode))
                .live(false)
                .exitCode(exit)
                .points(written / 12)
                .samplesExpected(written)
                .samplesWritten(written)
                .seconds(seconds)
                .writerCpuSeconds(writerCpu)
                .vmCpuSeconds(vmCpu)
                .peakHeapBytes(300L << 20)
                .otherCpuSeconds(1.5)
                .loadAverage(0.7)
                .inputPointsPerSecond(Double.NaN)
                .build();
    }

    @Test
    void ceilingArithmetic() {
        assertThat(CEILING.samplesPerSecond()).isEqualTo(2_000_000);
        assertThat(CEILING.perMinute()).isEqualTo(120_000_000);
        assertThat(CEILING.vmCpuPerMillion()).isEqualTo(0.5);
        assertThat(CEILING.clientCpuPerMillion()).isEqualTo(0.025, within(1e-12));
        CellResult r = cell("async", 6, 12_000_000, 10.0, 3.0, 6.0, 0);
        assertThat(r.samplesPerSecond()).isEqualTo(1_200_000);
        assertThat(Ceilings.ratio(r, CEILING)).isEqualTo(0.6, within(1e-12));
        assertThat(r.writerCpuPerMillion()).isEqualTo(0.25);
        assertThat(r.vmCpuPerMillion()).isEqualTo(0.5);
        assertThat(r.writerToVmCpu()).isEqualTo(0.5);
        assertThat(r.pointsPerSecond()).isEqualTo(100_000);
        assertThat(Ceilings.ratio(r, null)).isNaN();
        assertThat(Ceilings.forCell(r.cell(), List.of(CEILING))).isSameAs(CEILING);
        assertThat(Ceilings.forCell(new BenchCell(1, 6, 1, "async"), List.of(CEILING)))
                .isNull();
    }

    @Test
    void liveCellsCountExpectedFromTheInput() {
        // 60 s window, 1,000 points/s produced at M=12: 720,000 expected; 705,600 written = 98%
        CellResult live = CellResult.builder()
                .cell(new BenchCell(6, 12, 1, "async"))
                .live(true)
                .exitCode(0)
                .points(60_000)
                .samplesExpected(720_000)
                .samplesWritten(705_600)
                .seconds(60.0)
                .writerCpuSeconds(5)
                .vmCpuSeconds(5)
                .peakHeapBytes(1L << 28)
                .otherCpuSeconds(0)
                .loadAverage(0)
                .inputPointsPerSecond(1000)
                .build();
        assertThat(live.expectedPerMinute()).isEqualTo(720_000);
        assertThat(live.actualPerMinute()).isEqualTo(705_600);
        assertThat(live.efficiency()).isEqualTo(0.98, within(1e-12));
        assertThat(live.modeLabel()).isEqualTo("async live");
    }

    @Test
    void tableHasACeilingRowThenItsCellsAligned() {
        String table = BenchTable.format(
                "tsdb=0 writer=1",
                List.of(CEILING),
                List.of(
                        cell("async", 6, 12_000_000, 10.0, 3.0, 6.0, 0),
                        cell("sync", 1, 6_000_000, 10.0, 2.5, 3.0, 1)));
        List<String> lines = table.lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0))
                .startsWith("| mode ")
                .contains("| samples/min expected |")
                .endsWith("| vs ceiling | placement       |");
        assertThat(lines.get(1)).startsWith("|:--").endsWith(":|");
        assertThat(lines.get(2))
                .startsWith("| ceiling (C=8) ")
                .contains("120,000,000")
                .contains("0.50")
                .endsWith("100% | tsdb=0 writer=1 |");
        assertThat(lines.get(3))
                .startsWith("| async ")
                .contains(" 72,000,000 | ")
                .contains("100.0%")
                .contains(" 0.25 ")
                .contains("300 MiB")
                .endsWith("60.0% | tsdb=0 writer=1 |");
        assertThat(lines.get(4)).startsWith("| sync (exit 1) ").endsWith("30.0% | tsdb=0 writer=1 |");
        for (String l : lines) {
            assertThat(l).hasSize(lines.get(0).length());
        }
    }

    @Test
    void csvHasOneLinePerCeilingAndCellWithRawNumbers() {
        String csv =
                BenchTable.csv("shared", List.of(CEILING), List.of(cell("async", 6, 12_000_000, 10.0, 3.0, 6.0, 0)));
        List<String> lines = csv.lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0).split(","))
                .hasSize(BenchTable.CSV_HEADER.size())
                .startsWith("kind", "mode", "parallelism");
        assertThat(lines.get(1).split(",", -1)).hasSize(BenchTable.CSV_HEADER.size());
        assertThat(lines.get(1)).startsWith("ceiling,preserialized,,12,1,").contains(",120000000,");
        String[] f = lines.get(2).split(",", -1);
        assertThat(f).hasSize(BenchTable.CSV_HEADER.size());
        assertThat(f[0]).isEqualTo("backlog");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("samples_written")]).isEqualTo("12000000");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("ratio_to_ceiling")]).isEqualTo("0.6000");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("input_points_per_second")]).isEmpty();
        assertThat(f[BenchTable.CSV_HEADER.indexOf("placement")]).isEqualTo("shared");
        assertThat(lines.get(1)).endsWith(",shared"); // the ceiling's row too
    }

    @Test
    void numberFormats() {
        assertThat(BenchTable.decimal(1.005, 1)).isEqualTo("1.0");
        assertThat(BenchTable.mebibytes(512L << 20)).isEqualTo("512 MiB");
        assertThat(BenchTable.mebibytes(0)).isEqualTo("–");
        assertThat(BenchTable.raw(3)).isEqualTo("3");
        assertThat(BenchTable.raw(0.25)).isEqualTo("0.2500");
        assertThat(BenchTable.raw(Double.POSITIVE_INFINITY)).isEmpty();
    }

    @Test
    void chartRendersWithoutAScreen() {
        var image = BenchChart.render(
                "t",
                "s",
                List.of(CEILING),
                List.of(
                        cell("async", 6, 12_000_000, 10.0, 3.0, 6.0, 0),
                        cell("sync", 6, 6_000_000, 10.0, 3.0, 6.0, 0)));
        assertThat(image.getWidth()).isEqualTo(BenchChart.WIDTH);
        assertThat(BenchChart.niceCeiling(2.7e6)).isEqualTo(3e6);
        assertThat(BenchChart.niceCeiling(0)).isEqualTo(1);
    }

    /** A cell's ingest delay stands beside its rates in the table and as four CSV fields; a ceiling has none. */
    @Test
    void theIngestDelayStandsBesideTheRates() {
        CellResult r = cell("async", 6, 12_000_000, 10.0, 3.0, 6.0, 0).toBuilder()
                .delays(new IngestDelays(0.12, 0.48, 5.1, 9.8))
                .build();
        List<String> lines = BenchTable.format("shared", List.of(CEILING), List.of(r))
                .lines()
                .toList();
        assertThat(lines.get(0)).contains("| efficiency | ack delay p50/p99 s | commit delay p50/p99 s |");
        assertThat(lines.get(2)).startsWith("| ceiling ").contains(" 100% ");
        assertThat(lines.get(3)).contains("100.0% |         0.120/0.480 |            5.100/9.800 |");
        assertThat(lines.get(3).split("\\|")).hasSize(BenchTable.HEADER.size() + 1);
        for (String l : lines) {
            assertThat(l).hasSize(lines.get(0).length());
        }

        List<String> csv =
                BenchTable.csv("shared", List.of(CEILING), List.of(r)).lines().toList();
        String[] ceiling = csv.get(1).split(",", -1);
        String[] f = csv.get(2).split(",", -1);
        assertThat(f).hasSize(BenchTable.CSV_HEADER.size());
        assertThat(f[BenchTable.CSV_HEADER.indexOf("ingest_delay_acknowledged_p50_seconds")])
                .isEqualTo("0.1200");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("ingest_delay_acknowledged_p99_seconds")])
                .isEqualTo("0.4800");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("ingest_delay_committed_p50_seconds")])
                .isEqualTo("5.1000");
        assertThat(f[BenchTable.CSV_HEADER.indexOf("ingest_delay_committed_p99_seconds")])
                .isEqualTo("9.8000");
        assertThat(ceiling[BenchTable.CSV_HEADER.indexOf("ingest_delay_acknowledged_p99_seconds")])
                .isEmpty();
        assertThat(f[BenchTable.CSV_HEADER.indexOf("placement")]).isEqualTo("shared");
    }
}
