package io.tsdbwriter.bench;

import static io.tsdbwriter.bench.BenchSettingsFixture.IMPORT;
import static io.tsdbwriter.bench.BenchSettingsFixture.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.HistogramShare;
import io.tsdbwriter.lab.WriterCellRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --histogram-series}: the cells' writers read the histogram topic beside the backlog as OTLP; the table
 * and CSV show the histograms' columns only when a cell had a share; a read-back tells the histograms' names apart.
 */
class BenchHistogramsTest {

    @Test
    void withoutAShareTheCellsReadTheBacklogAlone() {
        BenchRunner.Settings s = settings(IMPORT).build();
        assertThat(s.histogramSeries()).isZero();
        assertThat(s.cellRunArgs()).isEqualTo(s.writerRunArgs()).containsExactly("--log-format", "json");
    }

    @Test
    void withAShareEveryCellReadsTheHistogramTopicAsOtlp() {
        BenchRunner.Settings s =
                settings(IMPORT).histogramSeries(20).otlpRecords(true).build();
        assertThat(s.cellRunArgs())
                .containsExactly(
                        "--input-format",
                        "otlp",
                        "--log-format",
                        "json",
                        "--topic",
                        "t-histograms",
                        "--topic-format",
                        "t-histograms=otlp");
        WriterCellRunner runner = new WriterCellRunner(
                WriterCellRunner.Settings.builder()
                        .javaCommand(List.of("java"))
                        .jar(Path.of("w.jar"))
                        .bootstrapServers("127.0.0.1:9092")
                        .vmUrl("http://127.0.0.1:8428")
                        .writePermits(4)
                        .batchSamples(10_000)
                        .segmentSize(50_000)
                        .extraRunArgs(s.cellRunArgs())
                        .workDir(Path.of("/tmp/w"))
                        .cellTimeout(Duration.ofMinutes(1))
                        .settleMax(Duration.ofSeconds(1))
                        .remoteWriteUrl("http://127.0.0.1:8428/api/v1/write")
                        .placement(CpuPinning.Plan.SHARED.placement())
                        .build(),
                null,
                target -> null);
        List<String> cmd = runner.command(IMPORT, "t", "g", Path.of("/tmp/w/cell-01.json"), true, -1);
        assertThat(Collections.indexOfSubList(cmd, List.of("--topic", "t"))).isNotNegative();
        assertThat(Collections.indexOfSubList(
                        cmd, List.of("--topic", "t-histograms", "--topic-format", "t-histograms=otlp")))
                .isNotNegative();
    }

    @Test
    void aNegativeShareIsRefused() {
        assertThatThrownBy(() -> settings(IMPORT).histogramSeries(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("histogramSeries must be >= 0, got -1");
    }

    private static CellResult result(BenchCell cell, long expected, CellResult.Histograms histograms) {
        return CellResult.builder()
                .cell(cell)
                .exitCode(0)
                .points(expected)
                .samplesExpected(expected)
                .samplesWritten(expected)
                .seconds(10)
                .writerCpuSeconds(1)
                .vmCpuSeconds(2)
                .peakHeapBytes(100L << 20)
                .histograms(histograms)
                .build();
    }

    @Test
    void theTableAndTheCsvShowTheHistogramsColumnsBeforeThePlacementWhenACellHadAShare() {
        BenchCell rw = new BenchCell(1, 1, 1, "async", "remote-write", null);
        List<CellResult> cells = List.of(
                result(IMPORT, 4_000, new CellResult.Histograms(1_000, 0, 0)),
                result(rw, 2_000, new CellResult.Histograms(200, 200, 16_000)));
        List<String> table =
                BenchTable.format("shared", List.of(), cells).lines().toList();
        assertThat(table.get(0))
                .matches(".*\\| vs ceiling \\| histogram share \\| native histograms \\(buckets\\) \\| placement +\\|");
        assertThat(table.get(2)).matches(".*\\| +25\\.0% \\| +– \\| shared +\\|");
        assertThat(table.get(3)).matches(".*\\| +10\\.0% \\| +200 \\(16,000\\) \\| shared +\\|");

        List<String> csv = BenchTable.csv("shared", List.of(), cells).lines().toList();
        List<String> header = List.of(csv.get(0).split(","));
        assertThat(header.subList(header.size() - 4, header.size()))
                .containsExactly(
                        "histogram_samples_expected", "histograms_written", "histogram_buckets_written", "placement");
        List<String> rwLine = List.of(csv.get(2).split(",", -1));
        assertThat(rwLine).hasSize(header.size());
        assertThat(rwLine.subList(rwLine.size() - 4, rwLine.size())).containsExactly("200", "200", "16000", "shared");
    }

    @Test
    void withoutAShareTheTableAndTheCsvKeepTheirColumns() {
        List<CellResult> cells = List.of(result(IMPORT, 4_000, CellResult.Histograms.NONE));
        assertThat(BenchTable.format("shared", List.of(), cells)
                        .lines()
                        .findFirst()
                        .orElseThrow())
                .doesNotContain("histogram");
        assertThat(BenchTable.csv("shared", List.of(), cells)
                        .lines()
                        .findFirst()
                        .orElseThrow())
                .isEqualTo(String.join(",", BenchTable.CSV_HEADER));
    }

    @Test
    void aReadBackTellsTheHistogramsNamesApart() {
        Map<String, Long> byName = new LinkedHashMap<>();
        byName.put("node_load1", 100L);
        byName.put("http.server.request.duration_bucket", 900L);
        byName.put("http.server.request.duration_count", 10L);
        byName.put("http.server.request.duration_sum", 10L);
        byName.put("http.server.request.duration", 10L); // native histograms
        StoredSamples.Counted counted = new StoredSamples.Counted(byName);
        assertThat(counted.total()).isEqualTo(1_030);
        assertThat(counted.of(HistogramShare::isHistogramName)).isEqualTo(930);
        assertThat(counted.byName()).containsOnlyKeys(byName.keySet());
    }
}
