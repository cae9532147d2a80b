package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Memory per active series and disk per sample from a VictoriaMetrics-, a Prometheus- and a vminsert-shaped page. */
class CostFiguresTest {

    static final String VM =
            """
            # HELP vm_app_version
            vm_app_version{version="victoria-metrics-20240101-tags-v1.97.1-0-g0", short_version="v1.97.1"} 1
            process_cpu_seconds_total 12.5
            process_resident_memory_bytes 104857600
            vm_cache_entries{type="storage/hour_metric_ids"} 50000
            vm_cache_entries{type="storage/tsid"} 51000
            vm_data_size_bytes{type="indexdb/file"} 1000000
            vm_data_size_bytes{type="indexdb/inmemory"} 0
            vm_data_size_bytes{type="storage/big"} 0
            vm_data_size_bytes{type="storage/small"} 3000000
            vm_rows{type="indexdb/file"} 200000
            vm_rows{type="storage/big"} 0
            vm_rows{type="storage/small"} 8000000
            vm_rows_inserted_total{type="promremotewrite"} 8000000
            """;

    static final String PROM =
            """
            prometheus_build_info{branch="HEAD",goversion="go1.23.4",version="3.1.0"} 1
            process_cpu_seconds_total 40
            process_resident_memory_bytes 209715200
            prometheus_tsdb_head_series 50000
            prometheus_tsdb_head_samples_appended_total{type="float"} 10000000
            prometheus_tsdb_head_samples_appended_total{type="histogram"} 0
            prometheus_tsdb_storage_blocks_bytes 0
            prometheus_tsdb_wal_storage_size_bytes 25000000
            prometheus_tsdb_head_chunks_storage_size_bytes 5000000
            """;

    /** A vminsert's page: the insert path's metrics, no storage's. */
    static final String VMINSERT =
            """
            vm_app_version{version="vminsert-20240101-tags-v1.97.1-cluster-0-g0", short_version="v1.97.1"} 1
            process_cpu_seconds_total 3
            vm_rows_inserted_total{type="promremotewrite"} 8000000
            """;

    private static List<PromSnapshot> pages(String... texts) {
        return Arrays.stream(texts)
                .map(t -> t == null ? null : PromSnapshot.parse(t, 0))
                .toList();
    }

    @Test
    void victoriaMetricsMemoryIsResidentBytesPerSeriesWithASampleInTheLastHour() {
        CostFigures.Figure f = CostFigures.residentBytesPerSeries(pages(VM));
        assertThat(f.value()).isEqualTo(104857600.0 / 50000);
        assertThat(f.metrics())
                .isEqualTo("process_resident_memory_bytes ÷ vm_cache_entries{type=\"storage/hour_metric_ids\"}");
        assertThat(f.missing()).isEmpty();
        assertThat(f.known()).isTrue();
    }

    @Test
    void victoriaMetricsMemoryFallsBackToTheTsidCacheWhenNoSampleIsInTheCurrentHour() {
        // the search's input lies a week back: VictoriaMetrics makes no hour entry for it (seen: 0 beside 50,193 tsids)
        String weekOld = VM.replace(
                "vm_cache_entries{type=\"storage/hour_metric_ids\"} 50000",
                "vm_cache_entries{type=\"storage/hour_metric_ids\"} 0");
        CostFigures.Figure f = CostFigures.residentBytesPerSeries(pages(weekOld));
        assertThat(f.value()).isEqualTo(104857600.0 / 51000);
        assertThat(f.metrics()).isEqualTo("process_resident_memory_bytes ÷ vm_cache_entries{type=\"storage/tsid\"}");
        assertThat(f.note()).contains("current hour");
        // with an hour entry the hour's series count, whatever the cache holds
        assertThat(CostFigures.residentBytesPerSeries(pages(VM)).value()).isEqualTo(104857600.0 / 50000);
    }

    @Test
    void victoriaMetricsDiskIsEveryPartsBytesPerStoredRow() {
        CostFigures.Figure f = CostFigures.bytesPerSample(pages(VM));
        assertThat(f.value()).isEqualTo(0.5); // (1,000,000 index + 3,000,000 data bytes) ÷ 8,000,000 storage rows
        assertThat(f.metrics()).isEqualTo("sum(vm_data_size_bytes) ÷ sum(vm_rows{type=~\"storage/.*\"})");
    }

    @Test
    void prometheusMemoryIsResidentBytesPerHeadSeries() {
        CostFigures.Figure f = CostFigures.residentBytesPerSeries(pages(PROM));
        assertThat(f.value()).isEqualTo(209715200.0 / 50000);
        assertThat(f.metrics()).isEqualTo("process_resident_memory_bytes ÷ prometheus_tsdb_head_series");
    }

