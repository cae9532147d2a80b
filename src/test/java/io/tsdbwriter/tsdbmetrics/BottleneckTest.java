package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck.Evidence;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Resource;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Verdict;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The attribution rules on recorded snapshots: one per verdict, ties, and missing metrics. The figures are those a
 * step of {@code capacity} records (cores, permits and inserts averaged over the window).
 */
class BottleneckTest {

    private static final double NA = Double.NaN;
    private static final double GROWING = 1;
    private static final double STEADY = 0;

    /** A 2-core writer and a 2-core target, nothing busy, no insert waits: the base every case changes. */
    private static Evidence.Builder window(double efficiency, double lagGrowing) {
        return Evidence.builder()
                .efficiency(efficiency)
                .minEfficiency(0.99)
                .lagGrowing(lagGrowing)
                .writerCpu(0.3, 2)
                .permits(2, 16)
                .targetInserts(1, 16)
                .targetCpu(0.2, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.3)
                .insertWaitsPerSecond(0);
    }

    private static Evidence base(double efficiency, double lagGrowing) {
        return window(efficiency, lagGrowing).build();
    }

    /** Falling behind (efficiency 70 % of 99 %, the lag growing) on a 2-core writer at 0.3 cores; nothing else known. */
    private static Evidence.Builder behind() {
        return Evidence.builder()
                .efficiency(0.7)
                .minEfficiency(0.99)
                .lagGrowing(GROWING)
                .writerCpu(0.3, 2);
    }

    /** Behind with every write permit taken, the target's 4 insert slots full and its CPU at 0.2 of 2 cores. */
    private static Evidence.Builder insertsFull() {
        return behind().permits(200, 200).targetInserts(4, 4).targetCpu(0.2, 2).slowInsertRatio(0.0);
    }

    /** Behind (efficiency 80 %) with the target's CPU at 1.9 of 2 cores on a busy machine, 2 % slow inserts. */
    private static Evidence.Builder targetBusy() {
        return behind().efficiency(0.8)
                .permits(8, 16)
                .targetInserts(4, 16)
                .targetCpu(1.9, 2)
                .slowInsertRatio(0.02)
                .machineCpuShare(0.95);
    }

    /** One window per write-side verdict: the resource named and what its reason says. */
    static Stream<Arguments> oneWindowPerVerdict() {
        return Stream.of(
                verdict(
                        "writer permits when all in use and the target idles",
                        window(0.7, GROWING)
                                .writerCpuCores(0.2)
                                .permitsInUse(16)
                                .targetInsertCurrent(0.5)
                                .targetCpuCores(0.1),
                        Resource.WRITER_PERMITS,
                        "16 of 16",
                        "3.1%"),
                verdict(
                        "writer CPU",
                        window(0.8, GROWING)
                                .writerCpuCores(1.9)
                                .permitsInUse(5)
                                .targetInsertCurrent(2)
                                .targetCpuCores(0.3),
                        Resource.WRITER_CPU,
                        "1.90 of 2 cores (95.0% >= 85.0%)"),
                verdict(
                        "storage",
                        window(0.8, GROWING)
                                .writerCpuCores(0.4)
                                .permitsInUse(10)
                                .targetInsertCurrent(8)
                                .targetCpuCores(0.8)
                                .slowInsertRatio(0.2),
                        Resource.STORAGE,
                        "20.0%"),
                verdict(
                        "kafka fetch when the lag grows and everything else idles",
                        window(0.9, GROWING).permitsInUse(3),
                        Resource.KAFKA_FETCH,
                        "readers wait on poll"));
    }

    private static Arguments verdict(String name, Evidence.Builder window, Resource named, String... reasonSays) {
        return Arguments.argumentSet(name, window.build(), named, reasonSays);
    }

    @ParameterizedTest
    @MethodSource("oneWindowPerVerdict")
    void oneWindowPerVerdict(Evidence window, Resource named, String[] reasonSays) {
        Verdict v = Bottleneck.attribute(window);
        assertThat(v.resource()).isEqualTo(named);
        assertThat(v.reason()).contains(reasonSays);
    }

    @Test
    void keepingUpIsTheInput() {
        Verdict v = Bottleneck.attribute(base(1.0, STEADY));
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
        assertThat(v.also()).isEmpty();
        assertThat(v.toString()).contains("limited by input", "efficiency 100.0%", "permits 2 of 16 (12.5%)");
    }

