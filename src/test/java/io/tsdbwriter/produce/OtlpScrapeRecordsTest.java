package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.json.PointDecoder;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OtlpScrapeRecordsTest {

    private static final long NOW_MS = 1_796_616_420_000L;

    @Test
    void oneRecordPerInstanceAndScrapeTimeWithTheMetricsGroupedByName() throws Exception {
        List<SourcePoint> points = new ArrayList<>();
        for (long t : new long[] {NOW_MS - 60_000, NOW_MS}) {
            for (String instance : List.of("node-0001", "node-0002")) {
                points.add(point("node_cpu_seconds_total", instance, t, 10, "cpu", "0", "mode", "idle"));
                points.add(point("node_load1", instance, t, 0.5));
                points.add(point("node_cpu_seconds_total", instance, t, 11, "cpu", "1", "mode", "idle"));
            }
        }

        List<OtlpScrapeRecords.Record> records = all(new OtlpScrapeRecords().records(points.iterator()));

        assertThat(records).hasSize(4);
        assertThat(records)
                .extracting(OtlpScrapeRecords.Record::key)
                .containsExactly("node-0001", "node-0002", "node-0001", "node-0002");
        assertThat(records).extracting(OtlpScrapeRecords.Record::points).containsOnly(3);
        for (int i = 0; i < 4; i++) {
            ExportMetricsServiceRequest request =
                    ExportMetricsServiceRequest.parseFrom(records.get(i).value());
            assertThat(request.getResourceMetricsCount()).isEqualTo(1);
            ResourceMetrics rm = request.getResourceMetrics(0);
            assertThat(attributes(rm.getResource().getAttributesList()))
                    .containsExactly(
                            Map.entry(OtlpScrapeRecords.SERVICE_NAME, "node"),
                            Map.entry(
                                    OtlpScrapeRecords.SERVICE_INSTANCE_ID,
                                    records.get(i).key()));
            assertThat(rm.getScopeMetricsCount()).isEqualTo(1);
            List<Metric> metrics = rm.getScopeMetrics(0).getMetricsList();
            assertThat(metrics).extracting(Metric::getName).containsExactly("node_cpu_seconds_total", "node_load1");

            Metric counter = metrics.get(0);
            assertThat(counter.hasSum()).isTrue();
            assertThat(counter.getSum().getIsMonotonic()).isTrue();
            assertThat(counter.getSum().getAggregationTemporality())
                    .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
            long time = (i < 2 ? NOW_MS - 60_000 : NOW_MS) * 1_000_000L;
            assertThat(counter.getSum().getDataPointsList())
                    .extracting(NumberDataPoint::getAsDouble, NumberDataPoint::getTimeUnixNano)
                    .containsExactly(tuple(10.0, time), tuple(11.0, time));
            // the start of every counter: the first scrape's time
            assertThat(counter.getSum().getDataPointsList())
                    .extracting(NumberDataPoint::getStartTimeUnixNano)
                    .containsOnly((NOW_MS - 60_000) * 1_000_000L);
            assertThat(attributes(counter.getSum().getDataPoints(1).getAttributesList()))
                    .containsExactly(
                            Map.entry("cpu", "1"),
                            Map.entry("mode", "idle"),
                            Map.entry("instanceNo", records.get(i).key()),
                            Map.entry("productKey", "node"));

            Metric gauge = metrics.get(1);
            assertThat(gauge.hasGauge()).isTrue();
            assertThat(gauge.getGauge().getDataPointsList()).singleElement().satisfies(dp -> {
                assertThat(dp.getAsDouble()).isEqualTo(0.5);
                assertThat(dp.getStartTimeUnixNano()).isZero();
            });
        }
    }

    @Test
    void aScrapeWithoutInstanceOrProductKeyIsKeyedByTheUnknownService() throws Exception {
        OtlpScrapeRecords.Record r = new OtlpScrapeRecords()
                .encode(List.of(new SourcePoint("up", Map.of(), null, NOW_MS, 1)))
                .get(0);

        assertThat(r.key()).isEqualTo(OtlpScrapeRecords.UNKNOWN_SERVICE);
        assertThat(attributes(ExportMetricsServiceRequest.parseFrom(r.value())
                        .getResourceMetrics(0)
                        .getResource()
                        .getAttributesList()))
                .containsExactly(Map.entry(OtlpScrapeRecords.SERVICE_NAME, OtlpScrapeRecords.UNKNOWN_SERVICE));
    }

    @Test
    void aScrapeOverTheLimitIsSplitBetweenDataPointsEachRecordWithinIt() throws Exception {
        List<SourcePoint> scrape = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String metric = i % 3 == 0 ? "requests_total" : "temperature_" + (i % 7);
            scrape.add(point(metric, "node-0001", NOW_MS, i, "n", Integer.toString(i)));
        }
        int limit = 2_000;

        List<OtlpScrapeRecords.Record> records = new OtlpScrapeRecords(limit).encode(scrape);

        assertThat(records.size()).isGreaterThan(5);
        int points = 0;
        for (OtlpScrapeRecords.Record r : records) {
            assertThat(r.value().length).isLessThanOrEqualTo(limit);
            assertThat(r.key()).isEqualTo("node-0001");
            ResourceMetrics rm =
                    ExportMetricsServiceRequest.parseFrom(r.value()).getResourceMetrics(0);
            assertThat(attributes(rm.getResource().getAttributesList()))
                    .containsEntry(OtlpScrapeRecords.SERVICE_INSTANCE_ID, "node-0001");
            List<Metric> metrics = rm.getScopeMetrics(0).getMetricsList();
            assertThat(metrics.stream().map(Metric::getName).distinct().count())
                    .as("one metric per name in a record")
                    .isEqualTo(metrics.size());
            int inRecord =
                    metrics.stream().mapToInt(OtlpScrapeRecordsTest::dataPoints).sum();
            assertThat(inRecord).isEqualTo(r.points());
            points += inRecord;
            // filled up to the limit but for the last: the next point would not have fitted
            if (r != records.get(records.size() - 1)) {
                assertThat(r.value().length).isGreaterThan(limit - 200);
            }
        }
        assertThat(points).isEqualTo(300);
        assertThat(samples(records)).containsExactlyInAnyOrderElementsOf(jsonSamples(scrape));
    }

    @Test
    void aPointLargerThanTheLimitGoesAloneInItsRecord() {
        String big = "x".repeat(600);
        List<SourcePoint> scrape =
                List.of(point("a", "i", NOW_MS, 1), point("b", "i", NOW_MS, 2, "big", big), point("c", "i", NOW_MS, 3));

        List<OtlpScrapeRecords.Record> records = new OtlpScrapeRecords(512).encode(scrape);

        assertThat(records).extracting(OtlpScrapeRecords.Record::points).containsExactly(1, 1, 1);
        assertThat(records.get(1).value().length).isGreaterThan(512);
        assertThat(samples(records)).containsExactlyInAnyOrderElementsOf(jsonSamples(scrape));
    }

    /** The bundled node_exporter scrapes: one record per file, what the writer's decoder reads equals the JSON records. */
    @Test
    void theWritersOtlpDecoderReadsTheRealScrapesAsTheJsonPointRecords() throws Exception {
        List<SourcePoint> points = RealInput.load(NodeExporterFiles.all(), "node-0001", "node", OptionalLong.empty());

        List<OtlpScrapeRecords.Record> records = all(new OtlpScrapeRecords().records(points.iterator()));

        assertThat(records).hasSize(NodeExporterFiles.all().size());
        assertThat(records.stream().mapToInt(OtlpScrapeRecords.Record::points).sum())
                .isEqualTo(points.size());
        assertThat(records)
                .allSatisfy(r -> assertThat(r.value().length).isLessThan(OtlpScrapeRecords.DEFAULT_MAX_RECORD_BYTES));
        assertThat(samples(records)).containsExactlyInAnyOrderElementsOf(jsonSamples(points));
        ExportMetricsServiceRequest first =
                ExportMetricsServiceRequest.parseFrom(records.get(0).value());
        List<Metric> metrics = first.getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
        assertThat(metrics.stream().map(Metric::getName).distinct().count()).isEqualTo(metrics.size());
        assertThat(metrics)
                .filteredOn(m -> m.getName().equals("node_cpu_seconds_total"))
                .singleElement()
                .satisfies(m -> assertThat(m.getSum().getDataPointsCount()).isGreaterThan(1));
    }

    @Test
    void refusesAnEmptyScrapeAndATinyLimit() {
        assertThatThrownBy(() -> new OtlpScrapeRecords().encode(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OtlpScrapeRecords(100)).isInstanceOf(IllegalArgumentException.class);
    }

    private static SourcePoint point(String metric, String instance, long t, double v, String... kv) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            labels.put(kv[i], kv[i + 1]);
        }
        labels.put("instanceNo", instance);
        return new SourcePoint(metric, labels, "node", t, v);
    }

    private static <T> List<T> all(Iterator<T> it) {
        List<T> list = new ArrayList<>();
        it.forEachRemaining(list::add);
        return list;
    }

    private static Map<String, String> attributes(List<KeyValue> kvs) {
        return kvs.stream()
                .collect(Collectors.toMap(
                        KeyValue::getKey, kv -> kv.getValue().getStringValue(), (a, b) -> b, LinkedHashMap::new));
    }

    private static int dataPoints(Metric m) {
        return m.hasSum() ? m.getSum().getDataPointsCount() : m.getGauge().getDataPointsCount();
    }

    /**
     * The samples the writer's OTLP decoder reads from {@code records}, each as {@code metric{a="b",…} value @ts},
     * without the resource's labels (which the JSON point record does not carry).
     */
    private static List<String> samples(List<OtlpScrapeRecords.Record> records) {
        List<String> samples = new ArrayList<>();
        for (OtlpScrapeRecords.Record r : records) {
            DecodedPoints points = new DecodedPoints();
            Rejections rejections = new Rejections();
            new OtlpDecoder(1 << 20, Decoded.ANY_TIME).decode(r.value(), NOW_MS, points, rejections);
            assertThat(rejections.total()).isZero();
            for (int p = 0; p < points.count(); p++) {
                points.sortLabels(p);
            }
            for (String s : Decoded.render(points)) {
                samples.add(s.replaceAll("service\\.(name|instance\\.id)=\"[^\"]*\",?", "")
                        .replace(",}", "}"));
            }
        }
        return samples;
    }

    private static List<String> jsonSamples(List<SourcePoint> points) {
        List<String> samples = new ArrayList<>();
        for (SourcePoint p : points) {
            DecodedPoints decoded = new DecodedPoints();
            assertThat(new PointDecoder(1 << 20).decode(PointRecords.encode(p), decoded))
                    .isNull();
            decoded.sortLabels(0);
            samples.addAll(Decoded.render(decoded));
        }
        return samples;
    }
}
