package io.tsdbwriter.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The default durability window, read from a TSDB process's /metrics page. */
class DurabilityNeedTest {

    private static DurabilityNeed.Need of(String page) {
        return DurabilityNeed.of(PromSnapshot.parse(page, 0));
    }

    @Test
    void victoriaMetricsWithTheFlagWaitsTwiceTheInMemoryFlushIntervalPlusTheRawRowsAndAMargin() {
        DurabilityNeed.Need n = of(
                """
                vm_app_start_timestamp 1795300857
                vm_data_size_bytes{type="storage/small"} 1234
                flag{name="inmemoryDataFlushInterval", value="5s", is_set="false"} 1
                """);

        assertThat(n.window()).isEqualTo(Duration.ofSeconds(16));
        assertThat(n.kind()).isEqualTo("victoriametrics-storage");
        assertThat(n.stores()).isTrue();
        assertThat(n.why()).contains("-inmemoryDataFlushInterval=5s");
    }

    @Test
    void aLongerFlushIntervalLengthensTheWindow() {
        DurabilityNeed.Need n = of(
                """
                vm_app_start_timestamp 1795300857
                vm_data_size_bytes{type="storage/small"} 1234
                flag{name="inmemoryDataFlushInterval", value="1m30s", is_set="true"} 1
                """);

        assertThat(n.window()).isEqualTo(Duration.ofSeconds(186));
    }

    @Test
    void victoriaMetricsBeforeTheFlagIsTakenAtItsHardCodedFiveSeconds() {
        DurabilityNeed.Need n = of(
                """
                vm_app_version{version="victoria-metrics-20220801", short_version="v1.79.5"} 1
                vm_app_start_timestamp 1795300857
                vm_data_size_bytes{type="indexdb"} 1234
                flag{name="retentionPeriod", value="1", is_set="false"} 1
                """);

        assertThat(n.window()).isEqualTo(Duration.ofSeconds(16));
        assertThat(n.why()).contains("v1.85");
    }

    @Test
    void vminsertAloneCannotSayWhenItsStorageNodesPersist() {
        DurabilityNeed.Need n = of(
                """
                vm_app_start_timestamp 1795300857
                vm_rpc_rows_sent_total 10
                """);

        assertThat(n.window()).isEqualTo(DurabilityNeed.UNKNOWN);
        assertThat(n.kind()).isEqualTo("victoriametrics-insert");
        assertThat(n.stores()).isFalse();
    }

    @Test
    void prometheusWritesItsWalBeforeAnswering() {
        DurabilityNeed.Need n = of(
                """
                process_start_time_seconds 1.79530085712e+09
                prometheus_build_info{branch="HEAD",version="3.5.0"} 1
                prometheus_tsdb_head_series 0
                """);

        assertThat(n.window()).isEqualTo(DurabilityNeed.PROMETHEUS);
        assertThat(n.stores()).isTrue();
    }

    @Test
    void anUnknownReceiverGetsTheDocumentedDefault() {
        assertThat(of("cortex_ingester_ingested_samples_total 3\n").window()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void goDurationsParseAsVictoriaMetricsPrintsThem() {
        assertThat(DurabilityNeed.parseGoDuration("5s")).contains(Duration.ofSeconds(5));
        assertThat(DurabilityNeed.parseGoDuration("1m0s")).contains(Duration.ofMinutes(1));
        assertThat(DurabilityNeed.parseGoDuration("1.5s")).contains(Duration.ofMillis(1500));
        assertThat(DurabilityNeed.parseGoDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(DurabilityNeed.parseGoDuration("0")).contains(Duration.ZERO);
        assertThat(DurabilityNeed.parseGoDuration("5 s")).isEmpty();
        assertThat(DurabilityNeed.parseGoDuration("")).isEmpty();
        assertThat(DurabilityNeed.parseGoDuration("five")).isEmpty();
    }
}
