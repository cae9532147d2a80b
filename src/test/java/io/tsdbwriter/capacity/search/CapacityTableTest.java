package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

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
}
