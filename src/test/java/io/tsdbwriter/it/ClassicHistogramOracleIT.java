package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tsdbwriter.it.support.OracleSeries;
import io.tsdbwriter.it.support.Prometheus3;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.RemoteWriteRun;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Prometheus text classic histograms in, native histograms with custom buckets out, against Prometheus 3's own scrape
 * path as the oracle: a tiny local HTTP server serves scrape bodies (text 0.0.4, every line with the step's explicit
 * timestamp; step k on the k-th scrape, the last one from then on) to a Prometheus 3 scraping it every second with
 * {@code convert_classic_histograms_to_nhcb: true}; the same bodies, one Kafka record each, are read by the writer
 * ({@code --input-format prometheus --output remote-write --remote-write-version 2
 * --convert-classic-histograms-to-nhcb}, M = N = 1) into a second Prometheus 3's remote write receiver. The bodies
 * hold: a histogram of two label sets (one with every bucket, {@code _sum} and {@code _count}; one without a
 * {@code +Inf} bucket and with a larger {@code _count}), one with float counts and no {@code _count}, one with runs
 * of empty buckets (spans split), one whose buckets are not cumulative (no native histogram: dropped by both), an
 * untyped family with {@code _bucket{le}} series and a gauge (samples in both). Read back with a range query
 * ({@code histograms}: count, sum, every bucket's bounds and count; {@code values} for the samples), the oracle's
 * {@code job} and {@code instance} labels left out: both hold exactly the same series, histogram for histogram,
 * sample for sample.
 */
class ClassicHistogramOracleIT {

    private static final String TOPIC = "text-classic-histograms";
    private static final int STEPS = 4;
    /** Series each step: 4 histograms (the refused one not counted), 2 untyped buckets and a gauge. */
    private static final int SERIES = 4 + 2 + 1;

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static HttpServer target;
    static PrometheusServer oracle;
    /** The first step's time: 30 minutes ago, on a minute; step k is a minute later per k. */
    static long base;

    @BeforeAll
    static void start() throws Exception {
        Prometheus3.assumeBuilt();
        base = (System.currentTimeMillis() - 30 * 60_000L) / 60_000L * 60_000L;
        AtomicInteger scrapes = new AtomicInteger();
        target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        target.createContext("/metrics", exchange -> {
            byte[] body = body(Math.min(scrapes.getAndIncrement(), STEPS - 1)).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        target.start();
        oracle = stack.own(PrometheusServer.startCurrentWith(
                stack.path("prom-scrape-oracle"),
                null,
                List.of(),
                """
                scrape_configs:
                  - job_name: text
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    honor_timestamps: true
                    convert_classic_histograms_to_nhcb: true
                    scrape_protocols: [PrometheusText0.0.4]
                    fallback_scrape_protocol: PrometheusText0.0.4
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """
                        .formatted(target.getAddress().getPort())));
        stack.createTopic(TOPIC, 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int k = 0; k < STEPS; k++) {
            records.add(
                    new ProducerRecord<>(TOPIC, 0, base + k * 60_000L, null, body(k).getBytes(StandardCharsets.UTF_8)));
        }
        stack.produce(records);
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.stop(0);
        }
    }

    /** Step k's scrape body: every count × (k + 1), every line at {@code base + k} minutes. */
    static String body(int k) {
        long c = k + 1;
        String t = " " + (base + k * 60_000L) + "\n";
        StringBuilder b = new StringBuilder();
        b.append("# HELP ch_rpc_seconds RPC latency.\n# TYPE ch_rpc_seconds histogram\n");
        b.append("ch_rpc_seconds_bucket{code=\"200\",le=\"0.1\"} ")
                .append(3 * c)
                .append(t);
        b.append("ch_rpc_seconds_bucket{code=\"200\",le=\"0.5\"} ")
                .append(3 * c)
                .append(t);
        b.append("ch_rpc_seconds_bucket{code=\"200\",le=\"1.0\"} ")
                .append(5 * c)
                .append(t);
        b.append("ch_rpc_seconds_bucket{code=\"200\",le=\"+Inf\"} ")
                .append(6 * c)
                .append(t);
        b.append("ch_rpc_seconds_sum{code=\"200\"} ").append(2.5 * c).append(t);
        b.append("ch_rpc_seconds_count{code=\"200\"} ").append(6 * c).append(t);
        b.append("ch_rpc_seconds_bucket{code=\"500\",le=\"0.1\"} ").append(0).append(t);
        b.append("ch_rpc_seconds_bucket{code=\"500\",le=\"0.5\"} ").append(c).append(t);
        b.append("ch_rpc_seconds_bucket{code=\"500\",le=\"1.0\"} ").append(c).append(t);
        b.append("ch_rpc_seconds_sum{code=\"500\"} ").append(0.25 * c).append(t);
        b.append("ch_rpc_seconds_count{code=\"500\"} ").append(3 * c).append(t);
        b.append("# TYPE ch_size_bytes histogram\n");
        b.append("ch_size_bytes_bucket{le=\"100.0\"} ").append(1.5 * c).append(t);
        b.append("ch_size_bytes_bucket{le=\"1000.0\"} ").append(1.5 * c).append(t);
        b.append("ch_size_bytes_bucket{le=\"+Inf\"} ").append(4.25 * c).append(t);
        b.append("ch_size_bytes_sum ").append(900.5 * c).append(t);
        b.append("# TYPE ch_runs histogram\n");
        long[] runs = {0, 2, 0, 0, 3, 0, 0, 0, 4, 0, 0};
        long cumulative = 0;
        for (int i = 0; i < runs.length; i++) {
            cumulative += runs[i] * c;
            b.append("ch_runs_bucket{le=\"")
                    .append(i + 1 == runs.length ? "+Inf" : (i + 1) + ".0")
                    .append("\"} ")
                    .append(cumulative)
                    .append(t);
        }
        b.append("ch_runs_sum ").append(40 * c).append(t);
        b.append("ch_runs_count ").append(cumulative).append(t);
        b.append("# TYPE ch_bad histogram\n");
        b.append("ch_bad_bucket{le=\"1.0\"} ").append(5 * c).append(t);
        b.append("ch_bad_bucket{le=\"+Inf\"} ").append(3 * c).append(t);
        b.append("ch_plain_bucket{le=\"0.5\"} ").append(c).append(t);
        b.append("ch_plain_bucket{le=\"+Inf\"} ").append(2 * c).append(t);
        b.append("# TYPE ch_temp gauge\nch_temp ").append(20 + k).append(t);
        return b.toString();
    }

    @Test
    void remoteWrite2HoldsExactlyWhatPrometheusScrapingTheSameBodiesStores() throws Exception {
        try (PrometheusServer prom = PrometheusServer.startCurrentWith(
                stack.path("prom-rw2"),
                null,
                List.of("--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request"))) {
            Path summary = stack.path("rw2-summary.json");
            WriterProcess w = stack.writer(
                    "rw2",
                    new RemoteWriteRun()
                            .topic(TOPIC)
                            .group("rw2")
                            .url(prom.remoteWriteUrl())
                            .version(2)
                            .inputFormat("prometheus")
                            .summaryJson(summary)
                            .flags("--convert-classic-histograms-to-nhcb"));
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("samples_written").asLong()).isEqualTo((long) STEPS * SERIES);
            assertThat(s.get("histograms_written").asLong()).isEqualTo(STEPS * 4L);
            Map<String, TreeMap<Long, String>> expected = series(oracle, STEPS * SERIES);
            assertThat(expected).hasSize(SERIES);
            assertThat(expected.keySet()).noneMatch(k -> k.contains("ch_bad"));
            Map<String, TreeMap<Long, String>> actual = series(prom, STEPS * SERIES);
            assertThat(actual).isEqualTo(expected);
            System.err.printf(
                    "ClassicHistogramOracleIT: remote write 2.0 == Prometheus' scrape with"
                            + " convert_classic_histograms_to_nhcb: %d series, %d points%n",
                    actual.size(), OracleSeries.count(actual));
        }
    }

    /**
     * Every {@code ch_*} series over the last hour ({@link OracleSeries}), by its labels but {@code job} and
     * {@code instance}; polled until {@code expected} points are there or 60 s pass.
     */
    private static Map<String, TreeMap<Long, String>> series(PrometheusServer prom, int expected) throws Exception {
        return OracleSeries.read(
                prom,
                "{__name__=~\"ch_.+\"}",
                base + 10 * 60_000L,
                expected,
                Duration.ofSeconds(60),
                true,
                Set.of("job", "instance"));
    }
}
