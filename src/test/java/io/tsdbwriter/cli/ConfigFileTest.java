package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code --config FILE}: keys are long flag names; flag > variable > file > default; an unknown key is an error. */
class ConfigFileTest {

    @TempDir
    Path dir;

    private Path file(String yaml) throws IOException {
        Path f = dir.resolve("writer.yml");
        Files.writeString(f, yaml);
        return f;
    }

    /** The run command as parsed from {@code args} with {@code env}, its --config file read first as Main does. */
    private static RunCommand run(Map<String, String> env, String... args) {
        CommandLine cl = Main.commandLine(env);
        assertThat(Main.readConfigFile(cl, List.of(args))).isEmpty();
        return (RunCommand) cl.parseArgs(args).subcommand().commandSpec().userObject();
    }

    private static Optional<String> refusal(String... args) {
        return Main.readConfigFile(Main.commandLine(Map.of()), List.of(args));
    }

    @Test
    void theFileSetsWhatNoFlagSets() throws IOException {
        Path f = file(
                """
                topic: [metrics-a, metrics-b]
                vm-url: http://vm:8428
                time-multiplier: 12
                """);
        RunCommand r = run(Map.of(), "run", "--config", f.toString());
        assertThat(r.topics).containsExactly("metrics-a", "metrics-b");
        assertThat(r.vmUrls).containsExactly("http://vm:8428");
        assertThat(r.timeMultiplier).isEqualTo(12);
    }

    @Test
    void keysMaySitUnderTheHelpHeadings() throws IOException {
        Path f = file(
                """
                kafka-connection-and-consumption:
                  topic: metrics
                time-multiplier: 3
                """);
        RunCommand r = run(Map.of(), "run", "--config=" + f);
        assertThat(r.topics).containsExactly("metrics");
        assertThat(r.timeMultiplier).isEqualTo(3);
    }

    @ParameterizedTest(name = "flag {0}, variable {1}: {2}")
    @CsvSource({
        // flag, TSDB_WRITER_TIME_MULTIPLIER, expected (the file says 12)
        "5,    7,    5",
        "'',   7,    7",
        "'',   '',   12",
    })
    void aFlagBeatsAVariableBeatsTheFile(String flag, String variable, int expected) throws IOException {
        Path f = file("topic: metrics\ntime-multiplier: 12\n");
        Map<String, String> env = variable.isEmpty() ? Map.of() : Map.of("TSDB_WRITER_TIME_MULTIPLIER", variable);
        RunCommand r = flag.isEmpty()
                ? run(env, "run", "--config", f.toString())
                : run(env, "run", "--config", f.toString(), "--time-multiplier", flag);
        assertThat(r.timeMultiplier).isEqualTo(expected);
    }

    @Test
    void theRunPagesExampleIsAFileRunTakes() throws IOException {
        String page = Files.readString(Path.of("docs/run.md"));
        int from = page.indexOf("```yaml\n# writer.yml");
        assertThat(from).as("docs/run.md's example").isNotNegative();
        String yaml = page.substring(page.indexOf('\n', from) + 1, page.indexOf("```", from + 3));
        RunCommand r = run(Map.of(), "run", "--config", file(yaml).toString());
        assertThat(r.topics).containsExactly("metrics");
        assertThat(r.vmUrls).containsExactly("http://victoriametrics:8428");
        assertThat(r.logs.logLevel).isEqualTo(LogOptions.LogLevel.INFO);
    }

    @Test
    void aSwitchIsOnFromTheFileAsFromTheCommandLine() throws IOException {
        assertThat(run(Map.of(), "run", "--topic", "t").input.toConfig().convertHistogramsToNhcb())
                .isFalse();
        assertThat(run(Map.of(), "run", "--topic", "t", "--convert-histograms-to-nhcb")
                        .input
                        .toConfig()
                        .convertHistogramsToNhcb())
                .isTrue();
        Path f = file("topic: metrics\nconvert-histograms-to-nhcb: true\n");
        assertThat(run(Map.of(), "run", "--config", f.toString())
                        .input
                        .toConfig()
                        .convertHistogramsToNhcb())
                .isTrue();
    }

    @Test
    void theClassicHistogramSwitchIsOnFromTheFileAsFromTheCommandLineAndApartFromTheOtlpOne() throws IOException {
        assertThat(run(Map.of(), "run", "--topic", "t").input.toConfig().convertClassicHistogramsToNhcb())
                .isFalse();
        InputOptions flag = run(Map.of(), "run", "--topic", "t", "--convert-classic-histograms-to-nhcb").input;
        assertThat(flag.toConfig().convertClassicHistogramsToNhcb()).isTrue();
        assertThat(flag.toConfig().convertHistogramsToNhcb()).isFalse();
        Path f = file("topic: metrics\nconvert-classic-histograms-to-nhcb: true\n");
        assertThat(run(Map.of(), "run", "--config", f.toString())
                        .input
                        .toConfig()
                        .convertClassicHistogramsToNhcb())
                .isTrue();
    }

    @Test
    void withoutAFileTheBuiltInDefaultHolds() {
        assertThat(run(Map.of(), "run", "--topic", "t").timeMultiplier).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "topicc: metrics                    | unknown key 'topicc': did you mean 'topic'?",
                "kafka-connection-and-consumption:\\n  topicc: x | unknown key 'kafka-connection-and-consumption.topicc': did you mean 'topic'?",
                "time-multiplier: [1, 2]            | 'time-multiplier' takes one value, not a list",
                "- topic                            | expected a mapping of flag names to values",
                "topic: [a, 'b,c']                  | a value of 'topic' contains ',', its separator",
                "'a: [b'                            | not YAML at line 1",
            })
    void aBadFileIsOneLineNamingTheFile(String yaml, String expected) throws IOException {
        Path f = file(yaml.replace("\\n", "\n"));
        assertThat(refusal("run", "--config", f.toString()))
                .hasValueSatisfying(
                        m -> assertThat(m).startsWith("--config " + f + ": ").contains(expected));
    }

    @Test
    void aMissingFileIsNamed() {
        assertThat(refusal("run", "--config", dir.resolve("nope.yml").toString()))
                .hasValue("--config " + dir.resolve("nope.yml") + ": no such file");
    }

    @Test
    void theFileIsReadForTheCommandItIsGivenTo() throws IOException {
        // produce has no --vm-url: the same key is unknown there
        Path f = file("vm-url: http://vm:8428\n");
        assertThat(refusal("produce", "--config", f.toString()))
                .hasValueSatisfying(m -> assertThat(m).contains("unknown key 'vm-url'"));
    }

    @Test
    void aBadFileExitsTwoWithOneLineAndNoValueShown() throws IOException {
        Path f = file("topic: metrics\nvm-basic-auth-passwordd: s3cret\n");
        CommandLine cl = Main.commandLine(Map.of());
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        assertThat(Main.execute(cl, "run", "--config", f.toString())).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString().strip())
                .startsWith("tsdb-writer: --config " + f + ": unknown key 'vm-basic-auth-passwordd'")
                .doesNotContain("s3cret")
                .doesNotContain("\n");
    }
}
