package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck.Evidence;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Resource;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The attribution rules on recorded snapshots: one per verdict, ties, and missing metrics. The figures are those a
 * step of {@code capacity} records (cores, permits and inserts averaged over the window).
 */
class BottleneckTest {

    private static final double NA = Double.NaN;

    /** A 2-core writer and a 2-core target, nothing busy, keeping up: the base every case changes. */
    private static Evidence base(double efficiency, double lagGrowing) {
        return new Evidence(efficiency, 0.99, lagGrowing, 0.3, 2, 2, 16, 1, 16, 0.2, 2, 0.0, 0.3, NA, 0);
    }

    private static Evidence with(
            Evidence e, double writerCpu, double permitsInUse, double insertCurrent, double targetCpu, double slow) {
        return new Evidence(
                e.efficiency(),
                e.minEfficiency(),
                e.lagGrowing(),
                writerCpu,
                e.writerCores(),
                permitsInUse,
                e.permitsCapacity(),
                insertCurrent,
                e.targetInsertCapacity(),
                targetCpu,
                e.targetCores(),
                slow,
                e.machineCpuShare(),
                NA,
                e.insertWaitsPerSecond());
    }

    @Test
    void keepingUpIsTheInput() {
        Verdict v = Bottleneck.attribute(base(1.0, 0));
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
        assertThat(v.also()).isEmpty();
        assertThat(v.toString()).contains("limited by input", "efficiency 100.0%", "permits 2 of 16 (12.5%)");
    }

    @Test
    void theProofOfConceptsFindingIsTheTargetsInsertConcurrency() {
        // vminsert running 16 inserts of 16 with its CPU at 30 %, 200 writer connections waiting
        Evidence e = new Evidence(0.62, 0.99, 1, 0.5, 2, 200, 200, 16, 16, 0.6, 2, 0.0, 0.55);
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
        assertThat(v.advice()).isEqualTo("raise -maxConcurrentInserts or add vminsert nodes");
        assertThat(v.reason()).contains("16 of 16 (100.0% >= 90.0%)", "30.0%");
        assertThat(v.also())
                .containsExactly(Resource.WRITER_PERMITS); // the tie: permits full because the target queues
    }

    @Test
    void writerPermitsWhenAllInUseAndTheTargetIdles() {
        Verdict v = Bottleneck.attribute(with(base(0.7, 1), 0.2, 1.0 * 16, 0.5, 0.1, 0));
        assertThat(v.resource()).isEqualTo(Resource.WRITER_PERMITS);
        assertThat(v.reason()).contains("16 of 16", "3.1%");
    }

    @Test
    void writerCpu() {
        Verdict v = Bottleneck.attribute(with(base(0.8, 1), 1.9, 5, 2, 0.3, 0));
        assertThat(v.resource()).isEqualTo(Resource.WRITER_CPU);
        assertThat(v.reason()).contains("1.90 of 2 cores (95.0% >= 85.0%)");
    }

    @Test
    void targetCpu() {
        Verdict v = Bottleneck.attribute(with(base(0.8, 1), 0.4, 16, 16, 1.9, 0));
        assertThat(v.resource()).isEqualTo(Resource.TARGET_CPU);
        assertThat(v.also()).containsExactly(Resource.TARGET_INSERT_CONCURRENCY, Resource.WRITER_PERMITS);
    }

    @Test
    void storage() {
        Verdict v = Bottleneck.attribute(with(base(0.8, 1), 0.4, 10, 8, 0.8, 0.2));
        assertThat(v.resource()).isEqualTo(Resource.STORAGE);
        assertThat(v.reason()).contains("20.0%");
    }

    @Test
    void kafkaFetchWhenTheLagGrowsAndEverythingElseIdles() {
        Verdict v = Bottleneck.attribute(with(base(0.9, 1), 0.3, 3, 1, 0.2, 0));
        assertThat(v.resource()).isEqualTo(Resource.KAFKA_FETCH);
        assertThat(v.reason()).contains("readers wait on poll");
    }

    @Test
    void tieOfBothCpusGoesToTheBusierThenToTheTarget() {
        Verdict writerBusier = Bottleneck.attribute(with(base(0.8, 1), 1.95, 5, 2, 1.8, 0));
        assertThat(writerBusier.resource()).isEqualTo(Resource.WRITER_CPU);
        assertThat(writerBusier.also()).containsExactly(Resource.TARGET_CPU);
        Verdict equal = Bottleneck.attribute(with(base(0.8, 1), 1.9, 5, 2, 1.9, 0));
        assertThat(equal.resource()).isEqualTo(Resource.TARGET_CPU);
        assertThat(equal.also()).containsExactly(Resource.WRITER_CPU);
    }