    @Test
    void theProofOfConceptsFindingIsTheTargetsInsertConcurrency() {
        // vminsert running 16 inserts of 16 with its CPU at 30 %, 200 writer connections waiting
        Evidence e = behind().efficiency(0.62)
                .writerCpu(0.5, 2)
                .permits(200, 200)
                .targetInserts(16, 16)
                .targetCpu(0.6, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.55)
                .build();
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
        assertThat(v.advice()).isEqualTo("raise -maxConcurrentInserts or add vminsert nodes");
        assertThat(v.reason()).contains("16 of 16 (100.0% >= 90.0%)", "30.0%");
        assertThat(v.also())
                .containsExactly(Resource.WRITER_PERMITS); // the tie: permits full because the target queues
    }

    @Test
    void targetCpu() {
        Verdict v = Bottleneck.attribute(window(0.8, GROWING)
                .writerCpuCores(0.4)
                .permitsInUse(16)
                .targetInsertCurrent(16)
                .targetCpuCores(1.9)
                .build());
        assertThat(v.resource()).isEqualTo(Resource.TARGET_CPU);
        assertThat(v.also()).containsExactly(Resource.TARGET_INSERT_CONCURRENCY, Resource.WRITER_PERMITS);
    }

    @Test
    void tieOfBothCpusGoesToTheBusierThenToTheTarget() {
        Verdict writerBusier = Bottleneck.attribute(window(0.8, GROWING)
                .writerCpuCores(1.95)
                .permitsInUse(5)
                .targetInsertCurrent(2)
                .targetCpuCores(1.8)
                .build());
        assertThat(writerBusier.resource()).isEqualTo(Resource.WRITER_CPU);
        assertThat(writerBusier.also()).containsExactly(Resource.TARGET_CPU);
        Verdict equal = Bottleneck.attribute(window(0.8, GROWING)
                .writerCpuCores(1.9)
                .permitsInUse(5)
                .targetInsertCurrent(2)
                .targetCpuCores(1.9)
                .build());
        assertThat(equal.resource()).isEqualTo(Resource.TARGET_CPU);
        assertThat(equal.also()).containsExactly(Resource.WRITER_CPU);
    }