    @Test
    void prometheusDiskIsBlocksWalAndHeadChunksPerAppendedSample() {
        CostFigures.Figure f = CostFigures.bytesPerSample(pages(PROM));
        assertThat(f.value()).isEqualTo(3.0); // (0 + 25,000,000 + 5,000,000) ÷ 10,000,000
        assertThat(f.metrics())
                .isEqualTo(
                        "(prometheus_tsdb_storage_blocks_bytes + prometheus_tsdb_wal_storage_size_bytes"
                                + " + prometheus_tsdb_head_chunks_storage_size_bytes) ÷ prometheus_tsdb_head_samples_appended_total");
        assertThat(f.note()).isNull();
    }

    @Test
    void aPrometheusWithoutHeadChunksSizeCountsBlocksAndWalAndSaysSo() {
        CostFigures.Figure f =
                CostFigures.bytesPerSample(pages(PROM.replaceAll("(?m)^prometheus_tsdb_head_chunks.*\\n", "")));
        assertThat(f.value()).isEqualTo(2.5);
        assertThat(f.metrics()).doesNotContain("head_chunks");
        assertThat(f.note()).isEqualTo("head chunks not exposed");
    }

    @Test
    void aMissingMetricMakesTheFigureUnknownAndIsNamed() {
        CostFigures.Figure wal =
                CostFigures.bytesPerSample(pages(PROM.replaceAll("(?m)^prometheus_tsdb_wal.*\\n", "")));
        assertThat(wal.known()).isFalse();
        assertThat(wal.value()).isNaN();
        assertThat(wal.missing()).containsExactly("prometheus_tsdb_wal_storage_size_bytes");

        CostFigures.Figure rss =
                CostFigures.residentBytesPerSeries(pages(VM.replaceAll("(?m)^process_resident.*\\n", "")));
        assertThat(rss.missing()).containsExactly("process_resident_memory_bytes");
        assertThat(rss.source())
                .isEqualTo("process_resident_memory_bytes ÷ vm_cache_entries{type=\"storage/hour_metric_ids\"};"
                        + " missing process_resident_memory_bytes");
    }

    @Test
    void aVminsertPageHasNoStorageFiguresAndSaysWhichMetricsWereMissing() {
        CostFigures.Figure rss = CostFigures.residentBytesPerSeries(pages(VMINSERT));
        assertThat(rss.missing())
                .containsExactly("process_resident_memory_bytes", "vm_cache_entries{type=\"storage/hour_metric_ids\"}");
        CostFigures.Figure disk = CostFigures.bytesPerSample(pages(VMINSERT));
        assertThat(disk.missing()).containsExactly("vm_data_size_bytes", "vm_rows{type=~\"storage/.*\"}");
        assertThat(disk.value()).isNaN();
    }

    @Test
    void aClustersPagesAddUp() {
        String vmstorage =
                VM.replace("process_resident_memory_bytes 104857600", "process_resident_memory_bytes 94371840");
        String vminsert = VMINSERT + "process_resident_memory_bytes 10485760\n";
        assertThat(CostFigures.residentBytesPerSeries(pages(vminsert, vmstorage))
                        .value())
                .isEqualTo(104857600.0 / 50000);
        assertThat(CostFigures.bytesPerSample(pages(vminsert, vmstorage)).value())
                .isEqualTo(0.5);
    }

    @Test
    void anUnreadablePageOrAZeroDivisorIsUnknownWithANote() {
        CostFigures.Figure unread = CostFigures.bytesPerSample(pages((String) null));
        assertThat(unread.value()).isNaN();
        assertThat(unread.note()).isEqualTo("page unreadable at the search's end");
        assertThat(CostFigures.residentBytesPerSeries(List.of()).note())
                .isEqualTo("page unreadable at the search's end");
        CostFigures.Figure empty =
                CostFigures.bytesPerSample(pages(PROM.replace("{type=\"float\"} 10000000", "{type=\"float\"} 0")));
        assertThat(empty.value()).isNaN();
        assertThat(empty.missing()).isEmpty();
        assertThat(empty.note()).isEqualTo("no sample appended");
    }

    @Test
    void aPageOfNeitherTsdbNamesBothFamiliesMetrics() {
        CostFigures.Figure rss = CostFigures.residentBytesPerSeries(pages("process_resident_memory_bytes 1\n"));
        assertThat(rss.missing())
                .containsExactly("vm_cache_entries{type=\"storage/hour_metric_ids\"} or prometheus_tsdb_head_series");
    }

    @Test
    void theThreeFiguresOfATarget() {
        CpuPerSamples cpu = new CpuPerSamples();
        cpu.add(
                pages(PROM.replace("process_cpu_seconds_total 40", "process_cpu_seconds_total 10")),
                pages(PROM),
                10_000_000);
        CostFigures c = CostFigures.of(cpu, pages(PROM));
        assertThat(c.cpuSecondsPerMillion().value()).isCloseTo(3.0, within(1e-12));
        assertThat(c.residentBytesPerSeries().value()).isEqualTo(209715200.0 / 50000);
        assertThat(c.bytesPerSample().value()).isEqualTo(3.0);
    }
}
