package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The processes bench and capacity start never see a {@code TSDB_WRITER_*} variable of their parent (issue 56). */
class ChildProcessTest {

    @Test
    void childProcessesGetNoTsdbWriterVariables() throws IOException, InterruptedException {
        ProcessBuilder parent = new ProcessBuilder("env");
        // as if the operator had exported them before `bench`: the child would take them as run's defaults
        parent.environment().put("TSDB_WRITER_RATE", "5");
        parent.environment().put("TSDB_WRITER_TOPICC", "typo");
        parent.environment().put("TSDB_WRITER_LOG_LEVEL", "DEBUG");
        parent.environment().put("NOT_TSDB_WRITER_RATE", "kept");

        Process p = ChildProcess.withoutWriterVariables(parent)
                .redirectErrorStream(true)
                .start();
        String env = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();

        assertThat(env.lines().toList())
                .noneMatch(l -> l.startsWith("TSDB_WRITER_"))
                .contains("NOT_TSDB_WRITER_RATE=kept")
                .anyMatch(l -> l.startsWith("PATH="));
    }

    @Test
    void aBuilderForACommandHasNoTsdbWriterVariableWhateverTheParentExported() {
        ProcessBuilder b = ChildProcess.of(List.of("true"));
        assertThat(b.command()).containsExactly("true");
        assertThat(b.environment().keySet()).noneMatch(k -> k.startsWith("TSDB_WRITER_"));
    }
}