    @Test
    void missingTargetMetricsNeverGuess() {
        // a target without /metrics access: permits full, target unknown
        Evidence noTarget = behind().permits(16, 16).build();
        Verdict v = Bottleneck.attribute(noTarget);
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.toString()).contains("target inserts n/a of n/a");
        // lag growing, nothing saturated, target unknown: not "kafka-fetch"
        assertThat(Bottleneck.attribute(behind().permits(2, 16).build()).resource())
                .isEqualTo(Resource.UNKNOWN);
        // inserts at capacity, CPU unknown: the limiter or the CPU, not said which
        assertThat(Bottleneck.attribute(
                                behind().permits(16, 16).targetInserts(16, 16).build())
                        .resource())
                .isEqualTo(Resource.UNKNOWN);
        // nothing expected
        assertThat(Bottleneck.attribute(base(NA, STEADY)).resource()).isEqualTo(Resource.UNKNOWN);
    }

    @Test
    void fallingBehindWithoutLagGrowthOrSaturationIsUnknown() {
        assertThat(Bottleneck.attribute(base(0.9, STEADY)).resource()).isEqualTo(Resource.UNKNOWN);
    }

    @Test
    void keepingUpWithASaturatedResourceIsStillTheInputAndNamesIt() {
        Verdict v = Bottleneck.attribute(window(1.0, STEADY).permitsInUse(15).build());
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
        assertThat(v.also()).containsExactly(Resource.WRITER_PERMITS);
    }

    @Test
    void aSaturatedMachineIsNamedBeforeTheInsertLimiterWhoseTargetLooksIdle() {
        // the shared machine of docs/benchmarks-archive.md: load far above the cores, the target's own CPU low because
        // it gets none
        Evidence e = insertsFull().machineCpuShare(0.98).build();
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.MACHINE_CPU);
        assertThat(v.also()).containsExactly(Resource.TARGET_INSERT_CONCURRENCY, Resource.WRITER_PERMITS);
        assertThat(v.evidence()).contains("machine CPU 98.0%");
        // the same window on an idle machine: the proof of concept's finding
        Evidence idle = insertsFull().machineCpuShare(0.3).build();
        assertThat(Bottleneck.attribute(idle).resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
        // permits full with the target idle is a fact however busy the machine: the permits
        Evidence permits = behind().permits(1, 1)
                .targetInserts(0, 1)
                .targetCpu(0.02, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.99)
                .insertWaitsPerSecond(0)
                .build();
        assertThat(Bottleneck.attribute(permits).resource()).isEqualTo(Resource.WRITER_PERMITS);
        // nothing saturated, lag growing, machine busy: not kafka-fetch by elimination
        Evidence starved = behind().permits(2, 16)
                .targetInserts(1, 4)
                .targetCpu(0.2, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.95)
                .build();
        assertThat(Bottleneck.attribute(starved).resource()).isEqualTo(Resource.MACHINE_CPU);
        // unknown machine figure: the rule does not fire
        Evidence unknown = insertsFull().build();
        assertThat(Bottleneck.attribute(unknown).resource()).isEqualTo(Resource.TARGET_INSERT_CONCURRENCY);
    }

    @Test
    void newSeriesAtVictoriaMetricsChurnAlertWithTheTargetBusyIsSeriesChurn() {
        // falling behind, the target's CPU at 95 %, 30 % of the rows inserted created a new series (--churn-interval)
        Evidence e = targetBusy().newSeriesRatio(0.30).build();
        Verdict v = Bottleneck.attribute(e);
        assertThat(v.resource()).isEqualTo(Resource.SERIES_CHURN);
        assertThat(v.reason()).contains("new-series creation", "30.0%", "TooHighChurnRate");
        assertThat(v.toString()).contains("new series 30.0% of rows");
    }

    @Test
    void afewNewSeriesLeaveTheVerdictToTheTargetsCpu() {
        Evidence e = targetBusy().newSeriesRatio(0.001).build();
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
        Verdict v = Bottleneck.attributeShare(window(1.0, NA)
                .writerCpuCores(0.2)
                .permitsInUse(16)
                .targetInsertCurrent(0.5)
                .targetCpuCores(0.1)
                .build());
        assertThat(v.resource()).isEqualTo(Resource.WRITER_PERMITS);
    }

    @Test
    void shareModeWithTheTargetsInsertsFullIsLimitedByTheTsdb() {
        Verdict v = Bottleneck.attributeShare(window(1.0, NA)
                .writerCpuCores(0.2)
                .permitsInUse(16)
                .targetInsertCurrent(16)
                .targetCpuCores(0.3)
                .build());
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
        Verdict v = Bottleneck.attribute(behind().efficiency(0.956)
                .lagGrowing(STEADY)
                .permits(2, 200)
                .machineCpuShare(0.4)
                .build());
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
        Verdict v = Bottleneck.attribute(
                window(0.981, STEADY).targetInsertCurrent(12).build());
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
        Verdict v = Bottleneck.attribute(behind().permits(2, 16).build());
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason())
                .startsWith("the lag grows and no known resource is saturated; missing: target insert concurrency");
        assertThat(v.reason()).contains("machine CPU (the writer's machine's /proc/stat)");
    }

    @Test
    void missingListsEveryUnknownFigure() {
        Evidence none = Evidence.builder()
                .efficiency(0.9)
                .minEfficiency(0.99)
                .writerCores(2)
                .build();
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
        assertThat(base(0.9, STEADY).missing()).isEmpty();
    }

    @Test
    void anUnknownEfficiencySaysWhyItCanBeUnknown() {
        Verdict v = Bottleneck.attribute(base(NA, STEADY));
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.reason())
                .isEqualTo("efficiency unknown: no samples were expected in the window, or the writer's /metrics was "
                        + "read fewer than twice in it");
    }

    /** The proof of concept's step 1 (issue 55): {@code -maxConcurrentInserts=1}, 200 writes allowed, 20 s steps. */
    private static Evidence proofOfConcept(double insertWaitsPerSecond) {
        return behind().efficiency(0.88)
                .lagGrowing(STEADY)
                .writerCpu(0.4, 2)
                .permits(200, 200)
                .targetInserts(0.15, 1)
                .targetCpu(0.3, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.6)
                .newSeriesRatio(0.0)
                .insertWaitsPerSecond(insertWaitsPerSecond)
                .build();
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
        Verdict v = Bottleneck.attribute(behind().efficiency(0.88)
                .lagGrowing(STEADY)
                .writerCpu(0.4, 2)
                .permits(20, 200)
                .machineCpuShare(0.6)
                .build());
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
