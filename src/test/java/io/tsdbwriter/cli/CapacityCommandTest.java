package io.tsdbwriter.cli;

import static io.tsdbwriter.cli.CliRun.assertUsageError;
import static io.tsdbwriter.cli.CliRun.execute;
import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.CliRun.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** {@code capacity}'s command line: help explains every flag; bad flags give one line and exit 2 (before any I/O). */
class CapacityCommandTest {

    /** docs/capacity.md, where each flag's details are, as one line without backquotes. */
    private static String capacityPage() throws IOException {
        return Files.readString(Path.of("docs", "capacity.md")).replace("`", "").replaceAll("\\s+", " ");
    }

    @Test
    void helpExplainsEveryFlag() throws IOException {
        Result r = execute("capacity", "--help");
        assertThat(r.exitCode()).isZero();
        CommandLine capacity = Main.commandLine().getSubcommands().get("capacity");
        for (OptionSpec o : capacity.getCommandSpec().options()) {
            assertThat(r.out()).contains(o.longestName());
            assertThat(String.join(" ", o.description())).as(o.longestName()).isNotBlank();
        }
        assertThat(r.out())
                .contains("--target-metrics-url", "--vary", "--min-efficiency", "--max-p99-latency", "Exit codes");
        // --vary time-multiplier stops at the largest M instead of starting a writer that refuses it (the docs say so)
        assertThat(r.out()).contains("--vary=rate|time-multiplier");
        assertThat(capacityPage())
                .contains(
                        "M rises up to the largest --time-multiplier a writer accepts, 3600",
                        "reached the maximum time multiplier without saturating");
    }

    @Test
    void topLevelHelpNamesCapacity() {
        assertThat(execute("--help").out()).contains("capacity");
    }

    @Test
    void badFlagsExitTwoWithOneLine() {
        assertUsageError(execute("capacity", "--step-factor", "1"), "--step-factor must be > 1");
        assertUsageError(execute("capacity", "--histogram-series", "-1"), "--histogram-series must be >= 0, got -1");
        assertUsageError(
                execute("capacity", "--side-by-side"),
                "--side-by-side searches several --target at the same time: give at least two");
        assertUsageError(
                execute("capacity", "--side-by-side", "--target", "a=http://a:8428", "--target", "b=http://b:8428"),
                "--side-by-side: --target a needs tsdb-cpus=LIST and writer-cpus=LIST");
        assertUsageError(
                execute(
                        "capacity",
                        "--side-by-side",
                        "--writer-cpus",
                        "0",
                        "--target",
                        "a=http://a:8428",
                        "--target",
                        "b=http://b:8428"),
                "--side-by-side places each target on its own CPUs");
        assertUsageError(execute("capacity", "--vary", "speed"), "--vary must be rate or time-multiplier");
        assertUsageError(execute("capacity", "--min-efficiency", "150%"), "--min-efficiency");
        assertUsageError(execute("capacity", "--min-efficiency", "x"), "--min-efficiency");
        assertUsageError(execute("capacity", "--warm-up", "60s"), "--warm-up");
        assertUsageError(execute("capacity", "--start-input-rate", "fast"), "--start-input-rate");
        assertUsageError(execute("capacity", "--max-steps", "0"), "--max-steps");
        assertUsageError(execute("capacity", "--vm-url", "vm:8428"), "vm:8428");
        assertUsageError(execute("capacity", "--no-such-flag"), "--no-such-flag");
        assertUsageError(execute("capacity", "--step-duration", "soon"), "soon");
        assertUsageError(execute("capacity", "--data-dir", "/nonexistent-dir"), "/nonexistent-dir");
    }

    @Test
    void seriesModeFlagsAreCheckedAndExplained() throws IOException {
        assertUsageError(
                execute("capacity", "--series-mode", "churn"),
                "--series-mode must be steady, gradual, double-halve or spike, got 'churn'");
        assertUsageError(
                execute("capacity", "--series-mode", "spike", "--series-change-interval", "500ms"),
                "--series-change-interval must be >= 1s, got 500ms");
        assertUsageError(
                execute("capacity", "--series-mode", "spike", "--spike-multiplier", "1"),
                "--spike-multiplier must be > 1, got 1.0");
        // one instance cannot be halved: the bundled scrapes hold 10,140 points an instance
        assertUsageError(
                execute("capacity", "--series-mode", "double-halve", "--points-per-pass", "10000"),
                "--series-mode double-halve needs at least 2 instances: --points-per-pass of at least 20280");
        assertThat(execute("capacity", "--help").out())
                .contains("--series-mode=", "--series-change-interval=", "--spike-multiplier=");
        assertThat(capacityPage())
                .contains(
                        "avalanche's --series-operation-mode",
                        "gradual = from the base up to 2x linearly over one T",
                        "double-halve = 2x the base for one T, half of it for the next",
                        "for the last fifth of every T",
                        "fewer series get more samples per second each");
    }

