package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.it.support.OtlpRequests;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which series gets which exemplar of an OTLP histogram data point, as Prometheus' OTLP translator attaches them:
 * explicit-bucket ones walked up the {@code _bucket} samples (each to the first whose bound is not below its value,
 * the rest to {@code le="+Inf"}), none to {@code _count} or {@code _sum}; all of a native histogram's (exponential, or
 * explicit with custom buckets) to its one point; the exemplars of one point ordered by time.
 */
class HistogramExemplarsDecodeTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long T_NS = T_MS * 1_000_000L;

    private final DecodedPoints points = new DecodedPoints();
    private final Rejections rejections = new Rejections(Rejections.NonFinite.KEEP);

    /** An exemplar of {@code value} at {@code T_MS - ageMs} (none when {@code ageMs} is negative: the point's time). */
    private static Exemplar exemplar(double value, long ageMs) {
        Exemplar.Builder x = Exemplar.newBuilder().setAsDouble(value);
        if (ageMs >= 0) {
            x.setTimeUnixNano(T_NS - ageMs * 1_000_000L);
        }
        return x.build();
    }

    private static Metric explicit(List<Double> bounds, double... exemplarValues) {
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(T_NS)
                .setCount(bounds.size() + 1)
                .setSum(9.5)
                .addAllExplicitBounds(bounds);
        for (int i = 0; i <= bounds.size(); i++) {
            p.addBucketCounts(1);
        }
        for (int i = 0; i < exemplarValues.length; i++) {
            p.addExemplars(exemplar(exemplarValues[i], i));
        }
        return Metric.newBuilder()
                .setName("lat")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(p))
                .build();
    }

    /** Per point with exemplars: its name and {@code le} (when it has one) → its exemplars' values, in their order. */
    private Map<String, List<Double>> decode(Metric metric) {
        new OtlpDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(OtlpDecoderTest.request(null, metric).toByteArray(), 42_000, points, rejections);
        assertThat(rejections.total()).isZero();
        PointExemplars x = points.exemplars();
        Map<String, List<Double>> out = new LinkedHashMap<>();
        int total = 0;
        for (int p = 0; p < points.count(); p++) {
            if (x.countOf(p) == 0) {
                assertThat(x.of(p)).isEqualTo(-1);
                continue;
            }
            String key = points.metric(p);
            for (int l = points.labelStart(p); l < points.labelEnd(p); l++) {
                if (points.labelName(l).equals("le")) {
                    key += "{le=" + points.labelValue(l) + "}";
                }
            }
            List<Double> values = new ArrayList<>();
            for (int i = 0; i < x.countOf(p); i++) {
                values.add(x.value(x.of(p) + i));
            }
            out.put(key, values);
            total += values.size();
        }
        assertThat(x.count()).isEqualTo(total);
        return out;
    }

    static Stream<Arguments> classic() {
        List<Double> bounds = List.of(0.1, 1.0, 10.0);
        return Stream.of(
                arguments(bounds, new double[] {}, Map.of()),
                // one per bucket, ascending (as SDKs list them); a value equal to a bound is in that bound's bucket
                arguments(
                        bounds,
                        new double[] {0.05, 1.0, 7, 50},
                        Map.of(
                                "lat_bucket{le=0.1}", List.of(0.05),
                                "lat_bucket{le=1}", List.of(1.0),
                                "lat_bucket{le=10}", List.of(7.0),
                                "lat_bucket{le=+Inf}", List.of(50.0))),
                // several in one bucket: all of them, ordered by time (the later-listed are older here)
                arguments(bounds, new double[] {2, 3, 4}, Map.of("lat_bucket{le=10}", List.of(4.0, 3.0, 2.0))),
                // below the first bound, and above the last
                arguments(
                        bounds,
                        new double[] {-5, 1e9},
                        Map.of("lat_bucket{le=0.1}", List.of(-5.0), "lat_bucket{le=+Inf}", List.of(1e9))),
                // not ascending: the walk goes on past a higher value's bucket (the translator's), the lower one with
                // it
                arguments(bounds, new double[] {5, 0.05}, Map.of("lat_bucket{le=10}", List.of(0.05, 5.0))),
                // NaN is not above any bound: the first bucket
                arguments(bounds, new double[] {Double.NaN}, Map.of("lat_bucket{le=0.1}", List.of(Double.NaN))),
                // no bounds: everything to +Inf
                arguments(List.of(), new double[] {1, 2}, Map.of("lat_bucket{le=+Inf}", List.of(2.0, 1.0))));
    }

    @ParameterizedTest
    @MethodSource("classic")
    void explicitBucketExemplarsGoToTheBucketThatHoldsThem(
            List<Double> bounds, double[] values, Map<String, List<Double>> expected) {
        assertThat(decode(explicit(bounds, values))).isEqualTo(expected);
    }

    @Test
    void withCustomBucketsAllGoToTheHistogramPointOrderedByTime() {
        points.histograms().accept(true);
        points.histograms().acceptCustomBuckets(true);
        assertThat(decode(explicit(List.of(0.1, 1.0), 0.05, 5, 0.5))).isEqualTo(Map.of("lat", List.of(0.5, 5.0, 0.05)));
    }

    private static Metric exponential(Exemplar... exemplars) {
        ExponentialHistogramDataPoint.Builder p = ExponentialHistogramDataPoint.newBuilder()
                .setTimeUnixNano(T_NS)
                .setCount(3)
                .setSum(3.5)
                .setScale(0)
                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                        .setOffset(0)
                        .addBucketCounts(2)
                        .addBucketCounts(1));
        for (Exemplar x : exemplars) {
            p.addExemplars(x);
        }
        return Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(p))
                .build();
    }

    @Test
    void exponentialExemplarsAllGoToTheNativeHistogramPointOrderedByTimeThenValue() {
        points.histograms().accept(true);
        assertThat(decode(exponential(exemplar(3, 0), exemplar(1.5, 100), exemplar(1.2, -1), exemplar(1.1, 100))))
                .isEqualTo(Map.of("lat", List.of(1.1, 1.5, 1.2, 3.0)));
        // the one without a time has the point's: T_MS, as has exemplar(3, 0); 1.2 < 3
        PointExemplars x = points.exemplars();
        assertThat(x.timestampMs(x.of(0) + 3)).isEqualTo(T_MS);
    }

    @Test
    void exponentialExemplarsKeepTheirLabelsWhenReordered() {
        points.histograms().accept(true);
        Exemplar late = exemplar(2, 0).toBuilder()
                .setTraceId(ByteString.copyFrom(new byte[] {0x0a}))
                .addFilteredAttributes(OtlpRequests.attr("user", "late"))
                .build();
        Exemplar early = exemplar(1, 50).toBuilder()
                .setSpanId(ByteString.copyFrom(new byte[] {0x0b}))
                .build();
        decode(exponential(late, early));
        PointExemplars x = points.exemplars();
        assertThat(labels(x, x.of(0))).isEqualTo("span_id=0b");
        assertThat(labels(x, x.of(0) + 1)).isEqualTo("user=late,trace_id=0a");
    }

    @Test
    void asVmrangeSamplesAnExponentialHistogramCarriesNone() {
        assertThat(decode(exponential(exemplar(3, 0)))).isEmpty();
        assertThat(points.count()).isGreaterThan(2);
    }

    @Test
    void pointsOfTwoDataPointsKeepTheirOwn() {
        points.histograms().accept(true);
        Metric m = exponential(exemplar(1, 0));
        ExponentialHistogramDataPoint second = m.getExponentialHistogram().getDataPoints(0).toBuilder()
                .setTimeUnixNano(T_NS + 1_000_000_000L)
                .clearExemplars()
                .addExemplars(exemplar(2, 0))
                .addExemplars(exemplar(4, 0))
                .build();
        ExponentialHistogramDataPoint none = second.toBuilder()
                .setTimeUnixNano(T_NS + 2_000_000_000L)
                .clearExemplars()
                .build();
        Metric both = m.toBuilder()
                .setExponentialHistogram(m.getExponentialHistogram().toBuilder()
                        .addDataPoints(second)
                        .addDataPoints(none))
                .build();
        new OtlpDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(OtlpDecoderTest.request(null, both).toByteArray(), 42_000, points, rejections);
        PointExemplars x = points.exemplars();
        assertThat(points.count()).isEqualTo(3);
        assertThat(x.countOf(0)).isEqualTo(1);
        assertThat(x.value(x.of(0))).isEqualTo(1.0);
        assertThat(x.countOf(1)).isEqualTo(2);
        assertThat(List.of(x.value(x.of(1)), x.value(x.of(1) + 1))).containsExactly(2.0, 4.0);
        assertThat(x.countOf(2)).isZero();
        assertThat(x.of(2)).isEqualTo(-1);
    }

    private static String labels(PointExemplars x, int e) {
        StringBuilder s = new StringBuilder();
        for (int l = x.labelsStart(e); l < x.labelsEnd(e); l++) {
            s.append(s.isEmpty() ? "" : ",")
                    .append(new String(x.bytes(), x.nameOffset(l), x.nameLength(l)))
                    .append('=')
                    .append(new String(x.bytes(), x.valueOffset(l), x.valueLength(l)));
        }
        return s.toString();
    }
}
