package io.tsdbwriter.cli;

import static io.tsdbwriter.cli.CliRun.assertUsageError;
import static io.tsdbwriter.cli.CliRun.execute;
import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.CliRun.Result;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.ConfigurationFaultPolicy;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.Ordering;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line: help, usage errors (exit 2, one line on stderr), environment defaults. Never calls Main.main. */
class MainTest {

    /** Every flag of {@code run}, as the operator's documentation lists them. */
    private static final List<String> RUN_FLAGS = List.of(
            "--bootstrap-servers",
            "--topic",
            "--group-id",
            "--vm-url",
            "--time-multiplier",
            "--instance-multiplier",
            "--source-interval",
            "--parallelism",
            "--segment-size",
            "--max-concurrent-writes",
            "--max-retries",
            "--on-write-failure",
            "--on-configuration-fault",
            "--dead-letter-topic",
            "--batch-samples",
            "--batch-send-deadline",
            "--max-inflight-bytes",
            "--max-record-bytes",
            "--compression",
            "--call-timeout",
            "--commit-interval",
            "--durability-window",
            "--tsdb-metrics-url",
            "--target-metrics-url",
            "--drain-timeout",
            "--stop-at-end",
            "--report-interval",
            "--summary-json",
            "--metrics-port",
            "--series-cache-size",
            "--max-backoff",
            "--consumer-property",
            "--write-mode",
            "--metrics-address",
            "--group-instance-id",
            "--group-protocol",
            "--kafka-timeout",
            "--write-fault-timeout",
            "--help",
            "--version",
            "--vm-basic-auth-username",
            "--vm-basic-auth-password-file",
            "--vm-bearer-token-file",
            "--vm-header",
            "--vm-tls-ca-file",
            "--vm-tls-cert-file",
            "--vm-tls-key-file",
            "--vm-tls-server-name",
            "--vm-tls-insecure-skip-verify",
            "--kafka-config",
            "--kafka-property",
            "--input-format",
            "--topic-format",
            "--influx-precision",
            "--instance-label",
            "--min-timestamp",
            "--max-timestamp-ahead",
            "--convert-histograms-to-nhcb",
            "--convert-classic-histograms-to-nhcb",
            "--output",
            "--remote-write-url",
            "--remote-write-version",
            "--ordering",
            "--consumer-mode",
            "--topic-pattern",
            "--from",
            "--to",
            "--rebase-time",
            "--loop",
            "--replay-duration",
            "--max-samples-per-second",
            "--churn-interval",
            "--log-format",
            "--log-level",
            "--config",
            "--relabel-config",
            "--tenant-from",
            "--default-tenant",
            "--remote-write-tenant-header",
            "--max-hourly-series",
            "--max-daily-series");

    @Test
    void anInvalidRelabelConfigIsOneLineNamingEntryAndFieldAndExit2(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("relabel.yml");
        Files.writeString(
                file,
                "- {target_label: loadtest, replacement: '1'}\n- {source_labels: [a], regex: '(', action: keep}\n");
        assertUsageError(
                execute("run", "--topic", "t", "--relabel-config", file.toString()),
                "--relabel-config " + file + ": entry 2 (line 2), field regex:");
    }

    @Test
    void badTenantFlagsAreOneLineAndExit2() {
        assertUsageError(
                execute("run", "--topic", "t", "--tenant-from", "foo"),
                "--tenant-from must be header:NAME or label:NAME, got 'foo'");
        assertUsageError(
                execute("run", "--topic", "t", "--tenant-from", "header:t", "--default-tenant", "x"),
                "--default-tenant: 'x' is not a tenant accountID[:projectID]");
        assertUsageError(
                execute("run", "--topic", "t", "--default-tenant", "1"), "--default-tenant needs --tenant-from");
        assertUsageError(
                execute(
                        "run",
                        "--topic",
                        "t",
                        "--tenant-from",
                        "label:t",
                        "--vm-url",
                        "http://vminsert:8480/insert/0/prometheus"),
                "give 'http://vminsert:8480', not 'http://vminsert:8480/insert/0/prometheus'");
    }

