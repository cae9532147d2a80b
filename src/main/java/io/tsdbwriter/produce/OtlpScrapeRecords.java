package io.tsdbwriter.produce;

import com.google.protobuf.CodedOutputStream;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * Encodes source points as OTLP records the way an OpenTelemetry exporter publishes them to Kafka (the Collector's
 * {@code kafkaexporter}, the SDKs' Kafka exporters): one protobuf {@code ExportMetricsServiceRequest} (opentelemetry-proto
 * {@code collector/metrics/v1}) per scrape, read by the writer with {@code --input-format otlp} and by the Collector's
 * {@code kafkareceiver} with its default encoding {@code otlp_proto}.
 *
 * <p>A scrape is a run of consecutive points with the same {@code instanceNo}, timestamp and {@code productKey} (what
 * {@code produce}'s sources and the bench's feed give scrape by scrape). Its record holds one {@code ResourceMetrics}
 * whose resource has {@value #SERVICE_NAME} = the {@code productKey} (else {@value #UNKNOWN_SERVICE}, the SDKs' default)
 * and {@value #SERVICE_INSTANCE_ID} = the {@code instanceNo} (absent without one), one {@code ScopeMetrics} without a
 * scope, and one {@code Metric} per metric name in the order of first appearance, holding all its data points: a name
 * ending in {@code _total} (the Prometheus and OpenMetrics naming of counters) is a cumulative monotonic {@code Sum}
 * whose {@code start_time_unix_nano} is the time of the first scrape this encoder saw (as the Collector's Prometheus
 * receiver sets it for a counter without a created time), any other name a {@code Gauge}. Each {@code NumberDataPoint}
 * carries {@code as_double} = the value, {@code time_unix_nano} = the point's epoch milliseconds × 10⁶ and, as
 * attributes, the point's labels in their order plus {@code productKey} when it has one, so the labels of the JSON point
 * record reach the TSDB too (with the resource's, which the writer adds as labels and the Collector turns into
 * {@code job} and {@code instance}).
 *
 * <p>A scrape whose record would exceed {@code maxRecordBytes} is split into several records, each under the same
 * resource, cut between data points (a metric's points may then span records); a single data point larger than the
 * limit goes alone in its record. Each {@link Record} names its key, the scrape's instance (its {@code instanceNo}, else
 * the service name), for producers that partition by instance.
 *
 * <p>Not thread-safe (it remembers the first scrape's time); one per producing thread.
 */
public final class OtlpScrapeRecords {

    /**
     * The default largest record value, in bytes: below Kafka's default {@code max.request.size} (1 MiB) and
     * {@code message.max.bytes} with room for the key and the batch headers.
     */
    public static final int DEFAULT_MAX_RECORD_BYTES = 1_000_000;

    /** The resource attribute naming the service (the Collector's {@code job}). */
    public static final String SERVICE_NAME = "service.name";
    /** The resource attribute naming the instance (the Collector's {@code instance}). */
    public static final String SERVICE_INSTANCE_ID = "service.instance.id";
    /** {@value #SERVICE_NAME} of a scrape without {@code productKey}. */
    public static final String UNKNOWN_SERVICE = "unknown_service";

    /** Tag plus the longest length prefix of an embedded message (a 32-bit varint). */
    private static final int FIELD_OVERHEAD = 1 + 5;

    private final int maxRecordBytes;
    /** Epoch ms of the first scrape encoded: the start of every counter; MIN_VALUE before the first. */
    private long startMs = Long.MIN_VALUE;

    /** An encoder with {@link #DEFAULT_MAX_RECORD_BYTES}. */
    public OtlpScrapeRecords() {
        this(DEFAULT_MAX_RECORD_BYTES);
    }

    /**
     * @param maxRecordBytes the largest record value in bytes a scrape is split to stay within, ≥ 256
     * @throws IllegalArgumentException when {@code maxRecordBytes} is below 256
     */
    public OtlpScrapeRecords(int maxRecordBytes) {
        if (maxRecordBytes < 256) {
            throw new IllegalArgumentException("the record size limit must be >= 256 bytes, got " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * One record: its value, its key and the data points in it.
     *
     * @param key    the scrape's instance, the record key for partitioning by instance
     * @param value  the serialized {@code ExportMetricsServiceRequest}
     * @param points data points in it, ≥ 1
     */
    public record Record(String key, byte[] value, int points) {}

    /**
     * The records of {@code points}, scrape by scrape, encoded as they are taken (one scrape's points held at a time).
     * The iterator is not thread-safe.
     */
    public Iterator<Record> records(Iterator<SourcePoint> points) {
        return new Iterator<>() {
            private SourcePoint next = points.hasNext() ? points.next() : null;
            private Iterator<Record> pending = List.<Record>of().iterator();

            @Override
            public boolean hasNext() {
                return pending.hasNext() || next != null;
            }

            @Override
            public Record next() {
                if (!pending.hasNext()) {
                    if (next == null) {
                        throw new NoSuchElementException();
                    }
                    List<SourcePoint> scrape = new ArrayList<>();
                    SourcePoint first = next;
                    while (next != null && sameScrape(first, next)) {
                        scrape.add(next);
                        next = points.hasNext() ? points.next() : null;
                    }
                    pending = encode(scrape).iterator();
                }
                return pending.next();
            }
        };
    }

    /** True when {@code a} and {@code b} belong to the same scrape: same instance, timestamp and product key. */
    static boolean sameScrape(SourcePoint a, SourcePoint b) {
        return a.timestampMs() == b.timestampMs()
                && Objects.equals(a.instance(), b.instance())
                && Objects.equals(a.productKey(), b.productKey());
    }

    /**
     * The records of one scrape: one, or several when it exceeds the size limit.
     *
     * @param scrape points of one instance, timestamp and product key ({@link #records} finds them)
     * @throws IllegalArgumentException when {@code scrape} is empty
     */
    public List<Record> encode(List<SourcePoint> scrape) {
        if (scrape.isEmpty()) {
            throw new IllegalArgumentException("a scrape needs at least one point");
        }
        SourcePoint first = scrape.get(0);
        if (startMs == Long.MIN_VALUE) {
            startMs = first.timestampMs();
        }
        String service = first.productKey() != null ? first.productKey() : UNKNOWN_SERVICE;
        String key = first.instance() != null ? first.instance() : service;
        Resource.Builder resource = Resource.newBuilder().addAttributes(attribute(SERVICE_NAME, service));
        if (first.instance() != null) {
            resource.addAttributes(attribute(SERVICE_INSTANCE_ID, first.instance()));
        }
        Resource res = resource.build();
        Map<String, List<NumberDataPoint>> byName = new LinkedHashMap<>();
        for (SourcePoint p : scrape) {
            byName.computeIfAbsent(p.metric(), name -> new ArrayList<>()).add(dataPoint(p));
        }
        // the request around the metrics: the ResourceMetrics and ScopeMetrics fields and the resource
        int budget = maxRecordBytes - FIELD_OVERHEAD - CodedOutputStream.computeMessageSize(1, res) - FIELD_OVERHEAD;
        List<Record> records = new ArrayList<>();
        List<Metric.Builder> metrics = new ArrayList<>();
        int size = 0;
        int points = 0;
        for (Map.Entry<String, List<NumberDataPoint>> e : byName.entrySet()) {
            boolean counter = isCounter(e.getKey());
            int header = metricHeaderBytes(e.getKey(), counter);
            Metric.Builder metric = null;
            for (NumberDataPoint dp : e.getValue()) {
                int cost = CodedOutputStream.computeMessageSize(1, dp);
                if (points > 0 && size + (metric == null ? header : 0) + cost > budget) {
                    records.add(record(key, res, metrics, points));
                    metrics = new ArrayList<>();
                    size = 0;
                    points = 0;
                    metric = null;
                }
                if (metric == null) {
                    metric = metric(e.getKey(), counter);
                    metrics.add(metric);
                    size += header;
                }
                if (counter) {
                    metric.getSumBuilder().addDataPoints(dp);
                } else {
                    metric.getGaugeBuilder().addDataPoints(dp);
                }
                size += cost;
                points++;
            }
        }
        records.add(record(key, res, metrics, points));
        return records;
    }

    /** True for a name ending in {@code _total}: a counter by the Prometheus naming conventions. */
    static boolean isCounter(String metric) {
        return metric.endsWith("_total");
    }

    private NumberDataPoint dataPoint(SourcePoint p) {
        NumberDataPoint.Builder dp = NumberDataPoint.newBuilder()
                .setTimeUnixNano(p.timestampMs() * 1_000_000L)
                .setAsDouble(p.value());
        if (isCounter(p.metric())) {
            dp.setStartTimeUnixNano(Math.min(startMs, p.timestampMs()) * 1_000_000L);
        }
        for (Map.Entry<String, String> label : p.labels().entrySet()) {
            dp.addAttributes(attribute(label.getKey(), label.getValue()));
        }
        if (p.productKey() != null) {
            dp.addAttributes(attribute(SourcePoint.PRODUCT_KEY_LABEL, p.productKey()));
        }
        return dp.build();
    }

    private static Metric.Builder metric(String name, boolean counter) {
        Metric.Builder m = Metric.newBuilder().setName(name);
        if (counter) {
            m.setSum(Sum.newBuilder()
                    .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                    .setIsMonotonic(true));
        } else {
            m.setGauge(Gauge.newBuilder());
        }
        return m;
    }

    /** The most a {@code Metric} adds to a record besides its data points: its field in the scope, name and kind. */
    private static int metricHeaderBytes(String name, boolean counter) {
        return FIELD_OVERHEAD + CodedOutputStream.computeStringSize(1, name) + FIELD_OVERHEAD + (counter ? 4 : 0);
    }

    private static Record record(String key, Resource resource, List<Metric.Builder> metrics, int points) {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
        metrics.forEach(scope::addMetrics);
        byte[] value = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(
                        ResourceMetrics.newBuilder().setResource(resource).addScopeMetrics(scope))
                .build()
                .toByteArray();
        return new Record(key, value, points);
    }

    private static KeyValue attribute(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }
}
