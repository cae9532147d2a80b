package io.tsdbwriter.cli;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Under which heading each option of each command is listed in {@code --help}: one table per command, option long
 * name → group, in the order the groups and options are shown. The option classes stay as they are (mixins shared by
 * several commands); only the help's order changes. An option missing from its command's table is listed under
 * {@value #OTHER} ({@code HelpTest} fails naming it, so a new flag gets its group); a name in a table that the command
 * does not have is skipped. Immutable and thread-safe.
 */
final class HelpGroups {

    /** Heading of the options a command's table does not name. */
    static final String OTHER = "Other options";

    /**
     * One heading, the long names of its options in help order, and the docs page that says their details ({@code
     * docs/x.md}; empty: none).
     */
    record Group(String heading, List<String> options, String details) {
        Group {
            options = List.copyOf(options);
        }

        Group(String heading, List<String> options) {
            this(heading, options, "");
        }
    }

    /** The page of each command's details, for the headings {@link #RUN_PAGES} does not name. */
    private static final Map<String, String> PAGES = Map.of(
            "run", "docs/run.md",
            "check", "docs/run.md",
            "produce", "docs/run.md",
            "verify", "docs/verify.md",
            "bench", "docs/capacity-testing.md",
            "capacity", "docs/capacity.md");

    /** {@code run}'s headings whose details are on another page than docs/run.md. */
    private static final Map<String, String> RUN_PAGES = Map.of(
            "Input", "docs/input-formats.md",
            "Relabeling and tenants", "docs/tenants.md",
            "TSDB connection and security", "docs/remote-write.md",
            "Delivery", "docs/delivery.md",
            "Replay and load (capacity tests, soaks)", "docs/capacity-testing.md");

    private static final List<String> VM_AUTH = List.of(
            "--vm-basic-auth-username",
            "--vm-basic-auth-password-file",
            "--vm-bearer-token-file",
            "--vm-header",
            "--vm-tls-ca-file",
            "--vm-tls-cert-file",
            "--vm-tls-key-file",
            "--vm-tls-server-name",
            "--vm-tls-insecure-skip-verify");

    private static final List<String> KAFKA_CLIENT =
            List.of("--bootstrap-servers", "--kafka-config", "--kafka-property");

    private static final Group HELP = new Group("Help", List.of("--help", "--version"));

    private static final Group LOGS =
            new Group("Config file and logs", List.of(ConfigFile.FLAG, LogOptions.FLAG, LogOptions.LEVEL_FLAG));

    private static final List<String> SOURCE_POINTS = List.of(
            "--synthetic",
            "--series",
            "--points-per-series",
            "--instance",
            "--product-key",
            "--timestamp",
            "--now",
            "--keep-timestamps",
            "--source-interval");

    private static final Map<String, List<Group>> TABLES = Map.of(
            "run",
                    List.of(
                            new Group(
                                    "Kafka connection and consumption",
                                    concat(
                                            KAFKA_CLIENT,
                                            List.of(
                                                    "--topic",
                                                    "--topic-pattern",
                                                    "--group-id",
                                                    "--consumer-mode",
                                                    "--group-instance-id",
                                                    "--group-protocol",
                                                    "--consumer-property",
                                                    "--kafka-timeout"))),
                            new Group(
                                    "Input",
                                    List.of(
                                            "--input-format",
                                            "--topic-format",
                                            "--influx-precision",
                                            "--instance-label",
                                            "--min-timestamp",
                                            "--max-timestamp-ahead",
                                            "--max-record-bytes",
                                            "--convert-histograms-to-nhcb",
                                            "--convert-classic-histograms-to-nhcb")),
                            new Group(
                                    "Relabeling, tenants and series limits",
                                    List.of(
                                            "--relabel-config",
                                            "--tenant-from",
                                            "--default-tenant",
                                            "--remote-write-tenant-header",
                                            "--max-hourly-series",
                                            "--max-daily-series")),
                            new Group(
                                    "TSDB connection and security",
                                    concat(
                                            List.of(
                                                    "--output",
                                                    "--vm-url",
                                                    "--remote-write-url",
                                                    "--remote-write-version"),
                                            VM_AUTH,
                                            List.of("--compression", "--call-timeout"))),
                            new Group(
                                    "Amplification",
                                    List.of("--time-multiplier", "--instance-multiplier", "--source-interval")),
                            new Group(
                                    "Delivery",
                                    List.of(
                                            "--ordering",
                                            "--segment-size",
                                            "--commit-interval",
                                            "--durability-window",
                                            "--tsdb-metrics-url",
                                            "--max-retries",
                                            "--max-backoff",
                                            "--on-write-failure",
                                            "--on-configuration-fault",
                                            "--dead-letter-topic",
                                            "--write-fault-timeout",
                                            "--drain-timeout",
                                            "--stop-at-end")),
                            new Group(
                                    "Tuning",
                                    List.of(
                                            "--parallelism",
                                            "--max-concurrent-writes",
                                            "--target-metrics-url",
                                            "--batch-samples",
                                            "--batch-send-deadline",
                                            "--max-inflight-bytes",
                                            "--series-cache-size",
                                            "--write-mode")),
                            new Group(
                                    "Output and reports",
                                    List.of(
                                            "--report-interval",
                                            "--summary-json",
                                            "--metrics-port",
                                            "--metrics-address")),
                            new Group(
                                    "Replay and load (capacity tests, soaks)",
                                    List.of(
                                            "--from",
                                            "--to",
                                            "--rebase-time",
                                            "--loop",
                                            "--replay-duration",
                                            "--max-samples-per-second",
                                            "--churn-interval")),
                            LOGS,
                            HELP),
            "produce",
                    List.of(
                            new Group("Source points (without --synthetic: the FILEs)", SOURCE_POINTS),
                            new Group("Kafka connection", concat(KAFKA_CLIENT, List.of("--topic"))),
                            new Group(
                                    "Records and load",
                                    List.of(
                                            "--records-per-second",
                                            "--points-per-record",
                                            "--keyed",
                                            "--histogram-series",
                                            "--record-format")),
                            LOGS,
                            HELP),
            "verify",
                    List.of(
                            new Group(
                                    "Expected samples: the source points as produce read them, amplified",
                                    concat(
                                            SOURCE_POINTS,
                                            List.of("--time-multiplier", "--instance-multiplier", "--replay-summary"))),
                            new Group(
                                    "TSDB connection and security",
                                    concat(List.of("--vm-url", "--read-api", "--flush-url"), VM_AUTH)),
                            new Group(
                                    "Check",
                                    List.of(
                                            "--match",
                                            "--ignore-label",
                                            "--value-tolerance",
                                            "--wait",
                                            "--search-timeout")),
                            LOGS,
                            HELP),
            "bench",
                    List.of(
                            new Group("Kafka connection", KAFKA_CLIENT),
                            new Group(
                                    "TSDB connection and security",
                                    concat(
                                            List.of(
                                                    "--vm-url",
                                                    "--remote-write-url",
                                                    "--prometheus-binary",
                                                    "--prometheus-out-of-order-window",
                                                    "--victoria-metrics-binary"),
                                            VM_AUTH)),
                            new Group(
                                    "Grid: one writer process per cell",
                                    List.of(
                                            "--parallelism",
                                            "--time-multiplier",
                                            "--instance-multiplier",
                                            "--write-mode",
                                            "--output",
                                            "--share-processes",
                                            "--share-parallelism")),
                            new Group(
                                    "Backlog and live load",
                                    List.of(
                                            "--source",
                                            "--data-dir",
                                            "--series",
                                            "--records",
                                            "--topic",
                                            "--partitions",
                                            "--source-interval",
                                            "--histogram-series",
                                            "--input-rate",
                                            "--live-duration",
                                            "--live-grace")),
                            new Group("Ceiling", List.of("--ceiling-seconds", "--ceiling-pool")),
                            new Group(
                                    "Writer processes",
                                    List.of(
                                            "--writer-jar",
                                            "--writer-jvm-option",
                                            "--writer-arg",
                                            "--segment-size",
                                            "--max-concurrent-writes",
                                            "--batch-samples",
                                            "--cell-timeout",
                                            "--settle-timeout")),
                            new Group(
                                    "Floor and peer",
                                    List.of("--floor", "--peer", "--telegraf-binary", "--otelcol-binary")),
                            new Group(
                                    "Placement: the TSDB and the writer side on disjoint CPUs",
                                    List.of("--tsdb-cpus", "--writer-cpus")),
                            new Group("Output and reports", List.of("--csv", "--chart", "--work-dir")),
                            LOGS,
                            HELP),
            "capacity",
                    List.of(
                            new Group(
                                    "Kafka connection",
                                    concat(KAFKA_CLIENT, List.of("--topic-prefix", "--partitions"))),
                            new Group(
                                    "TSDB connection and security",
                                    concat(
                                            List.of(
                                                    "--target",
                                                    "--output",
                                                    "--vm-url",
                                                    "--remote-write-url",
                                                    "--remote-write-version",
                                                    "--target-metrics-url"),
                                            VM_AUTH)),
                            new Group(
                                    "Load model",
                                    List.of(
                                            "--time-multiplier",
                                            "--instance-multiplier",
                                            "--churn-interval",
                                            "--series-mode",
                                            "--series-change-interval",
                                            "--spike-multiplier",
                                            "--max-hourly-series",
                                            "--max-daily-series",
                                            "--data-dir",
                                            "--points-per-pass",
                                            "--histogram-series")),
                            new Group(
                                    "Search",
                                    List.of(
                                            "--vary",
                                            "--start-input-rate",
                                            "--probe-records",
                                            "--step-factor",
                                            "--step-duration",
                                            "--warm-up",
                                            "--max-steps",
                                            "--time-budget",
                                            "--refine-steps",
                                            "--min-efficiency",
                                            "--max-p99-latency",
                                            "--step-drain-timeout")),
                            new Group(
                                    "Read load",
                                    List.of(
                                            "--query-rate",
                                            "--query-url",
                                            "--queries",
                                            "--query-timeout",
                                            "--max-query-p99-latency")),
                            new Group(
                                    "Writer processes",
                                    List.of(
                                            "--writer-jar",
                                            "--writer-jvm-option",
                                            "--writer-arg",
                                            "--segment-size",
                                            "--parallelism",
                                            "--max-concurrent-writes",
                                            "--batch-samples")),
                            new Group(
                                    "Placement: the TSDB and the writer side on disjoint CPUs",
                                    List.of("--tsdb-cpus", "--writer-cpus", "--side-by-side")),
                            new Group("Output and reports", List.of("--csv", "--chart", "--report", "--work-dir")),
                            LOGS,
                            HELP),
            "tsdb-writer", List.of(new Group("Options", List.of("--help", "--version"))),
            "help", List.of(new Group("Options", List.of("--help"))));

    private HelpGroups() {}

    /**
     * The table of the command named {@code command}, as written (names the command lacks included); empty if none.
     * {@code check} has {@code run}'s: it takes its options.
     */
    static List<Group> table(String command) {
        return TABLES.getOrDefault(command.equals("check") ? "run" : command, List.of());
    }

    /**
     * The groups of {@code spec}'s options as {@code --help} lists them: its table's groups with the options the command
     * has, empty groups left out, then {@value #OTHER} with the options the table does not name (in declaration order).
     */
    static List<Group> of(CommandSpec spec) {
        return of(spec, table(spec.name()));
    }

    /** {@link #of(CommandSpec)} with {@code table} as the command's table. */
    static List<Group> of(CommandSpec spec, List<Group> table) {
        Set<String> has = new LinkedHashSet<>();
        for (OptionSpec o : spec.options()) {
            if (!o.hidden()) {
                has.add(o.longestName());
            }
        }
        List<Group> groups = new ArrayList<>();
        Set<String> placed = new LinkedHashSet<>();
        for (Group g : table) {
            List<String> present = g.options().stream()
                    .filter(has::contains)
                    .filter(placed::add)
                    .toList();
            if (!present.isEmpty()) {
                groups.add(new Group(
                        g.heading(),
                        present,
                        g.heading().equals(HELP.heading()) ? "" : page(spec.name(), g.heading())));
            }
        }
        List<String> other = has.stream().filter(n -> !placed.contains(n)).toList();
        if (!other.isEmpty()) {
            groups.add(new Group(OTHER, other));
        }
        return groups;
    }

    /** The page of {@code command}'s group {@code heading}'s details; empty for a command without one. */
    private static String page(String command, String heading) {
        return (command.equals("run") || command.equals("check")) && RUN_PAGES.containsKey(heading)
                ? RUN_PAGES.get(heading)
                : PAGES.getOrDefault(command, "");
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) {
            all.addAll(p);
        }
        return all;
    }
}
