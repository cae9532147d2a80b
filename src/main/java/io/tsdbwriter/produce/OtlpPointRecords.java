package io.tsdbwriter.produce;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes source points as OTLP record values: one protobuf {@code ExportMetricsServiceRequest} (opentelemetry-proto
 * {@code collector/metrics/v1}) per record, what the writer reads with {@code --input-format otlp} and the
 * OpenTelemetry Collector's {@code kafkareceiver} with its default encoding {@code otlp_proto}. Each point is a gauge
 * {@code NumberDataPoint} ({@code as_double}, {@code time_unix_nano} = the point's epoch milliseconds × 10⁶) whose
 * attributes are the point's labels in their order, plus {@code productKey} when the point has one (as the JSON point
 * decoder makes it a label); one {@code Metric} per metric name of the record, in the order of first appearance,
 * under one {@code ResourceMetrics} with an empty resource, so a receiver adds no target labels (no {@code job},
 * {@code instance} or {@code target_info}) and both readers store the same series as from the JSON point record.
 *
 * <p>Static and thread-safe.
 */
public final class OtlpPointRecords {

    private OtlpPointRecords() {}

    /**
     * The points of one record as one request.
     *
     * @throws IllegalArgumentException when {@code points} is empty
     */
    public static byte[] encode(List<SourcePoint> points) {
        if (points.isEmpty()) {
            throw new IllegalArgumentException("a record needs at least one point");
        }
        Map<String, Metric.Builder> byName = new LinkedHashMap<>();
        for (SourcePoint p : points) {
            NumberDataPoint.Builder dp = NumberDataPoint.newBuilder()
                    .setTimeUnixNano(p.timestampMs() * 1_000_000L)
                    .setAsDouble(p.value());
            for (Map.Entry<String, String> label : p.labels().entrySet()) {
                dp.addAttributes(attribute(label.getKey(), label.getValue()));
            }
            if (p.productKey() != null) {
                dp.addAttributes(attribute("productKey", p.productKey()));
            }
            byName.computeIfAbsent(
                            p.metric(),
                            name -> Metric.newBuilder().setName(name).setGauge(Gauge.newBuilder()))
                    .getGaugeBuilder()
                    .addDataPoints(dp);
        }
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
        byName.values().forEach(scope::addMetrics);
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.getDefaultInstance())
                        .addScopeMetrics(scope))
                .build()
                .toByteArray();
    }

    private static KeyValue attribute(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }
}