    /**
     * --max-hourly-series, --max-daily-series: none by default; each limit above 0 goes to every writer under run's
     * name, which run takes with the same meaning; refused before any I/O as run refuses it.
     */
    @Test
    void seriesLimitsGoToTheWritersAsRunTakesThem() throws IOException {
        assertThat(CapacityCommand.seriesLimitArgs(0, 0, 1)).isEmpty();
        assertThat(CapacityCommand.seriesLimitArgs(2028, 0, 1)).containsExactly("--max-hourly-series", "2028");
        assertThat(CapacityCommand.seriesLimitArgs(0, 9000, 4)).containsExactly("--max-daily-series", "9000");
        List<String> both = CapacityCommand.seriesLimitArgs(5000, 9000, 2);
        assertThat(both).containsExactly("--max-hourly-series", "5000", "--max-daily-series", "9000");

        List<String> runArgs = new ArrayList<>(List.of("--topic", "t", "--instance-multiplier", "2"));
        runArgs.addAll(both);
        RunCommand run = new RunCommand();
        new CommandLine(run)
                .setDefaultValueProvider(new EnvironmentDefaults(Map.of()))
                .parseArgs(runArgs.toArray(String[]::new));
        assertThat(run.toConfig().maxHourlySeries()).isEqualTo(5000);
        assertThat(run.toConfig().maxDailySeries()).isEqualTo(9000);

        CommandLine capacity = Main.commandLine().getSubcommands().get("capacity");
        assertThat(capacity.getCommandSpec().findOption("--max-hourly-series").defaultValue())
                .isEqualTo("0");
        assertThat(capacity.getCommandSpec().findOption("--max-daily-series").defaultValue())
                .isEqualTo("0");

        assertUsageError(
                execute("capacity", "--max-hourly-series", "-1"),
                "--max-hourly-series must be in 0..1000000000 (0 = no limit), got -1");
        assertUsageError(
                execute("capacity", "--max-daily-series", "2000000000"),
                "--max-daily-series must be in 0..1000000000 (0 = no limit), got 2000000000");
        assertUsageError(
                execute("capacity", "--instance-multiplier", "10", "--max-hourly-series", "5"),
                "--max-hourly-series 5 is below --instance-multiplier 10");
        assertThat(execute("capacity", "--help").out()).contains("--max-hourly-series=", "--max-daily-series=");
        assertThat(capacityPage())
                .contains(
                        "columns limit dropped, admitted, tsdb new after tsid miss/s",
                        "the step's efficiency is of the samples written or dropped by the limit");
    }

    @Test
    void remoteWriteOutputNeedsItsUrlAndAKnownVersion() {
        assertUsageError(
                execute("capacity", "--output", "remote-write"), "--output remote-write needs --remote-write-url");
        assertUsageError(
                execute("capacity", "--remote-write-url", "http://prom:9090/api/v1/write"),
                "--remote-write-url needs --output remote-write");
        assertUsageError(
                execute(
                        "capacity",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://prom:9090/api/v1/write",
                        "--remote-write-version",
                        "3"),
                "--remote-write-version must be 1 (prometheus.WriteRequest) or 2");
        assertUsageError(
                execute("capacity", "--output", "remote-write", "--remote-write-url", "prom:9090"), "prom:9090");
        assertUsageError(execute("capacity", "--output", "graphite"), "--output must be import or remote-write");
    }

