package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Histogram points where the output carries native histograms: OTLP exponential histograms, OTLP explicit-bucket ones
 * with custom buckets accepted ({@code --convert-histograms-to-nhcb}), remote write's own.
 */
class NativeHistogramDecodeTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long T_NS = T_MS * 1_000_000L + 123_456;
    private static final long STALE_NAN_BITS = 0x7ff0000000000002L;

    private final DecodedPoints points = new DecodedPoints();
    private final Rejections rejections = new Rejections(Rejections.NonFinite.KEEP);

    NativeHistogramDecodeTest() {
        points.histograms().accept(true);
    }

    private static Metric exponential(ExponentialHistogramDataPoint.Builder... dataPoints) {
        ExponentialHistogram.Builder h = ExponentialHistogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        for (ExponentialHistogramDataPoint.Builder p : dataPoints) {
            h.addDataPoints(p);
        }
        return Metric.newBuilder().setName("lat").setExponentialHistogram(h).build();
    }

    private static ExponentialHistogramDataPoint.Builder point(int scale, int offset, Long... counts) {
        return ExponentialHistogramDataPoint.newBuilder()
                .setTimeUnixNano(T_NS)
                .setCount(Arrays.stream(counts).mapToLong(Long::longValue).sum() + 1)
                .setSum(9.5)
                .setScale(scale)
                .setZeroCount(1)
                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                        .setOffset(offset)
                        .addAllBucketCounts(List.of(counts)));
    }

    private void decodeOtlp(ExportMetricsServiceRequest r) {
        new OtlpDecoder(1 << 20, Decoded.ANY_TIME).decode(r.toByteArray(), 42_000, points, rejections);
    }

    @Test
    void anExponentialHistogramIsOneHistogramPointNamedAsItsMetric() {
        decodeOtlp(OtlpDecoderTest.request(
                null,
                exponential(point(2, -1, 2L, 0L, 3L)
                        .setNegative(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                .setOffset(0)
                                .addBucketCounts(4))
                        .setCount(10))));
        assertThat(points.count()).isEqualTo(1);
        assertThat(points.metric(0)).isEqualTo("lat");
        assertThat(points.timestampMs(0)).isEqualTo(T_MS);
        assertThat(points.labelName(points.labelStart(0))).isEqualTo("host.name");
        NativeHistogramMessage h = NativeHistogramMessage.of(points, 0);
        assertThat(h.countInt()).isEqualTo(10);
        assertThat(h.countFloat()).isNull();
        assertThat(h.sum()).isEqualTo(9.5);
        assertThat(h.schema()).isEqualTo(2);
        assertThat(h.zeroThreshold()).isEqualTo(1e-128); // Prometheus' default: the point gives none
        assertThat(h.zeroCountInt()).isEqualTo(1);
        assertThat(h.positive()).isEqualTo(Map.of(0, 2L, 2, 3L)); // OTLP index o + i is native index o + i + 1
        assertThat(h.negative()).isEqualTo(Map.of(1, 4L));
        assertThat(h.resetHint()).isZero();
        assertThat(h.timestamp()).isZero(); // the point's: each time copy writes its own
        int spanned = Stream.concat(h.positiveSpans().stream(), h.negativeSpans().stream())
                .mapToInt(span -> span[1])
                .sum();
        assertThat(points.histograms().buckets(points.histograms().of(0)))
                .isEqualTo(spanned)
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void aScaleAbove8IsMergedTo8AndTheZeroThresholdKept() {
        decodeOtlp(OtlpDecoderTest.request(
                null, exponential(point(10, 0, 1L, 1L, 1L, 1L, 5L).setZeroThreshold(0.001))));
        NativeHistogramMessage h = NativeHistogramMessage.of(points, 0);
        assertThat(h.schema()).isEqualTo(8);
        assertThat(h.positive()).isEqualTo(Map.of(1, 4L, 2, 5L));
        assertThat(h.zeroThreshold()).isEqualTo(0.001);
        assertThat(h.countInt()).isEqualTo(10);
    }

    @Test
    void aScaleBelowMinus4IsRefusedAndCountedTheOtherPointsKept() {
        decodeOtlp(OtlpDecoderTest.request(null, exponential(point(-5, 0, 1L), point(-4, 0, 1L))));
        assertThat(rejections.count(DecodeError.INVALID_DATA_POINT)).isEqualTo(1);
        assertThat(points.count()).isEqualTo(1);
        assertThat(NativeHistogramMessage.of(points, 0).schema()).isEqualTo(-4);
    }

    @Test
    void aPointWithoutRecordedValueIsAStaleHistogram() {
        decodeOtlp(OtlpDecoderTest.request(null, exponential(point(0, 0, 1L).setFlags(1))));
        NativeHistogramMessage h = NativeHistogramMessage.of(points, 0);
        assertThat(h.countInt()).isEqualTo(STALE_NAN_BITS);
        assertThat(Double.doubleToRawLongBits(h.sum())).isEqualTo(STALE_NAN_BITS);
    }

    @Test
    void withoutAcceptingHistogramsExponentialOnesStayVmrangeSamples() {
        points.histograms().accept(false);
        decodeOtlp(OtlpDecoderTest.request(null, exponential(point(-5, 0, 1L))));
        assertThat(points.histograms().count()).isZero();
        assertThat(points.count()).isEqualTo(4); // _count, _sum, the zero bucket and one vmrange bucket
        assertThat(points.metric(0)).isEqualTo("lat_count");
    }

    private static Metric explicit(HistogramDataPoint.Builder... dataPoints) {
        Histogram.Builder h = Histogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        for (HistogramDataPoint.Builder p : dataPoints) {
            h.addDataPoints(p);
        }
        return Metric.newBuilder().setName("lat").setHistogram(h).build();
    }

    /** An explicit-bucket data point: count the buckets' total, sum 9.5. */
    private static HistogramDataPoint.Builder explicitPoint(List<Double> bounds, Long... counts) {
        return HistogramDataPoint.newBuilder()
                .setTimeUnixNano(T_NS)
                .setCount(Arrays.stream(counts).mapToLong(Long::longValue).sum())
                .setSum(9.5)
                .addAllExplicitBounds(bounds)
                .addAllBucketCounts(List.of(counts));
    }

    @Test
    void withCustomBucketsAnExplicitHistogramIsOneHistogramPointWithItsBoundsAsCustomValues() {
        points.histograms().acceptCustomBuckets(true);
        decodeOtlp(OtlpDecoderTest.request(null, explicit(explicitPoint(List.of(0.5, 1.0, 2.5), 3L, 0L, 4L, 0L))));
        assertThat(rejections.total()).isZero();
        assertThat(points.count()).isEqualTo(1);
        assertThat(points.metric(0)).isEqualTo("lat");
        assertThat(points.timestampMs(0)).isEqualTo(T_MS);
        assertThat(points.labelName(points.labelStart(0))).isEqualTo("host.name");
        NativeHistogramMessage h = NativeHistogramMessage.of(points, 0);
        assertThat(h.countInt()).isEqualTo(7);
        assertThat(h.countFloat()).isNull();
        assertThat(h.sum()).isEqualTo(9.5);
        assertThat(h.schema()).isEqualTo(-53);
        assertThat(h.zeroThreshold()).isZero();
        assertThat(h.zeroCountInt()).isZero();
        assertThat(h.customValues()).containsExactly(0.5, 1.0, 2.5);
        assertThat(h.positiveSpans()).hasSize(1);
        assertThat(h.positiveSpans().get(0)).containsExactly(0, 4); // the empty +Inf bucket included
        assertThat(h.positiveDeltas()).containsExactly(3L, -3L, 4L, -4L);
        assertThat(h.positive()).isEqualTo(Map.of(0, 3L, 2, 4L));
        assertThat(h.negativeSpans()).isEmpty();
        assertThat(h.negativeDeltas()).isEmpty();
        assertThat(h.resetHint()).isZero();
        assertThat(h.timestamp()).isZero();
    }

    @Test
    void withCustomBucketsAPointWithoutSumOrWithoutRecordedValue() {
        points.histograms().acceptCustomBuckets(true);
        decodeOtlp(OtlpDecoderTest.request(
                null,
                explicit(
                        explicitPoint(List.of(1.0), 0L, 0L).clearSum(),
                        explicitPoint(List.of(1.0), 1L, 0L).setFlags(1))));
        assertThat(points.count()).isEqualTo(2);
        NativeHistogramMessage empty = NativeHistogramMessage.of(points, 0);
        assertThat(empty.countInt()).isZero();
        assertThat(empty.sum()).isZero();
        assertThat(empty.positiveSpans()).isEmpty();
        assertThat(empty.customValues()).containsExactly(1.0);
        NativeHistogramMessage stale = NativeHistogramMessage.of(points, 1);
        assertThat(stale.countInt()).isEqualTo(STALE_NAN_BITS);
        assertThat(Double.doubleToRawLongBits(stale.sum())).isEqualTo(STALE_NAN_BITS);
        assertThat(stale.schema()).isEqualTo(-53);
    }

    @Test
    void withCustomBucketsWhatPrometheusWouldNotStoreIsRefusedTheOtherPointsKept() {
        points.histograms().acceptCustomBuckets(true);
        decodeOtlp(OtlpDecoderTest.request(
                null,
                explicit(
                        explicitPoint(List.of(2.0, 1.0), 1L, 1L, 1L),
                        explicitPoint(List.of(1.0, Double.POSITIVE_INFINITY), 1L, 1L, 1L),
                        explicitPoint(List.of(1.0), 1L, 1L).setCount(3),
                        explicitPoint(List.of(1.0, 2.0), 1L, 1L, 1L))));
        assertThat(rejections.count(DecodeError.INVALID_DATA_POINT)).isEqualTo(3);
        assertThat(points.count()).isEqualTo(1);
        assertThat(NativeHistogramMessage.of(points, 0).customValues()).containsExactly(1.0, 2.0);
    }

    @Test
    void withoutCustomBucketsOrWithoutAcceptingHistogramsExplicitOnesStayClassicSeries() {
        decodeOtlp(OtlpDecoderTest.request(null, explicit(explicitPoint(List.of(1.0), 1L, 2L))));
        assertThat(points.histograms().count()).isZero();
        assertThat(points.count()).isEqualTo(4); // _count, _sum, le="1", le="+Inf"
        assertThat(points.metric(0)).isEqualTo("lat_count");
        points.histograms().acceptCustomBuckets(true);
        points.histograms().accept(false); // the import API
        assertThat(points.histograms().customBuckets()).isFalse();
        decodeOtlp(OtlpDecoderTest.request(null, explicit(explicitPoint(List.of(1.0), 1L, 2L))));
        assertThat(points.histograms().count()).isZero();
        assertThat(points.count()).isEqualTo(4);
    }

    @Test
    void remoteWriteHistogramsPassThroughButForTheirTimestamp() throws IOException {
        byte[] first = NativeHistogramMessage.integer(5, 2.5, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {1, 2}, 1000);
        byte[] second = NativeHistogramMessage.integer(9, 4, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {2, 3}, 2000);
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(NativeHistogramMessage.writeRequest(first, second), 0, points, rejections);
        assertThat(points.count()).isEqualTo(2);
        assertThat(points.timestampMs(0)).isEqualTo(1000);
        assertThat(points.timestampMs(1)).isEqualTo(2000);
        assertThat(points.metric(1)).isEqualTo("up");
        PointHistograms hs = points.histograms();
        int h = hs.of(1);
        byte[] withoutTimestamp =
                NativeHistogramMessage.integer(9, 4, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {2, 3}, 0);
        assertThat(Arrays.copyOfRange(hs.bytes(), hs.offset(h), hs.offset(h) + hs.length(h)))
                .isEqualTo(withoutTimestamp);
        assertThat(NativeHistogramMessage.of(points, 1).positive()).isEqualTo(Map.of(-2, 2L, -1, 5L));
        assertThat(hs.buckets(h)).as("the spans' lengths").isEqualTo(2);
    }

    @Test
    void withoutAcceptingHistogramsRemoteWriteOnesBecomeVmrangeSamples() throws IOException {
        points.histograms().accept(false); // the import API: VmrangeHistogramsTest has the cases
        byte[] h = NativeHistogramMessage.integer(5, 2.5, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {1, 2}, 1000);
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(NativeHistogramMessage.writeRequest(h), 0, points, rejections);
        assertThat(points.histograms().count()).isZero();
        assertThat(points.count()).isEqualTo(5); // _count, _sum, the zero bucket, two buckets
        assertThat(points.metric(0)).isEqualTo("up_count");
        assertThat(points.value(0)).isEqualTo(5);
        assertThat(points.metric(1)).isEqualTo("up_sum");
        assertThat(points.value(1)).isEqualTo(2.5);
        assertThat(points.metric(4)).isEqualTo("up_bucket");
        assertThat(points.value(4)).isEqualTo(3);
        assertThat(points.timestampMs(4)).isEqualTo(1000);
        assertThat(rejections.total()).isZero();
    }
}
