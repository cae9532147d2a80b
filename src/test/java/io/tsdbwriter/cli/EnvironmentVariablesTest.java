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
 * {@code TSDB_WRITER_*} variables are {@code run}'s only: the same variable never means two things ({@code RATE} is
 * samples/s for {@code run}, records/s for {@code produce}); {@code --help} says which default came from one.
 */
class EnvironmentVariablesTest {

    /** Variables whose names are also options of the other commands, with other meanings there. */
    private static final Map<String, String> ENV = Map.of(
            "TSDB_WRITER_MAX_SAMPLES_PER_SECOND",
            "5",
            "TSDB_WRITER_DRAIN_TIMEOUT",
            "5m",
            "TSDB_WRITER_PARALLELISM",
            "7",
            "TSDB_WRITER_TIME_MULTIPLIER",
            "12",
            "TSDB_WRITER_TOPIC",
            "from-env",
            "TSDB_WRITER_SEGMENT_SIZE",
            "1000");

    /** The user object of {@code command} after parsing {@code args} with {@link #ENV} as the environment. */
    @SuppressWarnings("unchecked")
    private static <T> T parse(String command, String... args) {
        CommandLine cl = Main.commandLine(ENV);
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        return (T) cl.parseArgs(all).subcommand().commandSpec().userObject();
    }

