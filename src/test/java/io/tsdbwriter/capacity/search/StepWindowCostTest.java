package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a step's measured window gives the target's CPU per sample: its pages at both ends and the samples written between. */
class StepWindowCostTest {

    private static final long SECOND = 1_000_000_000L;

    private static PromSnapshot writer(double written, long nanos) {
        return PromSnapshot.parse("tsdbwriter_samples_written_total " + written + "\n", nanos);
    }

    private static List<PromSnapshot> target(double cpuSeconds, long nanos) {
        return List.of(PromSnapshot.parse("vm_app_version 1\nprocess_cpu_seconds_total " + cpuSeconds + "\n", nanos));
    }

    @Test
    void theWindowsEndsAndTheSamplesWrittenBetweenThemGiveTheCpuPerMillionSamples() {
        StepWindow w = new StepWindow(1, writer(1_000_000, 0), target(100, 0), 0);
        w.add(5, 0, writer(3_000_000, 5 * SECOND), 1, target(101, 5 * SECOND));
        w.add(10, 0, writer(5_000_000, 10 * SECOND), 2, target(102, 10 * SECOND));
        assertThat(w.samplesWritten()).isEqualTo(4_000_000);
        assertThat(w.targetsAtStart().get(0).sum("process_cpu_seconds_total")).isEqualTo(100);
        assertThat(w.targetsLast().get(0).sum("process_cpu_seconds_total")).isEqualTo(102);
        CpuPerSamples cpu = new CpuPerSamples();
        cpu.add(w.targetsAtStart(), w.targetsLast(), w.samplesWritten());
        assertThat(cpu.figure().value()).isCloseTo(0.5, within(1e-12)); // 2 CPU-s ÷ 4,000,000 samples × 10⁶
    }

    @Test
    void aWriterReadOnlyOnceWritesNothingTheWindowCanCount() {
        StepWindow w = new StepWindow(1, writer(1_000_000, 0), target(100, 0), 0);
        w.add(5, 0, null, Double.NaN, target(101, 5 * SECOND));
        assertThat(w.samplesWritten()).isNaN();
        CpuPerSamples cpu = new CpuPerSamples();
        cpu.add(w.targetsAtStart(), w.targetsLast(), w.samplesWritten());
        assertThat(cpu.figure().value()).isNaN();
        assertThat(cpu.figure().note()).isEqualTo("left out 1 window: nothing written");
    }
}