    @Test
    void missingTargetMetricsNeverGuess() {
        // a target without /metrics access: permits full, target unknown
        Evidence noTarget = new Evidence(0.7, 0.99, 1, 0.3, 2, 16, 16, NA, NA, NA, NA, NA, NA);
        Verdict v = Bottleneck.attribute(noTarget);
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.toString()).contains("target inserts n/a of n/a");
        // lag growing, nothing saturated, target unknown: not "kafka-fetch"
        assertThat(Bottleneck.attribute(new Evidence(0.7, 0.99, 1, 0.3, 2, 2, 16, NA, NA, NA, NA, NA, NA))
                        .resource())
                .isEqualTo(Resource.UNKNOWN);
        // inserts at capacity, CPU unknown: the limiter or the CPU, not said which
        assertThat(Bottleneck.attribute(new Evidence(0.7, 0.99, 1, 0.3, 2, 16, 16, 16, 16, NA, NA, NA, NA))
                        .resource())
                .isEqualTo(Resource.UNKNOWN);
        // nothing expected
        assertThat(Bottleneck.attribute(base(NA, 0)).resource()).isEqualTo(Resource.UNKNOWN);
    }

    @Test
    void fallingBehindWithoutLagGrowthOrSaturationIsUnknown() {
        assertThat(Bottleneck.attribute(base(0.9, 0)).resource()).isEqualTo(Resource.UNKNOWN);
    }

    @Test
    void keepingUpWithASaturatedResourceIsStillTheInputAndNamesIt() {
        Verdict v = Bottleneck.attribute(with(base(1.0, 0), 0.3, 15, 1, 0.2, 0));
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
        assertThat(v.also()).containsExactly(Resource.WRITER_PERMITS);
    }

    @Test
    void aSaturatedMachineIsNamedBeforeTheInsertLimiterWhoseTargetLooksIdle() {
        // the shared machine of docs/benchmarks-archive.md: load far above the cores, the target's own CPU low because
        // it gets none
        Evidence e = new Evidence(0.7, 0.99, 1, 0.3, 2, 200, 200, 4, 4, 0.2, 2, 0.0, 0.98);
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.MACHINE_CPU);
        assertThat(v.also()).containsExactly(Resource.TARGET_INSERT_CONCURRENCY, Resource.WRITER_PERMITS);
        assertThat(v.evidence()).contains("machine CPU 98.0%");
        // the same window on an idle machine: the proof of concept's finding
        Evidence idle = new Evidence(0.7, 0.99, 1, 0.3, 2, 200, 200, 4, 4, 0.2, 2, 0.0, 0.3);
        assertThat(Bottleneck.attribute(idle).resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
        // permits full with the target idle is a fact however busy the machine: the permits
        Evidence permits = new Evidence(0.7, 0.99, 1, 0.3, 2, 1, 1, 0, 1, 0.02, 2, 0.0, 0.99, NA, 0);
        assertThat(Bottleneck.attribute(permits).resource()).isEqualTo(Resource.WRITER_PERMITS);
        // nothing saturated, lag growing, machine busy: not kafka-fetch by elimination
        Evidence starved = new Evidence(0.7, 0.99, 1, 0.3, 2, 2, 16, 1, 4, 0.2, 2, 0.0, 0.95);
        assertThat(Bottleneck.attribute(starved).resource()).isEqualTo(Resource.MACHINE_CPU);
        // unknown machine figure: the rule does not fire
        Evidence unknown = new Evidence(0.7, 0.99, 1, 0.3, 2, 200, 200, 4, 4, 0.2, 2, 0.0, NA);
        assertThat(Bottleneck.attribute(unknown).resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
    }

    @Test
    void newSeriesAtVictoriaMetricsChurnAlertWithTheTargetBusyIsSeriesChurn() {
        // falling behind, the target's CPU at 95 %, 30 % of the rows inserted created a new series (--churn-interval)
        Evidence e = new Evidence(0.8, 0.99, 1, 0.3, 2, 8, 16, 4, 16, 1.9, 2, 0.02, 0.95, 0.30);
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.SERIES_CHURN);
        assertThat(v.reason()).contains("new-series creation", "30.0%", "TooHighChurnRate");
        assertThat(v.toString()).contains("new series 30.0% of rows");
    }

    @Test
    void afewNewSeriesLeaveTheVerdictToTheTargetsCpu() {
        Evidence e = new Evidence(0.8, 0.99, 1, 0.3, 2, 8, 16, 4, 16, 1.9, 2, 0.02, 0.95, 0.001);
        assertThat(Bottleneck.attribute(e).resource()).isEqualTo(Resource.TARGET_CPU);
    }

    /**
     * Share mode (KIP-932): a member acquires records as fast as it writes them, so its efficiency is ~100 % and it has
     * no partition lag of its own: "keeping up with the input" says nothing. The verdict names what share mode is limited
     * by: the acquisition, the write permits or the TSDB.
     */
    @Test
    void shareModeWithTheWriteSideIdleIsLimitedByTheAcquisitionNotTheInput() {
        Verdict v = Bottleneck.attributeShare(base(1.0, NA));
        assertThat(v.resource()).isEqualTo(Resource.ACQUISITION);
        assertThat(v.reason()).doesNotContain("lag").contains("permits 12.5%", "target inserts 6.3%");
        assertThat(v.toString()).contains("limited by acquisition").doesNotContain("lag steady");
    }

    @Test
    void shareModeWithEveryPermitInUseIsLimitedByThePermitsAtFullEfficiency() {
        Verdict v = Bottleneck.attributeShare(with(base(1.0, NA), 0.2, 16, 0.5, 0.1, 0));
        assertThat(v.resource()).isEqualTo(Resource.WRITER_PERMITS);
    }

    @Test
    void shareModeWithTheTargetsInsertsFullIsLimitedByTheTsdb() {
        Verdict v = Bottleneck.attributeShare(with(base(1.0, NA), 0.2, 16, 16, 0.3, 0));
        assertThat(v.resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
    }

    @Test
    void shareModeWithNothingAcquiredInTheWindowSaysSo() {
        Verdict v = Bottleneck.attributeShare(base(NA, NA));
        assertThat(v.resource()).isEqualTo(Resource.ACQUISITION);
        assertThat(v.reason()).contains("no records acquired in the window");
    }

    @Test
    void anUnknownVerdictListsTheMeasurementsThatWereMissing() {
        // the proof of concept's second step: short of the minimum, the lag steady, the target's page unreadable
        Verdict v = Bottleneck.attribute(new Evidence(0.956, 0.99, 0, 0.3, 2, 2, 200, NA, NA, NA, NA, NA, 0.4));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason())
                .isEqualTo(
                        "efficiency 95.6% below 99.0% with the lag not growing; no resource can be named, missing: "
                                + "target insert concurrency (vm_concurrent_insert_current and _capacity: not exposed, or the target's /metrics unreadable), "
                                + "target CPU (process_cpu_seconds_total and a core count: not exposed, or the target's /metrics unreadable), "
                                + "slow inserts (vm_slow_row_inserts_total and vm_rows_inserted_total: not exposed, or the target's /metrics unreadable)");
        assertThat(v.advice()).isEqualTo("give the target's /metrics (--target-metrics-url)");
    }

    @Test
    void anUnknownVerdictWithEveryFigureKnownNamesTheNearestInsteadOfNothingSaturated() {
        // the proof of concept's first step: every figure read, none saturated (12 of 16 inserts), the lag steady
        Verdict v = Bottleneck.attribute(with(base(0.981, 0), 0.3, 2, 12, 0.2, 0));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason()).doesNotContain("nothing saturated");
        assertThat(v.reason())
                .isEqualTo(
                        "efficiency 98.1% below 99.0% with the lag not growing; every figure was measured and none is "
                                + "saturated (the nearest: target-insert-concurrency at 75.0%): the writer keeps pace with its input, the shortfall is "
                                + "samples still in flight at the window's end or the measurement's noise");
    }

    @Test
    void aGrowingLagWithFiguresMissingListsThem() {
        Verdict v = Bottleneck.attribute(new Evidence(0.7, 0.99, 1, 0.3, 2, 2, 16, NA, NA, NA, NA, NA, NA));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason())
                .startsWith("the lag grows and no known resource is saturated; missing: target insert concurrency");
        assertThat(v.reason()).contains("machine CPU (the writer's machine's /proc/stat)");
    }

    @Test
    void missingListsEveryUnknownFigure() {
        Evidence none = new Evidence(0.9, 0.99, NA, NA, 2, NA, NA, NA, NA, NA, NA, NA, NA);
        assertThat(none.missing())
                .extracting(m -> m.substring(0, m.indexOf(" (")))
                .containsExactly(
                        "lag trend",
                        "writer CPU",
                        "writer permits",
                        "target insert concurrency",
                        "target CPU",
                        "slow inserts",
                        "machine CPU");
        assertThat(base(0.9, 0).missing()).isEmpty();
    }

    @Test
    void anUnknownEfficiencySaysWhyItCanBeUnknown() {
        Verdict v = Bottleneck.attribute(base(NA, 0));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason())
                .isEqualTo("efficiency unknown: no samples were expected in the window, or the writer's /metrics was "
                        + "read fewer than twice in it");
    }

    /** The proof of concept's step 1 (issue 55): {@code -maxConcurrentInserts=1}, 200 writes allowed, 20 s steps. */
    private static Evidence proofOfConcept(double insertWaitsPerSecond) {
        return new Evidence(0.88, 0.99, 0, 0.4, 2, 200, 200, 0.15, 1, 0.3, 2, 0.0, 0.6, 0.0, insertWaitsPerSecond);
    }

    @Test
    void requestsWaitingForTheOneInsertSlotNameTheInsertLimitThoughTheSlotLooksIdle() {
        // the slot is freed while a request reads from the network: busy 15 % on average, yet 40 requests/s queue for
        // it
        Verdict v = Bottleneck.attribute(proofOfConcept(40));
        assertThat(v.resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
        assertThat("verdict (failing step 1, the nearest above the capacity): " + v)
                .isEqualTo(
                        "verdict (failing step 1, the nearest above the capacity): limited by target-insert-concurrency: the target's insert limit"
                                + " is reached: 40 requests/s waited for one of its 1 insert slots (vm_concurrent_insert_limit_reached_total, >= 1/s;"
                                + " the slots 15.0% busy on average) while its CPU is 15.0% of its cores (< 50.0%); also saturated: writer-permits"
                                + " -> raise -maxConcurrentInserts or add vminsert nodes [efficiency 88.0% (min 99.0%), lag steady, writer CPU 0.40 of 2"
                                + " cores (20.0%), permits 200 of 200 (100.0%), target inserts 0.15 of 1 (15.0%), target CPU 0.30 of 2 cores (15.0%),"
                                + " slow inserts 0.0%, new series 0.0% of rows, machine CPU 60.0%, insert waits 40/s]");
    }

    @Test
    void withoutTheInsertWaitCounterTheVerdictSaysItIsMissingInsteadOfUnknown() {
        Verdict v = Bottleneck.attribute(proofOfConcept(NA));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.toString())
                .isEqualTo("limited by: not attributed — efficiency 88.0% below 99.0% with the lag not growing;"
                        + " every write permit is in use (200 of 200) and the target's inserts average 15.0% of its capacity, but whether requests"
                        + " wait for its insert slots is unknown: vm_concurrent_insert_limit_reached_total absent -> give the target's /metrics"
                        + " with vm_concurrent_insert_limit_reached_total [efficiency 88.0% (min 99.0%), lag steady, writer CPU 0.40 of 2 cores"
                        + " (20.0%), permits 200 of 200 (100.0%), target inserts 0.15 of 1 (15.0%), target CPU 0.30 of 2 cores (15.0%), slow"
                        + " inserts 0.0%, new series 0.0% of rows, machine CPU 60.0%, insert waits n/a]");
    }

    @Test
    void withoutTheTargetsPageTheVerdictNamesTheMissingFigures() {
        Verdict v = Bottleneck.attribute(new Evidence(0.88, 0.99, 0, 0.4, 2, 20, 200, NA, NA, NA, NA, NA, 0.6, NA, NA));
        assertThat(v.toString())
                .isEqualTo(
                        "limited by: not attributed — efficiency 88.0% below 99.0% with the lag not growing; no"
                                + " resource can be named, missing: target insert concurrency (vm_concurrent_insert_current and _capacity: not exposed,"
                                + " or the target's /metrics unreadable), target CPU (process_cpu_seconds_total and a core count: not exposed, or the"
                                + " target's /metrics unreadable), slow inserts (vm_slow_row_inserts_total and vm_rows_inserted_total: not exposed, or"
                                + " the target's /metrics unreadable) -> give the target's /metrics (--target-metrics-url) [efficiency 88.0% (min 99.0%),"
                                + " lag steady, writer CPU 0.40 of 2 cores (20.0%), permits 20 of 200 (10.0%), target inserts n/a of n/a (n/a), target"
                                + " CPU n/a of n/a cores (n/a), slow inserts n/a, new series n/a of rows, machine CPU 60.0%, insert waits n/a]");
    }
}