    @Test
    void tenantFlagsReachTheRunConfig() {
        var t = parse(
                        Map.of(),
                        "--topic",
                        "t",
                        "--tenant-from",
                        "label:vm_account_id",
                        "--default-tenant",
                        "3:4",
                        "--remote-write-tenant-header",
                        "THANOS-TENANT")
                .tenants();
        assertThat(t.byLabel()).isTrue();
        assertThat(t.name()).isEqualTo("vm_account_id");
        assertThat(t.defaultTenant().id()).isEqualTo("3:4");
        assertThat(t.header()).isEqualTo("THANOS-TENANT");
        assertThat(parse(Map.of(), "--topic", "t").tenants().routes()).isFalse();
    }

    @Test
    void aValidRelabelConfigReachesTheRunConfig(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path file = dir.resolve("relabel.yml");
        Files.writeString(
                file, "- {target_label: loadtest, replacement: '1'}\n- {regex: pod_uid, action: labeldrop}\n");
        assertThat(parse(Map.of(), "--topic", "t", "--relabel-config", file.toString())
                        .relabel()
                        .rules())
                .hasSize(2);
        assertThat(parse(Map.of(), "--topic", "t").relabel()).isNull();
    }

    private static RunConfig parse(Map<String, String> env, String... args) {
        RunCommand cmd = new RunCommand();
        new CommandLine(cmd)
                .setDefaultValueProvider(new EnvironmentDefaults(env))
                .parseArgs(args);
        return cmd.toConfig();
    }

    // ---- help ----

