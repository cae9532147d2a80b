package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Reads back how many samples a receiver of one measurement holds, on its query API (the Prometheus HTTP API, which
 * VictoriaMetrics serves too): the metric names of the span ({@code GET <base>/api/v1/label/__name__/values}), then per name
 * {@code sum(count_over_time({__name__="NAME"}[30d]))} at an hour past now ({@code GET <base>/api/v1/query}), summed.
 * Per name because {@code count_over_time} drops the name and Prometheus refuses series that then differ in nothing.
 * Meant for a receiver that holds one peer's or one cell's samples only (a fresh one); the bench's feed lies within
 * the last 8 days. A count below {@code expected} is read again every 2 s for at most {@code settle} (a receiver makes
 * samples searchable shortly after it acknowledged them); the last count stands. Histograms count as the receiver
 * stores them: a native histogram (Prometheus 3, remote write) one sample of its metric, as {@code count_over_time}
 * counts it; VictoriaMetrics' {@code vmrange} buckets, {@code _count} and {@code _sum} one sample each of their own
 * names; {@link #countByName} keeps the count per name so a caller can tell them apart. Thread-safe when its client is.
 */
public final class StoredSamples {

    /** The span counted back from the query's time. */
    static final String SPAN = "30d";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OkHttpClient http;

    public StoredSamples(OkHttpClient http) {
        this.http = http;
    }

    /** The instant query counting the samples of {@code name} in {@link #SPAN}. */
    static String query(String name) {
        return "sum(count_over_time({__name__=\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}[" + SPAN
                + "]))";
    }

    /** The number of a query's answer: the value of its first sample, 0 when the answer has none. */
    static long value(JsonNode answer) throws IOException {
        if (!"success".equals(answer.path("status").asText())) {
            throw new IOException("query failed: " + answer.path("error").asText(answer.toString()));
        }
        JsonNode result = answer.path("data").path("result");
        if (result.isEmpty()) {
            return 0;
        }
        return (long) Double.parseDouble(result.get(0).path("value").get(1).asText());
    }

    /**
     * The samples {@code baseUrl} holds, read again until it reaches {@code expected} or {@code settle} passed.
     *
     * @throws IOException when the query API does not answer or answers an error
     */
    public long count(String baseUrl, long expected, Duration settle) throws IOException, InterruptedException {
        return countByName(baseUrl, expected, settle).total();
    }

    /**
     * The samples of each metric name read back, in the order the receiver lists the names.
     *
     * @param byName the samples per metric name
     */
    public record Counted(Map<String, Long> byName) {

        public Counted {
            byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
        }

        /** The samples of every name. */
        public long total() {
            return of(name -> true);
        }

        /** The samples of the names {@code names} accepts. */
        public long of(Predicate<String> names) {
            return byName.entrySet().stream()
                    .filter(e -> names.test(e.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }
    }

    /**
     * As {@link #count}, per metric name.
     *
     * @throws IOException when the query API does not answer or answers an error
     */
    public Counted countByName(String baseUrl, long expected, Duration settle)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + settle.toNanos();
        Counted n;
        while ((n = countOnce(baseUrl)).total() < expected && System.nanoTime() < deadline) {
            Thread.sleep(2000);
        }
        return n;
    }

    private Counted countOnce(String baseUrl) throws IOException {
        HttpUrl base = HttpUrl.get(baseUrl.replaceAll("/+$", ""));
        long at = System.currentTimeMillis() / 1000 + 3600;
        List<String> names = new ArrayList<>();
        for (JsonNode n : get(base.newBuilder()
                        .addPathSegments("api/v1/label/__name__/values")
                        .addQueryParameter(
                                "start", Long.toString(at - Duration.ofDays(30).toSeconds()))
                        .addQueryParameter("end", Long.toString(at))
                        .build())
                .path("data")) {
            names.add(n.asText());
        }
        Map<String, Long> byName = new LinkedHashMap<>();
        for (String name : names) {
            byName.put(
                    name,
                    value(get(base.newBuilder()
                            .addPathSegments("api/v1/query")
                            .addQueryParameter("query", query(name))
                            .addQueryParameter("time", Long.toString(at))
                            .build())));
        }
        return new Counted(byName);
    }

    private JsonNode get(HttpUrl url) throws IOException {
        try (Response r = http.newCall(new Request.Builder().url(url).build()).execute()) {
            String body = r.body() == null ? "" : r.body().string();
            if (!r.isSuccessful()) {
                throw new IOException(url.encodedPath() + " answered " + r.code() + ": " + body);
            }
            return JSON.readTree(body);
        }
    }
}
