package io.tsdbwriter.capacity.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The targets side by side: a plain-text table and a Markdown section, in the order the targets were given. */
class TargetComparisonTest {

    /** A VictoriaMetrics single node's page after the search: 100 MiB resident, 50,000 active series, 0.5 bytes a sample. */
    private static final String VM_PAGE =
            """
            vm_app_version{version="victoria-metrics-20240101-tags-v1.97.1-0-g0", short_version="v1.97.1"} 1
            process_cpu_seconds_total 12.5
            process_resident_memory_bytes 104857600
            vm_cache_entries{type="storage/hour_metric_ids"} 50000
            vm_data_size_bytes{type="indexdb/file"} 1000000
            vm_data_size_bytes{type="storage/small"} 3000000
            vm_rows{type="indexdb/file"} 200000
            vm_rows{type="storage/small"} 8000000
            """;

    /** A Thanos receive's page without its WAL size. */
    private static final String THANOS_PAGE =
            """
            prometheus_tsdb_head_series{tenant="default-tenant"} 1000
            prometheus_tsdb_head_samples_appended_total{tenant="default-tenant",type="float"} 4000000
            prometheus_tsdb_storage_blocks_bytes{tenant="default-tenant"} 0
            process_resident_memory_bytes 8192000
            process_cpu_seconds_total 7
            """;

    private static final List<TargetComparison.Row> ROWS = List.of(
            TargetComparison.Row.of(
                            "vm",
                            "import",
                            12_345_678,
                            0.995,
                            0.123,
                            "failing step 4: limited by tsdb-cpu: 2.0 of 2 cores",
                            costs(VM_PAGE, 10.0, 12.5, 5_000_000))
                    .withReadBack(ReadBack.counted(
                            8_000_000,
                            8_000_000,
                            "`" + ReadBack.query("NAME", 1000, 2000) + "` at 2000 ms on http://vm:8428/api/v1/query")),
            TargetComparison.Row.failed(
                    "prom", "remote write 2.0", "ConnectException: Failed to connect to /127.0.0.1:9090"),
            TargetComparison.Row.of(
                            "thanos",
                            "remote write 1.0",
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            "failing step 1: limited by a|b",
                            costs(THANOS_PAGE, 4.0, 7.0, 1_500_000))
                    .withReadBack(ReadBack.unknown(
                            4_000_000,
                            "no query API given: a remote "
                                    + "write receiver is read back through --query-url (a --target's query-url=)")));

    /** One measured window whose CPU counter went from {@code cpuFrom} to {@code cpuTo}; memory and disk from {@code page}. */
    private static CostFigures costs(String page, double cpuFrom, double cpuTo, double samples) {
        CpuPerSamples cpu = new CpuPerSamples();
        String other = page.replaceAll("process_cpu_seconds_total .*", "process_cpu_seconds_total " + cpuFrom);
        String end = page.replaceAll("process_cpu_seconds_total .*", "process_cpu_seconds_total " + cpuTo);
        cpu.add(List.of(PromSnapshot.parse(other, 0)), List.of(PromSnapshot.parse(end, 1)), samples);
        return CostFigures.of(cpu, List.of(PromSnapshot.parse(end, 1)));
    }

