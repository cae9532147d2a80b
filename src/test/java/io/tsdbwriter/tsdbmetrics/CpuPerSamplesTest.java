package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The TSDB's CPU seconds per million samples written, summed over the measured windows that count. */
class CpuPerSamplesTest {

    private static List<PromSnapshot> cpu(Double... seconds) {
        return Arrays.stream(seconds)
                .map(s -> s == null
                        ? null
                        : PromSnapshot.parse("vm_app_version 1\nprocess_cpu_seconds_total " + s + "\n", 0))
                .toList();
    }

    @Test
    void theCpuOfEveryWindowOverTheSamplesWrittenInThem() {
        CpuPerSamples c = new CpuPerSamples();
        c.add(cpu(10.0), cpu(12.5), 5_000_000);
        c.add(cpu(20.0), cpu(21.5), 1_000_000);
        CostFigures.Figure f = c.figure();
        assertThat(f.value()).isCloseTo(4.0 / 6, within(1e-12)); // (2.5 + 1.5) s ÷ 6,000,000 samples × 10⁶
        assertThat(f.metrics()).isEqualTo("process_cpu_seconds_total ÷ tsdbwriter_samples_written_total × 10⁶");
        assertThat(f.note()).isEqualTo("2 measured windows");
        assertThat(c.windows()).isEqualTo(2);
    }

    @Test
    void aClustersProcessesAddUp() {
        CpuPerSamples c = new CpuPerSamples();
        c.add(cpu(1.0, 10.0), cpu(2.0, 13.0), 2_000_000);
        assertThat(c.figure().value()).isCloseTo(2.0, within(1e-12));
    }

    @Test
    void windowsThatCannotCountAreLeftOutAndCounted() {
        CpuPerSamples c = new CpuPerSamples();
        c.add(cpu(10.0), cpu(11.0), 1_000_000);
        c.add(cpu((Double) null), cpu(12.0), 1_000_000); // unreadable at the start
        c.add(cpu(50.0), cpu(1.0), 1_000_000); // restarted: the counter fell
        c.add(cpu(12.0), cpu(12.5), Double.NaN); // the writer not read twice
        CostFigures.Figure f = c.figure();
        assertThat(f.value()).isCloseTo(1.0, within(1e-12));
        assertThat(f.note())
                .isEqualTo("1 measured window; left out 1 window: page unreadable, 1 window: CPU counter fell, "
                        + "1 window: nothing written");
    }

    @Test
    void aPageWithoutTheCpuCounterNamesIt() {
        CpuPerSamples c = new CpuPerSamples();
        List<PromSnapshot> page = List.of(PromSnapshot.parse("prometheus_tsdb_head_series 1\n", 0));
        c.add(page, page, 1_000_000);
        CostFigures.Figure f = c.figure();
        assertThat(f.value()).isNaN();
        assertThat(f.missing()).containsExactly("process_cpu_seconds_total");
    }

    @Test
    void withoutAStepItIsUnknown() {
        CostFigures.Figure f = new CpuPerSamples().figure();
        assertThat(f.known()).isFalse();
        assertThat(f.note()).isEqualTo("no step measured");
    }
}
