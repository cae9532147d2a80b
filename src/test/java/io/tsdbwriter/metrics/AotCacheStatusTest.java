package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(AotCacheStatus.line(List.of("-Xmx512m"), "mixed mode, sharing")).isEmpty();
    }

    @Test
    void oneLineForEachCase() throws Exception {
        Path cache = Files.writeString(dir.resolve("w.aot"), "x");
        assertThat(AotCacheStatus.line(List.of("-XX:AOTCache=" + cache), "mixed mode, sharing")).hasValue("AOT cache " + cache + ": in use");
        assertThat(AotCacheStatus.line(List.of("-XX:AOTCache=" + cache), "mixed mode")).get().asString()
                .contains("not used (stale").doesNotContain("\n");
        assertThat(AotCacheStatus.line(List.of("-XX:AOTCache=" + dir.resolve("none.aot")), "mixed mode")).get().asString()
                .contains("missing: starting without it").doesNotContain("\n");
        assertThat(AotCacheStatus.line(List.of("-XX:AOTCacheOutput=" + cache), "mixed mode")).get().asString().contains("training run");
    }

    @Test
    void readsThisJvm() {
        // the test JVM runs without a cache: nothing to say (and no exception)
        assertThat(AotCacheStatus.line()).isEmpty();
    }
}
