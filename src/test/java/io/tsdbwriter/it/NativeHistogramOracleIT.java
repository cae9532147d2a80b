package io.tsdbwriter.it;

import static io.tsdbwriter.decode.RemoteWriteBodyWriter.series;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.RemoteWriteBodyWriter;
import io.tsdbwriter.decode.RemoteWriteBodyWriter.Series;
import io.tsdbwriter.it.support.OracleSeries;
import io.tsdbwriter.it.support.OtlpRequests;
import io.tsdbwriter.it.support.Prometheus3;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.RemoteWriteRun;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.xerial.snappy.Snappy;

/**
 * OTLP exponential and explicit-bucket histograms in, native histograms out, against Prometheus 3's own OTLP receiver
 * as the oracle, its configuration saying {@code otlp: convert_histograms_to_nhcb: true} (which leaves exponential
 * histograms as they are): the same {@code ExportMetricsServiceRequest}s (five exponential series at scales −4, 0, 3,
 * 10 and 20 — the last two merged down to schema 8 —, positive, negative and zero buckets; three explicit-bucket series
 * with empty buckets at the start, runs of them inside and an empty or full {@code +Inf} bucket, one without a sum;
 * four cumulative steps a minute apart; and a cumulative Sum {@code st_requests_total}; every data point with the same
 * start time, five minutes before the first step) are POSTed to the oracle's {@code /api/v1/otlp/v1/metrics} and
 * produced to Kafka, where the writer reads them ({@code --input-format otlp --output remote-write
 * --convert-histograms-to-nhcb}) into a second Prometheus 3's remote write receiver. Both Prometheus run with
 * {@code --enable-feature=created-timestamp-zero-ingestion}: a sample's start timestamp becomes a zero sample (a zero
 * histogram) there, which the oracle is checked to hold for every series. Read back with range queries
 * ({@code histograms} arrays: count, sum, every bucket's bounds and count; the explicit ones' buckets must be the custom
 * buckets of the bounds sent, which no exponential schema has; {@code values} of the Sum): (1) remote write 1.0 at
 * M = N = 1 holds exactly the oracle's series and histograms but the zero samples (1.0 has no start timestamp);
 * (2) remote write 2.0 at M = 6, N = 3 with {@code --instance-label host} holds exactly the oracle's histograms and
 * samples, each at its 6 time copies in each of its 3 variants, and each variant the oracle's zero sample once at the
 * start timestamp (the copies carry the original's; the receiver takes the first and drops the others, out of order);
 * (3) a remote write 2.0 {@code Request} as a record ({@code --input-format promremotewrite}) holds in a Prometheus 3
 * fed by the writer over remote write 2.0 what the same request POSTed to another Prometheus 3 holds.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeHistogramOracleIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "otlp-histograms";
    private static final int STEPS = 4;
    /** Exponential series, then explicit-bucket ones ({@link #BOUNDS}): every series of a step. */
    private static final int SERIES = 5 + 3;
    /** The explicit-bucket series' bounds, by metric name. */
    private static final Map<String, double[]> BOUNDS = Map.of(
            "nh_explicit_latency", new double[] {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
            "nh_explicit_sizes", new double[] {-10, 0, 100, 1000, 10_000},
            "nh_explicit_one", new double[] {1});

    private static final int M = 6;
    private static final int N = 3;
    /** The cumulative Sum, one series ({@code host="a"}). */
    private static final String COUNTER = "st_requests_total";
    /** The feature that makes a start timestamp a zero sample. */
    private static final List<String> ZERO_INGESTION = List.of("created-timestamp-zero-ingestion");

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static PrometheusServer oracle;
    /** The first step's time: 30 minutes ago, on a minute; step k is a minute later per k. */
    static long base;
    /** Every data point's start time: five minutes before {@link #base}. */
    static long start;

    @BeforeAll
    static void start() throws Exception {
        Prometheus3.assumeBuilt();
        base = (System.currentTimeMillis() - 30 * 60_000L) / 60_000L * 60_000L;
        start = base - 5 * 60_000L;
        List<ExportMetricsServiceRequest> requests = new ArrayList<>();
        for (int k = 0; k < STEPS; k++) {
            requests.add(request(k));
        }
        oracle = stack.own(Prometheus3.otlpOracle(
                stack.path("prom-oracle"), ZERO_INGESTION, "otlp:\n  convert_histograms_to_nhcb: true\n", requests));
        stack.createTopic(TOPIC, 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int k = 0; k < STEPS; k++) {
            records.add(new ProducerRecord<>(
                    TOPIC, 0, base + k * 60_000L, null, requests.get(k).toByteArray()));
        }
        stack.produce(records);
    }

    /** Step k: every series' cumulative histogram at {@code base + k} minutes. */
    static ExportMetricsServiceRequest request(int k) {
        long ns = (base + k * 60_000L) * 1_000_000L;
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder()
                .addMetrics(metric("nh_latency", point(ns, k, "a", 0, -3, 1, true)))
                .addMetrics(metric("nh_latency", point(ns, k, "b", 3, 5, 2, false)))
                .addMetrics(metric("nh_sizes", point(ns, k, "a", 10, 1000, 3, false)))
                .addMetrics(metric("nh_fine", point(ns, k, "b", 20, -70_000, 4, true)))
                .addMetrics(metric("nh_coarse", point(ns, k, "a", -4, -2, 5, true)))
                .addMetrics(explicit("nh_explicit_latency", ns, k, "a", true, 0, 3, 1, 0, 0, 0, 0, 4, 2, 0, 1, 0))
                .addMetrics(explicit("nh_explicit_sizes", ns, k, "b", true, 0, 0, 2, 0, 5, 1))
                .addMetrics(explicit("nh_explicit_one", ns, k, "a", false, 4, 0))
                .addMetrics(counter(ns, k));
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope))
                .build();
    }

    private static Metric metric(String name, ExponentialHistogramDataPoint point) {
        return Metric.newBuilder()
                .setName(name)
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(point))
                .build();
    }

    /** The cumulative Sum {@link #COUNTER} at step k: 10 × (k + 1). */
    private static Metric counter(long ns, int step) {
        return Metric.newBuilder()
                .setName(COUNTER)
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("host")
                                        .setValue(AnyValue.newBuilder().setStringValue("a")))
                                .setStartTimeUnixNano(start * 1_000_000L)
                                .setTimeUnixNano(ns)
                                .setAsInt(10L * (step + 1))))
                .build();
    }

    /** An explicit-bucket histogram of one data point: {@link #BOUNDS} of {@code name}, {@code counts} × (step + 1). */
    private static Metric explicit(String name, long ns, int step, String host, boolean withSum, long... counts) {
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .addAttributes(KeyValue.newBuilder()
                        .setKey("host")
                        .setValue(AnyValue.newBuilder().setStringValue(host)))
                .setStartTimeUnixNano(start * 1_000_000L)
                .setTimeUnixNano(ns);
        for (double b : BOUNDS.get(name)) {
            p.addExplicitBounds(b);
        }
        long total = 0;
        for (long c : counts) {
            p.addBucketCounts(c * (step + 1));
            total += c * (step + 1);
        }
        p.setCount(total);
        if (withSum) {
            p.setSum(total * 0.75 + step);
        }
        return Metric.newBuilder()
                .setName(name)
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(p))
                .build();
    }

    /** A data point whose counts grow with the step, empty buckets and runs of them in between. */
    private static ExponentialHistogramDataPoint point(
            long ns, int step, String host, int scale, int offset, int seed, boolean negative) {
        ExponentialHistogramDataPoint.Buckets.Builder pos =
                ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(offset);
        long total = 0;
        for (int i = 0; i < 24; i++) {
            long c = (i * 7L + seed) % 5 == 0 ? 0 : (i * 3L + seed) % 11 * (step + 1);
            pos.addBucketCounts(c);
            total += c;
        }
        ExponentialHistogramDataPoint.Builder p = ExponentialHistogramDataPoint.newBuilder()
                .addAttributes(KeyValue.newBuilder()
                        .setKey("host")
                        .setValue(AnyValue.newBuilder().setStringValue(host)))
                .setStartTimeUnixNano(start * 1_000_000L)
                .setTimeUnixNano(ns)
                .setScale(scale)
                .setZeroCount(seed * (step + 1L))
                .setPositive(pos);
        total += seed * (step + 1L);
        if (negative) {
            ExponentialHistogramDataPoint.Buckets.Builder neg =
                    ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(offset / 2);
            for (int i = 0; i < 9; i++) {
                long c = i % 4 == 1 ? 0 : (i + seed) * (step + 1L);
                neg.addBucketCounts(c);
                total += c;
            }
            p.setNegative(neg);
        }
        return p.setCount(total).setSum(total * 1.25 + seed).build();
    }

    @Test
    @Order(1)
    void remoteWrite1AtMEqualsNEquals1HoldsExactlyTheOraclesHistograms() throws Exception {
        try (PrometheusServer prom = PrometheusServer.startCurrent(stack.path("prom-rw1"), null, ZERO_INGESTION)) {
            JsonNode s = runWriter("rw1", prom.remoteWriteUrl(), 1, 1, 1);
            assertThat(s.get("decode_errors").asLong()).isZero();
            assertThat(s.get("samples_written").asLong()).isEqualTo((long) STEPS * (SERIES + 1));
            Map<String, TreeMap<Long, String>> expected = withoutStart(oracleHistograms());
            assertThat(expected).hasSize(SERIES);
            assertCustomBuckets(expected, "the oracle");
            Map<String, TreeMap<Long, String>> actual = histograms(prom, STEPS * SERIES);
            assertCustomBuckets(actual, "the writer's");
            assertThat(actual).as("1.0 carries no start timestamp").isEqualTo(expected);
            assertThat(counters(prom, STEPS)).isEqualTo(withoutStart(oracleCounters()));
            System.err.printf(
                    "NativeHistogramOracleIT: remote write 1.0 == Prometheus' OTLP receiver but its zero samples:"
                            + " %d series, %d histograms%n",
                    actual.size(), OracleSeries.count(actual));
        }
    }

    @Test
    @Order(2)
    void remoteWrite2AtM6N3HoldsTheOraclesHistogramsAtEveryCopyOfEveryVariant() throws Exception {
        try (PrometheusServer prom = PrometheusServer.startCurrent(
                stack.path("prom-rw2"), null, ZERO_INGESTION, "io.prometheus.write.v2.Request")) {
            JsonNode s = runWriter("rw2", prom.remoteWriteUrl(), 2, M, N, "--instance-label", "host");
            assertThat(s.get("samples_written").asLong()).isEqualTo((long) STEPS * (SERIES + 1) * M * N);
            Map<String, TreeMap<Long, String>> expected = amplified(oracleHistograms());
            Map<String, TreeMap<Long, String>> actual = histograms(prom, (STEPS * M + 1) * SERIES * N);
            assertThat(actual).isEqualTo(expected);
            assertThat(counters(prom, (STEPS * M + 1) * N)).isEqualTo(amplified(oracleCounters()));
            System.err.printf(
                    "NativeHistogramOracleIT: remote write 2.0 at M=%d N=%d == the oracle amplified, zero samples at"
                            + " the start timestamps included: %d histograms%n",
                    M, N, OracleSeries.count(actual));
        }
    }

    /**
     * A remote write 2.0 {@code Request} as a record ({@code --input-format promremotewrite}, told from 1.0 by its
     * fields): the same snappy body POSTed to a Prometheus 3 that accepts 2.0 (the oracle) and produced to Kafka, read by
     * the writer into a second one over remote write 2.0 at M = N = 1; both hold the same float samples (a counter with
     * a start timestamp, a gauge) and native histograms (integer with a start timestamp, float, custom buckets), the
     * zero samples at the start timestamps included.
     */
    @Test
    @Order(3)
    void aRemoteWrite2RecordIsReadAsPrometheusReadsTheSameRequest() throws Exception {
        String v2 = "io.prometheus.write.v2.Request";
        byte[] body = Snappy.compress(remoteWrite2Request());
        try (PrometheusServer direct =
                        PrometheusServer.startCurrent(stack.path("prom-rw2-direct"), null, ZERO_INGESTION, v2);
                PrometheusServer viaWriter =
                        PrometheusServer.startCurrent(stack.path("prom-rw2-writer"), null, ZERO_INGESTION, v2)) {
            OtlpRequests.post(
                    direct.remoteWriteUrl(),
                    body,
                    204,
                    "Content-Type",
                    "application/x-protobuf;proto=" + v2,
                    "Content-Encoding",
                    "snappy",
                    "X-Prometheus-Remote-Write-Version",
                    "2.0.0");
            String topic = stack.createTopic("rw2-records", 1);
            stack.produce(List.of(new ProducerRecord<>(topic, 0, base, null, body)));
            Path summary = stack.path("rw2-records-summary.json");
            WriterProcess w = stack.writer(
                    "rw2-records",
                    new RemoteWriteRun()
                            .topic(topic)
                            .group("rw2-records")
                            .url(viaWriter.remoteWriteUrl())
                            .version(2)
                            .inputFormat("promremotewrite")
                            .summaryJson(summary));
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("decode_errors").asLong()).isZero();
            assertThat(s.get("samples_written").asLong()).isEqualTo(5L * STEPS);
            // per step 2 float samples and 3 histograms, and a zero sample at the start of the counter and the first
            // histogram
            Map<String, TreeMap<Long, String>> floats = rw2Series(direct, "rw2_c_.+", 2 * STEPS + 1, true);
            Map<String, TreeMap<Long, String>> hists = rw2Series(direct, "rw2_h_.+", 3 * STEPS + 1, false);
            assertThat(OracleSeries.count(floats))
                    .as("the oracle's floats %s", floats)
                    .isEqualTo(2 * STEPS + 1);
            assertThat(OracleSeries.count(hists))
                    .as("the oracle's histograms %s", hists)
                    .isEqualTo(3 * STEPS + 1);
            assertThat(rw2Series(viaWriter, "rw2_c_.+", 2 * STEPS + 1, true)).isEqualTo(floats);
            assertThat(rw2Series(viaWriter, "rw2_h_.+", 3 * STEPS + 1, false)).isEqualTo(hists);
            System.err.printf(
                    "NativeHistogramOracleIT: a remote write 2.0 record == the same request posted to Prometheus:"
                            + " %d float samples, %d histograms%n",
                    OracleSeries.count(floats), OracleSeries.count(hists));
        }
    }

    /** The 2.0 request of {@link #aRemoteWrite2RecordIsReadAsPrometheusReadsTheSameRequest}, uncompressed. */
    private static byte[] remoteWrite2Request() {
        Series counter = series("__name__", "rw2_c_requests_total", "job", "api", "host", "a")
                .metadata(1, "Requests served.", "requests");
        Series gauge = series("__name__", "rw2_c_temperature", "host", "b").metadata(2, "Temperature.", "celsius");
        Series integer = series("__name__", "rw2_h_latency", "job", "api", "host", "a");
        Series floating = series("__name__", "rw2_h_float", "host", "b");
        Series custom = series("__name__", "rw2_h_custom", "host", "a");
        for (int k = 0; k < STEPS; k++) {
            long t = base + k * 60_000L;
            long f = k + 1;
            counter.sample(10.0 * f, t, start);
            gauge.sample(21.5 + k, t);
            integer.histogram(RemoteWriteBodyWriter.with(
                    NativeHistogramMessage.integer(
                            5 * f, 2.5 * f, 3, 1e-128, f, new int[] {-2, 2, 3, 1}, new long[] {f, f, -f}, t),
                    17,
                    start));
            floating.histogram(RemoteWriteBodyWriter.with(
                    RemoteWriteBodyWriter.floatHistogram(
                            6.5 + k, 3.25, 0, 1e-128, 0.5, new int[] {0, 3}, new double[] {1.5, k, 4.5}, 3),
                    15,
                    t));
            custom.histogram(RemoteWriteBodyWriter.with(
                    RemoteWriteBodyWriter.customBucketHistogram(
                            6 * f, 12.0 * f, new int[] {0, 3}, new long[] {f, f, f}, new double[] {0.5, 1, 2.5}),
                    15,
                    t));
        }
        return RemoteWriteBodyWriter.v2(counter, gauge, integer, floating, custom);
    }

    /** The series of a {@code rw2_…} name pattern; polled until {@code expected} points or 30 s pass. */
    private static Map<String, TreeMap<Long, String>> rw2Series(
            PrometheusServer prom, String name, int expected, boolean floats) throws Exception {
        return OracleSeries.read(
                prom,
                "{__name__=~\"" + name + "\"}",
                base + 10 * 60_000L,
                expected,
                Duration.ofSeconds(30),
                floats,
                Set.of());
    }

    /**
     * The oracle's series amplified as the writer amplifies them: each variant ({@code host}, {@code host-1}, …) holds
     * each point at its M time copies, but the zero sample at {@link #start}, which each variant holds once (every copy
     * carries the start timestamp; the receiver drops the later zero samples, out of order).
     */
    private static Map<String, TreeMap<Long, String>> amplified(Map<String, TreeMap<Long, String>> oracle)
            throws Exception {
        Map<String, TreeMap<Long, String>> expected = new TreeMap<>();
        for (Map.Entry<String, TreeMap<Long, String>> e : oracle.entrySet()) {
            Map<String, String> labels = JSON.readValue(e.getKey(), new TypeReference<TreeMap<String, String>>() {});
            String host = labels.get("host");
            for (int j = 0; j < N; j++) {
                Map<String, String> variant = new TreeMap<>(labels);
                variant.put("host", j == 0 ? host : host + "-" + j);
                TreeMap<Long, String> copies = new TreeMap<>();
                for (Map.Entry<Long, String> h : e.getValue().entrySet()) {
                    for (int i = 0; i < (h.getKey() == start ? 1 : M); i++) {
                        copies.put(h.getKey() + i * 60_000L / M, h.getValue());
                    }
                }
                expected.put(JSON.writeValueAsString(variant), copies);
            }
        }
        return expected;
    }

    /** The oracle's histograms, each series' zero histogram at {@link #start} included: asserted there. */
    private static Map<String, TreeMap<Long, String>> oracleHistograms() throws Exception {
        Map<String, TreeMap<Long, String>> hs = histograms(oracle, (STEPS + 1) * SERIES);
        assertThat(hs).hasSize(SERIES);
        for (Map.Entry<String, TreeMap<Long, String>> e : hs.entrySet()) {
            assertThat(e.getValue()).as("the oracle's %s", e.getKey()).hasSize(STEPS + 1);
            String zero = e.getValue().get(start);
            assertThat(zero)
                    .as("the oracle's zero histogram of %s at the start timestamp", e.getKey())
                    .isNotNull();
            assertThat(JSON.readTree(zero).path("count").asText()).as(zero).isEqualTo("0");
        }
        return hs;
    }

    /** The oracle's {@link #COUNTER}, its zero sample at {@link #start} included: asserted there. */
    private static Map<String, TreeMap<Long, String>> oracleCounters() throws Exception {
        Map<String, TreeMap<Long, String>> cs = counters(oracle, STEPS + 1);
        assertThat(cs).hasSize(1);
        TreeMap<Long, String> c = cs.values().iterator().next();
        assertThat(c).as("the oracle's %s", cs.keySet()).hasSize(STEPS + 1);
        assertThat(c.get(start))
                .as("the oracle's zero sample at the start timestamp")
                .isEqualTo("0");
        return cs;
    }

    /** {@code series} without the points at {@link #start}. */
    private static Map<String, TreeMap<Long, String>> withoutStart(Map<String, TreeMap<Long, String>> series) {
        Map<String, TreeMap<Long, String>> out = new TreeMap<>();
        series.forEach((k, v) -> {
            TreeMap<Long, String> points = new TreeMap<>(v);
            points.remove(start);
            out.put(k, points);
        });
        return out;
    }

    /**
     * Every histogram of each {@code nh_explicit_*} series of {@code hs} has custom buckets of that series'
     * {@link #BOUNDS}: each bucket spans two neighbours of {@code -Inf, bounds…, +Inf}.
     */
    private static void assertCustomBuckets(Map<String, TreeMap<Long, String>> hs, String whose) throws Exception {
        int seen = 0;
        for (Map.Entry<String, TreeMap<Long, String>> e : hs.entrySet()) {
            String name = JSON.readTree(e.getKey()).get("__name__").asText();
            if (!BOUNDS.containsKey(name)) {
                continue;
            }
            List<Double> edges = new ArrayList<>(List.of(Double.NEGATIVE_INFINITY));
            for (double b : BOUNDS.get(name)) {
                edges.add(b);
            }
            edges.add(Double.POSITIVE_INFINITY);
            for (String h : e.getValue().values()) {
                JsonNode buckets = JSON.readTree(h).path("buckets");
                assertThat(buckets).as("%s %s %s", whose, name, h).isNotEmpty();
                for (JsonNode b : buckets) {
                    int lower = edges.indexOf(promFloat(b.get(1).asText()));
                    assertThat(lower).as("%s %s: bucket %s", whose, name, b).isNotNegative();
                    assertThat(promFloat(b.get(2).asText()))
                            .as("%s %s: bucket %s", whose, name, b)
                            .isEqualTo(edges.get(lower + 1));
                }
            }
            seen++;
        }
        assertThat(seen).as("%s explicit-bucket series", whose).isEqualTo(BOUNDS.size() * (hs.size() / SERIES));
    }

    /** A float as Prometheus' JSON writes it ({@code +Inf}, {@code -Inf} or a number). */
    private static double promFloat(String s) {
        return switch (s) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    private static JsonNode runWriter(String name, String url, int version, int m, int n, String... more)
            throws Exception {
        Path summary = stack.path(name + "-summary.json");
        WriterProcess w = stack.writer(
                name,
                new RemoteWriteRun()
                        .topic(TOPIC)
                        .group(name)
                        .url(url)
                        .version(version)
                        .multipliers(m, n)
                        .inputFormat("otlp")
                        .summaryJson(summary)
                        .flags("--convert-histograms-to-nhcb")
                        .flags(more));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        return Scenario.summary(summary);
    }

    /**
     * Every {@code nh_*} series' histograms over the last hour ({@link OracleSeries}; no float sample there); polled
     * until {@code expected} histograms are there or 30 s pass.
     */
    private static Map<String, TreeMap<Long, String>> histograms(PrometheusServer prom, int expected) throws Exception {
        return OracleSeries.read(
                prom, "{__name__=~\"nh_.+\"}", base + 10 * 60_000L, expected, Duration.ofSeconds(30), false, Set.of());
    }

    /** The {@link #COUNTER} series' samples over the last hour; polled until {@code expected} or 30 s pass. */
    private static Map<String, TreeMap<Long, String>> counters(PrometheusServer prom, int expected) throws Exception {
        return OracleSeries.read(
                prom,
                "{__name__=\"" + COUNTER + "\"}",
                base + 10 * 60_000L,
                expected,
                Duration.ofSeconds(30),
                true,
                Set.of());
    }
}
