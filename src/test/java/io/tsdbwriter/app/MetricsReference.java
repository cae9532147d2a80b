package io.tsdbwriter.app;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.metrics.EfficiencyReport;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Generates docs/metrics.md from what {@code /metrics} serves: the registry a {@code run} builds ({@link RunMetrics}:
 * the Prometheus registry, the JVM binders and {@link WriterMeters}), with the meters that are registered later, per
 * endpoint, per partition or per tag, registered as the service registers them (the catalogue's methods, the classes
 * that call {@link WriterMeters#gauge}), then {@link PrometheusMeterRegistry#scrape()} read back: each
 * {@code tsdbwriter_} family with its type, labels and help text. {@code MetricsReferenceTest} holds the page equal to
 * {@link #page()}; {@code main} writes it.
 *
 * <p>Not thread-safe; a test helper, no Kafka or TSDB needed.
 */
public final class MetricsReference {

    /** The page. */
    public static final Path PAGE = Path.of("docs", "metrics.md");

    /**
     * When each meter that is not there from the start appears (the page's "appears" column): a meter missing here
     * fails the test, so a new lazily registered meter gets its sentence.
     */
    static final Map<String, String> APPEARS = Map.ofEntries(
            Map.entry("tsdbwriter_decode_errors_total", "once a record (or line) is malformed, per format and reason"),
            Map.entry("tsdbwriter_write_requests_total", "with the first write request, per outcome and status"),
            Map.entry("tsdbwriter_dead_letters_total", "once a record is dead-lettered"),
            Map.entry("tsdbwriter_dead_letter_failures_total", "once a record cannot be dead-lettered"),
            Map.entry("tsdbwriter_write_faults_total", "once a write meets a configuration fault"),
            Map.entry(
                    "tsdbwriter_records_skipped_total", "once offsets are skipped (deleted before they were written)"),
            Map.entry("tsdbwriter_offset_resets_total", "once a position is moved (each is also a WARN line)"),
            Map.entry("tsdbwriter_tsdb_restarts_total", "once a TSDB restart is seen"),
            Map.entry("tsdbwriter_committed_offset", "per partition, once assigned (group mode; not in share mode)"),
            Map.entry(
                    "tsdbwriter_consumer_lag_records", "per partition, once assigned (group mode; not in share mode)"),
            Map.entry("tsdbwriter_write_permits_capacity", "per endpoint, once writing starts"),
            Map.entry("tsdbwriter_write_permits_in_use", "per endpoint, once writing starts"),
            Map.entry("tsdbwriter_write_permits_limit_reached_total", "once writing starts"),
            Map.entry("tsdbwriter_limited_by", "once the report starts (one series per resource)"),
            Map.entry("tsdbwriter_input_rate_records_per_second", "once the report starts"),
            Map.entry("tsdbwriter_expected_samples_per_second", "once the report starts"),
            Map.entry("tsdbwriter_rate_ratio", "once the report starts"),
            Map.entry("tsdbwriter_efficiency_ratio", "once the report starts"),
            Map.entry("tsdbwriter_series_limit_dropped_total", "once a series limit drops a series, per reason"),
            Map.entry("tsdbwriter_hourly_series_limit_max_series", "with --max-hourly-series"),
            Map.entry("tsdbwriter_hourly_series_limit_current_series", "with --max-hourly-series"),
            Map.entry("tsdbwriter_daily_series_limit_max_series", "with --max-daily-series"),
            Map.entry("tsdbwriter_daily_series_limit_current_series", "with --max-daily-series"),
            Map.entry(
                    "tsdbwriter_tenant_samples_written_total",
                    "with --tenant-from, once a tenant's samples are written "
                            + "(the first 100 tenants by name, later ones as tenant=\"other\")"));

    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);
    private static final Pattern HELP = Pattern.compile("^# HELP (\\S+) (.*)$", Pattern.MULTILINE);
    private static final Pattern SAMPLE =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)})? ", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    /** One metric family as served: the name a query uses, its type, label names and help text. */
    record Family(String name, String type, Set<String> labels, String help) {}

    private MetricsReference() {}

    /** The families {@code /metrics} serves under the {@code tsdbwriter_} prefix, by name: fresh and after every lazy registration. */
    static Map<String, Family> served(boolean lazy) {
        try (RunMetrics metrics = new RunMetrics()) {
            if (lazy) {
                registerLazily(metrics.meters());
            }
            return families(metrics.registry().scrape());
        }
    }

    /** Registers what a run registers after its start, as the service does. */
    private static void registerLazily(WriterMeters meters) {
        meters.decodeErrors("json", "invalid_json", 1);
        meters.writeRequest("success", "204");
        meters.deadLettered("whole");
        meters.deadLetterFailure("unknown_topic");
        meters.writeFault("http://vminsert:8480/insert/0/prometheus", "4xx");
        meters.recordsSkipped(new WriterMeters.SkippedRange("topic", 0, 0, 1, "deleted"));
        meters.offsetReset("deleted");
        meters.written(
                TenantRouting.parse("header:tenant", "1", null, TenantSyntax.ACCOUNT_ID)
                        .defaultTenant(),
                1);
        meters.tsdbRestart("http://vmstorage:8482/metrics");
        meters.seriesLimitDropped(1, 1); // --max-hourly-series, --max-daily-series (WriterService.seriesLimits)
        meters.seriesLimit("hourly", 1, () -> 0);
        meters.seriesLimit("daily", 1, () -> 0);
        new EfficiencyReport(meters, 1, () -> 0, () -> 0); // the report's gauges
        meters.limitedBy(() -> Bottleneck.Resource.UNKNOWN); // ReportLines.schedule
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            WritePermits permits = new WritePermits(PermitSizing.FALLBACK_PERMITS, 1 << 20);
            new PermitSizing(
                            client,
                            List.of(new WriteTarget("http://127.0.0.1:9/")),
                            permits,
                            2,
                            List.of(),
                            Duration.ofSeconds(1))
                    .start(meters, scheduler, null); // an explicit count: no intake followed
        } finally {
            scheduler.shutdownNow();
        }
        try { // a partition assigned (group mode): package-private in io.tsdbwriter.kafka.group
            Class<?> c = Class.forName("io.tsdbwriter.kafka.group.OffsetCommits");
            Constructor<?> k = c.getDeclaredConstructor(long.class, WriterMeters.class);
            k.setAccessible(true);
            Object commits = k.newInstance(1000L, meters);
            Method assigned = c.getDeclaredMethod("assigned", TopicPartition.class, long.class, long.class);
            assigned.setAccessible(true);
            assigned.invoke(commits, new TopicPartition("topic", 0), -1L, 0L);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "OffsetCommits changed: register its gauges here as the group member does", e);
        }
    }

    /** The {@code tsdbwriter_} families of a scrape (text format), by the name a query uses. */
    static Map<String, Family> families(String scrape) {
        Map<String, String> types = new LinkedHashMap<>();
        Matcher t = TYPE.matcher(scrape);
        while (t.find()) {
            types.put(t.group(1), t.group(2));
        }
        Map<String, String> helps = new LinkedHashMap<>();
        Matcher h = HELP.matcher(scrape);
        while (h.find()) {
            helps.put(h.group(1), h.group(2));
        }
        Map<String, Set<String>> labels = new TreeMap<>();
        Matcher s = SAMPLE.matcher(scrape);
        while (s.find()) {
            Set<String> l = labels.computeIfAbsent(family(s.group(1), types), k -> new TreeSet<>());
            if (s.group(2) != null) {
                Matcher n = LABEL.matcher(s.group(2));
                while (n.find()) {
                    if (!n.group(1).equals("le") && !n.group(1).equals("quantile")) {
                        l.add(n.group(1));
                    }
                }
            }
        }
        Map<String, Family> out = new TreeMap<>();
        types.forEach((family, type) -> {
            if (!family.startsWith("tsdbwriter_")) {
                return;
            }
            String name = type.equals("counter") && !family.endsWith("_total") ? family + "_total" : family;
            out.put(
                    name,
                    new Family(name, type, labels.getOrDefault(family, Set.of()), helps.getOrDefault(family, "")));
        });
        return out;
    }

    /** The family a sample belongs to: its name without a histogram's, summary's or counter's suffix. */
    private static String family(String sample, Map<String, String> types) {
        if (types.containsKey(sample)) {
            return sample;
        }
        for (String suffix : List.of("_bucket", "_count", "_sum", "_total", "_created", "_gcount", "_gsum")) {
            if (sample.endsWith(suffix) && types.containsKey(sample.substring(0, sample.length() - suffix.length()))) {
                return sample.substring(0, sample.length() - suffix.length());
            }
        }
        return sample;
    }

    /** The page for the families served now. */
    static String page() {
        Map<String, Family> fresh = served(false);
        Map<String, Family> all = served(true);
        List<String> unexplained = new ArrayList<>();
        StringBuilder rows = new StringBuilder();
        for (Family f : all.values()) {
            String appears = fresh.containsKey(f.name()) ? "from the start" : APPEARS.get(f.name());
            if (appears == null) {
                unexplained.add(f.name());
                appears = "?";
            }
            rows.append("| `")
                    .append(f.name())
                    .append("` | ")
                    .append(f.type().equals("histogram") ? "histogram (`_bucket`, `_count`, `_sum`)" : f.type())
                    .append(" | ")
                    .append(f.labels().isEmpty() ? "" : "`" + String.join("`, `", f.labels()) + "`")
                    .append(" | ")
                    .append(cell(f.help()))
                    .append(" | ")
                    .append(appears)
                    .append(" |\n");
        }
        if (!unexplained.isEmpty()) {
            throw new IllegalStateException(
                    "meters registered later with no sentence in MetricsReference.APPEARS: " + unexplained);
        }
        return """
                # Metrics reference

                <!-- Generated by src/test/java/io/tsdbwriter/app/MetricsReference.java from the meter catalogue
                (WriterMeters) as /metrics serves it; MetricsReferenceTest fails when this page differs and prints the
                page to write. Do not edit by hand: change the catalogue, then run the test. -->

                Every meter `tsdbwriter run` exports on `/metrics` (`--metrics-port`, default 9464; `-1`: no endpoint),
                as Prometheus names it: Micrometer's names (`tsdbwriter.records.consumed`, declared once each in
                `WriterMeters`) with dots as underscores, counters ending in `_total`, timers in seconds as histograms
                (`_seconds_bucket`, `_seconds_count`, `_seconds_sum`, and a `_seconds_max` gauge), gauges with their
                base unit (`_bytes`, `_seconds`). A meter registered once something happens appears in `/metrics` only
                from then on ("appears"): a query over it is empty, not zero, before (`or vector(0)` in an alert).
                Label values: see each description and section ["Delivery guarantees"](delivery.md).

                The JVM's own meters (`jvm_memory_*`, `jvm_gc_*`, `jvm_threads_*`, `process_cpu_*`, `system_cpu_*`,
                Micrometer's binders) are served too and not listed here. The dashboard ([The dashboard](dashboard.md))
                and the alerts in `k8s/` use these names.

                | metric | type | labels (tags) | description | appears |
                |:--|:--|:--|:--|:--|
                """
                + rows
                + INGEST_DELAY;
    }

    /** The page's section on the two stages of {@code tsdbwriter_ingest_delay_seconds}. */
    private static final String INGEST_DELAY =
            """

            ## Ingest delay

            `tsdbwriter_ingest_delay_seconds{stage}` is what an operator pages on: per sample batch (one observation per
            write request, not per sample), the time from the Kafka timestamp of the batch's oldest record to

            - `stage="acknowledged"`: the TSDB's 2xx for the batch: its samples are queryable;
            - `stage="committed"`: the offset commit that covered the batch's last record: its records are durable and
              never read again. Between the two lie the durability window (`--durability-window`,
              `tsdbwriter_durability_window_seconds`) and the wait for the commit: with a window, the commit follows the
              window's end (the next TSDB probe round, each half second, then the member's next round, at most a quarter
              second after the last such commit); with `--durability-window 0`, within about 0.35 s of the 2xx
              ([Delivery](delivery.md#when-offsets-are-committed)).

            The timestamp is the record's `CreateTime` or `LogAppendTime`, as its topic's `message.timestamp.type` says
            (`CreateTime` is the producer's clock: one ahead of ours reads as a delay of 0). A replay or a rebased run
            (`--from`, `--to`, `--loop`, `--rebase-time`) reads records whose timestamps are the window's past: there, and
            for a record without a timestamp, the delay runs from the time the record was read. `committed` is recorded in
            group mode only: a replay commits no offsets, and a share group (`--consumer-mode share`) acknowledges its
            records instead; there only `acknowledged` is recorded. Buckets run from 10 ms to 10 min (`+Inf` above); the
            report line ends with each stage's p50/p99 over the interval
            (`| ingest_delay p50/p99 acknowledged=0.180s/0.950s committed=31.200s/58.400s`, `n/a` for a stage no batch
            reached), `--summary-json` has them over the run as
            `ingest_delay_seconds: {acknowledged: {p50, p99}, committed: {p50, p99}}` (null for a stage no batch
            reached). The dashboard's "Ingest delay" panel and the `TsdbWriterIngestDelayHigh` alert read the buckets
            with `histogram_quantile` ([The dashboard](dashboard.md)). Where the delay goes, stage by stage, with what bounds
            each: [Delivery](delivery.md#where-the-ingest-delay-goes).
            """;

    private static String cell(String help) {
        return help.replace("\\\\", "\\").replace("|", "\\|");
    }

    /** Writes docs/metrics.md. */
    public static void main(String[] args) throws IOException {
        Files.writeString(PAGE, page());
        System.out.println("wrote " + PAGE);
    }
}
