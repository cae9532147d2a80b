package io.tsdbwriter.verify;

import io.tsdbwriter.verify.InputSeriesSelectors.Counted;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import okhttp3.FormBody;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Reads the raw samples of an {@link ExpectedSamples}' series back through the Prometheus HTTP API (Prometheus 2 and
 * 3, Thanos query, Mimir's {@code …/prometheus}) into an {@link ExportComparison}: for each selector and each time
 * window {@code (after, at]}, {@code POST <base>/api/v1/query} with the form {@code query=SELECTOR[RANGEms]&time=AT}
 * (seconds with 3 decimals), an instant query of a range-vector selector, which answers every sample of the window with
 * its exact timestamp and value ({@link RangeVectorParser}), not resampled to a step.
 *
 * <p>What is read: the expected span widened by {@link #marginMs} on both sides (the oldest expected sample − margin to
 * the newest + margin). Selectors: without a {@code match}, {@link InputSeriesSelectors#querySelectors} (the input's
 * metric names and product keys, several metrics of the same product keys in one selector); with one, it alone.
 *
 * <p>Limits: a query loads at most about {@link #MAX_SAMPLES_PER_QUERY} expected samples (Prometheus refuses a query
 * that would load more than {@code --query.max-samples}, 50,000,000 by default) and at most
 * {@link #MAX_POINTS_PER_SERIES} per series: a window spans that many expected sample intervals
 * (source interval / M), fewer when the selector's series are many, and a selector of several metrics holds at most
 * as many expected series as fit. A query the API still refuses as loading too many samples (unexpected samples,
 * a lower limit) is split in two halves of its window, down to 1 ms.
 *
 * <p>Thread-safety: not thread-safe (one parser); one read at a time.
 */
final class QueryApiReader {

    /** Most samples per series a query window holds at the expected sample interval. */
    static final long MAX_POINTS_PER_SERIES = 11_000;
    /** Most expected samples a query loads. */
    static final long MAX_SAMPLES_PER_QUERY = 1_000_000;
    /** Upper bound on a selector's length, in chars (sent in a form body, so not bound by a URL's length). */
    static final int MAX_SELECTOR_CHARS = 16 * 1024;
    /** Least margin read beyond the expected span on each side. */
    static final Duration MIN_MARGIN = Duration.ofMinutes(10);

    /** Sends a request: the verifier's client, whose failures name the URL. */
    @FunctionalInterface
    interface Caller {
        Response call(Request request) throws IOException;
    }

    /** A query window: samples after {@code afterMs}, up to and including {@code atMs}, the query's time. */
    record Window(long afterMs, long atMs) {
        long rangeMs() {
            return atMs - afterMs;
        }
    }

    private final HttpUrl query;
    private final Caller caller;
    private final RangeVectorParser parser = new RangeVectorParser();

    /** @param base the query API's base URL, e.g. {@code http://prometheus:9090}, {@code http://mimir/prometheus} */
    QueryApiReader(HttpUrl base, Caller caller) {
        this.query = base.newBuilder().addPathSegments("api/v1/query").build();
        this.caller = caller;
    }

    /** The query endpoint, {@code <base>/api/v1/query}. */
    HttpUrl queryUrl() {
        return query;
    }

    /**
     * Reads every window of every selector into {@code comparison}.
     *
     * @param match   the one selector to read; null for the input's series
     * @param nowMs   the present, for the span when nothing is expected
     * @throws IOException when a query cannot be sent, answers other than 2xx, or the answer is not a range vector
     */
    void read(ExpectedSamples expected, String match, long nowMs, ExportComparison comparison) throws IOException {
        long spacing = spacingMs(expected);
        long margin = marginMs(expected);
        long from = expected.sampleCount() == 0 ? nowMs : expected.minTimestampMs();
        long to = expected.sampleCount() == 0 ? nowMs : expected.maxTimestampMs();
        long after = from - margin - 1;
        long end = to + margin;
        long pointsInSpan = Math.min(MAX_POINTS_PER_SERIES, (end - after) / spacing + 1);
        List<Counted> selectors = match != null
                ? List.of(new Counted(match, expected.seriesCount()))
                : InputSeriesSelectors.querySelectors(
                        expected, MAX_SELECTOR_CHARS, Math.max(1, MAX_SAMPLES_PER_QUERY / pointsInSpan));
        for (Counted selector : selectors) {
            Deque<Window> todo = new ArrayDeque<>(windows(after, end, windowMs(selector.series(), spacing)));
            while (!todo.isEmpty()) {
                Window w = todo.removeFirst();
                if (!readWindow(selector.selector(), w, comparison)) {
                    long mid = w.afterMs() + w.rangeMs() / 2;
                    todo.addFirst(new Window(mid, w.atMs()));
                    todo.addFirst(new Window(w.afterMs(), mid));
                }
            }
        }
    }

    /**
     * One query; false when it was refused as loading too many samples and its window can be split.
     *
     * @throws IOException as {@link #read}
     */
    private boolean readWindow(String selector, Window w, ExportComparison comparison) throws IOException {
        Request request = new Request.Builder()
                .url(query)
                .post(new FormBody.Builder()
                        .add("query", query(selector, w))
                        .add("time", seconds(w.atMs()))
                        .build())
                .build();
        try (Response response = caller.call(request)) {
            ResponseBody body = response.body();
            if (!response.isSuccessful() || body == null) {
                String text = body == null ? "" : body.string();
                if (w.rangeMs() > 1 && tooManySamples(response.code(), text)) {
                    return false;
                }
                throw ReadBackVerifier.answered(request, response.code(), text);
            }
            try (InputStream in = body.byteStream()) {
                parser.parse(in, w.afterMs(), comparison::acceptSeries);
            } catch (IOException e) {
                throw new IOException(
                        request.method() + " " + ReadBackVerifier.withoutQuery(request.url()) + ": " + e.getMessage(),
                        e);
            }
        }
        return true;
    }

    /** Whether an answer refuses a query as loading too many samples (Prometheus: 422, {@code --query.max-samples}). */
    static boolean tooManySamples(int code, String body) {
        return code >= 400 && code < 600 && body.contains("too many samples");
    }

    /** {@code SELECTOR[RANGEms]}. */
    static String query(String selector, Window w) {
        return selector + "[" + w.rangeMs() + "ms]";
    }

    /** Epoch ms as seconds with 3 decimals, {@code 1795300857.123}. */
    static String seconds(long ms) {
        return String.format(Locale.ROOT, "%d.%03d", Math.floorDiv(ms, 1000), Math.floorMod(ms, 1000));
    }

    /** The expected interval between a series' samples: source interval / M, at least 1 ms. */
    static long spacingMs(ExpectedSamples expected) {
        return Math.max(1, expected.sourceIntervalMs() / expected.timeMultiplier());
    }

    /** How far the read reaches beyond the expected span on each side: a source interval, at least {@link #MIN_MARGIN}. */
    static long marginMs(ExpectedSamples expected) {
        return Math.max(MIN_MARGIN.toMillis(), expected.sourceIntervalMs());
    }

    /**
     * A window's length for a selector of {@code series} expected series at {@code spacingMs}: as many intervals as
     * keep the query within {@link #MAX_SAMPLES_PER_QUERY} and each series within {@link #MAX_POINTS_PER_SERIES}, at
     * least one.
     */
    static long windowMs(long series, long spacingMs) {
        long points = Math.max(1, Math.min(MAX_POINTS_PER_SERIES, MAX_SAMPLES_PER_QUERY / Math.max(1, series)));
        return points * spacingMs;
    }

    /** Windows of at most {@code windowMs} covering {@code (afterMs, toMs]}, oldest first; none when empty. */
    static List<Window> windows(long afterMs, long toMs, long windowMs) {
        if (windowMs < 1) {
            throw new IllegalArgumentException("windowMs must be >= 1, got " + windowMs);
        }
        List<Window> out = new ArrayList<>();
        for (long a = afterMs; a < toMs; ) {
            long at = toMs - a <= windowMs ? toMs : a + windowMs;
            out.add(new Window(a, at));
            a = at;
        }
        return out;
    }
}
