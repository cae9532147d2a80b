package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
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
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.it.support.OtlpRequests;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Metadata;
import io.tsdbwriter.wire.ByteBuf;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An OTLP metric's kind, description and unit into remote write's metadata (issue 53 item 4), as Prometheus' OTLP
 * translator types them: a gauge, a monotonic sum a counter, a non-monotonic one a gauge, a histogram, a summary; the
 * description and unit as written; every series made of a metric ({@code _count}, {@code _sum}, {@code _bucket}) under
 * the metric's family.
 */
class OtlpMetadataTest {

    private static final long NS = 1_700_000_000_000L * 1_000_000;

    private static Metric.Builder metric(String name, String description, String unit) {
        return Metric.newBuilder().setName(name).setDescription(description).setUnit(unit);
    }

    private static NumberDataPoint point(double v) {
        return NumberDataPoint.newBuilder().setTimeUnixNano(NS).setAsDouble(v).build();
    }

    private static byte[] request() {
        AggregationTemporality cumulative = AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
        List<Metric> metrics = List.of(
                metric("temperature", "Room temperature.\nIn the hall.", "Cel")
                        .setGauge(Gauge.newBuilder().addDataPoints(point(21)))
                        .build(),
                metric("requests", "Requests served.", "")
                        .setSum(Sum.newBuilder()
                                .setIsMonotonic(true)
                                .setAggregationTemporality(cumulative)
                                .addDataPoints(point(7)))
                        .build(),
                metric("queue.depth", "", "{item}")
                        .setSum(Sum.newBuilder()
                                .setIsMonotonic(false)
                                .setAggregationTemporality(cumulative)
                                .addDataPoints(point(3)))
                        .build(),
                metric("latency", "RPC latency.", "s")
                        .setHistogram(Histogram.newBuilder()
                                .setAggregationTemporality(cumulative)
                                .addDataPoints(HistogramDataPoint.newBuilder()
                                        .setTimeUnixNano(NS)
                                        .setCount(2)
                                        .setSum(0.5)
                                        .addExplicitBounds(1)
                                        .addBucketCounts(2)
                                        .addBucketCounts(0)))
                        .build(),
                metric("size", "Sizes.", "By")
                        .setSummary(Summary.newBuilder()
                                .addDataPoints(SummaryDataPoint.newBuilder()
                                        .setTimeUnixNano(NS)
                                        .setCount(1)
                                        .setSum(4)))
                        .build());
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addAllMetrics(metrics)))
                .build()
                .toByteArray();
    }

    @Test
    void eachMetricIsAFamilyTypedAsPrometheusTypesOtlp() throws Exception {
        PointAmplifier amp = new PointAmplifier(
                RecordDecoders.create(InputFormat.OTLP, 1 << 20, InfluxDecoder.Precision.NS),
                RemoteWriteEncoder.factory(AmplificationPlan.relay()).newEncoder(),
                new SeriesCache(100));
        assertThat(amp.decode(request(), 0).total()).isZero();
        ByteBuf body = new ByteBuf(64);
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
        byte[] v1 = Arrays.copyOf(body.array(), body.length());
        assertThat(RemoteWriteBodies.metadataV1(v1))
                .containsExactly(
                        new Metadata(2, "temperature", "Room temperature.\nIn the hall.", "Cel"),
                        new Metadata(1, "requests", "Requests served.", ""),
                        new Metadata(2, "queue.depth", "", "{item}"),
                        new Metadata(3, "latency", "RPC latency.", "s"),
                        new Metadata(5, "size", "Sizes.", "By"));
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        List<String> md = RemoteWriteBodies.metadataV2(Arrays.copyOf(v2.array(), v2.length()));
        List<String> names = RemoteWriteBodies.decode(v1).stream()
                .map(s -> s.label("__name__"))
                .toList();
        assertThat(names).hasSize(md.size());
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            assertThat(md.get(i))
                    .as(n)
                    .isEqualTo(
                            switch (n.replaceAll("_(count|sum|bucket)$", "")) {
                                case "temperature" -> "2|Room temperature.\nIn the hall.|Cel";
                                case "requests" -> "1|Requests served.|";
                                case "queue.depth" -> "2||{item}";
                                case "latency" -> "3|RPC latency.|s";
                                case "size" -> "5|Sizes.|By";
                                default -> "unexpected series " + n;
                            });
        }
    }

    /**
     * A number data point's first exemplar goes with its sample (issue 53 item 4), as Prometheus' OTLP translator makes
     * it: string filtered attributes, then span_id and trace_id in hex; its own time in ms. 1.0 and 2.0 alike.
     */
    @Test
    void aNumberDataPointsFirstExemplarGoesWithItsSample() throws Exception {
        Exemplar x = Exemplar.newBuilder()
                .setTimeUnixNano(NS - 500_000_000L)
                .setAsDouble(0.25)
                .setSpanId(ByteString.copyFrom(new byte[] {0x0a, (byte) 0xff}))
                .setTraceId(ByteString.copyFrom(new byte[] {0x01, 0x23, 0x45}))
                .addFilteredAttributes(OtlpRequests.attr("user", "u1"))
                .build();
        NumberDataPoint withExemplar = point(5).toBuilder()
                .addExemplars(x)
                .addExemplars(x.toBuilder().setAsDouble(9))
                .build();
        byte[] request = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .addMetrics(metric("queue", "", "")
                                        .setGauge(Gauge.newBuilder()
                                                .addDataPoints(withExemplar)
                                                .addDataPoints(point(6))))))
                .build()
                .toByteArray();
        PointAmplifier amp = new PointAmplifier(
                RecordDecoders.create(InputFormat.OTLP, 1 << 20, InfluxDecoder.Precision.NS),
                RemoteWriteEncoder.factory(AmplificationPlan.relay()).newEncoder(),
                new SeriesCache(100));
        assertThat(amp.decode(request, 0).total()).isZero();
        ByteBuf body = new ByteBuf(64);
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
        byte[] v1 = Arrays.copyOf(body.array(), body.length());
        String one = "user=u1,span_id=0aff,trace_id=012345|0.25|" + (NS / 1_000_000 - 500);
        assertThat(RemoteWriteBodies.exemplarsV1(v1)).containsExactly(one, "");
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        assertThat(RemoteWriteBodies.exemplarsV2(Arrays.copyOf(v2.array(), v2.length())))
                .containsExactly(one, "");
    }
}