    @Test
    void theTableListsEveryTargetInTheOrderGiven() {
        List<String> lines = TargetComparison.table(ROWS).lines().toList();
        assertThat(lines).hasSize(6);
        assertThat(lines.get(0))
                .startsWith("target  protocol")
                .contains(
                        "capacity samples/min",
                        "efficiency",
                        "write p99 s",
                        "CPU-s/1M samples",
                        "RSS bytes/series",
                        "disk bytes/sample",
                        "read back")
                .endsWith("verdict");
        assertThat(lines.get(1))
                .startsWith("vm ")
                .contains("import", "12,345,678", "99.5%", "0.123", "failing step 4: limited by tsdb-cpu");
        // 2.5 CPU-s ÷ 5,000,000 samples × 10⁶; 104,857,600 B ÷ 50,000 series; 4,000,000 B ÷ 8,000,000 samples
        assertThat(lines.get(1).replaceAll("\\s+", " "))
                .contains("0.123 0.500 2,097 0.500 all 8,000,000 failing step 4");
        // 3 CPU-s ÷ 1,500,000 samples × 10⁶; 8,192,000 B ÷ 1,000 series; no WAL size: –
        assertThat(lines.get(3).replaceAll("\\s+", " ")).contains("– – – 2.000 8,192 – – failing step 1");
        assertThat(lines.get(2)).startsWith("prom ");
        assertThat(lines.get(3)).startsWith("thanos ");
        assertThat(lines.get(4))
                .isEqualTo("thanos: disk bytes/sample unknown: (prometheus_tsdb_storage_blocks_bytes"
                        + " + prometheus_tsdb_wal_storage_size_bytes) ÷ prometheus_tsdb_head_samples_appended_total;"
                        + " missing prometheus_tsdb_wal_storage_size_bytes");
        assertThat(lines.get(5))
                .isEqualTo(
                        "thanos: read back unknown: no query API given: a remote write receiver is read back through --query-url (a --target's query-url=)");
    }

    @Test
    void theColumnsLineUp() {
        List<String> lines = TargetComparison.table(ROWS).lines().toList();
        int verdict = lines.get(0).indexOf("verdict");
        assertThat(lines.subList(1, 4))
                .allSatisfy(l -> assertThat(l.substring(verdict - 2, verdict)).isEqualTo("  "));
        assertThat(lines.get(1).indexOf("12,345,678") + "12,345,678".length())
                .isEqualTo(lines.get(0).indexOf("capacity samples/min") + "capacity samples/min".length());
        assertThat(lines.get(1).indexOf("2,097") + "2,097".length())
                .isEqualTo(lines.get(0).indexOf("RSS bytes/series") + "RSS bytes/series".length());
    }

    @Test
    void aFailedTargetShowsItsFailureLineAndNoFigures() {
        String prom = TargetComparison.table(ROWS).lines().toList().get(2);
        assertThat(prom)
                .contains("remote write 2.0", "search failed: ConnectException: Failed to connect to /127.0.0.1:9090");
        assertThat(prom.replaceAll("\\s+", " ")).contains("remote write 2.0 – – – – – – – search failed");
        assertThat(ROWS.get(1).isFailed()).isTrue();
        assertThat(ROWS.get(0).isFailed()).isFalse();
    }

