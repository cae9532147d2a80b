package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tsdbwriter.it.support.OracleSeries;
import io.tsdbwriter.it.support.Prometheus3;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.RemoteWriteRun;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exemplars of OTLP histograms against Prometheus 3's own OTLP receiver as the oracle, both Prometheus with
 * {@code --enable-feature=exemplar-storage}: the same {@code ExportMetricsServiceRequest}s (an explicit-bucket histogram
 * {@code hx_latency} whose exemplars fall in its first bucket, two in one middle bucket and one above the last bound; an
 * exponential one {@code hx_sizes} with three exemplars; three cumulative steps a minute apart, exemplars a little
 * before their data point) are POSTed to the oracle's {@code /api/v1/otlp/v1/metrics} and produced to Kafka, where the
 * writer reads them ({@code --input-format otlp --output remote-write}) into a second Prometheus 3's remote write
 * receiver. {@code /api/v1/query_exemplars} of both must give the same exemplars per series (labels, value, timestamp):
 * (1) remote write 1.0, the explicit histogram classic (its {@code _bucket} series hold them); (2) remote write 2.0 with
 * {@code --convert-histograms-to-nhcb}, the oracle saying {@code otlp: convert_histograms_to_nhcb: true} (the native
 * histogram series hold them).
 */
class HistogramExemplarOracleIT {

    private static final String TOPIC = "otlp-histogram-exemplars";
    private static final int STEPS = 3;
    private static final List<String> EXEMPLARS = List.of("exemplar-storage");

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    /** The first step's time: 20 minutes ago, on a minute; step k is a minute later per k. */
    static long base;

