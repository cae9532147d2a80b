package io.tsdbwriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.metrics.AotCacheStatus.State;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AotCacheStatusTest {

    @TempDir
    Path dir;

    @Test
    void saysNothingWithoutAotFlags() {
        assertThat(AotCacheStatus.of(List.of("-Xmx512m"), "mixed mode, sharing"))
                .isEmpty();
    }

    @Test
    void oneStateAndOneLineForEachCase() throws Exception {
        Path cache = Files.writeString(dir.resolve("w.aot"), "x");
        AotCacheStatus inUse = AotCacheStatus.of(List.of("-XX:AOTCache=" + cache), "mixed mode, sharing")
                .orElseThrow();
        assertThat(inUse.state()).isEqualTo(State.IN_USE);
        assertThat(inUse.line()).isEqualTo("AOT cache " + cache + ": in use");
        assertThat(inUse.warns()).isFalse();

        AotCacheStatus stale = AotCacheStatus.of(List.of("-XX:AOTCache=" + cache), "mixed mode")
                .orElseThrow();
        assertThat(stale.state()).isEqualTo(State.STALE);
        assertThat(stale.line()).contains("not used (stale").doesNotContain("\n");
        assertThat(stale.warns()).isTrue();

        AotCacheStatus missing = AotCacheStatus.of(List.of("-XX:AOTCache=" + dir.resolve("none.aot")), "mixed mode")
                .orElseThrow();
        assertThat(missing.state()).isEqualTo(State.MISSING);
        assertThat(missing.line()).contains("missing: starting without it").doesNotContain("\n");
        assertThat(missing.warns()).isTrue();

        AotCacheStatus training = AotCacheStatus.of(List.of("-XX:AOTCacheOutput=" + cache), "mixed mode")
                .orElseThrow();
        assertThat(training.state()).isEqualTo(State.TRAINING);
        assertThat(training.line()).contains("training run");
        assertThat(training.warns()).isFalse();
    }

    @Test
    void summaryLabelsAreSnakeCase() {
        assertThat(State.IN_USE.label()).isEqualTo("in_use");
        assertThat(State.STALE.label()).isEqualTo("stale");
        assertThat(State.MISSING.label()).isEqualTo("missing");
        assertThat(State.TRAINING.label()).isEqualTo("training");
        for (State s : State.values()) {
            assertThat(State.ofLabel(s.label())).hasValue(s);
        }
        assertThat(State.ofLabel("")).isEmpty();
    }

    @Test
    void readsThisJvm() {
        // the test JVM runs without a cache: nothing to say (and no exception)
        assertThat(AotCacheStatus.current()).isEmpty();
    }
}