    @Test
    void theMarkdownSectionHasOneRowPerTargetAndLinksEachReport() {
        String md = TargetComparison.markdown(ROWS, "capacity-report.md");
        assertThat(md).startsWith("## Targets side by side\n\n");
        List<String> rows = md.lines()
                .filter(l -> l.startsWith("| ") && !l.startsWith("| target") && !l.startsWith("| ---"))
                .toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0))
                .startsWith(
                        "| vm | import | 12,345,678 | 99.5% | 0.123 | 0.500 | 2,097 | 0.500 | all 8,000,000 | failing step 4")
                .endsWith("| [vm](vm/capacity-report.md) |");
        assertThat(rows.get(1))
                .startsWith("| prom | remote write 2.0 | – | – | – | – | – | – | – | search failed")
                .endsWith("| – |");
        assertThat(rows.get(2))
                .contains("| 2.000 | 8,192 | – | – |", "limited by a\\|b")
                .endsWith("| [thanos](thanos/capacity-report.md) |");
        assertThat(md).contains("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |");
    }

    @Test
    void underTheTableEachFigureSaysHowItWasMeasuredAndFromWhichMetrics() {
        String md = TargetComparison.markdown(ROWS, "capacity-report.md");
        List<String> how = md.lines().filter(l -> l.startsWith("- **")).toList();
        assertThat(how).hasSize(4);
        assertThat(how.get(0))
                .startsWith("- **CPU-s/1M samples**: CPU seconds the TSDB's process used per million samples written:")
                .contains("`process_cpu_seconds_total`", "`tsdbwriter_samples_written_total`")
                .endsWith(
                        " vm: `process_cpu_seconds_total ÷ tsdbwriter_samples_written_total × 10⁶` (1 measured window);"
                                + " thanos: `process_cpu_seconds_total ÷ tsdbwriter_samples_written_total × 10⁶` (1 measured window).");
        assertThat(how.get(1))
                .startsWith("- **RSS bytes/series**:")
                .contains(
                        "`process_resident_memory_bytes`",
                        "`vm_cache_entries{type=\"storage/hour_metric_ids\"}`",
                        "`prometheus_tsdb_head_series`")
                .endsWith(" vm: `process_resident_memory_bytes ÷ vm_cache_entries{type=\"storage/hour_metric_ids\"}`;"
                        + " thanos: `process_resident_memory_bytes ÷ prometheus_tsdb_head_series`.");
        assertThat(how.get(2))
                .startsWith("- **disk bytes/sample**:")
                .contains(
                        "`sum(vm_data_size_bytes)` ÷ `sum(vm_rows{type=~\"storage/.*\"})`",
                        "`prometheus_tsdb_storage_blocks_bytes`",
                        "`prometheus_tsdb_wal_storage_size_bytes`",
                        "`prometheus_tsdb_head_chunks_storage_size_bytes`",
                        "`prometheus_tsdb_head_samples_appended_total`")
                .contains(" vm: `sum(vm_data_size_bytes) ÷ sum(vm_rows{type=~\"storage/.*\"})`;")
                .endsWith(
                        " thanos: `(prometheus_tsdb_storage_blocks_bytes + prometheus_tsdb_wal_storage_size_bytes)"
                                + " ÷ prometheus_tsdb_head_samples_appended_total`, missing `prometheus_tsdb_wal_storage_size_bytes`.");
        assertThat(how.get(3))
                .startsWith(
                        "- **read back**: after the last step, the samples the target holds in the search's sample span")
                .contains(
                        "`/api/v1/label/__name__/values`",
                        "`sum(count_over_time({__name__=\"NAME\"}[SPAN]))`",
                        "`samples_written`")
                .endsWith(
                        " vm: `sum(count_over_time({__name__=\"NAME\"}[1000ms]))` at 2000 ms on http://vm:8428/api/v1/query;"
                                + " thanos: unknown, no query API given: a remote write receiver is read back through --query-url (a --target's query-url=).");
        assertThat(md).doesNotContain("prom: ");
    }

    @Test
    void withAReadLoadTheQueryLatenciesStandBeforeTheVerdict() {
        List<TargetComparison.Row> rows = List.of(
                ROWS.get(0).withQueries(0.012, 0.25),
                ROWS.get(1),
                ROWS.get(2)); // thanos: no read load (Thanos receive serves no query API)
        List<String> lines = TargetComparison.table(rows).lines().toList();
        assertThat(lines.get(0))
                .contains("disk bytes/sample  query p50 s  query p99 s  read back ")
                .endsWith("verdict");
        assertThat(lines.get(1).replaceAll("\\s+", " "))
                .contains("2,097 0.500 0.012 0.250 all 8,000,000 failing step 4");
        assertThat(lines.get(3).replaceAll("\\s+", " ")).contains("8,192 – – – – failing step 1");
        String md = TargetComparison.markdown(rows, null);
        assertThat(md)
                .contains(
                        "| disk bytes/sample | query p50 s | query p99 s | read back | verdict |",
                        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
                        "| 0.500 | 0.012 | 0.250 | all 8,000,000 | failing step 4");
        // without a read load the columns are not there
        assertThat(TargetComparison.table(ROWS)).doesNotContain("query p50 s");
    }

    @Test
    void withoutReportsTheMarkdownHasNoLinkColumn() {
        String md = TargetComparison.markdown(List.of(ROWS.get(0)), null);
        assertThat(md).doesNotContain("report |").doesNotContain("](");
    }
}
