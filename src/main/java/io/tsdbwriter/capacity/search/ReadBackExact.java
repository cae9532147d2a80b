package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadApi;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;

/**
 * A search's exact read-back pass ({@link ReadBack#compared}): every sample the search fed its writers — its
 * points ({@link FedSamples}, produced again from the feed) × M × N, as {@code tsdb-writer verify} expects them
 * ({@link ExpectedSamples}: the writers' {@code --source-interval}, 60 s unless a writer argument sets it) — compared
 * sample by sample with what the target's query API returns, by {@code verify}'s reader and comparison
 * ({@link ReadBackVerifier} with {@link ReadApi#AUTO}: VictoriaMetrics' {@code /api/v1/export} after
 * {@code /internal/force_flush}, the Prometheus query API's range-vector selectors where the export answers 404).
 * Missing samples, samples read back that were not fed or more than once, and values that differ are counted.
 *
 * <p>Bound: the comparison runs per batch of metric names, each batch at most {@link #BATCH_SAMPLES} expected samples
 * (points × M × N before equal timestamps collapse; a batch holds about 16 bytes per sample ÷ N), the points produced
 * again from the feed once per batch. It does not run — {@link Outcome#whyNot()} says why and the count stands
 * ({@link ReadBackCount}) — when one metric name alone holds more than {@link #BATCH_SAMPLES}, the search fed more than
 * {@link #MAX_SAMPLES} in all (the read would take minutes), the steps' M differ ({@code --vary time-multiplier}), a
 * series schedule fed the steps ({@code --series-mode} other than steady), histograms fed them ({@link #HISTOGRAMS}:
 * the search says so before it asks), a writer argument changes what the writers
 * write from what they were fed ({@link #ALTERING}), or the read fails. Only the fed metric names are read: a series of
 * another name is not seen.
 *
 * <p>A batch that does not match is read again every {@code poll} for up to {@code settle} (a receiver may make samples
 * searchable seconds after it acknowledged them); the last reading stands. Thread-safe when its client is; each call is
 * independent.
 */
final class ReadBackExact {

    /** Most expected samples one batch of metric names holds. */
    static final long BATCH_SAMPLES = 5_000_000;
    /** Most expected samples compared over the whole search. */
    static final long MAX_SAMPLES = 50_000_000;
    /** The writers' source interval unless a writer argument sets it, ms (the {@code run} default). */
    static final long DEFAULT_SOURCE_INTERVAL_MS = 60_000;
    /** Writer arguments after which the written samples are no longer the fed points × M × N. */
    static final List<String> ALTERING = List.of(
            "--churn-interval",
            "--relabel-config",
            "--tenant-from",
            "--default-tenant",
            "--instance-label",
            "--max-hourly-series",
            "--max-daily-series",
            "--min-timestamp",
            "--input-format",
            "--topic-format");

    /**
     * Why the comparison does not run with a histogram share ({@code --histogram-series}): {@code verify}'s reader and
     * comparison take float samples, and histograms are produced again from no feed.
     */
    static final String HISTOGRAMS =
            "histogram series (--histogram-series) fed the steps: the comparison reads float samples only";

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    /** The read-back, or why the comparison could not run (then {@code readBack} is null). */
    record Outcome(ReadBack readBack, String whyNot) {
        static Outcome not(String why) {
            return new Outcome(null, why);
        }
    }

    private final OkHttpClient http;
    private final Duration settle;
    private final Duration poll;
    private final long batchSamples;

    ReadBackExact(OkHttpClient http) {
        this(http, ReadBackCount.SETTLE, ReadBackCount.POLL, BATCH_SAMPLES);
    }

    /** With the re-reads' span and pause and the batch bound (a test's smaller one). */
    ReadBackExact(OkHttpClient http, Duration settle, Duration poll, long batchSamples) {
        this.http = http;
        this.settle = settle;
        this.poll = poll;
        this.batchSamples = batchSamples;
    }

