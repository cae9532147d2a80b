package io.tsdbwriter.verify;

import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import io.tsdbwriter.write.http.SafeUrl;

/**
 * Reads back what VictoriaMetrics holds and compares it sample by sample with {@link ExpectedSamples}: every
 * expected sample present with its value, no unexpected series, no extra or duplicate sample.
 *
 * <p>{@link #verify} first calls {@code <vm-url>/internal/force_flush} (an import's 204 means buffered, not yet
 * searchable), then streams {@code <vm-url>/api/v1/export?match[]=<match>&start=0&end=<newest expected + 2 days>}
 * through an {@link ExportComparison} — millions of samples are never held as objects. {@code vmUrl} is a
 * single-node base URL such as {@code http://localhost:8428}. {@link #compare} does the comparison alone, on export
 * lines from anywhere, for tests without a network.
 *
 * <p>Values: VictoriaMetrics stores values as decimals of 12 to 15 significant digits (its {@code lib/decimal}), so a
 * double with more digits, e.g. {@code 41.178000000000004} or {@code 1.8446744073709552E19}, reads back as the
 * nearest such decimal. 89 of the 10140 samples of the real node_exporter scrapes do (relative error ≤ 1.1e-15).
 * The default {@link #DEFAULT_RELATIVE_TOLERANCE} accepts that rounding and still catches any writer that loses
 * precision (float32, fixed decimals); pass 0 to demand bit-identical values.
 *
 * <p>Thread-safe (holds only immutable configuration and a thread-safe OkHttp client); each call is independent.
 */
public final class ReadBackVerifier {

    /** The default VictoriaMetrics base URL. */
    public static final String DEFAULT_VM_URL = "http://localhost:8428";
    /** The series selector matching every series. */
    public static final String ALL_SERIES = "{__name__!=\"\"}";
    /** Default relative value tolerance: VictoriaMetrics' storage keeps at least 12 significant digits. */
    public static final double DEFAULT_RELATIVE_TOLERANCE = 1e-12;

    private static final long TWO_DAYS_MS = Duration.ofDays(2).toMillis();

    private final HttpUrl base;
    private final String match;
    private final double relativeTolerance;
    private final OkHttpClient http;

    /** A verifier of every series at {@code vmUrl} with the default tolerance. @throws IllegalArgumentException for a bad URL */
    public ReadBackVerifier(String vmUrl) {
        this(vmUrl, ALL_SERIES, DEFAULT_RELATIVE_TOLERANCE, defaultClient());
    }

    /**
     * @param vmUrl             VictoriaMetrics single-node base URL, e.g. {@code http://localhost:8428}
     * @param match             series selector for the export (only matching series are read back and compared;
     *                          {@link #ALL_SERIES} to catch every unexpected series)
     * @param relativeTolerance 0 for bit-exact values, else the relative tolerance in [0, 1)
     * @param http              the HTTP client (its read timeout bounds the wait between export chunks)
     * @throws IllegalArgumentException for a bad URL or tolerance
     */
    public ReadBackVerifier(String vmUrl, String match, double relativeTolerance, OkHttpClient http) {
        HttpUrl parsed = HttpUrl.parse(stripSlash(Objects.requireNonNull(vmUrl, "vmUrl")));
        if (parsed == null) {
            throw new IllegalArgumentException("not an http(s) URL: '" + SafeUrl.redact(vmUrl) + "'");
        }
        if (!(relativeTolerance >= 0 && relativeTolerance < 1)) {
            throw new IllegalArgumentException("relative tolerance must be in [0, 1), got " + relativeTolerance);
        }
        this.base = parsed;
        this.match = Objects.requireNonNull(match, "match");
        this.relativeTolerance = relativeTolerance;
        this.http = Objects.requireNonNull(http, "http");
    }

    /** An OkHttp client with 10 s connect and 5 min read timeouts. */
    public static OkHttpClient defaultClient() {
        return new OkHttpClient.Builder()
                .connectTimeout(10, TimeUnit.SECONDS)
                .readTimeout(5, TimeUnit.MINUTES)
                .build();
    }

    /** The expected samples of {@code points} amplified M × N every {@code sourceIntervalMs}; see {@link ExpectedSamples}. */
    public static ExpectedSamples expected(Iterable<SourcePoint> points, int timeMultiplier, int instanceMultiplier, long sourceIntervalMs) {
        return ExpectedSamples.of(points, timeMultiplier, instanceMultiplier, sourceIntervalMs);
    }

    /**
     * Flushes VictoriaMetrics' buffers, exports and compares.
     *
     * @throws IOException when VictoriaMetrics cannot be reached, answers other than 2xx, or sends malformed export data
     */
    public VerificationResult verify(ExpectedSamples expected) throws IOException {
        forceFlush();
        ExportComparison comparison = new ExportComparison(expected, relativeTolerance);
        long newest = Math.max(System.currentTimeMillis(), expected.maxTimestampMs());
        HttpUrl url = base.newBuilder()
                .addPathSegments("api/v1/export")
                .addQueryParameter("match[]", match)
                .addQueryParameter("start", "0")
                .addQueryParameter("end", Long.toString((newest + TWO_DAYS_MS) / 1000 + 1))
                .build();
        try (Response response = http.newCall(new Request.Builder().url(url).get().build()).execute()) {
            ResponseBody body = requireSuccess(response, url);
            try (InputStream in = body.byteStream()) {
                comparison.acceptAll(in);
            }
        }
        return comparison.result();
    }

    /**
     * Repeats {@link #verify} every {@code poll} until it passes or {@code timeout} has elapsed (for a writer that is
     * still catching up); always verifies at least once.
     *
     * @return the first passing result, or the last one
     * @throws IOException          when the last attempt could not read from VictoriaMetrics
     * @throws InterruptedException when interrupted while waiting
     */
    public VerificationResult verifyWithin(ExpectedSamples expected, Duration timeout, Duration poll) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            VerificationResult result = null;
            IOException failure = null;
            try {
                result = verify(expected);
                if (result.passed()) {
                    return result;
                }
            } catch (IOException e) {
                failure = e;
            }
            if (System.nanoTime() + poll.toNanos() > deadline) {
                if (failure != null) {
                    throw failure;
                }
                return result;
            }
            Thread.sleep(poll.toMillis());
        }
    }

    /**
     * Asks VictoriaMetrics to make buffered samples searchable ({@code GET /internal/force_flush}).
     *
     * @throws IOException when it cannot be reached or answers other than 2xx
     */
    public void forceFlush() throws IOException {
        HttpUrl url = base.newBuilder().addPathSegments("internal/force_flush").build();
        try (Response response = http.newCall(new Request.Builder().url(url).get().build()).execute()) {
            requireSuccess(response, url);
        }
    }

    /**
     * Compares export lines (as {@code /api/v1/export} returns them) with the expectation; no network.
     *
     * @param relativeTolerance 0 for bit-exact values, else in [0, 1)
     * @throws IOException when a line is not export JSON
     */
    public static VerificationResult compare(ExpectedSamples expected, Iterator<String> exportLines, double relativeTolerance) throws IOException {
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

    private static ResponseBody requireSuccess(Response response, HttpUrl url) throws IOException {
        ResponseBody body = response.body();
        if (!response.isSuccessful() || body == null) {
            String text = body == null ? "" : body.string();
            throw new IOException("GET " + url.encodedPath() + " answered " + response.code()
                    + (text.isBlank() ? "" : ": " + (text.length() > 300 ? text.substring(0, 300) + "…" : text.strip())));
        }
        return body;
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
