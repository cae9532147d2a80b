package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck.Evidence;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Resource;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Verdict;
import io.tsdbwriter.tsdbmetrics.ReadPath.ReadEvidence;
import org.junit.jupiter.api.Test;

/**
 * The read-path rule ({@code capacity --query-rate}) on recorded windows, in {@link BottleneckTest}'s style: failing
 * reads, full selects with a busy CPU, the select concurrency, and the cases it leaves to the write-side rules.
 */
class ReadPathTest {

    private static final double NA = Double.NaN;

    /** A 2-core writer and a 2-core target keeping up, the target's CPU at {@code targetCpu} cores. */
    private static Evidence keepingUp(double targetCpu) {
        return Evidence.builder()
                .efficiency(1.0)
                .minEfficiency(0.99)
                .lagGrowing(0)
                .writerCpu(0.3, 2)
                .permits(2, 16)
                .targetInserts(1, 16)
                .targetCpu(targetCpu, 2)
                .slowInsertRatio(0.0)
                .machineCpuShare(0.3)
                .build();
    }

    /** 1000 queries, p99 0.4 s of 10 s, 8 selects of capacity 16 unless changed. */
    private static ReadEvidence reads(long errors, long timeouts, double p99, double selects, double capacity) {
        return new ReadEvidence(1000, errors, timeouts, p99, 10, selects, capacity);
    }

    @Test
    void withoutAReadLoadTheWriteSideDecides() {
        Verdict v = ReadPath.attribute(keepingUp(0.2), null);
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
    }

    @Test
    void healthyReadsLeaveTheVerdictToTheWriteSide() {
        Verdict v = ReadPath.attribute(keepingUp(0.2), reads(10, 0, 0.4, 8, 16)); // 1.0 % failed: not above 1 %
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
    }

    @Test
    void failingQueriesWithTheCpuIdleNameTheReadPath() {
        Verdict v = ReadPath.attribute(keepingUp(0.2), reads(40, 5, 0.4, 2, 16));
        assertThat(v.resource()).isEqualTo(Resource.READ_PATH);
        assertThat(v.reason())
                .startsWith("the read load fails: 45 of 1000 queries failed (40 errors, 5 timeouts: 4.5%)");
        assertThat(v.toString()).contains("limited by read-path", "target selects 2 of 16 (12.5%)");
    }

    @Test
    void aSlowP99AloneFailsTheReads() {
        Verdict v = ReadPath.attribute(keepingUp(0.2), reads(0, 0, 12.5, 2, 16));
        assertThat(v.resource()).isEqualTo(Resource.READ_PATH);
        assertThat(v.reason()).contains("p99 12.50 s", "p99 max 10 s");
    }

    @Test
    void fullSelectsWithTheCpuBusyNameTheTargetsCpuEvenWhenTheQueriesPass() {
        Verdict v = ReadPath.attribute(keepingUp(1.8), reads(0, 0, 0.4, 15, 16));
        assertThat(v.resource()).isEqualTo(Resource.READ_PATH);
        assertThat(v.reason())
                .startsWith(
                        "the queries take the target's CPU (vmselect or single-node: 1.80 of 2 cores, 90.0% >= 85.0%)"
                                + " with its selects 15 of 16");
        assertThat(v.advice()).contains("vmselect");
    }

    @Test
    void fullSelectsWithTheCpuLowAndQueriesFailingNameTheSelectConcurrency() {
        Verdict v = ReadPath.attribute(keepingUp(0.4), reads(300, 0, 0.4, 1, 1));
        assertThat(v.resource()).isEqualTo(Resource.READ_PATH);
        assertThat(v.reason())
                .startsWith("the target's select concurrency: selects 1 of 1 (100.0% >= 90.0%) while its CPU is 20.0%");
        assertThat(v.advice()).contains("-search.maxConcurrentRequests");
    }

    @Test
    void fullSelectsWithPassingQueriesAndAnIdleCpuAreNotTheLimit() {
        Verdict v = ReadPath.attribute(keepingUp(0.4), reads(0, 0, 0.4, 16, 16));
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
    }

    @Test
    void theWriteSidesOwnLimitIsListedAsAlso() {
        // falling behind on the target's CPU while the reads fail: the reads take that CPU
        Evidence e = keepingUp(1.9).toBuilder()
                .efficiency(0.7)
                .lagGrowing(1)
                .machineCpuShare(0.5)
                .build();
        Verdict v = ReadPath.attribute(e, reads(200, 0, 3, 16, 16));
        assertThat(v.resource()).isEqualTo(Resource.READ_PATH);
        assertThat(v.also()).containsExactly(Resource.TARGET_CPU);
    }

    @Test
    void unknownSelectFiguresDoNotFireTheSelectRule() {
        Verdict v = ReadPath.attribute(keepingUp(1.8), reads(0, 0, 0.4, NA, NA));
        assertThat(v.resource()).isEqualTo(Resource.INPUT);
        assertThat(ReadPath.attribute(keepingUp(1.8), reads(20, 0, 0.4, NA, NA)).reason())
                .startsWith("the queries take the target's CPU")
                .contains("selects n/a of n/a");
    }

    @Test
    void nothingExpectedStaysUnknown() {
        Evidence e = Evidence.builder().minEfficiency(0.99).writerCores(2).build();
        assertThat(ReadPath.attribute(e, reads(500, 0, 1, 1, 1)).resource()).isEqualTo(Resource.UNKNOWN);
    }
}
