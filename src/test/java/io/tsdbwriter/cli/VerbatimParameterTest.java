package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class VerbatimParameterTest {

    @Test
    void writerArgsThatLookLikeBenchsOwnOptionsArePassedOnVerbatim() {
        BenchCommand cmd = new BenchCommand();
        new CommandLine(cmd)
                .parseArgs(
                        "--writer-arg=--kafka-property=check.crcs=false",
                        "--writer-arg",
                        "--max-inflight-bytes=16MiB",
                        "--writer-jvm-option=-Xmx96m",
                        "--writer-jvm-option",
                        "-XX:+UseSerialGC",
                        "--records",
                        "5");
        assertThat(cmd.writers.writerArgs)
                .containsExactly("--kafka-property=check.crcs=false", "--max-inflight-bytes=16MiB");
        assertThat(cmd.writers.writerJvmOptions).containsExactly("-Xmx96m", "-XX:+UseSerialGC");
        assertThat(cmd.records).isEqualTo(5);
    }

    @Test
    void capacityTakesThemVerbatimToo() {
        CapacityCommand cmd = new CapacityCommand();
        new CommandLine(cmd)
                .parseArgs("--writer-arg=--kafka-property=fetch.min.bytes=1", "--writer-jvm-option=-Xmx96m");
        assertThat(cmd.writers.writerArgs).containsExactly("--kafka-property=fetch.min.bytes=1");
        assertThat(cmd.writers.writerJvmOptions).containsExactly("-Xmx96m");
    }

    @Test
    void aMissingValueIsAParameterError() {
        assertThatThrownBy(() -> new CommandLine(new BenchCommand()).parseArgs("--writer-arg"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--writer-arg");
    }
}
