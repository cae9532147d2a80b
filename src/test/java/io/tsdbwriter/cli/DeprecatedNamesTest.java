package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The renamed flags' old names (issue 56 item 2, {@link DeprecatedNames}): still accepted for one release with one WARN
 * naming the new flag; an old and a new name of one option on one command line is a usage error (exit 2, one line);
 * {@code run}'s old variable is read when the new one is not set, and ignored (with its WARN) when it is.
 */
class DeprecatedNamesTest {

    private record Run(int exitCode, String err, List<String> warnings) {}

    /** Runs {@code args} with {@code env} as the environment: exit code, stderr and the WARN lines of {@link Main}. */
    private static Run run(Map<String, String> env, String... args) {
        Logger main = (Logger) LoggerFactory.getLogger(Main.class);
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        main.addAppender(captured);
        StringWriter err = new StringWriter();
        int code;
        try {
            CommandLine cl = Main.commandLine(env);
            cl.setErr(new PrintWriter(err, true));
            cl.setOut(new PrintWriter(new StringWriter(), true));
            code = cl.execute(args);
        } finally {
            main.detachAppender(captured);
        }
        return new Run(
                code,
                err.toString(),
                captured.list.stream()
                        .filter(e -> e.getLevel() == Level.WARN)
                        .map(ILoggingEvent::getFormattedMessage)
                        .toList());
    }

    @SuppressWarnings("unchecked")
    private static <T> T parse(Map<String, String> env, String... args) {
        return (T)
                Main.commandLine(env).parseArgs(args).subcommand().commandSpec().userObject();
    }

    @Test
    void theOldNamesStillSetTheRenamedOptions() {
        RunCommand run =
                parse(Map.of(), "run", "--topic", "t", "--rate", "250", "--from", "offset:0", "--duration", "2m");
        assertThat(run.toConfig().replay().ratePerSecond()).isEqualTo(250.0);
        assertThat(run.toConfig().replay().duration()).isEqualTo(Duration.ofMinutes(2));
        ProduceCommand produce = parse(Map.of(), "produce", "--topic", "t", "--rate=40");
        assertThat(produce.rate).isEqualTo(40.0);
        BenchCommand bench = parse(Map.of(), "bench", "--duration", "90s");
        assertThat(bench.duration).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void anOldNameIsWarnedOnceNamingTheNewFlag() {
        // a bad --output ends run in toConfig (exit 2) after the start's warnings and before anything connects
        Run r = run(Map.of(), "run", "--topic", "t", "--rate", "5", "--output", "json");

        assertThat(r.warnings())
                .containsExactly(
                        "--rate is a deprecated name of run --max-samples-per-second, accepted until the next release: use --max-samples-per-second");
        assertThat(run(Map.of(), "run", "--topic", "t", "--max-samples-per-second", "5", "--output", "json")
                        .warnings())
                .as("the new name: no warning")
                .isEmpty();
        assertThat(run(Map.of(), "produce", "--topic", "", "--rate", "5").warnings())
                .containsExactly(
                        "--rate is a deprecated name of produce --records-per-second, accepted until the next release: use --records-per-second");
    }

    @Test
    void anOldAndANewNameOfOneOptionAreAUsageError() {
        Run r = run(Map.of(), "run", "--topic", "t", "--rate", "5", "--max-samples-per-second", "6");

        assertThat(r.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().lines().toList())
                .containsExactly(
                        "tsdb-writer: --rate and --max-samples-per-second are one option of "
                                + "run (--rate its deprecated name): give only --max-samples-per-second (see 'tsdb-writer run --help')");
        assertThat(run(Map.of(), "produce", "--topic", "t", "--records-per-second=1", "--rate=2")
                        .exitCode())
                .isEqualTo(2);
    }

    @Test
    void runReadsTheOldVariableWithAWarningAndTheNewOneWins() {
        RunCommand old = parse(Map.of("TSDB_WRITER_RATE", "7"), "run", "--topic", "t");
        assertThat(old.toConfig().replay().ratePerSecond()).isEqualTo(7.0);
        assertThat(run(Map.of("TSDB_WRITER_RATE", "7"), "run", "--topic", "t", "--output", "json")
                        .warnings())
                .containsExactly(
                        "TSDB_WRITER_RATE is a deprecated variable, read until the next release: set TSDB_WRITER_MAX_SAMPLES_PER_SECOND "
                                + "(--max-samples-per-second)");

        Map<String, String> both = Map.of("TSDB_WRITER_RATE", "7", "TSDB_WRITER_MAX_SAMPLES_PER_SECOND", "8");
        RunCommand newer = parse(both, "run", "--topic", "t");
        assertThat(newer.toConfig().replay().ratePerSecond()).isEqualTo(8.0);
        assertThat(run(both, "run", "--topic", "t", "--output", "json").warnings())
                .containsExactly(
                        "TSDB_WRITER_RATE is a deprecated variable, ignored as TSDB_WRITER_MAX_SAMPLES_PER_SECOND is set too: set "
                                + "TSDB_WRITER_MAX_SAMPLES_PER_SECOND (--max-samples-per-second)");
    }

    @Test
    void everyOldNameIsASecondNameOfItsNewOption() {
        CommandLine main = Main.commandLine(Map.of());
        for (DeprecatedNames.Rename r : DeprecatedNames.RENAMES) {
            var spec = main.getSubcommands().get(r.command()).getCommandSpec();
            assertThat(spec.findOption(r.current())).as(r.toString()).isNotNull();
            assertThat(spec.findOption(r.old())).as(r.toString()).isSameAs(spec.findOption(r.current()));
            assertThat(spec.findOption(r.current()).longestName())
                    .as("help and the variable take the new name")
                    .isEqualTo(r.current());
        }
    }
}
