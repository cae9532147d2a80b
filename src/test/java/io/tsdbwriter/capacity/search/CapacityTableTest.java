package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.lab.IngestDelays;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The capacity table and CSV name the placement every step ran with; the CSV keeps the quoted verdict last. */
class CapacityTableTest {

    private static final CapacityStep STEP = CapacityStep.builder()
            .index(1)
            .refine(false)
            .timeMultiplier(12)
            .inputPointsPerSecond(1000)
            .expectedPerMinute(720_000)
            .writtenPerMinute(719_000)
            .efficiency(0.9986)
            .p50Seconds(0.01)
            .p99Seconds(0.02)
            .permitWaitMs(0)
            .lagStart(0)
            .lagEnd(0)
            .lagGrowing(false)
            .writerCpuCores(0.4)
            .targetCpuCores(0.9)
            .targetCores(1)
            .insertsCurrent(1.5)
            .insertsCapacity(4)
            .loadAverage(0.8)
            .passed(true)
            .verdict(new Bottleneck.Verdict(
                    Bottleneck.Resource.INPUT, "the writer keeps up, with its input", "", List.of(), ""))
            .lost(0)
            .producedPoints(60_000)
            .build();

    @Test
    void everyStepNamesThePlacement() {
        List<String> table =
                CapacityTable.format("tsdb=0 writer=1", List.of(STEP)).lines().toList();
        assertThat(table.get(0)).contains("limited by", "placement");
        assertThat(table.get(1)).contains(" input ").contains("tsdb=0 writer=1");

        List<String> csv = CapacityTable.csv("shared", List.of(STEP)).lines().toList();
        assertThat(csv.get(0))
                .endsWith(
                        ",lost_samples,produced_points,active_series,new_series_per_second,slow_inserts_per_second,"
                                + "tsid_cache_misses_per_second,query_offered_per_second,query_done_per_second,query_p50_seconds,query_p90_seconds,"
                                + "query_p99_seconds,query_errors,query_timeouts,selects_current,selects_capacity,halves_spread,noise,remeasure_of,placement,verdict");
        assertThat(csv.get(1)).endsWith(",0,60000,,,,,,,,,,,,,,,,,shared,\"" + STEP.verdict() + "\"");
    }

    /** The writer's ingest delay stands beside the rates: two console columns, four CSV fields (blank: not measured). */
    @Test
    void theIngestDelayHasItsColumns() {
        CapacityStep measured = STEP.toBuilder()
                .delays(new IngestDelays(0.12, 0.48, Double.NaN, Double.NaN))
                .build();
        List<String> table =
                CapacityTable.format("shared", List.of(measured, STEP)).lines().toList();
        assertThat(table.get(0)).contains(" ack p50/p99 s ", " commit p50/p99 s ");
        int ack = table.get(0).indexOf("ack p50/p99 s") + "ack p50/p99 s".length();
        int commit = table.get(0).indexOf("commit p50/p99 s") + "commit p50/p99 s".length();
        assertThat(table.get(1).substring(0, ack)).endsWith(" 0.120/0.480");
        assertThat(table.get(1).substring(0, commit)).endsWith(" –/–");
        assertThat(table.get(2).substring(0, ack)).endsWith(" –/–");

        List<String> csv =
                CapacityTable.csv("shared", List.of(measured, STEP)).lines().toList();
        List<String> head = List.of(csv.get(0).split(","));
        assertThat(head)
                .containsSubsequence(
                        "p99_seconds",
                        "ingest_delay_acknowledged_p50_seconds",
                        "ingest_delay_acknowledged_p99_seconds",
                        "ingest_delay_committed_p50_seconds",
                        "ingest_delay_committed_p99_seconds",
                        "permit_wait_ms");
        String[] row = csv.get(1).substring(0, csv.get(1).indexOf(",\"")).split(",", -1);
        assertThat(row).hasSize(head.size() - 1); // all but the quoted verdict
        assertThat(row[head.indexOf("ingest_delay_acknowledged_p50_seconds")]).isEqualTo("0.1200");
        assertThat(row[head.indexOf("ingest_delay_acknowledged_p99_seconds")]).isEqualTo("0.4800");
        assertThat(row[head.indexOf("ingest_delay_committed_p50_seconds")]).isEmpty();
        assertThat(row[head.indexOf("ingest_delay_committed_p99_seconds")]).isEmpty();
    }
}
