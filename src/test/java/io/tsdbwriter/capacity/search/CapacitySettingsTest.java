package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.InputRate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The search's settings by name: the command's defaults, what {@code validate()} refuses, one target's settings. */
class CapacitySettingsTest {

    @Test
    void theDefaultsAreTheCommandsFlagDefaults() {
        CapacitySearch.Settings s = CapacitySearch.Settings.builder().build();
        assertThat(s.stepFactor()).isEqualTo(1.25);
        assertThat(s.stepDuration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.warmUp()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.maxSteps()).isEqualTo(7);
        assertThat(s.refineSteps()).isEqualTo(1);
        assertThat(s.parallelism()).isEqualTo(3);
        assertThat(s.minEfficiency()).isEqualTo(0.99);
        assertThat(s.startRate()).isEqualTo(InputRate.parse("100%"));
        assertThat(s.placement()).isEqualTo(CpuPinning.Plan.SHARED);
        assertThat(s.automaticWritePermits()).isTrue();
        assertThat(s.budgeted()).isTrue();
    }

    @Test
    void theNamedFormulas() {
        CapacitySearch.Settings s = CapacitySearch.Settings.builder()
                .maxP99(Duration.ofMillis(2500))
                .stepDuration(Duration.ofSeconds(20))
                .writePermits(-1)
                .timeBudget(Duration.ZERO)
                .startRate(InputRate.parse("1000"))
                .build();
        assertThat(s.maxP99Seconds()).isEqualTo(2.5);
        assertThat(s.pointsPerStep(100.01)).isEqualTo(2001);
        assertThat(s.writersMaxConcurrentWrites()).isZero();
        assertThat(s.budgeted()).isFalse();
        assertThat(s.probePasses()).as("an absolute start rate probes nothing").isZero();
        assertThat(s.toBuilder().writePermits(16).build().writersMaxConcurrentWrites())
                .isEqualTo(16);
    }

    @Test
    void validateRefusesWhatTheCommandRefuses() {
        assertThatThrownBy(() -> CapacitySearch.Settings.builder().stepFactor(1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stepFactor");
        assertThatThrownBy(() -> CapacitySearch.Settings.builder()
                        .warmUp(Duration.ofSeconds(60))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("warmUp");
        assertThatThrownBy(
                        () -> CapacitySearch.Settings.builder().refineSteps(-1).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(
                        () -> CapacitySearch.Settings.builder().minEfficiency(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CapacitySearch.Settings.builder().vmUrl(null).build())
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void oneTargetsSettingsChangeOnlyWhatIsTheTargets() {
        CapacitySearch.Settings base = CapacitySearch.Settings.builder()
                .topicPrefix("pre")
                .workDir(Path.of("/w"))
                .report(Path.of("/r"))
                .csv(Path.of("/o/steps.csv"))
                .extraRunArgs(List.of("--x"))
                .maxSteps(3)
                .build();
        CapacitySearch.Settings a = base.forTarget(SearchTarget.parse("a=http://a:8428"), null);
        assertThat(a.vmUrl()).isEqualTo("http://a:8428");
        assertThat(a.topicPrefix()).isEqualTo("pre-a");
        assertThat(a.workDir()).isEqualTo(Path.of("/w/a"));
        assertThat(a.report()).isEqualTo(Path.of("/r/a"));
        assertThat(a.csv()).isEqualTo(Path.of("/o/steps-a.csv"));
        assertThat(a.chart()).isNull();
        assertThat(a.extraRunArgs()).startsWith("--x");
        assertThat(a.maxSteps()).isEqualTo(3);
        assertThat(a.toBuilder()
                        .vmUrl(base.vmUrl())
                        .targetMetricsUrls(base.targetMetricsUrls())
                        .topicPrefix("pre")
                        .workDir(Path.of("/w"))
                        .report(Path.of("/r"))
                        .csv(Path.of("/o/steps.csv"))
                        .extraRunArgs(List.of("--x"))
                        .readBackUrl(base.readBackUrl())
                        .build())
                .as("nothing else changed")
                .isEqualTo(base);
    }
}