    /**
     * Compares what {@code fed} holds with what {@code baseUrl} returns.
     *
     * @param baseUrl  the query API's base ({@code http://vm:8428}, {@code http://prometheus:9090}, a vmselect's
     *                 {@code …/select/0/prometheus}); not null
     * @param written  the samples the writers wrote
     * @param n        the writers' N
     * @param writerArgs the writers' extra {@code run} arguments
     * @throws InterruptedException when interrupted while waiting to read again
     */
    Outcome compare(String baseUrl, long written, FedSamples fed, int n, List<String> writerArgs)
            throws InterruptedException {
        String altering = altering(writerArgs);
        if (altering != null) {
            return Outcome.not("the writers' " + altering + " changes what they write from what they were fed");
        }
        long intervalMs;
        try {
            intervalMs = sourceIntervalMs(writerArgs);
        } catch (IllegalArgumentException e) {
            return Outcome.not(e.getMessage());
        }
        if (fed.scheduled()) {
            // the schedule's points are not yet produced again sample for sample (a spike's read-back differed)
            return Outcome.not("a series schedule (--series-mode) fed the steps");
        }
        int m = fed.timeMultiplier();
        if (m < 0) {
            return Outcome.not("the steps' M differ (--vary time-multiplier)");
        }
        if (m == 0) {
            return new Outcome(ReadBack.compared(written, 0, new ReadBack.Exact(0, 0, 0, 0), "nothing fed"), null);
        }
        Map<String, Long> perMetric = new TreeMap<>();
        fed.replay((p, pm) -> perMetric.merge(p.metric(), (long) pm * n, Long::sum));
        long total = perMetric.values().stream().mapToLong(Long::longValue).sum();
        if (total > MAX_SAMPLES) {
            return Outcome.not(String.format(
                    Locale.ROOT, "%,d samples fed, more than the %,d compared at most", total, MAX_SAMPLES));
        }
        for (Map.Entry<String, Long> e : perMetric.entrySet()) {
            if (e.getValue() > batchSamples) {
                return Outcome.not(String.format(
                        Locale.ROOT,
                        "the metric %s alone has %,d samples fed, more than the %,d compared at once",
                        e.getKey(),
                        e.getValue(),
                        batchSamples));
            }
        }
        ReadBackVerifier verifier;
        try {
            verifier = new ReadBackVerifier(
                            SafeUrl.parse(baseUrl).url(), null, ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE, http)
                    .withReadApi(ReadApi.AUTO);
        } catch (IllegalArgumentException e) {
            return Outcome.not(e.getMessage());
        }
        List<Set<String>> batches = batches(perMetric, batchSamples);
        Sum sum = new Sum();
        for (Set<String> batch : batches) {
            ExpectedSamples.Builder b = ExpectedSamples.builder(m, n, intervalMs);
            fed.replay((p, pm) -> {
                if (batch.contains(p.metric())) {
                    b.add(p);
                }
            });
            try {
                sum.add(verifier.verifySearchable(b.build(), settle, settle, poll, note -> {}));
            } catch (IOException e) {
                return Outcome.not("reading back failed: " + SafeUrl.redact(String.valueOf(e.getMessage())));
            }
        }
        String source = (verifier.readsQueryApi()
                        ? "the Prometheus query API, `POST " + shown(baseUrl, "/api/v1/query")
                                + "` of range-vector selectors"
                        : "VictoriaMetrics' export, `" + shown(baseUrl, "/api/v1/export") + "` after "
                                + "`/internal/force_flush`")
                + String.format(
                        Locale.ROOT,
                        " (%d metric name%s in %d batch%s; M=%d, N=%d, source interval %d ms)",
                        perMetric.size(),
                        perMetric.size() == 1 ? "" : "s",
                        batches.size(),
                        batches.size() == 1 ? "" : "es",
                        m,
                        n,
                        intervalMs)
                + sum.examples();
        return new Outcome(ReadBack.compared(written, sum.read, sum.exact(), source), null);
    }

    private static String shown(String baseUrl, String path) {
        return SafeUrl.redact(baseUrl).replaceAll("/+$", "") + path;
    }