    static final List<ExportMetricsServiceRequest> requests = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Prometheus3.assumeBuilt();
        base = (System.currentTimeMillis() - 20 * 60_000L) / 60_000L * 60_000L;
        stack.createTopic(TOPIC, 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int k = 0; k < STEPS; k++) {
            ExportMetricsServiceRequest r = request(k);
            requests.add(r);
            records.add(new ProducerRecord<>(TOPIC, 0, base + k * 60_000L, null, r.toByteArray()));
        }
        stack.produce(records);
    }

    static ExportMetricsServiceRequest request(int k) {
        long ms = base + k * 60_000L;
        long ns = ms * 1_000_000L;
        HistogramDataPoint.Builder explicit = HistogramDataPoint.newBuilder()
                .addAttributes(attr("host", "a"))
                .setTimeUnixNano(ns)
                .setSum(40.5 * (k + 1))
                .setCount(10L * (k + 1));
        for (double b : new double[] {0.1, 1, 10}) {
            explicit.addExplicitBounds(b);
        }
        for (long c : new long[] {1, 2, 4, 3}) {
            explicit.addBucketCounts(c * (k + 1));
        }
        explicit.addExemplars(exemplar(0.05, ms - 4000, k, 1))
                .addExemplars(exemplar(2.5, ms - 3000, k, 2))
                .addExemplars(exemplar(7.25, ms - 3500, k, 3))
                .addExemplars(exemplar(42, ms - 1000, k, 4));
        ExponentialHistogramDataPoint.Builder exponential = ExponentialHistogramDataPoint.newBuilder()
                .addAttributes(attr("host", "b"))
                .setTimeUnixNano(ns)
                .setScale(1)
                .setZeroCount(1)
                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                        .setOffset(2)
                        .addBucketCounts(3L * (k + 1))
                        .addBucketCounts(0)
                        .addBucketCounts(2L * (k + 1)))
                .setCount(5L * (k + 1) + 1)
                .setSum(12.5 * (k + 1))
                .addExemplars(exemplar(2.2, ms - 2000, k, 5))
                .addExemplars(exemplar(1.9, ms - 5000, k, 6))
                .addExemplars(exemplar(4.4, ms - 2500, k, 7));
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder()
                .addMetrics(Metric.newBuilder()
                        .setName("hx_latency")
                        .setHistogram(Histogram.newBuilder()
                                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                .addDataPoints(explicit)))
                .addMetrics(Metric.newBuilder()
                        .setName("hx_sizes")
                        .setExponentialHistogram(ExponentialHistogram.newBuilder()
                                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                .addDataPoints(exponential)));
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope))
                .build();
    }

    private static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }

    /** An exemplar with a trace id (16 bytes), a span id (8) and a string attribute, unique per step and {@code id}. */
    private static Exemplar exemplar(double value, long ms, int step, int id) {
        return Exemplar.newBuilder()
                .setAsDouble(value)
                .setTimeUnixNano(ms * 1_000_000L)
                .setTraceId(ByteString.copyFrom(new byte[] {
                    0x4b, (byte) 0xf9, 0x2f, 0x35, 0x77, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, (byte) step, (byte) id
                }))
                .setSpanId(ByteString.copyFrom(new byte[] {0x00, (byte) 0xf0, 0x67, 0, 0, 0, (byte) step, (byte) id}))
                .addFilteredAttributes(attr("user", "u" + id))
                .build();
    }

    @Test
    void remoteWrite1ClassicBucketSeriesHoldTheOraclesExemplars() throws Exception {
        compare("classic", "", 1, List.of("hx_latency_bucket", "hx_sizes"));
    }

    @Test
    void remoteWrite2NativeHistogramSeriesHoldTheOraclesExemplarsWithCustomBuckets() throws Exception {
        compare("nhcb", "otlp:\n  convert_histograms_to_nhcb: true\n", 2, List.of("hx_latency", "hx_sizes"));
    }

    /**
     * Starts the oracle with {@code config}, POSTs the requests to it, runs the writer into a second Prometheus by
     * remote write {@code version} ({@code --convert-histograms-to-nhcb} when the oracle converts) and compares their
     * exemplars; every series named in {@code withExemplars} must have some.
     */
    private static void compare(String name, String config, int version, List<String> withExemplars) throws Exception {
        try (PrometheusServer oracle =
                        Prometheus3.otlpOracle(stack.path("oracle-" + name), EXEMPLARS, config, requests);
                PrometheusServer prom = Prometheus3.receiver(stack.path("prom-" + name), EXEMPLARS)) {
            RemoteWriteRun run = new RemoteWriteRun()
                    .topic(TOPIC)
                    .group("g-" + name)
                    .url(prom.remoteWriteUrl())
                    .version(version)
                    .inputFormat("otlp")
                    .tsdbMetricsNone();
            if (!config.isEmpty()) {
                run.flags("--convert-histograms-to-nhcb");
            }
            WriterProcess w = stack.writer(name, run);
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            Map<String, List<String>> expected = exemplars(oracle);
            int total = expected.values().stream().mapToInt(List::size).sum();
            assertThat(total).as("the oracle's exemplars %s", expected).isEqualTo(STEPS * 7);
            for (String series : withExemplars) {
                assertThat(expected.keySet())
                        .as("series with exemplars")
                        .anyMatch(k -> k.contains("\"" + series + "\""));
            }
            Map<String, List<String>> actual = exemplars(prom);
            for (int i = 0; i < 30 && !actual.equals(expected); i++) {
                Thread.sleep(1000);
                actual = exemplars(prom);
            }
            assertThat(actual).isEqualTo(expected);
            System.err.printf(
                    "HistogramExemplarOracleIT: remote write %s (%s) == Prometheus' OTLP receiver: %d series, %d exemplars%n",
                    version, name, actual.size(), total);
        }
    }

    /** Per series (its labels as JSON) its exemplars over the steps ({@link OracleSeries#exemplars}). */
    private static Map<String, List<String>> exemplars(PrometheusServer prom) throws Exception {
        return OracleSeries.exemplars(prom, "{__name__=~\"hx_.+\"}", base - 600_000L, base + 600_000L);
    }
}
