package io.tsdbwriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test-side builder of OpenTelemetry {@code ExportMetricsServiceRequest}s from a real node_exporter scrape, with the
 * official {@code opentelemetry-proto} classes, shaped as the Collector's Prometheus receiver shapes them: one resource
 * ({@code service.name}, {@code host.name}, {@code service.instance.id}) and one scope per request; counters as
 * monotonic cumulative sums, gauges and untyped as gauges, summaries as summaries, every sample's labels as data point
 * attributes, the scrape's time on every point. Two histograms derived from the scrape's filesystem sizes (node_exporter
 * exposes none) give the explicit-bucket and exponential mappings real values; {@link #post} sends one to a receiver
 * (or any body with its headers, e.g. a remote write request). Stateless; thread-safe.
 */
public final class OtlpRequests {

    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private OtlpRequests() {}

    /** The request of one scrape file for {@code host}, every point at {@code timestampMs}. */
    public static ExportMetricsServiceRequest fromScrape(Path scrape, String host, long timestampMs)
            throws IOException {
        Map<String, String> types = new HashMap<>();
        for (String line : Files.readAllLines(scrape)) {
            Matcher m = TYPE.matcher(line);
            if (m.find()) {
                types.put(m.group(1), m.group(2));
            }
        }
        long ns = timestampMs * 1_000_000L;
        Map<String, Metric.Builder> metrics = new LinkedHashMap<>();
        Map<String, SummaryDataPoint.Builder> summaries = new LinkedHashMap<>();
        List<Double> sizes = new ArrayList<>();
        for (PrometheusTextParser.Sample s : PrometheusTextParser.parse(scrape).samples()) {
            String name = s.metricName();
            String family = family(name, types);
            String type = types.getOrDefault(family, "untyped");
            if (type.equals("summary")) {
                Map<String, String> labels = new TreeMap<>(s.labels());
                String quantile = labels.remove("quantile");
                SummaryDataPoint.Builder dp = summaries.computeIfAbsent(
                        family + labels,
                        k -> SummaryDataPoint.newBuilder().setTimeUnixNano(ns).addAllAttributes(attributes(labels)));
                if (name.equals(family + "_sum")) {
                    dp.setSum(s.value());
                } else if (name.equals(family + "_count")) {
                    dp.setCount((long) s.value());
                } else {
                    dp.addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                            .setQuantile(Double.parseDouble(quantile))
                            .setValue(s.value()));
                }
                metrics.computeIfAbsent(
                        family, k -> Metric.newBuilder().setName(k).setSummary(Summary.newBuilder()));
                continue;
            }
            NumberDataPoint dp = NumberDataPoint.newBuilder()
                    .setTimeUnixNano(ns)
                    .setAsDouble(s.value())
                    .addAllAttributes(attributes(s.labels()))
                    .build();
            Metric.Builder m = metrics.computeIfAbsent(
                    name,
                    k -> type.equals("counter")
                            ? Metric.newBuilder()
                                    .setName(k)
                                    .setSum(Sum.newBuilder()
                                            .setIsMonotonic(true)
                                            .setAggregationTemporality(
                                                    AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE))
                            : Metric.newBuilder().setName(k).setGauge(Gauge.newBuilder()));
            if (m.hasSum()) {
                m.getSumBuilder().addDataPoints(dp);
            } else {
                m.getGaugeBuilder().addDataPoints(dp);
            }
            if (name.equals("node_filesystem_size_bytes") && s.value() > 0) {
                sizes.add(s.value());
            }
        }
        summaries.forEach((k, dp) ->
                metrics.get(k.substring(0, k.indexOf('{'))).getSummaryBuilder().addDataPoints(dp));
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder()
                .setScope(InstrumentationScope.newBuilder()
                        .setName(
                                "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver")
                        .setVersion("0.140.0"));
        metrics.values().forEach(m -> scope.addMetrics(m.build()));
        scope.addMetrics(histogram(sizes, ns));
        scope.addMetrics(exponentialHistogram(sizes, ns));
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(attr("service.name", "node_exporter"))
                                .addAttributes(attr("host.name", host))
                                .addAttributes(attr("service.instance.id", host + ":9100")))
                        .addScopeMetrics(scope))
                .build();
    }

    private static String family(String name, Map<String, String> types) {
        for (String suffix : List.of("_sum", "_count")) {
            if (name.endsWith(suffix)) {
                String f = name.substring(0, name.length() - suffix.length());
                if ("summary".equals(types.get(f))) {
                    return f;
                }
            }
        }
        return name;
    }

    private static Metric histogram(List<Double> values, long ns) {
        double[] bounds = {1e8, 1e9, 1e10, 1e11};
        long[] counts = new long[bounds.length + 1];
        double sum = 0;
        for (double v : values) {
            int i = 0;
            while (i < bounds.length && v > bounds[i]) {
                i++;
            }
            counts[i]++;
            sum += v;
        }
        HistogramDataPoint.Builder dp = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(ns)
                .setCount(values.size())
                .setSum(sum)
                .addAttributes(attr("fstype", "all"));
        for (double b : bounds) {
            dp.addExplicitBounds(b);
        }
        for (long c : counts) {
            dp.addBucketCounts(c);
        }
        return Metric.newBuilder()
                .setName("node.filesystem.size.distribution")
                .setUnit("By")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(dp))
                .build();
    }

    /** Scale 0: bucket i covers (2^(offset+i), 2^(offset+i+1)]. */
    private static Metric exponentialHistogram(List<Double> values, long ns) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (double v : values) {
            int e = Math.getExponent(v);
            min = Math.min(min, e);
            max = Math.max(max, e);
        }
        long[] counts = new long[Math.max(0, max - min + 1)];
        double sum = 0;
        for (double v : values) {
            counts[Math.getExponent(v) - min]++;
            sum += v;
        }
        ExponentialHistogramDataPoint.Buckets.Builder positive =
                ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(values.isEmpty() ? 0 : min);
        for (long c : counts) {
            positive.addBucketCounts(c);
        }
        ExponentialHistogramDataPoint.Builder dp = ExponentialHistogramDataPoint.newBuilder()
                .setTimeUnixNano(ns)
                .setCount(values.size())
                .setSum(sum)
                .setScale(0)
                .setPositive(positive)
                .addAttributes(attr("fstype", "all"));
        return Metric.newBuilder()
                .setName("node.filesystem.size.exponential")
                .setUnit("By")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(dp))
                .build();
    }

    private static List<KeyValue> attributes(Map<String, String> labels) {
        List<KeyValue> out = new ArrayList<>();
        labels.forEach((k, v) -> out.add(attr(k, v)));
        return out;
    }

    /**
     * POSTs {@code request} as an OTLP/HTTP protobuf body ({@code Content-Type: application/x-protobuf}, uncompressed)
     * to {@code url} (a metrics receiver: Prometheus' {@code /api/v1/otlp/v1/metrics}, VictoriaMetrics'
     * {@code /opentelemetry/v1/metrics}), waiting up to 30 s for the answer, connecting within 5 s.
     *
     * @throws AssertionError when the answer's status is not {@code expectedStatus} (the message is its body)
     * @throws java.io.IOException when the request fails
     */
    public static void post(String url, ExportMetricsServiceRequest request, int expectedStatus)
            throws IOException, InterruptedException {
        post(url, request.toByteArray(), expectedStatus, "Content-Type", "application/x-protobuf");
    }

    /**
     * POSTs {@code body} as it is to {@code url} with {@code headers} (name, value, name, value, …; e.g. a remote write
     * request's {@code Content-Type}, {@code Content-Encoding: snappy} and {@code X-Prometheus-Remote-Write-Version}),
     * waiting up to 30 s for the answer, connecting within 5 s.
     *
     * @throws AssertionError when the answer's status is not {@code expectedStatus} (the message is its body)
     * @throws IllegalArgumentException when {@code headers} is not name-value pairs
     * @throws java.io.IOException when the request fails
     */
    public static void post(String url, byte[] body, int expectedStatus, String... headers)
            throws IOException, InterruptedException {
        HttpResponse<String> resp = HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(30))
                        .headers(headers)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(expectedStatus);
    }

    /** A string attribute. */
    public static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }
}