    /** The first altering argument among {@code args} ({@link #ALTERING}, as {@code --flag} or {@code --flag=…}), or null. */
    static String altering(List<String> args) {
        for (String a : args) {
            for (String flag : ALTERING) {
                if (a.equals(flag) || a.startsWith(flag + "=")) {
                    return flag;
                }
            }
        }
        return null;
    }

    /**
     * The writers' {@code --source-interval} among {@code args} ({@code --source-interval 30s} or
     * {@code --source-interval=30s}; the last one given), ms; {@link #DEFAULT_SOURCE_INTERVAL_MS} without one.
     *
     * @throws IllegalArgumentException when its value is no duration of at least 1 ms
     */
    static long sourceIntervalMs(List<String> args) {
        String value = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--source-interval") && i + 1 < args.size()) {
                value = args.get(++i);
            } else if (a.startsWith("--source-interval=")) {
                value = a.substring("--source-interval=".length());
            }
        }
        if (value == null) {
            return DEFAULT_SOURCE_INTERVAL_MS;
        }
        long ms;
        try {
            String v = value.trim();
            Matcher d = DURATION.matcher(v);
            Duration parsed = !d.matches()
                    ? Duration.parse(v.toUpperCase(Locale.ROOT))
                    : switch (d.group(2)) {
                        case "ms" -> Duration.ofMillis(Long.parseLong(d.group(1)));
                        case "s" -> Duration.ofSeconds(Long.parseLong(d.group(1)));
                        case "m" -> Duration.ofMinutes(Long.parseLong(d.group(1)));
                        case "h" -> Duration.ofHours(Long.parseLong(d.group(1)));
                        default -> Duration.ofDays(Long.parseLong(d.group(1)));
                    };
            ms = parsed.toMillis();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the writers' --source-interval '" + value + "' is no duration");
        }
        if (ms < 1) {
            throw new IllegalArgumentException("the writers' --source-interval '" + value + "' is below 1 ms");
        }
        return ms;
    }

    /**
     * The metric names in batches of at most {@code max} samples each, in name order (a name above {@code max} alone).
     */
    static List<Set<String>> batches(Map<String, Long> samplesPerMetric, long max) {
        List<Set<String>> out = new ArrayList<>();
        Set<String> batch = new HashSet<>();
        long inBatch = 0;
        for (Map.Entry<String, Long> e : new TreeMap<>(samplesPerMetric).entrySet()) {
            if (!batch.isEmpty() && inBatch + e.getValue() > max) {
                out.add(batch);
                batch = new HashSet<>();
                inBatch = 0;
            }
            batch.add(e.getKey());
            inBatch += e.getValue();
        }
        if (!batch.isEmpty()) {
            out.add(batch);
        }
        return out;
    }

    /** The batches' results added up, with the first example of each kind of difference. */
    static final class Sum {
        long expected;
        long found;
        long read;
        long extra;
        long mismatched;
        private final Map<String, String> examples = new LinkedHashMap<>();

        void add(VerificationResult r) {
            expected += r.expectedSamples();
            found += r.foundSamples();
            read += r.readSamples();
            extra += r.unexpectedSamples() + r.duplicateSamples();
            mismatched += r.valueMismatches();
            example("missing", r.missingExamples());
            example("mismatched", r.valueMismatchExamples());
            example("duplicate", r.duplicateExamples());
            example("unexpected", r.unexpectedSampleExamples());
        }

        private void example(String kind, List<String> list) {
            if (!list.isEmpty()) {
                examples.putIfAbsent(kind, list.get(0));
            }
        }

        ReadBack.Exact exact() {
            return new ReadBack.Exact(expected, Math.min(found, expected), extra, mismatched);
        }

        /** {@code ; e.g. missing: …, mismatched: …}, or nothing when every sample matched. */
        String examples() {
            if (examples.isEmpty()) {
                return "";
            }
            List<String> parts = new ArrayList<>();
            examples.forEach((k, v) -> parts.add(k + ": " + v.replace('`', '\'')));
            return "; e.g. " + String.join(", ", parts);
        }
    }
}
