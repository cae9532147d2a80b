package io.tsdbwriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a Prometheus holds of a selector, as the oracle tests compare it: by series labels (JSON of the sorted labels),
 * by timestamp (ms), a native histogram as the query API's histogram object ({@code count}, {@code sum},
 * {@code buckets}: bounds rule, lower, upper, count) as text, a float sample as its value's text. Read with one range
 * query ({@code selector[1h]} at a given time), polled until enough points are there. Its exemplars
 * ({@link #exemplars}) likewise by series labels, each series' in the order the query answers them.
 */
public final class OracleSeries {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private OracleSeries() {}

    /**
     * Every series of {@code selector} over the hour before {@code atMs}, its labels but {@code without}; polled every
     * half second until {@code expected} points are there or {@code timeout} passes (then what is there).
     *
     * @param floats whether float samples may be there: when false a series with some fails the test
     */
    public static Map<String, TreeMap<Long, String>> read(
            PrometheusServer prom,
            String selector,
            long atMs,
            int expected,
            Duration timeout,
            boolean floats,
            Set<String> without)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, TreeMap<Long, String>> got = new TreeMap<>();
            String q = URLEncoder.encode(selector + "[1h]", StandardCharsets.UTF_8);
            double at = atMs / 1000.0;
            HttpResponse<String> resp = HTTP.send(
                    HttpRequest.newBuilder(URI.create(prom.url() + "/api/v1/query?query=" + q + "&time=" + at))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(resp.statusCode()).as(resp.body()).isEqualTo(200);
            for (JsonNode series : JSON.readTree(resp.body()).path("data").path("result")) {
                if (!floats) {
                    assertThat(series.has("values"))
                            .as("float samples in %s", series)
                            .isFalse();
                }
                TreeMap<String, String> labels = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it =
                                series.get("metric").fields();
                        it.hasNext(); ) {
                    Map.Entry<String, JsonNode> l = it.next();
                    if (!without.contains(l.getKey())) {
                        labels.put(l.getKey(), l.getValue().asText());
                    }
                }
                TreeMap<Long, String> points = new TreeMap<>();
                for (JsonNode h : series.path("histograms")) {
                    points.put(Math.round(h.get(0).asDouble() * 1000), h.get(1).toString());
                }
                for (JsonNode v : series.path("values")) {
                    points.put(Math.round(v.get(0).asDouble() * 1000), v.get(1).asText());
                }
                got.put(JSON.writeValueAsString(labels), points);
            }
            if (count(got) >= expected || System.nanoTime() > deadline) {
                return got;
            }
            Thread.sleep(500);
        }
    }

    /**
     * Every exemplar of {@code selector} from {@code fromMs} to {@code toMs} ({@code /api/v1/query_exemplars}, asserted
     * to answer 200), by series labels (their JSON as answered), each series' in the order answered, each exemplar as
     * {@code labels|value|timestamp}: its labels' JSON, its value's text and its timestamp in ms.
     */
    public static Map<String, List<String>> exemplars(PrometheusServer prom, String selector, long fromMs, long toMs)
            throws Exception {
        String q = URLEncoder.encode(selector, StandardCharsets.UTF_8);
        HttpResponse<String> resp = HTTP.send(
                HttpRequest.newBuilder(URI.create(prom.url() + "/api/v1/query_exemplars?query=" + q + "&start="
                                + fromMs / 1000.0 + "&end=" + toMs / 1000.0))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(200);
        Map<String, List<String>> out = new TreeMap<>();
        for (JsonNode series : JSON.readTree(resp.body()).path("data")) {
            List<String> got = new ArrayList<>();
            for (JsonNode x : series.path("exemplars")) {
                long ms = x.path("timestamp").decimalValue().movePointRight(3).longValueExact();
                got.add(x.path("labels") + "|" + x.path("value").asText() + "|" + ms);
            }
            out.put(series.path("seriesLabels").toString(), got);
        }
        return out;
    }

    /** The points of every series of {@code m}. */
    public static long count(Map<String, TreeMap<Long, String>> m) {
        return m.values().stream().mapToLong(TreeMap::size).sum();
    }
}
