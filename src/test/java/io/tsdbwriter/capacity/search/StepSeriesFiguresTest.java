package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * A step's {@link StepSeries} from the targets' pages at the window's ends (VictoriaMetrics' names, the same on 1.79.5
 * and v1.150.0), and how the progress line, table and CSV show it.
 */
class StepSeriesFiguresTest {

    private static final long SECOND = 1_000_000_000L;

    private static PromSnapshot vm(long nanos, double created, double slow, double tsidMisses) {
        return PromSnapshot.parse(
                """
                vm_new_timeseries_created_total %s
                vm_slow_row_inserts_total %s
                vm_cache_misses_total{type="storage/tsid"} %s
                vm_cache_misses_total{type="storage/metricName"} 999999
                vm_rows_inserted_total{type="vmimport"} 100
                """
                        .formatted(created, slow, tsidMisses),
                nanos);
    }

    @Test
    void perSecondGrowthOfTheTargetsCountersOverTheWindow() {
        // two targets, 10 s apart: 2,000 + 500 new series, 300 slow inserts, 4,000 tsid misses in 10 s
        List<PromSnapshot> start = List.of(vm(0, 100, 10, 50), vm(0, 0, 0, 0));
        List<PromSnapshot> end = List.of(vm(10 * SECOND, 2_100, 310, 4_050), vm(10 * SECOND, 500, 0, 0));
        StepWindow w = new StepWindow(1, null, start, Double.NaN);
        w.add(10, 0, null, Double.NaN, end);

        StepSeries s = w.series(40_000);
        assertThat(s).isEqualTo(new StepSeries(40_000, 250, 30, 400));
    }

    @Test
    void requestsWaitingForAnInsertSlotAreTheLimitCountersGrowthPerSecond() {
        // VictoriaMetrics v1.150.0's limiter counter: 400 requests found its slots taken in 10 s; absent on the page →
        // NaN
        List<PromSnapshot> start = List.of(PromSnapshot.parse("vm_concurrent_insert_limit_reached_total 100\n", 0));
        StepWindow w = new StepWindow(1, null, start, Double.NaN);
        w.add(
                10,
                0,
                null,
                Double.NaN,
                List.of(PromSnapshot.parse("vm_concurrent_insert_limit_reached_total 500\n", 10 * SECOND)));
        assertThat(w.evidence(0.99, 1, 0.5).insertWaitsPerSecond()).isEqualTo(40.0);

        StepWindow none =
                new StepWindow(1, null, List.of(PromSnapshot.parse("process_cpu_seconds_total 1\n", 0)), Double.NaN);
        none.add(10, 0, null, Double.NaN, List.of(PromSnapshot.parse("process_cpu_seconds_total 2\n", 10 * SECOND)));
        assertThat(none.evidence(0.99, 1, 0.5).insertWaitsPerSecond()).isNaN();
    }

    @Test
    void figuresNoTargetExposesAreNaN() {
        List<PromSnapshot> start = List.of(PromSnapshot.parse("process_cpu_seconds_total 1\n", 0));
        StepWindow w = new StepWindow(1, null, start, Double.NaN);
        w.add(5, 0, null, Double.NaN, Arrays.asList(PromSnapshot.parse("process_cpu_seconds_total 2\n", 5 * SECOND)));
        StepSeries s = w.series(7);
        assertThat(s.activeSeries()).isEqualTo(7);
        assertThat(s.createdPerSecond()).isNaN();
        assertThat(s.slowInsertsPerSecond()).isNaN();
        assertThat(s.cacheMissesPerSecond()).isNaN();
    }

    @Test
    void theTableAndTheCsvShowTheSeriesFigures() {
        CapacityStep step = step(new StepSeries(40_000, 250, 31.5, Double.NaN));
        String table = CapacityTable.format("shared", List.of(step));
        assertThat(table.lines().findFirst().orElseThrow()).contains("series", "new/s", "slow/s", "tsid miss/s");
        assertThat(table.lines().skip(1).findFirst().orElseThrow()).contains("40000", "250.0", "31.5");
        String csv = CapacityTable.csv("shared", List.of(step, step(null)));
        List<String> lines = csv.lines().toList();
        assertThat(lines.get(0))
                .endsWith(
                        ",active_series,new_series_per_second,slow_inserts_per_second,"
                                + "tsid_cache_misses_per_second,query_offered_per_second,query_done_per_second,query_p50_seconds,query_p90_seconds,"
                                + "query_p99_seconds,query_errors,query_timeouts,selects_current,selects_capacity,halves_spread,noise,remeasure_of,placement,verdict");
        assertThat(lines.get(1)).contains(",40000,250.0000,31.5000,,,,,,,,,,,,,,shared,\"");
        assertThat(lines.get(2)).as("not measured").contains(",,,,,,,,,,,,,,,,,shared,\"");
    }

    @Test
    void theProgressLineNamesTheSeriesFigures() {
        assertThat(StepRunner.seriesText(new StepSeries(40_000, 250, 31.5, Double.NaN)))
                .isEqualTo("series 40,000 active, 250.0 new/s, 31.5 slow inserts/s, - tsid cache misses/s");
    }

    private static CapacityStep step(StepSeries series) {
        return CapacityStep.builder()
                .index(1)
                .refine(false)
                .timeMultiplier(1)
                .inputPointsPerSecond(1000)
                .expectedPerMinute(60_000)
                .writtenPerMinute(60_000)
                .efficiency(1)
                .p50Seconds(0.01)
                .p99Seconds(0.02)
                .permitWaitMs(0)
                .lagStart(0)
                .lagEnd(0)
                .lagGrowing(false)
                .writerCpuCores(0.1)
                .targetCpuCores(0.1)
                .targetCores(2)
                .insertsCurrent(0.5)
                .insertsCapacity(4)
                .loadAverage(0.3)
                .passed(true)
                .verdict(new Bottleneck.Verdict(Bottleneck.Resource.INPUT, "keeping up", "", List.of(), "-"))
                .lost(0)
                .producedPoints(1000)
                .series(series)
                .build();
    }

    @Test
    void aTargetPlacedOnOneCpuIsBusyOnThatCpuWhateverCoresItReports() {
        // VictoriaMetrics 1.79.5 under taskset -c 0 on a 2-core machine reports 2 cores; 9 CPU-s in 10 s is its one
        // core at 90 %
        List<PromSnapshot> start =
                List.of(PromSnapshot.parse("process_cpu_seconds_total 1\nprocess_cpu_cores_available 2\n", 0));
        List<PromSnapshot> end = List.of(
                PromSnapshot.parse("process_cpu_seconds_total 10\nprocess_cpu_cores_available 2\n", 10 * SECOND));
        StepWindow shared = new StepWindow(1, null, start, Double.NaN);
        shared.add(10, 0, null, Double.NaN, end);
        StepWindow placed = new StepWindow(1, null, start, Double.NaN).targetCoresCap(1);
        placed.add(10, 0, null, Double.NaN, end);

        assertThat(shared.targetCpu()[0]).isCloseTo(0.9, Offset.offset(1e-9));
        assertThat(shared.targetCpu()[1]).isEqualTo(2);
        assertThat(placed.targetCpu()[1]).isEqualTo(1);
    }
}
