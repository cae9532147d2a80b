package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.OracleSeries;
import io.tsdbwriter.it.support.Prometheus3;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.RemoteWriteRun;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TYPE, HELP and UNIT read from Prometheus text reach a real Prometheus 3 through remote write (issue 53 item 4), amplified
 * copies included (N = 2, M = 2). Prometheus 3 keeps a remote-written series' metadata in its TSDB only from 2.0
 * requests (it ignores 1.0's {@code WriteRequest.metadata}), and its {@code /api/v1/metadata} answers only for the
 * targets it scrapes itself; what it shows of received metadata is the {@code __type__} and {@code __unit__} labels it
 * adds with {@code --enable-feature=type-and-unit-labels}, so that is what is read back here. The exact bytes of both
 * versions, HELP included, are checked against a capturing receiver ({@link RemoteWriteConformanceIT}).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RemoteWriteMetadataIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static final AtomicInteger names = new AtomicInteger();
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void awaitPrometheus3() {
        Prometheus3.assumeBuilt();
    }

    /** A scrape with two declared families (a counter; a histogram with a unit) and one series without a family. */
    static String exposition(long t) {
        return """
                # HELP md_requests_total Requests served, by code.
                # TYPE md_requests_total counter
                md_requests_total{code="200"} 10 T
                md_requests_total{code="500"} 1 T
                # HELP md_latency_seconds RPC latency.
                # TYPE md_latency_seconds histogram
                # UNIT md_latency_seconds seconds
                md_latency_seconds_bucket{le="1"} 3 T
                md_latency_seconds_bucket{le="+Inf"} 4 T
                md_latency_seconds_sum 2.5 T
                md_latency_seconds_count 4 T
                md_undeclared 7 T
                """
                .replace(" T\n", " " + t + "\n");
    }

    /** A topic of one Prometheus text record ({@link #exposition}). */
    static String expositionTopic(String name, long t) {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), 1);
        stack.produceRaw(topic, 1, List.of(exposition(t).getBytes(StandardCharsets.UTF_8)));
        return topic;
    }

    /** Per series of {@code match} in Prometheus at {@code url}: its name and other labels to its {@code __type__|__unit__}. */
    private static Map<String, String> typeAndUnit(String url, String match) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url + "/api/v1/series?match[]="
                                        + URLEncoder.encode(match, StandardCharsets.UTF_8)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, String> out = new TreeMap<>();
        for (JsonNode s : JSON.readTree(r.body()).path("data")) {
            Map<String, String> labels = new TreeMap<>();
            s.fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            String md = labels.getOrDefault("__type__", "-") + "|" + labels.getOrDefault("__unit__", "-");
            labels.remove("__type__");
            labels.remove("__unit__");
            out.put(labels.remove("__name__") + labels, md);
        }
        return out;
    }

    /**
     * Runs the writer ({@code --input-format prometheus}, M = N = 2) over {@code topic} into {@code prom} by remote write
     * {@code version} to the topic's end, with {@code more} flags; asserts it exits 0.
     */
    private static void runWriter(String name, String topic, PrometheusServer prom, int version, String... more) {
        WriterProcess w = stack.writer(
                name,
                new RemoteWriteRun()
                        .topic(topic)
                        .group("g-" + name)
                        .url(prom.remoteWriteUrl())
                        .version(version)
                        .multipliers(2, 2)
                        .inputFormat("prometheus")
                        .tsdbMetricsNone()
                        .flags(more));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
    }

    @Test
    void prometheus3TypesAndUnitsEveryCopyOfADeclaredFamilyFrom2Point0AndNothingElse() throws Exception {
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 5 * 60_000;
        String topic = expositionTopic("md", t);
        for (int version : List.of(1, 2)) {
            String name = "md-v" + version;
            try (PrometheusServer prom =
                    stack.own(Prometheus3.receiver(stack.path("prom3-" + name), List.of("type-and-unit-labels")))) {
                runWriter(
                        name,
                        topic,
                        prom,
                        version,
                        "--summary-json",
                        stack.path(name + ".json").toString());
                assertThat(Scenario.summary(stack.path(name + ".json"))
                                .get("samples_written")
                                .asLong())
                        .isEqualTo(7 * 2 * 2);

                Map<String, String> got = typeAndUnit(prom.url(), "{__name__=~\"md_.*\"}");
                assertThat(got).hasSize(7 * 2);
                got.forEach((series, md) -> {
                    String want = version == 1 || series.startsWith("md_undeclared")
                            ? "-|-"
                            : series.startsWith("md_requests_total") ? "counter|-" : "histogram|seconds";
                    assertThat(md).as(series + " in %s", version).isEqualTo(want);
                });
            }
        }
    }

    /**
     * OpenMetrics exemplars through remote write 1.0 and 2.0 into Prometheus 3 with
     * {@code --enable-feature=exemplar-storage}, read back by {@code /api/v1/query_exemplars}: each of the N = 2 instance
     * copies holds the exemplar once, its labels, value and timestamp as written, whatever the M = 2 time copies.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void prometheus3StoresTheExemplarOfEveryInstanceCopy(int version) throws Exception {
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 5 * 60_000;
        String topic = stack.createTopic("ex-" + names.incrementAndGet(), 1);
        String text = "# TYPE ex_jobs counter\n"
                + "ex_jobs_total{code=\"200\"} 10 " + t / 1000 + " # {trace_id=\"4bf92f35\",span_id=\"00f0\"} 1.5 "
                + t / 1000 + "\n"
                + "ex_jobs_total{code=\"500\"} 1 " + t / 1000 + "\n# EOF\n";
        stack.produceRaw(topic, 1, List.of(text.getBytes(StandardCharsets.UTF_8)));
        String name = "ex-v" + version;
        try (PrometheusServer prom =
                stack.own(Prometheus3.receiver(stack.path("prom3-" + name), List.of("exemplar-storage")))) {
            runWriter(name, topic, prom, version);
            Map<String, List<String>> exemplars =
                    OracleSeries.exemplars(prom, "ex_jobs_total", t - 60_000L, t + 600_000L);
            List<String> got = new ArrayList<>();
            for (Map.Entry<String, List<String>> series : exemplars.entrySet()) {
                assertThat(JSON.readTree(series.getKey()).path("code").asText())
                        .as("%s", exemplars)
                        .isEqualTo("200");
                got.addAll(series.getValue());
            }
            String one = "{\"span_id\":\"00f0\",\"trace_id\":\"4bf92f35\"}|1.5|" + t;
            assertThat(got).as("%s", exemplars).containsExactly(one, one);
        }
    }
}