    @Test
    void reportMustNameADirectory(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("report.html"), "x");
        assertUsageError(
                execute("capacity", "--report", file.toString()),
                "--report must be a directory (it writes "
                        + "capacity-report.html and capacity-report.md there), got the file " + file);
        assertThat(execute("capacity", "--help").out()).contains("--report=DIR", "capacity-report.html");
        assertThat(capacityPage())
                .contains(
                        "--report=DIR",
                        "capacity-report.html (self-contained: inline SVG chart and CSS, no script, nothing fetched)");
    }

    @Test
    void readLoadFlagsAreCheckedBeforeAnyIo() {
        assertUsageError(
                execute("capacity", "--query-rate", "-1"),
                "--query-rate must be between 0 and 100000 queries/s, got -1.0");
        assertUsageError(execute("capacity", "--query-rate", "many"), "many");
        assertUsageError(
                execute("capacity", "--query-rate", "5", "--query-timeout", "0s"),
                "--query-timeout and --max-query-p99-latency must be > 0");
        assertUsageError(execute("capacity", "--queries", "queries.txt"), "--queries needs --query-rate > 0");
        // --query-url alone is where the read-back pass counts: only its form is checked
        assertUsageError(execute("capacity", "--query-url", "ftp://vmselect:8481"), "http");
        // vmselect cannot be derived from vminsert's host: one line naming the flag and the tenant's vmselect path
        assertUsageError(
                execute("capacity", "--vm-url", "http://vminsert:8480/insert/42/prometheus", "--query-rate", "5"),
                "--query-rate with a vminsert --vm-url needs --query-url: vmselect's, e.g. http://vmselect:8481/select/42/prometheus");
        assertUsageError(
                execute(
                        "capacity",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://prom:9090/api/v1/write",
                        "--query-rate",
                        "5"),
                "--query-rate with --output remote-write needs --query-url");
        assertUsageError(execute("capacity", "--query-rate", "5", "--query-url", "vmselect:8481"), "vmselect:8481");
        assertUsageError(
                execute("capacity", "--query-rate", "5", "--queries", "/nonexistent-queries.promql"),
                "/nonexistent-queries.promql");
    }

    @Test
    void helpExplainsTheReadLoadAndItsPlaceholders() throws IOException {
        String help = execute("capacity", "--help").out().replaceAll("\\s+", " ");
        assertThat(help)
                .contains(
                        "--query-rate=QPS",
                        "--query-url=URL",
                        "--queries=FILE",
                        "--query-timeout=DURATION",
                        "--max-query-p99-latency=DURATION");
        assertThat(capacityPage())
                .contains(
                        "$__range is replaced by the range (3600s or 86400s)",
                        "$__interval by the step (60s or 300s)",
                        "$__rate_interval by max(step + 60s, 4 x 60s) (240s or 360s)",
                        "a step passes only when its reads pass too");
    }

    @Test
    void aBadTargetExitsTwoWithOneLineWithoutItsCredentials() {
        assertUsageError(
                execute("capacity", "--target", "http://vm:8428"), "--target 'http://vm:8428': expected NAME=URL");
        assertUsageError(
                execute("capacity", "--target", "vm=http://vm:8428", "--target", "vm=http://vm2:8428"),
                "the NAME 'vm' is given twice");
        assertUsageError(execute("capacity", "--target", "vm=http://vm:8428,version=2"), "unknown option 'version'");
        Result r = execute(
                "capacity",
                "--target",
                "p=http://u:SECRET@p:9090/api/v1/write,output=remote-write,remote-write-version=9");
        assertUsageError(r, "remote-write-version must be 1 or 2, got '9'");
        assertThat(r.err()).doesNotContain("SECRET");
    }

    @Test
    void targetsAreRefusedBesideTheSingleTargetFlags() {
        for (List<String> single : List.of(
                List.of("--vm-url", "http://localhost:8428"),
                List.of("--output", "import"),
                List.of("--remote-write-url", "http://p:9090/api/v1/write"),
                List.of("--remote-write-version", "2"),
                List.of("--target-metrics-url", "http://vm:8428/metrics"))) {
            List<String> args = new ArrayList<>(List.of("capacity", "--target", "vm=http://vm:8428"));
            args.addAll(single);
            assertUsageError(
                    execute(args.toArray(String[]::new)),
                    "--target names every target: " + single.get(0) + " names the one target");
        }
    }

    @Test
    void aReadLoadGoesToEachImportTargetOnly() {
        assertUsageError(
                execute(
                        "capacity",
                        "--target",
                        "vm=http://vm:8428",
                        "--query-rate",
                        "5",
                        "--query-url",
                        "http://vm:8428"),
                "--query-url names one receiver's query API");
        assertUsageError(
                execute(
                        "capacity",
                        "--target",
                        "vm=http://vm:8428",
                        "--target",
                        "p=http://p:9090/api/v1/write,output=remote-write",
                        "--query-rate",
                        "5"),
                "--target p: --query-rate needs this remote-write target's query API: add ,query-url=URL");
    }

    @Test
    void aRemoteWriteTargetsReadLoadGoesToItsQueryUrl() throws Exception {
        QueryLoadOptions reads = new QueryLoadOptions();
        reads.queryRate = 5;
        reads.queryTimeout = Duration.ofSeconds(30);
        reads.maxQueryP99 = Duration.ofSeconds(10);
        assertThat(reads.settings("http://p:9090", true, "http://p:9090").queryRangeUrl())
                .isEqualTo("http://p:9090/api/v1/query_range");
        assertThat(reads.settings("http://vm:8428", false, null).queryRangeUrl())
                .isEqualTo("http://vm:8428/api/v1/query_range");
        assertThat(reads.settings(
                                "http://vminsert:8480/insert/0/prometheus",
                                false,
                                "http://vmselect:8481/select/0/prometheus/api/v1/query_range")
                        .queryRangeUrl())
                .isEqualTo("http://vmselect:8481/select/0/prometheus/api/v1/query_range");
    }

    @Test
    void helpExplainsTargets() throws IOException {
        assertThat(execute("capacity", "--help").out()).contains("--target=NAME=URL[,OPTION…]", "--side-by-side");
        assertThat(capacityPage())
                .contains(
                        "--target=NAME=URL[,OPTION…]",
                        "output=import|remote-write (default import)",
                        "remote-write-version=1|2 (with remote write; default 1)",
                        "<work-dir>/NAME",
                        "Not with --vm-url, --output");
    }
}
