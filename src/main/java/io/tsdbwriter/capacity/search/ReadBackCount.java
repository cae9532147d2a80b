package io.tsdbwriter.capacity.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A search's read-back pass ({@link ReadBack}) where the sample-by-sample comparison ({@link ReadBackExact}) cannot run,
 * and without a query API: counts the samples a target holds in the search's sample span on its
 * query API (the Prometheus HTTP API, which VictoriaMetrics serves too): the metric names of the span
 * ({@code GET <base>/api/v1/label/__name__/values?start=…&end=…}), then one instant query per name
 * ({@code GET <base>/api/v1/query?query=…&time=…}, {@link ReadBack#query}), summed, and compares the count with the
 * samples the writers wrote. Per name because {@code count_over_time} drops the metric name: over every series at once
 * Prometheus refuses the series that differ only in their name ("vector cannot contain metrics with the same
 * labelset"). A count below that is read
 * again every {@link #POLL} until it matches or {@link #SETTLE} passed (a receiver may make samples searchable a few
 * seconds after it acknowledged them; VictoriaMetrics refreshes its index caches every 10 s); the last count stands.
 * The span reaches {@link #MARGIN_MS} past the oldest and the newest point time fed (a sample lies at most one source
 * interval after its point's time).
 *
 * <p>Errors are the figure's, never thrown: no answer, an answer other than 2xx or a body without a number make the
 * count unknown with one line (without userinfo) saying why. Thread-safe when its client is; each call is independent.
 */
final class ReadBackCount {

    /** How long a count below the samples written is read again. */
    static final Duration SETTLE = Duration.ofSeconds(20);
    /** How often it is read again. */
    static final Duration POLL = Duration.ofSeconds(2);
    /** How far the counted span reaches beyond the oldest and the newest point time fed, ms. */
    static final long MARGIN_MS = Duration.ofMinutes(10).toMillis();

    /** What the pass waits with; a test passes one that does not sleep. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OkHttpClient http;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;

    ReadBackCount(OkHttpClient http) {
        this(http, System::nanoTime, d -> Thread.sleep(d.toMillis()));
    }

    ReadBackCount(OkHttpClient http, LongSupplier nanoTime, Sleeper sleeper) {
        this.http = http;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /**
     * Counts the samples between the span's ends on {@code baseUrl}.
     *
     * @param baseUrl the query API's base ({@code http://vm:8428}, {@code http://prometheus:9090}, a vmselect's
     *                {@code …/select/0/prometheus}); null when the target has none
     * @param written the samples the writers wrote
     * @param span    the point times fed; an empty span (nothing fed) counts nothing
     * @throws InterruptedException when interrupted while waiting to read again
     */
    ReadBack count(String baseUrl, long written, SampleSpan span) throws InterruptedException {
        if (baseUrl == null) {
            return ReadBack.unknown(
                    written,
                    "no query API given: a remote write receiver is read back through --query-url (a --target's query-url=)");
        }
        if (span.isEmpty()) {
            return ReadBack.counted(written, 0, "nothing fed");
        }
        long from = span.oldestMs() - MARGIN_MS;
        long at = span.newestMs() + MARGIN_MS;
        HttpUrl base = HttpUrl.parse(SafeUrl.parse(baseUrl).url().replaceAll("/+$", ""));
        if (base == null) {
            return ReadBack.unknown(written, "not an HTTP URL: " + SafeUrl.redact(baseUrl));
        }
        HttpUrl names = base.newBuilder()
                .addPathSegments("api/v1/label/__name__/values")
                .addQueryParameter("start", seconds(from))
                .addQueryParameter("end", seconds(at))
                .build();
        HttpUrl query = base.newBuilder().addPathSegments("api/v1/query").build();
        String source = "`" + ReadBack.query("NAME", from, at) + "` at " + at + " ms on "
                + SafeUrl.redact(query.toString()) + " for each metric name of "
                + SafeUrl.redact(names.newBuilder().query(null).build().toString());
        long deadline = nanoTime.getAsLong() + SETTLE.toNanos();
        while (true) {
            long n = 0;
            int metricNames;
            try {
                JsonNode listed = data(names);
                if (!listed.isArray()) {
                    throw new IOException("answered no list of names");
                }
                metricNames = listed.size();
                for (JsonNode name : listed) {
                    n += count(query.newBuilder()
                            .addQueryParameter("query", ReadBack.query(name.asText(), from, at))
                            .addQueryParameter("time", seconds(at))
                            .build());
                }
            } catch (IOException e) {
                return ReadBack.unknown(written, source + ": " + e.getMessage());
            }
            if (n >= written || nanoTime.getAsLong() >= deadline) {
                return ReadBack.counted(written, n, source + " (" + metricNames + " names)");
            }
            sleeper.sleep(POLL);
        }
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.3f", ms / 1000.0);
    }

    /** One query's count: the one sample of the sum, 0 for an empty result (no sample at all). */
    private long count(HttpUrl get) throws IOException {
        JsonNode result = data(get).path("result");
        if (!result.isArray()) {
            throw new IOException("answered no result");
        }
        if (result.isEmpty()) {
            return 0;
        }
        String value = result.get(0).path("value").path(1).asText("");
        try {
            return Math.round(Double.parseDouble(value));
        } catch (NumberFormatException e) {
            throw new IOException("answered a value that is no number: '" + oneLine(value) + "'");
        }
    }

    /** The {@code data} of a 2xx answer of the HTTP API. */
    private JsonNode data(HttpUrl get) throws IOException {
        Request request =
                new Request.Builder().url(get).get().build(); // credentials: the client's, by origin (DESIGN §6)
        try (Response r = http.newCall(request).execute()) {
            String body = r.body() == null ? "" : r.body().string();
            if (!r.isSuccessful()) {
                throw new IOException(
                        SafeUrl.redact(get.newBuilder().query(null).build().toString()) + " answered " + r.code() + " "
                                + oneLine(body));
            }
            return JSON.readTree(body).path("data");
        } catch (IOException e) {
            throw new IOException(
                    e.getMessage() == null ? e.getClass().getSimpleName() : SafeUrl.redact(e.getMessage()), e);
        }
    }

    private static String oneLine(String s) {
        String t = s.replace('\n', ' ').replace('\r', ' ').trim();
        return t.length() > 200 ? t.substring(0, 200) + "…" : t;
    }
}
