package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LatencyHistogramsTest {

    private static final long NEWEST = 1795305000000L;

    /** A data point with its resource's attributes. */
    private record Point(List<KeyValue> resource, Metric metric, ExponentialHistogramDataPoint dp) {
        String series() {
            StringBuilder b = new StringBuilder();
            resource.forEach(kv -> b.append(kv.getKey())
                    .append('=')
                    .append(kv.getValue().getStringValue())
                    .append(','));
            dp.getAttributesList().forEach(kv -> b.append(kv.getKey())
                    .append('=')
                    .append(kv.getValue())
                    .append(','));
            return b.toString();
        }

        /** The point without its metric (whose other points depend on how the points were put into records). */
        String withoutMetric() {
            return resource.toString() + dp;
        }
    }

    private static List<Point> points(LatencyHistograms in, int pointsPerRecord) throws InvalidProtocolBufferException {
        List<Point> out = new ArrayList<>();
        for (Iterator<LatencyHistograms.Record> it = in.records(pointsPerRecord); it.hasNext(); ) {
            LatencyHistograms.Record r = it.next();
            ExportMetricsServiceRequest req = ExportMetricsServiceRequest.parseFrom(r.value());
            int n = 0;
            for (ResourceMetrics rm : req.getResourceMetricsList()) {
                for (var sm : rm.getScopeMetricsList()) {
                    for (Metric m : sm.getMetricsList()) {
                        for (ExponentialHistogramDataPoint dp :
                                m.getExponentialHistogram().getDataPointsList()) {
                            out.add(new Point(rm.getResource().getAttributesList(), m, dp));
                            n++;
                        }
                    }
                }
            }
            assertThat(r.points()).isEqualTo(n);
            assertThat(n).isBetween(1, pointsPerRecord);
        }
        return out;
    }

    @Test
    void everySeriesOncePerTimeInTimeOrderWithTheOtelShape() throws Exception {
        LatencyHistograms in = new LatencyHistograms(100, 5, "host-1", NEWEST, 60_000, 7);
        List<Point> points = points(in, 1);

        assertThat(in.size()).isEqualTo(500);
        assertThat(points).hasSize(500);
        Set<String> series = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            series.add(points.get(i).series());
        }
        assertThat(series).hasSize(100);
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            assertThat(p.series()).isEqualTo(points.get(i % 100).series());
            assertThat(p.dp().getTimeUnixNano()).isEqualTo(in.timestampMs(i / 100) * 1_000_000L);
            assertThat(p.dp().getStartTimeUnixNano()).isEqualTo((NEWEST - 5 * 60_000) * 1_000_000L);
            assertThat(p.metric().getName()).isEqualTo("http.server.request.duration");
            assertThat(p.metric().getUnit()).isEqualTo("s");
            assertThat(p.metric().getExponentialHistogram().getAggregationTemporality())
                    .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
            assertThat(p.resource()).extracting(KeyValue::getKey).contains("service.name", "service.instance.id");
            assertThat(p.resource())
                    .filteredOn(kv -> kv.getKey().equals("instanceNo"))
                    .extracting(kv -> kv.getValue().getStringValue())
                    .containsExactly("host-1");
            assertThat(p.dp().getAttributesList())
                    .extracting(KeyValue::getKey)
                    .containsExactly("http.request.method", "http.route", "http.response.status_code");
        }
        assertThat(points.get(points.size() - 1).dp().getTimeUnixNano()).isEqualTo(NEWEST * 1_000_000L);
        Set<String> services = new HashSet<>();
        points.forEach(p -> services.add(p.resource().get(0).getValue().getStringValue()));
        assertThat(services).hasSize(8);
    }

    @Test
    void countsAreConsistentAndCumulativeAndTheScaleIsOneTheWriterTakes() throws Exception {
        LatencyHistograms in = new LatencyHistograms(200, 60, null, NEWEST, 60_000, 1);
        List<Point> points = points(in, 37);
        Map<String, ExponentialHistogramDataPoint> last = new HashMap<>();
        Set<Integer> scales = new HashSet<>();
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            ExponentialHistogramDataPoint dp = p.dp();
            long buckets = dp.getPositive().getBucketCountsList().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            assertThat(buckets + dp.getZeroCount()).as(p.series()).isEqualTo(dp.getCount());
            assertThat(dp.getCount()).isPositive();
            assertThat(dp.getNegative().getBucketCountsCount()).isZero();
            assertThat(dp.getPositive().getBucketCountsCount()).isBetween(1, 160);
            assertThat(dp.getPositive().getBucketCounts(0)).isPositive();
            assertThat(dp.getPositive().getBucketCounts(dp.getPositive().getBucketCountsCount() - 1))
                    .isPositive();
            assertThat(dp.getScale()).isBetween(-4, 20);
            assertThat(dp.getMin()).isPositive().isLessThanOrEqualTo(dp.getMax());
            assertThat(dp.getSum()).isBetween(dp.getMin() * dp.getCount(), dp.getMax() * dp.getCount());
            if (i >= 10 * 200) {
                scales.add(dp.getScale());
            }
            ExponentialHistogramDataPoint before = last.put(p.series(), dp);
            if (before != null) {
                assertThat(dp.getCount()).isGreaterThanOrEqualTo(before.getCount());
                assertThat(dp.getSum()).isGreaterThanOrEqualTo(before.getSum());
                assertThat(dp.getScale()).isLessThanOrEqualTo(before.getScale());
                assertCumulative(before, dp);
            }
        }
        // the SDK's 20 while a series has seen one latency; then the spread keeps it where native histograms work
        assertThat(scales).allSatisfy(s -> assertThat(s).isBetween(0, 8));
    }

    /** Every bucket of {@code after}, at {@code before}'s buckets merged down to its scale, holds at least as much. */
    private static void assertCumulative(ExponentialHistogramDataPoint before, ExponentialHistogramDataPoint after) {
        int by = before.getScale() - after.getScale();
        Map<Integer, Long> merged = new HashMap<>();
        List<Long> counts = before.getPositive().getBucketCountsList();
        for (int i = 0; i < counts.size(); i++) {
            merged.merge((before.getPositive().getOffset() + i) >> by, counts.get(i), Long::sum);
        }
        merged.forEach((index, c) -> {
            int i = index - after.getPositive().getOffset();
            assertThat(i).isBetween(0, after.getPositive().getBucketCountsCount() - 1);
            assertThat(after.getPositive().getBucketCounts(i)).isGreaterThanOrEqualTo(c);
        });
    }

    @Test
    void theBucketsMoveWithTheDriftingMedian() throws Exception {
        LatencyHistograms in = new LatencyHistograms(1, 60, null, NEWEST, 60_000, 3);
        double lowest = Double.MAX_VALUE;
        double highest = 0;
        for (int k = 0; k < 60; k++) {
            double m = in.median(0, in.timestampMs(k));
            lowest = Math.min(lowest, m);
            highest = Math.max(highest, m);
        }
        assertThat(highest / lowest).isGreaterThan(1.5);
        List<Point> points = points(in, 1);
        ExponentialHistogramDataPoint first = points.get(0).dp();
        ExponentialHistogramDataPoint newest = points.get(59).dp();
        assertThat(newest.getPositive().getBucketCountsCount() << (first.getScale() - newest.getScale()))
                .isGreaterThan(first.getPositive().getBucketCountsCount());
    }

    @Test
    void theSameSeedGivesTheSameRecordsAndAnotherSeedOthers() throws Exception {
        LatencyHistograms a = new LatencyHistograms(50, 10, "h", NEWEST, 15_000, 42);
        LatencyHistograms b = new LatencyHistograms(50, 10, "h", NEWEST, 15_000, 42);
        LatencyHistograms c = new LatencyHistograms(50, 10, "h", NEWEST, 15_000, 43);
        List<byte[]> ra = values(a, 7);
        assertThat(values(b, 7)).containsExactlyElementsOf(ra);
        assertThat(values(a, 7)).containsExactlyElementsOf(ra);
        // grouped by resource, a record's points come in another order: the same points all the same
        assertThat(points(a, 500).stream().map(Point::withoutMetric).toList())
                .containsExactlyInAnyOrderElementsOf(
                        points(a, 7).stream().map(Point::withoutMetric).toList());
        assertThat(values(c, 7).get(0)).isNotEqualTo(ra.get(0));
    }

    private static List<byte[]> values(LatencyHistograms in, int perRecord) {
        List<byte[]> out = new ArrayList<>();
        in.records(perRecord).forEachRemaining(r -> out.add(r.value()));
        return out;
    }

    @Test
    void aRecordGroupsItsPointsByResourceAndIsKeyedByItsFirstSeries() throws Exception {
        LatencyHistograms in = new LatencyHistograms(16, 1, "h", NEWEST, 60_000, 5);
        LatencyHistograms.Record r = in.records(16).next();
        ExportMetricsServiceRequest req = ExportMetricsServiceRequest.parseFrom(r.value());
        assertThat(req.getResourceMetricsCount()).isEqualTo(8);
        assertThat(req.getResourceMetrics(0)
                        .getScopeMetrics(0)
                        .getMetrics(0)
                        .getExponentialHistogram()
                        .getDataPointsCount())
                .isEqualTo(2);
        assertThat(r.key()).isEqualTo("frontend-0 GET / 200");
        assertThat(r.points()).isEqualTo(16);
    }

    @Test
    void theWritersOtlpDecoderTakesEveryRecordAsNativeHistogramsAndAsVmrangeBuckets() {
        LatencyHistograms in = new LatencyHistograms(100, 30, "h", NEWEST, 60_000, 11);
        for (boolean native_ : new boolean[] {true, false}) {
            OtlpDecoder decoder = new OtlpDecoder(1 << 20, Decoded.ANY_TIME);
            DecodedPoints points = new DecodedPoints();
            points.histograms().accept(native_);
            Rejections rejections = new Rejections();
            long decoded = 0;
            for (Iterator<LatencyHistograms.Record> it = in.records(50); it.hasNext(); ) {
                points.clear();
                rejections.clear();
                decoder.decode(it.next().value(), NEWEST, points, rejections);
                assertThat(rejections.total()).as(rejections.firstDetail()).isZero();
                decoded += points.count();
            }
            if (native_) {
                assertThat(decoded).isEqualTo(in.size());
            } else {
                assertThat(decoded).as("_count, _sum and vmrange buckets").isGreaterThan(in.size() * 50);
            }
        }
    }

    @Test
    void refusesCountsOutOfRange() {
        assertThatThrownBy(() -> new LatencyHistograms(0, 1, null, NEWEST, 1000, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyHistograms(1, 0, null, NEWEST, 1000, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyHistograms(1, 1, null, NEWEST, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyHistograms(1, 10, null, 1000, 1000, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyHistograms(1, 1, null, NEWEST, 1000, 1).records(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
