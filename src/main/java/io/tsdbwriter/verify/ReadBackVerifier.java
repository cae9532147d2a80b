package io.tsdbwriter.verify;

import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import okhttp3.FormBody;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Reads back what VictoriaMetrics holds and compares it sample by sample with {@link ExpectedSamples}: every
 * expected sample present with its value, no unexpected series, no extra or duplicate sample. {@link #withReadApi}
 * {@link ReadApi#PROMETHEUS} reads any Prometheus-compatible query API instead (Prometheus 2 and 3, Thanos query,
 * Mimir: {@link #queryAndCompare}, no flush), {@link ReadApi#AUTO} the export, or the query API where the export
 * answers 404; what follows describes the export.
 *
 * <p>{@link #verify} first makes the written samples searchable (an import's 204 means buffered, not yet searchable),
 * then streams {@code <vm-url>/api/v1/export?match[]=<match>&start=0&end=<newest expected + 2 days>} through an
 * {@link ExportComparison} — millions of samples are never held as objects. Without a {@code match} (null) it reads
 * only the series the input names: one {@code POST <vm-url>/api/v1/export} per batch of {@link InputSeriesSelectors}
 * (form body {@code match[]=…&start=…&end=…}), so a shared TSDB's other series are neither read nor reported. {@code
 * vmUrl} is a single-node base URL
 * such as {@code http://localhost:8428}, or a cluster's vmselect with its tenant path,
 * {@code http://vmselect:8481/select/0/prometheus}. Making samples searchable ({@link #flush}): with flush URLs (each
 * vmstorage's base URL, {@code http://vmstorage-0:8482}) {@code GET <flush-url>/internal/force_flush} on each; without,
 * on {@code vmUrl} itself, which a single-node serves and vmselect answers 400 (then nothing is flushed and
 * {@link #verifySearchable} waits for the samples to become searchable). {@link #compare} does the comparison alone,
 * on export lines from anywhere, for tests without a network.
 *
 * <p>Values: VictoriaMetrics stores values as decimals of 12 to 15 significant digits (its {@code lib/decimal}), so a
 * double with more digits, e.g. {@code 41.178000000000004} or {@code 1.8446744073709552E19}, reads back as the
 * nearest such decimal. 89 of the 10140 samples of the real node_exporter scrapes do (relative error ≤ 1.1e-15).
 * The default {@link #DEFAULT_RELATIVE_TOLERANCE} accepts that rounding and still catches any writer that loses
 * precision (float32, fixed decimals); pass 0 to demand bit-identical values.
 *
 * <p>Errors: every {@link IOException} thrown names the URL (without userinfo); {@link Unreachable} when no HTTP answer
 * came, a plain one for an answer other than 2xx or malformed export data. Messages are one line.
 *
 * <p>Thread-safe (holds immutable configuration, a thread-safe OkHttp client and, for {@link ReadApi#AUTO}, a volatile
 * flag set once the export answered 404); each call is otherwise independent.
 */
public final class ReadBackVerifier {

    /** The default VictoriaMetrics base URL. */
    public static final String DEFAULT_VM_URL = "http://localhost:8428";
    /** The series selector matching every series. */
    public static final String ALL_SERIES = "{__name__!=\"\"}";
    /** Default relative value tolerance: VictoriaMetrics' storage keeps at least 12 significant digits. */
    public static final double DEFAULT_RELATIVE_TOLERANCE = 1e-12;
    /**
     * How long the counts read back must stay the same, after a flush of every vmstorage, before
     * {@link #verifySearchable} takes them as final: samples a vminsert acknowledged may reach vmstorage up to about a
     * second later (it sends its buffers on), after the flush.
     */
    public static final Duration SETTLE_FLUSHED = Duration.ofSeconds(5);
    /**
     * As {@link #SETTLE_FLUSHED} without a flush: vmstorage makes rows searchable within 2 s and refreshes its index
     * caches every 10 s, so a series a search missed may stay hidden for 10 s more.
     */
    public static final Duration SETTLE_UNFLUSHED = Duration.ofSeconds(20);

    private static final long TWO_DAYS_MS = Duration.ofDays(2).toMillis();

    /** How a read-back's samples were made searchable. */
    public enum Flush {
        /** {@code vmUrl} (a single-node) flushed: everything it acknowledged is searchable now. */
        VM_URL,
        /** every flush URL (vmstorage) flushed: what a vminsert still buffers follows within about a second. */
        FLUSH_URLS,
        /** {@code vmUrl} does not serve {@code /internal/force_flush} (a vmselect): samples become searchable by themselves. */
        NOT_SERVED,
        /** nothing flushed: read through the Prometheus query API, whose servers make what they acknowledged queryable at once. */
        QUERY_API
    }

    /** No HTTP answer came from a URL (connection refused, DNS, timeout, TLS): the message names the URL. */
    public static final class Unreachable extends IOException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The export answered 404: not VictoriaMetrics ({@link ReadApi#AUTO} then reads the Prometheus query API). */
    private static final class ExportNotServed extends IOException {
        ExportNotServed(IOException answered) {
            super(answered.getMessage());
        }
    }

    /** Sleeps between read-backs; {@link Thread#sleep} outside tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final HttpUrl base;
    private final List<HttpUrl> flushUrls;
    private final String match;
    private final double relativeTolerance;
    private final OkHttpClient http;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private final ReadApi readApi;
    private final Set<String> ignoredLabels;
    /** Whether {@link ReadApi#AUTO} found no export (a 404) and reads the query API from then on. */
    private volatile boolean exportNotServed;

    /** A verifier of every series at {@code vmUrl} with the default tolerance. @throws IllegalArgumentException for a bad URL */
    public ReadBackVerifier(String vmUrl) {
        this(vmUrl, ALL_SERIES, DEFAULT_RELATIVE_TOLERANCE, defaultClient());
    }

    /** As {@link #ReadBackVerifier(String, List, String, double, OkHttpClient)} without flush URLs. */
    public ReadBackVerifier(String vmUrl, String match, double relativeTolerance, OkHttpClient http) {
        this(vmUrl, List.of(), match, relativeTolerance, http);
    }

    /**
     * @param vmUrl             VictoriaMetrics base URL to read back from: a single-node's, e.g. {@code http://localhost:8428},
     *                          or vmselect's with the tenant path, {@code http://vmselect:8481/select/0/prometheus}
     * @param flushUrls         base URLs whose {@code /internal/force_flush} to call before each read-back instead of
     *                          {@code vmUrl}'s: every vmstorage of a cluster, e.g. {@code http://vmstorage-0:8482}; empty for
     *                          {@code vmUrl}'s
     * @param match             series selector for the export (only matching series are read back and compared;
     *                          {@link #ALL_SERIES} to catch every unexpected series); null for the input's series
     *                          ({@link InputSeriesSelectors}: its metric names and product keys)
     * @param relativeTolerance 0 for bit-exact values, else the relative tolerance in [0, 1)
     * @param http              the HTTP client (its read timeout bounds the wait between export chunks)
     * @throws IllegalArgumentException for a bad URL or tolerance
     */
    public ReadBackVerifier(
            String vmUrl, List<String> flushUrls, String match, double relativeTolerance, OkHttpClient http) {
        this(vmUrl, flushUrls, match, relativeTolerance, http, System::nanoTime, d -> Thread.sleep(d.toMillis()));
    }

    /** As above, with the clock and sleeper of {@link #verifySearchable} (tests). */
    ReadBackVerifier(
            String vmUrl,
            List<String> flushUrls,
            String match,
            double relativeTolerance,
            OkHttpClient http,
            LongSupplier nanoTime,
            Sleeper sleeper) {
        this(vmUrl, flushUrls, match, relativeTolerance, http, nanoTime, sleeper, ReadApi.VM_EXPORT, Set.of());
    }

    private ReadBackVerifier(
            String vmUrl,
            List<String> flushUrls,
            String match,
            double relativeTolerance,
            OkHttpClient http,
            LongSupplier nanoTime,
            Sleeper sleeper,
            ReadApi readApi,
            Set<String> ignoredLabels) {
        this.readApi = Objects.requireNonNull(readApi, "readApi");
        this.ignoredLabels = Set.copyOf(ignoredLabels);
        this.base = parse(Objects.requireNonNull(vmUrl, "vmUrl"));
        List<HttpUrl> flush = new ArrayList<>();
        for (String u : flushUrls) {
            flush.add(parse(u));
        }
        if (!(relativeTolerance >= 0 && relativeTolerance < 1)) {
            throw new IllegalArgumentException("relative tolerance must be in [0, 1), got " + relativeTolerance);
        }
        this.flushUrls = List.copyOf(flush);
        this.match = match;
        this.relativeTolerance = relativeTolerance;
        this.http = Objects.requireNonNull(http, "http");
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /**
     * This verifier reading back through {@code api} ({@link ReadApi#VM_EXPORT} unless set); the rest the same.
     *
     * @throws IllegalArgumentException for {@link ReadApi#PROMETHEUS} with flush URLs (only VictoriaMetrics is flushed)
     */
    public ReadBackVerifier withReadApi(ReadApi api) {
        if (api == ReadApi.PROMETHEUS && !flushUrls.isEmpty()) {
            throw new IllegalArgumentException(
                    "flush URLs are VictoriaMetrics': the Prometheus query API has nothing to flush");
        }
        return copy(api, ignoredLabels);
    }

    /**
     * This verifier removing the labels {@code names} from every series read back before comparing it (see
     * {@link ExportComparison#ExportComparison(ExpectedSamples, double, Set)}); the rest the same.
     */
    public ReadBackVerifier ignoringLabels(Set<String> names) {
        return copy(readApi, names);
    }

    /** This verifier with {@code api} and {@code labels}; every other setting the same. */
    private ReadBackVerifier copy(ReadApi api, Set<String> labels) {
        return new ReadBackVerifier(
                base.toString(),
                flushUrls.stream().map(HttpUrl::toString).toList(),
                match,
                relativeTolerance,
                http,
                nanoTime,
                sleeper,
                api,
                labels);
    }

    /** How it reads back, as set ({@link #withReadApi}). */
    public ReadApi readApi() {
        return readApi;
    }

    /**
     * Whether it reads through the Prometheus query API: {@link ReadApi#PROMETHEUS}, or {@link ReadApi#AUTO} once
     * the export answered 404.
     */
    public boolean readsQueryApi() {
        return readApi == ReadApi.PROMETHEUS || (readApi == ReadApi.AUTO && exportNotServed);
    }

    /** An OkHttp client with 10 s connect and 5 min read timeouts. */
    public static OkHttpClient defaultClient() {
        return new OkHttpClient.Builder()
                .connectTimeout(10, TimeUnit.SECONDS)
                .readTimeout(5, TimeUnit.MINUTES)
                .build();
    }

    /** The expected samples of {@code points} amplified M × N every {@code sourceIntervalMs}; see {@link ExpectedSamples}. */
    public static ExpectedSamples expected(
            Iterable<SourcePoint> points, int timeMultiplier, int instanceMultiplier, long sourceIntervalMs) {
        return ExpectedSamples.of(points, timeMultiplier, instanceMultiplier, sourceIntervalMs);
    }

    /**
     * {@link #flush} (not for the query API), then reads back and compares, once.
     *
     * @throws IOException when the TSDB cannot be reached, answers other than 2xx, or sends malformed data
     */
    public VerificationResult verify(ExpectedSamples expected) throws IOException {
        if (!readsQueryApi()) {
            flush();
        }
        return readAndCompare(expected);
    }

    /**
     * Repeats {@link #verify} every {@code poll} until it passes or {@code timeout} has elapsed (for a writer that is
     * still catching up); always verifies at least once.
     *
     * @return the first passing result, or the last one
     * @throws IOException          when the last attempt could not read from VictoriaMetrics
     * @throws InterruptedException when interrupted while waiting
     */
    public VerificationResult verifyWithin(ExpectedSamples expected, Duration timeout, Duration poll)
            throws IOException, InterruptedException {
        return verifySearchable(expected, timeout, Duration.ZERO, poll, note -> {});
    }

    /**
     * Flushes ({@link #flush}), exports and compares, every {@code poll}, until the result passes or it is final:
     * <ul>
     *   <li>before {@code wait} has elapsed (a writer still catching up) it goes on whatever the result, and retries an
     *       attempt that could not read;</li>
     *   <li>after it, a result read after a flush of {@code vmUrl} is final; one read after a flush of the flush URLs is
     *       final once the counts read back stayed the same for {@link #SETTLE_FLUSHED}, one read without a flush once
     *       they stayed the same for {@link #SETTLE_UNFLUSHED}, or when {@code searchTimeout} (counted from the start,
     *       like {@code wait}) has elapsed.</li>
     * </ul>
     * Always reads back at least once. {@code notes} gets one line when {@code vmUrl} does not serve the flush and one
     * when a failed result is taken as final without a flush.
     *
     * @return the first passing result, or the final one
     * @throws IOException          when an attempt after {@code wait} could not read from VictoriaMetrics (no retry)
     * @throws InterruptedException when interrupted while waiting
     */
    public VerificationResult verifySearchable(
            ExpectedSamples expected, Duration wait, Duration searchTimeout, Duration poll, Consumer<String> notes)
            throws IOException, InterruptedException {
        long start = nanoTime.getAsLong();
        long[] counts = null;
        long sameSince = start;
        boolean noted = false;
        while (true) {
            Flush flush;
            VerificationResult result;
            try {
                boolean query = readsQueryApi();
                flush = query ? Flush.QUERY_API : flush();
                try {
                    result = readAndCompare(expected);
                } finally {
                    if (!query && readsQueryApi()) {
                        notes.accept(withoutQuery(base.newBuilder()
                                        .addPathSegments("api/v1/export")
                                        .build())
                                + " answered 404: reading back through the Prometheus query API, "
                                + withoutQuery(base.newBuilder()
                                        .addPathSegments("api/v1/query")
                                        .build()));
                        flush = Flush.QUERY_API;
                    }
                    if (flush == Flush.NOT_SERVED && !noted) {
                        notes.accept(withoutQuery(base)
                                + " does not serve /internal/force_flush (a cluster's vmselect does not: give every vmstorage's "
                                + "base URL as --flush-url): reading back until the samples are searchable, within --search-timeout "
                                + searchTimeout.toSeconds() + "s");
                        noted = true;
                    }
                }
            } catch (IOException e) {
                if (nanoTime.getAsLong() - start + poll.toNanos() > wait.toNanos()) {
                    throw e;
                }
                sleeper.sleep(poll);
                continue;
            }
            if (result.passed()) {
                return result;
            }
            long now = nanoTime.getAsLong();
            long[] c = {
                result.readSamples(),
                result.foundSamples(),
                result.unexpectedSamples(),
                result.duplicateSamples(),
                result.valueMismatches()
            };
            if (!Arrays.equals(c, counts)) {
                counts = c;
                sameSince = now;
            }
            long elapsedNext = now - start + poll.toNanos();
            if (elapsedNext > wait.toNanos()) {
                Duration settle =
                        switch (flush) {
                            case VM_URL, QUERY_API -> Duration.ZERO;
                            case FLUSH_URLS -> SETTLE_FLUSHED;
                            case NOT_SERVED -> SETTLE_UNFLUSHED;
                        };
                if (now - sameSince >= settle.toNanos()) {
                    if (flush == Flush.NOT_SERVED) {
                        notes.accept(
                                "the counts read back stayed the same for " + settle.toSeconds() + "s: taken as final");
                    }
                    return result;
                }
                if (elapsedNext > searchTimeout.toNanos()) {
                    if (flush != Flush.VM_URL && flush != Flush.QUERY_API) {
                        notes.accept("--search-timeout " + searchTimeout.toSeconds()
                                + "s is over: the last read-back is taken as final");
                    }
                    return result;
                }
            }
            sleeper.sleep(poll);
        }
    }

    /**
     * Asks VictoriaMetrics to make buffered samples searchable: {@code GET <url>/internal/force_flush} on every flush URL,
     * or without them on {@code vmUrl}.
     *
     * @return how: {@link Flush#NOT_SERVED} when {@code vmUrl} (without flush URLs) answered 4xx
     * @throws IOException when a URL cannot be reached or answers other than 2xx (4xx from {@code vmUrl} excepted)
     */
    public Flush flush() throws IOException {
        if (!flushUrls.isEmpty()) {
            for (HttpUrl u : flushUrls) {
                HttpUrl url =
                        u.newBuilder().addPathSegments("internal/force_flush").build();
                try (Response response = call(url)) {
                    requireSuccess(response, url);
                }
            }
            return Flush.FLUSH_URLS;
        }
        HttpUrl url = base.newBuilder().addPathSegments("internal/force_flush").build();
        try (Response response = call(url)) {
            if (response.code() >= 400 && response.code() < 500) {
                return Flush.NOT_SERVED;
            }
            requireSuccess(response, url);
        }
        return Flush.VM_URL;
    }

    /**
     * As {@link #flush()} with its result ignored (kept for callers of a single-node).
     *
     * @throws IOException as {@link #flush()}
     */
    public void forceFlush() throws IOException {
        flush();
    }

    /**
     * Reads back and compares, without a flush: through the Prometheus query API ({@link #queryAndCompare}) when it
     * {@link #readsQueryApi}, else the export ({@link #exportAndCompare}); with {@link ReadApi#AUTO}, an export
     * answering 404 is read through the query API instead, and so is every read-back after it.
     *
     * @throws IOException when the TSDB cannot be reached, answers other than 2xx, or sends malformed data
     */
    public VerificationResult readAndCompare(ExpectedSamples expected) throws IOException {
        if (readsQueryApi()) {
            return queryAndCompare(expected);
        }
        try {
            return exportAndCompare(expected);
        } catch (ExportNotServed e) {
            if (readApi != ReadApi.AUTO) {
                throw new IOException(e.getMessage(), e);
            }
            exportNotServed = true;
            return queryAndCompare(expected);
        }
    }

    /**
     * Reads the samples back through the Prometheus HTTP API ({@code <vm-url>/api/v1/query} of range-vector selectors,
     * window by window: {@link QueryApiReader}) and compares them, without a flush.
     *
     * @throws IOException when the API cannot be reached, answers other than 2xx, or the answer is no range vector
     */
    public VerificationResult queryAndCompare(ExpectedSamples expected) throws IOException {
        ExportComparison comparison = new ExportComparison(expected, relativeTolerance, ignoredLabels);
        new QueryApiReader(base, this::call).read(expected, match, System.currentTimeMillis(), comparison);
        return comparison.result();
    }

    /**
     * Exports and compares, without a flush.
     *
     * @throws IOException when VictoriaMetrics cannot be reached, answers other than 2xx, or sends malformed export data
     */
    public VerificationResult exportAndCompare(ExpectedSamples expected) throws IOException {
        ExportComparison comparison = new ExportComparison(expected, relativeTolerance, ignoredLabels);
        long newest = Math.max(System.currentTimeMillis(), expected.maxTimestampMs());
        String start = "0";
        String end = Long.toString((newest + TWO_DAYS_MS) / 1000 + 1);
        HttpUrl export = base.newBuilder().addPathSegments("api/v1/export").build();
        List<Request> requests = new ArrayList<>();
        if (match != null) {
            requests.add(new Request.Builder()
                    .url(export.newBuilder()
                            .addQueryParameter("match[]", match)
                            .addQueryParameter("start", start)
                            .addQueryParameter("end", end)
                            .build())
                    .get()
                    .build());
        } else {
            for (List<String> batch :
                    InputSeriesSelectors.batches(expected, InputSeriesSelectors.DEFAULT_MAX_BATCH_CHARS)) {
                FormBody.Builder form = new FormBody.Builder();
                batch.forEach(selector -> form.add("match[]", selector));
                requests.add(new Request.Builder()
                        .url(export)
                        .post(form.add("start", start).add("end", end).build())
                        .build());
            }
        }
        for (Request request : requests) {
            try (Response response = call(request)) {
                if (response.code() == 404) {
                    throw new ExportNotServed(answered(
                            request,
                            404,
                            response.body() == null ? "" : response.body().string()));
                }
                ResponseBody body = requireSuccess(response, request);
                try (InputStream in = body.byteStream()) {
                    comparison.acceptAll(in);
                }
            }
        }
        return comparison.result();
    }

    /**
     * Compares export lines (as {@code /api/v1/export} returns them) with the expectation; no network.
     *
     * @param relativeTolerance 0 for bit-exact values, else in [0, 1)
     * @throws IOException when a line is not export JSON
     */
    public static VerificationResult compare(
            ExpectedSamples expected, Iterator<String> exportLines, double relativeTolerance) throws IOException {
        ExportComparison comparison = new ExportComparison(expected, relativeTolerance);
        while (exportLines.hasNext()) {
            comparison.acceptLine(exportLines.next());
        }
        return comparison.result();
    }

    /** The VictoriaMetrics base URL. */
    public String vmUrl() {
        return base.toString();
    }

    private Response call(HttpUrl url) throws IOException {
        return call(new Request.Builder().url(url).get().build());
    }

    private Response call(Request request) throws IOException {
        try {
            return http.newCall(request).execute();
        } catch (IOException e) {
            String why = e.getMessage() == null || e.getMessage().isBlank()
                    ? e.getClass().getSimpleName()
                    : e.getMessage();
            throw new Unreachable(request.method() + " " + withoutQuery(request.url()) + ": " + oneLine(why), e);
        }
    }

    private static ResponseBody requireSuccess(Response response, HttpUrl url) throws IOException {
        return requireSuccess(response, new Request.Builder().url(url).get().build());
    }

    private static ResponseBody requireSuccess(Response response, Request request) throws IOException {
        ResponseBody body = response.body();
        if (!response.isSuccessful() || body == null) {
            throw answered(request, response.code(), body == null ? "" : body.string());
        }
        return body;
    }

    /** {@code METHOD URL answered CODE: BODY} (the URL without query and userinfo, the body on one line, clipped). */
    static IOException answered(Request request, int code, String body) {
        String text = oneLine(body);
        return new IOException(request.method() + " " + withoutQuery(request.url()) + " answered " + code
                + (text.isEmpty() ? "" : ": " + (text.length() > 300 ? text.substring(0, 300) + "…" : text)));
    }

    static String withoutQuery(HttpUrl url) {
        return url.newBuilder().query(null).username("").password("").build().toString();
    }

    private static String oneLine(String s) {
        return s.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static HttpUrl parse(String url) {
        String s = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        HttpUrl parsed = HttpUrl.parse(s);
        if (parsed == null) {
            throw new IllegalArgumentException("not an http(s) URL: '" + SafeUrl.redact(url) + "'");
        }
        return parsed;
    }
}