    @Test
    void runHelpExitsZero() {
        Result r = execute("run", "--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).startsWith("Usage: tsdb-writer run");
    }

    @Test
    void versionPrintsTheVersionTheCommitAndTheJdk() {
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"run", "--version"})) {
            Result r = execute(args);

            assertThat(r.exitCode()).isZero();
            List<String> lines = r.out().lines().toList();
            assertThat(lines).hasSize(2);
            // from classes (this test) the version is dev and no commit is known; the jar's manifest gives both
            assertThat(lines.get(0)).matches("tsdb-writer (dev|\\S+)( \\(commit [0-9a-f]+\\))?");
            assertThat(lines.get(1))
                    .startsWith("JDK " + Runtime.version() + " (")
                    .contains(System.getProperty("java.home"));
        }
    }

    @Test
    void runHelpListsEveryFlag() {
        Result r = execute("run", "--help");

        assertThat(r.out()).contains(RUN_FLAGS);
    }

    @Test
    void runHelpListsEveryOptionOfTheCommandSpec() {
        List<String> specFlags = new CommandLine(new RunCommand())
                .getCommandSpec().options().stream()
                        .map(CommandLine.Model.OptionSpec::longestName)
                        .collect(Collectors.toList());

        assertThat(specFlags).containsExactlyInAnyOrderElementsOf(RUN_FLAGS);
        assertThat(execute("run", "--help").out()).contains(specFlags);
    }

    @Test
    void durabilityWindowIsAutoByDefaultZeroOrADuration() {
        assertThat(parse(Map.of(), "--topic", "t").durabilityWindow()).isNull();
        assertThat(parse(Map.of(), "--topic", "t", "--durability-window", "0").durabilityWindow())
                .isEqualTo(Duration.ZERO);
        assertThat(parse(Map.of(), "--topic", "t", "--durability-window", "20s").durabilityWindow())
                .isEqualTo(Duration.ofSeconds(20));
        assertThat(parse(
                                Map.of(),
                                "--topic",
                                "t",
                                "--tsdb-metrics-url",
                                "http://vmstorage-1:8482/metrics,http://vmstorage-2:8482/metrics")
                        .tsdbMetricsUrls())
                .containsExactly("http://vmstorage-1:8482/metrics", "http://vmstorage-2:8482/metrics");
    }

    @Test
    void onConfigurationFaultHoldsByDefaultRefusesOnAskAndNamesItsValues() {
        assertThat(parse(Map.of(), "--topic", "t").onConfigurationFault()).isEqualTo(ConfigurationFaultPolicy.HOLD);
        assertThat(parse(Map.of(), "--topic", "t", "--on-configuration-fault", "refuse")
                        .onConfigurationFault())
                .isEqualTo(ConfigurationFaultPolicy.REFUSE);
        Result r = execute("run", "--topic", "t", "--on-configuration-fault", "drop");
        assertUsageError(r, "--on-configuration-fault must be hold or refuse, got 'drop'");
        assertThat(execute("run", "--help").out().replaceAll("\\s+", " ")).contains("remote write specification");
    }

    @Test
    void tsdbMetricsUrlNoneReadsNoPageAndTakesNoUrlBesideIt() {
        assertThat(parse(Map.of(), "--topic", "t").readsTsdbMetrics()).isTrue();
        assertThat(parse(Map.of(), "--topic", "t", "--tsdb-metrics-url", "none").readsTsdbMetrics())
                .isFalse();
        Result r = execute("run", "--topic", "t", "--tsdb-metrics-url", "none,http://vmstorage-1:8482/metrics");
        assertUsageError(r, "--tsdb-metrics-url none reads no /metrics page: it cannot be given with URLs");
        r = execute(
                "run",
                "--topic",
                "t",
                "--tsdb-metrics-url",
                "none",
                "--target-metrics-url",
                "http://vminsert-1:8480/metrics");
        assertUsageError(r, "it cannot be given with --target-metrics-url");
    }

    @Test
    void targetMetricsUrlIsRepeatableAndCommaSeparated() {
        assertThat(parse(Map.of(), "--topic", "t").targetMetricsUrls()).isEmpty();
        assertThat(parse(
                                Map.of(),
                                "--topic",
                                "t",
                                "--target-metrics-url",
                                "http://vminsert-1:8480/metrics,http://vminsert-2:8480/metrics",
                                "--target-metrics-url",
                                "http://vminsert-3:8480/metrics")
                        .targetMetricsUrls())
                .containsExactly(
                        "http://vminsert-1:8480/metrics",
                        "http://vminsert-2:8480/metrics",
                        "http://vminsert-3:8480/metrics");
        Result r = execute("run", "--topic", "t", "--target-metrics-url", "vminsert-1:8480");
        assertUsageError(r, "--target-metrics-url must be an http(s) URL");
    }

    @Test
    void aBadDurabilityWindowOrMetricsUrlIsAUsageError() {
        Result r = execute("run", "--topic", "t", "--durability-window", "soon");
        assertUsageError(r, "--durability-window");
        r = execute("run", "--topic", "t", "--tsdb-metrics-url", "vmstorage:8482");
        assertUsageError(r, "--tsdb-metrics-url");
    }

    @Test
    void badSecretFlagValuesAreNotEchoed() {
        Result r = execute("run", "--topic", "t", "--kafka-property", "sasl.jaas.config-NO-EQUALS-Sekr1t");
        assertUsageError(r, "--kafka-property");
        assertThat(r.err()).doesNotContain("Sekr1t");
        r = execute("run", "--topic", "t", "--vm-header", "NoColonSekr1t");
        assertUsageError(r, "--vm-header");
        assertThat(r.err()).doesNotContain("Sekr1t");
    }

    @Test
    void runHelpListsExitCodes() {
        String help = execute("run", "--help").out();
        assertThat(help).contains("Exit codes:", "2", "invalid flags");
        assertThat(help)
                .contains(
                        "samples were refused by the receiver and not dead-lettered",
                        "stopped by SIGTERM/SIGINT before its end");
    }

    @Test
    void flagsThatWouldOverflowAreBadFlagsNamingTheLimit() {
        Result r = execute("run", "--topic", "t", "--segment-size", "9223372036854775807", "--parallelism", "3");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo("tsdb-writer: --segment-size must be in 1..1000000000 offsets, got 9223372036854775807");
        r = execute("run", "--topic", "t", "--time-multiplier", "3600", "--instance-multiplier", "1000");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo("tsdb-writer: --time-multiplier x --instance-multiplier must be at "
                        + "most 1000000 samples per source point, got 3600 x 1000 = 3600000");
        r = execute("run", "--topic", "t", "--time-multiplier", "3601");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo("tsdb-writer: --time-multiplier must be in 1..3600, got 3601");
        r = execute("run", "--topic", "t", "--parallelism", "65");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo("tsdb-writer: --parallelism must be in 1..64, got 65");
        r = execute("bench", "--segment-size", "9223372036854775807");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .startsWith("tsdb-writer: --segment-size must be in 1..1000000000 offsets, got 9223372036854775807");
        r = execute("bench", "--time-multiplier", "3600", "--instance-multiplier", "1000");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .startsWith("tsdb-writer: --time-multiplier x --instance-multiplier must be at most 1000000");
    }

    @Test
    void timestampWindowFlagsTakeAnRfc3339TimeOrEpochMillisAndADuration() {
        Result r = execute("run", "--topic", "t", "--min-timestamp", "yesterday");
        assertUsageError(r, "'yesterday' is not an RFC 3339 time (e.g. 2000-01-01T00:00:00Z) nor epoch milliseconds");
        RunCommand run = new RunCommand();
        new picocli.CommandLine(run)
                .parseArgs("--topic", "t", "--min-timestamp", "2020-01-01T00:00:00Z", "--max-timestamp-ahead", "2d");
        assertThat(run.toConfig().input().timestampWindow())
                .isEqualTo(new TimestampWindow(1_577_836_800_000L, 172_800_000L));
        new picocli.CommandLine(run).parseArgs("--topic", "t", "--min-timestamp", "1577836800000");
        assertThat(run.toConfig().input().timestampWindow().earliestMs()).isEqualTo(1_577_836_800_000L);
    }

    @Test
    void noHelpSplitsAUrlNorCutsTheBenchSummary() {
        for (String cmd : new String[] {"run", "produce", "verify", "bench", "capacity"}) {
            String help = execute(cmd, "--help").out();
            assertThat(help.lines()
                            .filter(l -> l.endsWith("http:")
                                    || l.endsWith("https:")
                                    || l.strip().startsWith("//"))
                            .toList())
                    .as(cmd)
                    .isEmpty();
        }
        assertThat(execute("--help").out())
                .contains("bench     Benchmark the writer against a Kafka broker and VictoriaMetrics: the "
                        + "efficiency table beside")
                .doesNotContain("idle VictoriaMetrics: its\n");
    }

    @Test
    void helpInterpolatesNoEnvironmentVariable() {
        Result r = execute(Map.of("VAR", "s3cr3t"), "run", "--help");
        assertThat(r.out().replaceAll("\\s+", " "))
                .contains("${env:VAR} / ${file:path:key}")
                .doesNotContain("s3cr3t");
    }

    @Test
    void aPasswordInAUrlWithoutASchemeIsNeverEchoed() {
        Result r = execute("run", "--topic", "t", "--vm-url", "admin:hunter2@127.0.0.1:8428");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo(
                        "tsdb-writer: invalid VictoriaMetrics URL '127.0.0.1:8428': expected http(s)://host[:port][/path]");
        assertThat(r.err()).doesNotContain("hunter2");
    }

    @Test
    void aVmUrlWithTheImportPathIsRefusedNamingTheBaseToGive() {
        Result r = execute("run", "--topic", "t", "--vm-url", "http://vm:8428/api/v1/import");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo(
                        "tsdb-writer: --vm-url is the base URL /api/v1/import is appended to: give 'http://vm:8428', not 'http://vm:8428/api/v1/import'");
    }

    @Test
    void autoIsAcceptedWhereItIsTheDocumentedDefault() {
        for (String cmd : new String[] {"run", "bench", "capacity"}) {
            assertThat(execute(cmd, "--help").out().replaceAll("\\s+", " "))
                    .as(cmd)
                    .contains("(default: auto)");
        }
        RunCommand run = new RunCommand();
        new CommandLine(run).parseArgs("--topic", "t", "--max-concurrent-writes", "auto");
        assertThat(run.toConfig().maxConcurrentWrites()).isZero();
        Result bad = execute("run", "--topic", "t", "--max-concurrent-writes", "many");
        assertUsageError(bad, "'many' is not auto nor a permit count in 0..10000 (0 = auto)");
    }

    @Test
    void aBadValueFromTheEnvironmentNamesTheVariable() {
        Result r = execute(Map.of("TSDB_WRITER_TIME_MULTIPLIER", "abc"), "run", "--topic", "t");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .startsWith(
                        "tsdb-writer: environment variable TSDB_WRITER_TIME_MULTIPLIER: Invalid value for option '--time-multiplier'");
        r = execute(Map.of("TSDB_WRITER_TIME_MULTIPLIER", "5000"), "run", "--topic", "t");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().lines().findFirst().orElseThrow())
                .isEqualTo(
                        "tsdb-writer: environment variable TSDB_WRITER_TIME_MULTIPLIER: --time-multiplier must be in 1..3600, got 5000");
        r = execute(Map.of("TSDB_WRITER_TIME_MULTIPLIER", "abc"), "run", "--topic", "t", "--time-multiplier", "x");
        assertThat(r.err())
                .as("the flag on the command line is the one to fix")
                .startsWith("tsdb-writer: Invalid value for option '--time-multiplier'");
    }

    @Test
    void bundledScrapesAreTheDefaultDataOfBenchAndCapacity() {
        assertThat(execute("bench", "--help").out())
                .contains("bundled in the jar")
                .doesNotContain("shared");
        assertThat(execute("capacity", "--help").out())
                .contains("bundled in the jar")
                .doesNotContain("shared");
        assertThat(execute("produce", "--help").out())
                .contains("examples/data")
                .doesNotContain("shared")
                .contains("--keep-timestamps")
                .contains("--now=EPOCH_MS");
        assertThat(execute("verify", "--help").out())
                .contains("--keep-timestamps")
                .contains("--now=EPOCH_MS");
    }

    @Test
    void aWriteFaultTimeoutBelowOneSecondIsABadFlag() {
        Result r = execute("run", "--topic", "t", "--write-fault-timeout", "500ms");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("tsdb-writer: --write-fault-timeout must be >= 1s");
    }

    @Test
    void topLevelHelpExitsZeroAndNamesRun() {
        Result r = execute("--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("Usage: tsdb-writer").contains("run", "TSDB_WRITER_");
    }

    @Test
    void missingSubcommandIsUsageError() {
        assertUsageError(execute(), "subcommand");
    }

    // ---- usage errors ----

    @Test
    void unknownFlagExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--bogus"), "--bogus");
    }

    @Test
    void missingTopicExitsTwo() {
        assertUsageError(execute("run"), "--topic");
    }

    @Test
    void replayFlagsWithBadValuesExitTwoNamingTheFlag() {
        assertUsageError(execute("run", "--topic", "t", "--from", "yesterday"), "--from");
        assertUsageError(execute("run", "--topic", "t", "--to", "offset:x"), "--to");
        assertUsageError(execute("run", "--topic", "t", "--rebase-time", "soon"), "--rebase-time");
        assertUsageError(execute("run", "--topic", "t", "--loop", "0"), "--loop");
        assertUsageError(
                execute("run", "--topic", "t", "--replay-duration", "1h"), "--replay-duration bounds a replay");
        assertUsageError(execute("run", "--topic", "t", "--max-samples-per-second", "-5"), "--max-samples-per-second");
        assertUsageError(execute("run", "--topic", "t", "--churn-interval", "10ms"), "--churn-interval");
        assertUsageError(execute("run", "--topic-pattern", "nodes-("), "--topic-pattern");
        assertUsageError(execute("run", "--topic", "t", "--topic-pattern", "t.*"), "not both");
    }

    @Test
    void timeMultiplierZeroExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--time-multiplier", "0"), "--time-multiplier");
    }

    @Test
    void nonNumericTimeMultiplierExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--time-multiplier", "x"), "--time-multiplier");
    }

    @Test
    void badSourceIntervalExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--source-interval", "5x"), "'5x' is not a duration");
    }

    @Test
    void unknownInputFormatExitsTwo() {
        assertUsageError(
                execute("run", "--topic", "t", "--input-format", "csv"),
                "--input-format 'csv' is not one of json, influx");
    }

    @Test
    void topicFormatForAnUnknownTopicExitsTwo() {
        assertUsageError(
                execute("run", "--topic", "t", "--topic-format", "u=influx"), "--topic-format names topic 'u'");
    }

    @Test
    void badInfluxPrecisionAndInstanceLabelExitTwo() {
        assertUsageError(
                execute("run", "--topic", "t", "--influx-precision", "m"),
                "--influx-precision must be ns, us, ms or s");
        assertUsageError(
                execute("run", "--topic", "t", "--instance-label", "__x"), "--instance-label must be a label name");
    }

    @Test
    void unknownCompressionExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--compression", "zip"), "--compression must be none or gzip");
    }

    @Test
    void unknownWriteFailurePolicyExitsTwo() {
        assertUsageError(
                execute("run", "--topic", "t", "--on-write-failure", "drop"), "'drop' is not pause or dead-letter");
    }

    @Test
    void deadLetterPolicyWithoutTopicExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--on-write-failure", "dead-letter"), "--dead-letter-topic");
    }

    @Test
    void badSizeExitsTwo() {
        assertUsageError(execute("run", "--topic", "t", "--max-inflight-bytes", "lots"), "'lots' is not a size");
    }

    // ---- toConfig and defaults ----

    @Test
    void builtInDefaults() {
        RunConfig cfg = parse(Map.of(), "--topic", "t");

        assertThat(cfg.topics()).containsExactly("t");
        assertThat(cfg.bootstrapServers()).isEqualTo("localhost:9092");
        assertThat(cfg.groupId()).isEqualTo("tsdb-writer");
        assertThat(cfg.vmUrls()).containsExactly("http://localhost:8428");
        assertThat(cfg.timeMultiplier()).isEqualTo(1);
        assertThat(cfg.instanceMultiplier()).isEqualTo(1);
        assertThat(cfg.sourceInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(cfg.parallelism()).isEqualTo(1);
        assertThat(cfg.segmentSize()).isEqualTo(50_000);
        assertThat(cfg.maxConcurrentWrites()).isZero();
        assertThat(cfg.maxRetries()).isEqualTo(5);
        assertThat(cfg.onWriteFailure()).isEqualTo(OnWriteFailure.PAUSE);
        assertThat(cfg.maxInflightBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(cfg.maxRecordBytes()).isEqualTo(1024 * 1024);
        assertThat(cfg.gzip()).isFalse();
        assertThat(cfg.callTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(cfg.stopAtEnd()).isFalse();
    }

    @Test
    void flagsReachTheConfig() {
        RunConfig cfg = parse(
                Map.of(),
                "--topic",
                "a, b",
                "--vm-url",
                "http://x:8428,http://y:8428",
                "--time-multiplier",
                "12",
                "--instance-multiplier",
                "3",
                "--source-interval",
                "30s",
                "--compression",
                "gzip",
                "--on-write-failure",
                "dead-letter",
                "--dead-letter-topic",
                "dlq",
                "--stop-at-end");

        assertThat(cfg.topics()).containsExactly("a", "b");
        assertThat(cfg.vmUrls()).containsExactly("http://x:8428", "http://y:8428");
        assertThat(cfg.timeMultiplier()).isEqualTo(12);
        assertThat(cfg.instanceMultiplier()).isEqualTo(3);
        assertThat(cfg.sourceInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(cfg.gzip()).isTrue();
        assertThat(cfg.onWriteFailure()).isEqualTo(OnWriteFailure.DEAD_LETTER);
        assertThat(cfg.deadLetterTopic()).isEqualTo("dlq");
        assertThat(cfg.stopAtEnd()).isTrue();
    }

    // ---- environment ----

    @Test
    void variableNameForTimeMultiplier() {
        assertThat(EnvironmentDefaults.variableFor("--time-multiplier")).isEqualTo("TSDB_WRITER_TIME_MULTIPLIER");
    }

    @Test
    void variableNameForVmUrl() {
        assertThat(EnvironmentDefaults.variableFor("--vm-url")).isEqualTo("TSDB_WRITER_VM_URL");
    }

    @Test
    void environmentSetsOption() {
        RunConfig cfg = parse(Map.of("TSDB_WRITER_TIME_MULTIPLIER", "12"), "--topic", "t");

        assertThat(cfg.timeMultiplier()).isEqualTo(12);
    }

    @Test
    void flagWinsOverEnvironment() {
        RunConfig cfg = parse(Map.of("TSDB_WRITER_TIME_MULTIPLIER", "12"), "--topic", "t", "--time-multiplier", "3");

        assertThat(cfg.timeMultiplier()).isEqualTo(3);
    }

    @Test
    void environmentValuesUseConverters() {
        RunConfig cfg = parse(
                Map.of("TSDB_WRITER_SOURCE_INTERVAL", "10s", "TSDB_WRITER_MAX_INFLIGHT_BYTES", "64MiB"),
                "--topic",
                "t");

        assertThat(cfg.sourceInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(cfg.maxInflightBytes()).isEqualTo(64L * 1024 * 1024);
    }

    @Test
    void environmentCanSupplyRequiredTopic() {
        RunConfig cfg = parse(Map.of("TSDB_WRITER_TOPIC", "points"));

        assertThat(cfg.topics()).containsExactly("points");
    }

    @Test
    void environmentListIsSplitOnCommas() {
        RunConfig cfg = parse(Map.of("TSDB_WRITER_VM_URL", "http://a:8428,http://b:8428"), "--topic", "t");

        assertThat(cfg.vmUrls()).containsExactly("http://a:8428", "http://b:8428");
    }

    @Test
    void environmentSetsBooleanFlag() {
        RunConfig cfg = parse(Map.of("TSDB_WRITER_STOP_AT_END", "true"), "--topic", "t");

        assertThat(cfg.stopAtEnd()).isTrue();
    }

    @Test
    void unrelatedVariablesAreIgnored() {
        RunConfig cfg = parse(Map.of("TIME_MULTIPLIER", "12", "TSDB_WRITER_TIME_MULTIPLER", "7"), "--topic", "t");

        assertThat(cfg.timeMultiplier()).isEqualTo(1);
    }

    @Test
    void orderingIsSeriesForRemoteWriteNoneForImportAndShareModeAndCanBeSet() {
        String rw = "http://p:9090/api/v1/write";
        assertThat(parse(Map.of(), "--topic", "t").ordering()).isEqualTo(Ordering.NONE);
        assertThat(parse(Map.of(), "--topic", "t", "--output", "remote-write", "--remote-write-url", rw)
                        .ordering())
                .isEqualTo(Ordering.SERIES);
        assertThat(parse(
                                Map.of(),
                                "--topic",
                                "t",
                                "--output",
                                "remote-write",
                                "--remote-write-url",
                                rw,
                                "--consumer-mode",
                                "share")
                        .ordering())
                .isEqualTo(Ordering.NONE);
        assertThat(parse(
                                Map.of(),
                                "--topic",
                                "t",
                                "--output",
                                "remote-write",
                                "--remote-write-url",
                                rw,
                                "--ordering",
                                "none")
                        .ordering())
                .isEqualTo(Ordering.NONE);
        assertThat(parse(Map.of(), "--topic", "t", "--ordering", "series").ordering())
                .isEqualTo(Ordering.SERIES);
    }

    @Test
    void badOrderingFlagsAreOneLineAndExitTwo() {
        assertUsageError(execute("run", "--topic", "t", "--ordering", "time"), "--ordering must be series or none");
        assertUsageError(
                execute(
                        "run",
                        "--topic",
                        "t",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://p:9090/api/v1/write",
                        "--consumer-mode",
                        "share",
                        "--ordering",
                        "series"),
                "--ordering series needs --consumer-mode segments");
    }

    @Test
    void badOutputFlagsAreOneLineAndExitTwo() {
        assertUsageError(execute("run", "--topic", "t", "--output", "json"), "--output must be import or remote-write");
        assertUsageError(
                execute("run", "--topic", "t", "--output", "remote-write"),
                "--output remote-write needs --remote-write-url");
        assertUsageError(
                execute(
                        "run",
                        "--topic",
                        "t",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://p:9090/api/v1/write",
                        "--compression",
                        "gzip"),
                "--compression gzip applies to --output import only");
        assertUsageError(
                execute("run", "--topic", "t", "--output", "remote-write", "--remote-write-url", "p:9090/api/v1/write"),
                "invalid remote write URL");
        assertUsageError(
                execute("run", "--topic", "t", "--remote-write-version", "3"), "--remote-write-version must be 1");
        assertUsageError(
                execute("run", "--topic", "t", "--remote-write-version", "2"),
                "--remote-write-version 2 applies to --output remote-write only");
    }

    @Test
    void remoteWriteUrlsAreRepeatableCommaSeparatedAndReadFromTheEnvironment() {
        RunCommand cmd = new RunCommand();
        new CommandLine(cmd)
                .parseArgs(
                        "--topic",
                        "t",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        "http://a:8428/api/v1/write,http://b:9090/api/v1/write",
                        "--remote-write-url",
                        "http://c/api/v1/push");
        RunConfig cfg = cmd.toConfig();
        assertThat(cfg.output()).isEqualTo(Output.REMOTE_WRITE);
        assertThat(cfg.writeUrls())
                .containsExactly("http://a:8428/api/v1/write", "http://b:9090/api/v1/write", "http://c/api/v1/push");

        RunCommand fromEnv = new RunCommand();
        new CommandLine(fromEnv)
                .setDefaultValueProvider(new EnvironmentDefaults(Map.of(
                        "TSDB_WRITER_OUTPUT",
                        "remote-write",
                        "TSDB_WRITER_REMOTE_WRITE_URL",
                        "http://p:9090/api/v1/write")))
                .parseArgs("--topic", "t");
        assertThat(fromEnv.toConfig().writeUrls()).containsExactly("http://p:9090/api/v1/write");
    }

    @Test
    void everySubcommandsHelpRendersWithoutPicocliFormatWarnings() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            Main.commandLine().getSubcommands().values().forEach(CommandLine::getUsageMessage);
        } finally {
            System.setErr(err);
        }
        // a bare % in a description (PCT%) made picocli print "[picocli WARN] Could not format ..." on every --help
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
    }
}
