package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
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
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.otlp.OtlpJsonDecoder;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The OTLP mapping of VictoriaMetrics v1.150.0's /opentelemetry/v1/metrics, on requests built with the official classes. */
class OtlpDecoderTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long T_NS = T_MS * 1_000_000L + 123_456;
    private final OtlpDecoder decoder = new OtlpDecoder(1 << 20, Decoded.ANY_TIME);
    private final OtlpJsonDecoder json = new OtlpJsonDecoder(1 << 20, Decoded.ANY_TIME);

    static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }

    static ExportMetricsServiceRequest request(InstrumentationScope scope, Metric... metrics) {
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder().addAllMetrics(List.of(metrics));
        if (scope != null) {
            sm.setScope(scope);
        }
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(attr("service.name", "node"))
                                .addAttributes(attr("host.name", "h1")))
                        .addScopeMetrics(sm))
                .build();
    }

    private Decoded decode(ExportMetricsServiceRequest r) {
        return Decoded.of(decoder, r.toByteArray(), 42_000);
    }

    @Test
    void gaugesAndSumsAreOneSampleWithResourceScopeAndPointAttributesAsLabels() {
        Metric gauge = Metric.newBuilder()
                .setName("system.memory.usage")
                .setUnit("By")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setAsInt(1024)
                                .addAttributes(attr("state", "used"))))
                .build();
        Metric sum = Metric.newBuilder()
                .setName("system.cpu.time")
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setAsDouble(12.5)
                                .addAttributes(attr("cpu", "0"))))
                .build();
        Decoded d = decode(
                request(InstrumentationScope.newBuilder().setName("hostmetrics").build(), gauge, sum));
        assertThat(d.rejections.total()).isZero();
        assertThat(d.points)
                .containsExactly(
                        "system.memory.usage{host.name=\"h1\",scope.name=\"hostmetrics\",scope.version=\"unknown\",service.name=\"node\",state=\"used\"} 1024.0 @"
                                + T_MS,
                        "system.cpu.time{cpu=\"0\",host.name=\"h1\",scope.name=\"hostmetrics\",scope.version=\"unknown\",service.name=\"node\"} 12.5 @"
                                + T_MS);
    }

    @Test
    void withoutAScopeThereAreNoScopeLabelsAndWithoutATimeTheKafkaTimestamp() {
        Metric gauge = Metric.newBuilder()
                .setName("up")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(1)))
                .build();
        assertThat(decode(request(null, gauge)).points)
                .containsExactly("up{host.name=\"h1\",service.name=\"node\"} 1.0 @42000");
    }

    @Test
    void attributeValuesOfEveryKindAreFormattedAsVictoriaMetricsDoes() {
        KeyValue kv = KeyValue.newBuilder()
                .setKey("k8s")
                .setValue(AnyValue.newBuilder()
                        .setKvlistValue(KeyValueList.newBuilder()
                                .addValues(attr("pod", "p-1"))
                                .addValues(KeyValue.newBuilder()
                                        .setKey("n")
                                        .setValue(AnyValue.newBuilder().setIntValue(-7)))))
                .build();
        NumberDataPoint dp = NumberDataPoint.newBuilder()
                .setTimeUnixNano(T_NS)
                .setAsDouble(1)
                .addAttributes(KeyValue.newBuilder()
                        .setKey("b")
                        .setValue(AnyValue.newBuilder().setBoolValue(true)))
                .addAttributes(KeyValue.newBuilder()
                        .setKey("i")
                        .setValue(AnyValue.newBuilder().setIntValue(1234567890123L)))
                .addAttributes(KeyValue.newBuilder()
                        .setKey("d")
                        .setValue(AnyValue.newBuilder().setDoubleValue(0.00001)))
                .addAttributes(KeyValue.newBuilder()
                        .setKey("raw")
                        .setValue(AnyValue.newBuilder().setBytesValue(ByteString.copyFromUtf8("hi"))))
                .addAttributes(KeyValue.newBuilder()
                        .setKey("arr")
                        .setValue(AnyValue.newBuilder()
                                .setArrayValue(ArrayValue.newBuilder()
                                        .addValues(AnyValue.newBuilder().setStringValue("a"))
                                        .addValues(AnyValue.newBuilder().setIntValue(2)))))
                .addAttributes(attr("empty", ""))
                .addAttributes(kv)
                .build();
        Metric m = Metric.newBuilder()
                .setName("m")
                .setGauge(Gauge.newBuilder().addDataPoints(dp))
                .build();
        assertThat(decode(request(null, m)).points)
                .containsExactly("m{arr=\"[\"a\",2]\",b=\"true\",d=\"0.00001\",host.name=\"h1\","
                        + "i=\"1234567890123\",k8s.n=\"-7\",k8s.pod=\"p-1\",raw=\"aGk=\",service.name=\"node\"} 1.0 @"
                        + T_MS);
    }

    @Test
    void histogramsAreCountSumAndCumulativeBucketsUpToInf() {
        Metric h = Metric.newBuilder()
                .setName("http.server.duration")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(10)
                                .setSum(3.5)
                                .addAllExplicitBounds(List.of(0.005, 1.0, 10.0))
                                .addAllBucketCounts(List.of(1L, 2L, 3L, 4L))))
                .build();
        Decoded d = decode(request(null, h));
        String labels = "host.name=\"h1\",service.name=\"node\"";
        assertThat(d.points)
                .containsExactly(
                        "http.server.duration_count{" + labels + "} 10.0 @" + T_MS,
                        "http.server.duration_sum{" + labels + "} 3.5 @" + T_MS,
                        "http.server.duration_bucket{host.name=\"h1\",le=\"0.005\",service.name=\"node\"} 1.0 @" + T_MS,
                        "http.server.duration_bucket{host.name=\"h1\",le=\"1\",service.name=\"node\"} 3.0 @" + T_MS,
                        "http.server.duration_bucket{host.name=\"h1\",le=\"10\",service.name=\"node\"} 6.0 @" + T_MS,
                        "http.server.duration_bucket{host.name=\"h1\",le=\"+Inf\",service.name=\"node\"} 10.0 @"
                                + T_MS);
    }

    @Test
    void summariesAreCountSumAndQuantiles() {
        Metric s = Metric.newBuilder()
                .setName("go_gc_duration_seconds")
                .setSummary(Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(5)
                                .setSum(0.25)
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(0.5)
                                        .setValue(0.01))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(1)
                                        .setValue(0.2))))
                .build();
        String labels = "host.name=\"h1\",";
        assertThat(decode(request(null, s)).points)
                .containsExactly(
                        "go_gc_duration_seconds_count{" + labels + "service.name=\"node\"} 5.0 @" + T_MS,
                        "go_gc_duration_seconds_sum{" + labels + "service.name=\"node\"} 0.25 @" + T_MS,
                        "go_gc_duration_seconds{" + labels + "quantile=\"0.5\",service.name=\"node\"} 0.01 @" + T_MS,
                        "go_gc_duration_seconds{" + labels + "quantile=\"1\",service.name=\"node\"} 0.2 @" + T_MS);
    }

    @Test
    void exponentialHistogramsBecomeVmrangeBuckets() {
        Metric e = Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(6)
                                .setSum(9)
                                .setScale(0)
                                .setZeroCount(1)
                                .setZeroThreshold(0.001)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(1)
                                        .addAllBucketCounts(List.of(2L, 0L, 3L)))))
                .build();
        String labels = "host.name=\"h1\",service.name=\"node\"";
        assertThat(decode(request(null, e)).points)
                .containsExactly(
                        "lat_count{" + labels + "} 6.0 @" + T_MS,
                        "lat_sum{" + labels + "} 9.0 @" + T_MS,
                        "lat_bucket{" + labels + ",vmrange=\"-1.000e-03...1.000e-03\"} 1.0 @" + T_MS,
                        "lat_bucket{" + labels + ",vmrange=\"2.000e+00...4.000e+00\"} 2.0 @" + T_MS,
                        "lat_bucket{" + labels + ",vmrange=\"8.000e+00...1.600e+01\"} 3.0 @" + T_MS);
    }

    @Test
    void deltaTemporalityBrokenHistogramsAndUnrecordedPointsAreCountedAndTheRestKept() {
        Metric delta = Metric.newBuilder()
                .setName("requests")
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setAsInt(3))
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS + 1)
                                .setAsInt(4)))
                .build();
        Metric broken = Metric.newBuilder()
                .setName("h")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(1)
                                .addAllExplicitBounds(List.of(1.0, 2.0))
                                .addAllBucketCounts(List.of(1L))))
                .build();
        Metric stale = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setFlags(1))
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setAsDouble(2)))
                .build();
        Decoded d = decode(request(null, delta, broken, stale));
        assertThat(d.points).containsExactly("g{host.name=\"h1\",service.name=\"node\"} 2.0 @" + T_MS);
        assertThat(d.rejections.count(DecodeError.UNSUPPORTED_TEMPORALITY)).isEqualTo(2);
        assertThat(d.rejections.count(DecodeError.INVALID_DATA_POINT)).isEqualTo(1);
        assertThat(d.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(1);
        assertThat(d.rejections.malformed()).isTrue();
        assertThat(d.rejections.first()).isEqualTo(DecodeError.UNSUPPORTED_TEMPORALITY);
        assertThat(d.rejections.firstDetail()).contains("delta sum 'requests'");
    }

    @Test
    void intoRemoteWriteAnUnrecordedPointIsPrometheusStalenessMarkerAndNaNAndInfinityPass() {
        Metric stale = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setFlags(1))
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS + 1_000_000)
                                .setAsDouble(Double.NaN))
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS + 2_000_000)
                                .setAsDouble(Double.POSITIVE_INFINITY)))
                .build();
        DecodedPoints out = new DecodedPoints();
        Rejections keep = new Rejections(Rejections.NonFinite.KEEP);
        decoder.decode(request(null, stale).toByteArray(), 0, out, keep);

        assertThat(keep.total()).isZero();
        assertThat(out.count()).isEqualTo(3);
        assertThat(Double.doubleToRawLongBits(out.value(0)))
                .as("Prometheus' value.StaleNaN, as its OTLP receiver writes it")
                .isEqualTo(Rejections.STALE_MARKER_BITS);
        assertThat(out.value(1)).isNaN();
        assertThat(Double.doubleToRawLongBits(out.value(1))).isNotEqualTo(Rejections.STALE_MARKER_BITS);
        assertThat(out.value(2)).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void bytesThatAreNotARequestAreRefusedWhole() {
        assertThat(Decoded.of(decoder, "not a protobuf message".getBytes(StandardCharsets.UTF_8), 0)
                        .rejections
                        .first())
                .isEqualTo(DecodeError.INVALID_PROTOBUF);
        byte[] good = request(
                        null,
                        Metric.newBuilder()
                                .setName("up")
                                .setGauge(Gauge.newBuilder()
                                        .addDataPoints(
                                                NumberDataPoint.newBuilder().setAsDouble(1)))
                                .build())
                .toByteArray();
        Decoded truncated = Decoded.of(decoder, Arrays.copyOf(good, good.length - 3), 0);
        assertThat(truncated.points).isEmpty();
        assertThat(truncated.rejections.first()).isEqualTo(DecodeError.INVALID_PROTOBUF);
        assertThat(Decoded.of(
                                decoder,
                                ExportMetricsServiceRequest.getDefaultInstance().toByteArray().length == 0
                                        ? new byte[] {0x0A, 0x00}
                                        : new byte[0],
                                0)
                        .rejections
                        .first())
                .isEqualTo(DecodeError.NO_SAMPLES);
    }

    @Test
    void timestampsOutsideTheWindowAreRefusedPerPoint() {
        OtlpDecoder windowed = new OtlpDecoder(1 << 20);
        Metric m = Metric.newBuilder()
                .setName("up")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setAsDouble(1))
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(T_MS)
                                .setAsDouble(2)))
                .build(); // ms sent as ns
        Decoded d = Decoded.of(windowed, request(null, m).toByteArray(), 0);
        assertThat(d.points).hasSize(1);
        assertThat(d.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(1);
    }

    @Test
    void theJsonEncodingGivesTheSamePointsAsProtobuf() throws Exception {
        Metric h = Metric.newBuilder()
                .setName("http.server.duration")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(3)
                                .setSum(1.5)
                                .addAllExplicitBounds(List.of(0.5))
                                .addAllBucketCounts(List.of(1L, 2L))))
                .build();
        ExportMetricsServiceRequest r = request(
                InstrumentationScope.newBuilder().setName("s").setVersion("1.2").build(), h);
        String text = JsonFormat.printer().print(r);
        assertThat(Decoded.of(json, text, 42_000).points)
                .isEqualTo(decode(r).points)
                .hasSize(4);
        assertThat(Decoded.of(json, "{\"resourceMetrics\": 5}", 0).rejections.first())
                .isEqualTo(DecodeError.INVALID_JSON);
        assertThat(Decoded.of(json, "{\"resourceMetrics\":[],\"unknownField\":1}", 0)
                        .rejections
                        .first())
                .isEqualTo(DecodeError.NO_SAMPLES);
    }

    static Stream<Arguments> formatFloatIsGosShortestPlainDecimal() {
        return Stream.of(
                arguments(0.005, "0.005"),
                arguments(10.0, "10"),
                arguments(1e-7, "0.0000001"),
                arguments(2.5e21, "2500000000000000000000"),
                arguments(Double.POSITIVE_INFINITY, "+Inf"),
                arguments(0.1 + 0.2, "0.30000000000000004"));
    }

    @ParameterizedTest(name = "{0} → {1}")
    @MethodSource
    void formatFloatIsGosShortestPlainDecimal(double value, String expected) throws Exception {
        Method f = OtlpDecoder.class.getDeclaredMethod("formatFloat", double.class);
        f.setAccessible(true);
        assertThat(f.invoke(null, value)).isEqualTo(expected);
    }
}