    private static String help(Map<String, String> env, String command) {
        CommandLine cl = Main.commandLine(env);
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute(command, "--help")).isZero();
        return out.toString().replaceAll("\\s+", " ");
    }

    @Test
    void runTakesItsDefaultsFromTheEnvironment() {
        RunCommand run = parse("run");
        assertThat(run.toConfig().replay().ratePerSecond()).isEqualTo(5.0);
        assertThat(run.toConfig().drainTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(run.toConfig().parallelism()).isEqualTo(7);
        assertThat(run.toConfig().topics()).containsExactly("from-env");
    }

    @Test
    void theOtherCommandsIgnoreTheEnvironment() {
        ProduceCommand produce = parse("produce", "--topic", "t");
        assertThat(produce.rate)
                .as("produce --records-per-second, not run's TSDB_WRITER_MAX_SAMPLES_PER_SECOND")
                .isZero();
        assertThat(produce.source.sourceInterval).isEqualTo(Duration.ofSeconds(60));
        CapacityCommand capacity = parse("capacity");
        assertThat(capacity.drainTimeout).isEqualTo(Duration.ofSeconds(60));
        assertThat(capacity.parallelism).isEqualTo(3);
        assertThat(capacity.timeMultiplier).isEqualTo(1);
        assertThat(capacity.writers.segmentSize).isEqualTo(50_000);
        BenchCommand bench = parse("bench");
        assertThat(bench.parallelism).isEqualTo("1,3,6");
        assertThat(bench.timeMultipliers).isEqualTo("1,6,12");
        VerifyCommand verify = parse("verify");
        assertThat(verify.timeMultiplier).isEqualTo(1);
    }

    @Test
    void helpSaysWhichDefaultCameFromTheEnvironment() {
        String run = help(ENV, "run");
        assertThat(run)
                .contains(
                        "(default: 5, from TSDB_WRITER_MAX_SAMPLES_PER_SECOND)",
                        "(default: 5m, from TSDB_WRITER_DRAIN_TIMEOUT)",
                        "(default: 7, from TSDB_WRITER_PARALLELISM)",
                        "(default: from-env, from TSDB_WRITER_TOPIC)");
        assertThat(run)
                .as("a default not taken from the environment says nothing of it")
                .contains("(default: 60s)")
                .doesNotContain("TSDB_WRITER_SOURCE_INTERVAL)");
        String produce = help(ENV, "produce");
        assertThat(produce)
                .as("produce ignores the variables, and its help says so by showing its own defaults")
                .doesNotContain("from TSDB_WRITER_")
                .contains("(default: 0)");
        assertThat(help(ENV, "capacity")).doesNotContain("from TSDB_WRITER_").contains("(default: 60s)");
    }

    @Test
    void helpNeverShowsASecretTakenFromTheEnvironment() {
        String run = help(
                Map.of(
                        "TSDB_WRITER_VM_URL",
                        "http://writer:s3cr3t@vm-a:8428,http://w:t0p@vm-b:8428",
                        "TSDB_WRITER_VM_HEADER",
                        "Authorization: Bearer b34r3r",
                        "TSDB_WRITER_KAFKA_PROPERTY",
                        "sasl.jaas.config=password=\"k4fk4\"",
                        "TSDB_WRITER_STOP_AT_END",
                        "true"),
                "run");
        assertThat(run)
                .doesNotContain("s3cr3t")
                .doesNotContain("t0p")
                .doesNotContain("b34r3r")
                .doesNotContain("k4fk4")
                .contains("(default: http://vm-a:8428,http://vm-b:8428, from TSDB_WRITER_VM_URL)")
                .contains("from TSDB_WRITER_VM_HEADER")
                .contains("from TSDB_WRITER_KAFKA_PROPERTY")
                .contains("(default: true, from TSDB_WRITER_STOP_AT_END)");
    }

    /** The WARN lines of {@link Main}'s logger while {@code args} run with {@code env} as the environment. */
    private static List<String> warnings(Map<String, String> env, String... args) {
        Logger main = (Logger) LoggerFactory.getLogger(Main.class);
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        main.addAppender(captured);
        try {
            CommandLine cl = Main.commandLine(env);
            cl.setErr(new PrintWriter(new StringWriter(), true));
            cl.setOut(new PrintWriter(new StringWriter(), true));
            cl.execute(args);
        } finally {
            main.detachAppender(captured);
        }
        return captured.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void unknownVariableIsWarnedWithTheNearestName() {
        Map<String, String> env = Map.of(
                "TSDB_WRITER_TOPICC",
                "t",
                "TSDB_WRITER_MAX_SAMPLES_PER_SECOND",
                "5",
                "TSDB_WRITER_LOG_LEVEL",
                "INFO",
                "TSDB_WRITER_TELEGRAF_BINARY",
                "/bin/true",
                "TSDB_WRITER_VM_BASIC_AUTH_PASWORD_FILE",
                "s3cr3t",
                "TSDB_WRITERS",
                "x");

        // a bad --output ends run in toConfig (exit 2) after the start's warnings and before anything connects
        List<String> lines = warnings(env, "run", "--topic", "t", "--output", "json");

        assertThat(lines)
                .containsExactly(
                        "TSDB_WRITER_TOPICC is no variable of tsdb-writer run (no option maps to it), ignored: did you mean TSDB_WRITER_TOPIC?",
                        "TSDB_WRITER_VM_BASIC_AUTH_PASWORD_FILE is no variable of tsdb-writer run (no option maps to it), ignored: did you mean "
                                + "TSDB_WRITER_VM_BASIC_AUTH_PASSWORD_FILE?");
        assertThat(String.join("\n", lines)).as("a name only, never a value").doesNotContain("s3cr3t");
    }

    @Test
    void knownVariablesAndHelpGetNoWarning() {
        assertThat(warnings(
                        Map.of(
                                "TSDB_WRITER_MAX_SAMPLES_PER_SECOND",
                                "5",
                                "TSDB_WRITER_REPORT_INTERVAL",
                                "5s",
                                "TSDB_WRITER_JAR",
                                "x.jar"),
                        "run",
                        "--topic",
                        "t",
                        "--output",
                        "json"))
                .isEmpty();
        assertThat(warnings(Map.of("TSDB_WRITER_TOPICC", "t"), "run", "--help")).isEmpty();
    }

    @Test
    void kubernetesServiceLinksAreNoUnknownVariables() {
        // what a pod of k8s/base gets for the Service tsdb-writer-metrics (enableServiceLinks, on by default)
        Map<String, String> env = Map.of(
                "TSDB_WRITER_METRICS_SERVICE_HOST",
                "10.96.0.7",
                "TSDB_WRITER_METRICS_SERVICE_PORT",
                "9464",
                "TSDB_WRITER_METRICS_SERVICE_PORT_METRICS",
                "9464",
                "TSDB_WRITER_METRICS_PORT_9464_TCP",
                "tcp://10.96.0.7:9464",
                "TSDB_WRITER_METRICS_PORT_9464_TCP_PROTO",
                "tcp",
                "TSDB_WRITER_METRICS_PORT_9464_TCP_PORT",
                "9464",
                "TSDB_WRITER_METRICS_PORT_9464_TCP_ADDR",
                "10.96.0.7",
                "TSDB_WRITER_OTHER_PORT",
                "tcp://10.96.0.8:80",
                "TSDB_WRITER_METRIC_PORT",
                "9464");

        assertThat(warnings(env, "run", "--topic", "t", "--output", "json"))
                .containsExactly(
                        "TSDB_WRITER_METRIC_PORT is no variable of tsdb-writer run (no option maps to it), ignored: did you mean "
                                + "TSDB_WRITER_METRICS_PORT?");
    }

    @Test
    void editDistanceCountsSingleCharacterEdits() {
        assertThat(EnvironmentDefaults.editDistance("TOPICC", "TOPIC")).isEqualTo(1);
        assertThat(EnvironmentDefaults.editDistance("TIME_MULTIPLER", "TIME_MULTIPLIER"))
                .isEqualTo(1);
        assertThat(EnvironmentDefaults.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(EnvironmentDefaults.editDistance("", "abc")).isEqualTo(3);
    }
}
