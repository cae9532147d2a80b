package io.tsdbwriter.produce;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * Generated request latencies of several services as OpenTelemetry exponential histograms, encoded as OTLP protobuf
 * {@code ExportMetricsServiceRequest} record values (what the writer reads with {@code --input-format otlp}): the
 * histogram load of {@code produce --histogram-series}. Produced lazily, one record at a time.
 *
 * <p>Series {@code s ∈ [0, series)} is metric {@value #METRIC} (unit {@code s}, cumulative) of service
 * {@code s mod 8} (resource {@code service.name}, {@code service.instance.id = <service>-<replica>},
 * {@code instanceNo = <instance>}), with data point attributes {@code http.request.method}, {@code http.route} (3 per
 * service) and {@code http.response.status_code} (200, 404 or 500, as an integer); the replica number grows every 72
 * series. Each series has {@code pointsPerSeries} data points one interval apart, the newest at
 * {@code newestTimestampMs} (as {@link SyntheticInput}'s), all with the start time one interval before the oldest.
 * Iteration goes in time order: every series at the oldest time, then every series at the next.
 *
 * <p>Between two points a series records about {@code rate × interval} requests (normally distributed around it, the
 * rate per service between 3 and 50 requests per second, 90 % of it status 200, 7 % 404, 3 % 500), each a log-normal
 * latency: per service a median of 10 ms to 400 ms and a spread σ of 0.4 to 0.9; 404s at 0.3 times the median, 500s at
 * 4 times it and σ + 0.3. The median drifts with the timestamp (two sine waves of periods of 15 to 45 minutes and a
 * phase drawn from the seed per service, together up to about ×1.7 either way), so the populated buckets move over a
 * run. At most {@value #DRAWS_PER_INTERVAL} latencies are drawn per series and interval, the requests split evenly
 * among them. The buckets are those of the SDKs' default aggregation ({@link CumulativeExponentialHistogram}: scale 20
 * downwards, at most 160 buckets), so the scale falls as the spread grows: 20 while a series has seen one latency, then
 * mostly 3 to 5 with 80 to 160 buckets.
 *
 * <p>The same arguments and seed always give the same records. Immutable and thread-safe; each {@link #records}
 * iterator is independent and not thread-safe itself, and holds one histogram per series (up to 1.3 KB each).
 */
public final class LatencyHistograms {

    /** The metric name of every data point (the OpenTelemetry semantic conventions' HTTP server duration). */
    public static final String METRIC = "http.server.request.duration";
    /** The instrumentation scope of every request. */
    public static final String SCOPE = "tsdb-writer-produce";
    /** Latencies drawn per series and interval at most; the requests of an interval are split among them. */
    static final int DRAWS_PER_INTERVAL = 32;

    private static final int[] STATUS = {200, 404, 500};
    private static final double[] STATUS_SHARE = {0.90, 0.07, 0.03};
    private static final double[] STATUS_MEDIAN = {1, 0.3, 4};
    private static final double[] STATUS_SIGMA = {0, 0, 0.3};

    /** A service: median latency (s), spread, requests per second over all its series, routes and their methods. */
    private record Service(String name, double median, double sigma, double rate, String[] routes, String[] methods) {}

    private static final Service[] SERVICES = {
        new Service("frontend", 0.08, 0.7, 50, new String[] {"/", "/product/{id}", "/cart"}, new String[] {
            "GET", "GET", "GET"
        }),
        new Service(
                "checkout",
                0.25,
                0.6,
                6,
                new String[] {"/checkout", "/checkout/{id}", "/checkout/{id}/confirm"},
                new String[] {"POST", "GET", "POST"}),
        new Service(
                "cart",
                0.02,
                0.5,
                25,
                new String[] {"/cart/{user}", "/cart/{user}/items", "/cart/{user}/items/{id}"},
                new String[] {"GET", "POST", "DELETE"}),
        new Service(
                "search", 0.12, 0.8, 18, new String[] {"/search", "/search/suggest", "/search/facets"}, new String[] {
                    "GET", "GET", "GET"
                }),
        new Service("auth", 0.01, 0.4, 40, new String[] {"/token", "/token/refresh", "/userinfo"}, new String[] {
            "POST", "POST", "GET"
        }),
        new Service(
                "payment",
                0.4,
                0.9,
                3,
                new String[] {"/payments", "/payments/{id}", "/payments/{id}/refund"},
                new String[] {"POST", "GET", "POST"}),
        new Service(
                "catalog", 0.03, 0.6, 30, new String[] {"/products", "/products/{id}", "/categories"}, new String[] {
                    "GET", "GET", "GET"
                }),
        new Service("shipping", 0.15, 0.7, 4, new String[] {"/quote", "/shipments", "/shipments/{id}"}, new String[] {
            "POST", "POST", "GET"
        }),
    };

    /** Series per replica: every service × route × status once. */
    static final int SERIES_PER_REPLICA = SERVICES.length * 3 * STATUS.length;

    /**
     * One record value.
     *
     * @param value  the protobuf-encoded {@code ExportMetricsServiceRequest}
     * @param key    the first data point's series, {@code <service.instance.id> <method> <route> <status>}
     * @param points data points in it
     */
    public record Record(byte[] value, String key, int points) {}

    private final int series;
    private final int pointsPerSeries;
    private final String instance;
    private final long newestTimestampMs;
    private final long intervalMs;
    private final long seed;
    private final double[] period1Ms = new double[SERVICES.length];
    private final double[] period2Ms = new double[SERVICES.length];
    private final double[] phase = new double[SERVICES.length];

    /**
     * @param series            number of histogram series, ≥ 1
     * @param pointsPerSeries   data points per series, ≥ 1
     * @param instance          {@code instanceNo} resource attribute of every series; null or empty for none
     * @param newestTimestampMs epoch ms of the newest point of each series
     * @param intervalMs        spacing of a series' points in ms, ≥ 1
     * @param seed              what the drift phases and the drawn latencies follow
     * @throws IllegalArgumentException when a count or the interval is out of range, or the start time would fall before
     *     the epoch
     */
    public LatencyHistograms(
            int series, int pointsPerSeries, String instance, long newestTimestampMs, long intervalMs, long seed) {
        if (series < 1 || pointsPerSeries < 1) {
            throw new IllegalArgumentException(
                    "series and points per series must be >= 1, got " + series + " and " + pointsPerSeries);
        }
        if (intervalMs < 1) {
            throw new IllegalArgumentException("interval must be >= 1 ms, got " + intervalMs);
        }
        if (newestTimestampMs - pointsPerSeries * intervalMs < 0) {
            throw new IllegalArgumentException("the start time of the histograms would be before 1970");
        }
        this.series = series;
        this.pointsPerSeries = pointsPerSeries;
        this.instance = instance == null || instance.isEmpty() ? null : instance;
        this.newestTimestampMs = newestTimestampMs;
        this.intervalMs = intervalMs;
        this.seed = seed;
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < SERVICES.length; i++) {
            period1Ms[i] = (15 + 30 * r.nextDouble()) * 60_000;
            period2Ms[i] = period1Ms[i] / (3 + r.nextDouble());
            phase[i] = r.nextDouble();
        }
    }

    /** Data points in total: series × points per series. */
    public long size() {
        return (long) series * pointsPerSeries;
    }

    /** Epoch ms of point {@code k} of every series. */
    public long timestampMs(int k) {
        return newestTimestampMs - (pointsPerSeries - 1L - k) * intervalMs;
    }

    /** The start time (epoch ms) of every series: one interval before its oldest point. */
    public long startTimestampMs() {
        return timestampMs(0) - intervalMs;
    }

    /**
     * The records, each of up to {@code pointsPerRecord} consecutive data points (across the boundary between two
     * times too), grouped into one {@code ResourceMetrics} per resource in the order of their first point.
     *
     * @throws IllegalArgumentException when {@code pointsPerRecord} < 1
     */
    public Iterator<Record> records(int pointsPerRecord) {
        if (pointsPerRecord < 1) {
            throw new IllegalArgumentException("points per record must be >= 1, got " + pointsPerRecord);
        }
        return new Records(pointsPerRecord);
    }

    /** The median latency (s) of series {@code s} at {@code timestampMs}, with its drift. */
    double median(int s, long timestampMs) {
        int svc = s % SERVICES.length;
        double t = timestampMs;
        double drift = 0.4 * Math.sin(2 * Math.PI * (t / period1Ms[svc] + phase[svc]))
                + 0.15 * Math.sin(2 * Math.PI * (t / period2Ms[svc] + 2 * phase[svc]));
        return SERVICES[svc].median() * STATUS_MEDIAN[status(s)] * Math.exp(drift);
    }

    private static int status(int s) {
        return (s / SERVICES.length / 3) % STATUS.length;
    }

    private static int route(int s) {
        return (s / SERVICES.length) % 3;
    }

    private static int replica(int s) {
        return s / SERIES_PER_REPLICA;
    }

    private final class Records implements Iterator<Record> {
        private final int pointsPerRecord;
        private final CumulativeExponentialHistogram[] histograms = new CumulativeExponentialHistogram[series];
        private final SplittableRandom[] random = new SplittableRandom[series];
        private int k;
        private int s;

        Records(int pointsPerRecord) {
            this.pointsPerRecord = pointsPerRecord;
        }

        @Override
        public boolean hasNext() {
            return k < pointsPerSeries;
        }

        @Override
        public Record next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map<Integer, List<ExponentialHistogramDataPoint>> byResource = new LinkedHashMap<>();
            String key = null;
            int n = 0;
            while (n < pointsPerRecord && hasNext()) {
                if (key == null) {
                    key = seriesKey(s);
                }
                ExponentialHistogramDataPoint point = advance(s, k);
                int resource = replica(s) * SERVICES.length + s % SERVICES.length;
                byResource.computeIfAbsent(resource, r -> new ArrayList<>()).add(point);
                n++;
                if (++s == series) {
                    s = 0;
                    k++;
                }
            }
            ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
            byResource.forEach((resource, points) -> request.addResourceMetrics(resourceMetrics(resource, points)));
            return new Record(request.build().toByteArray(), key, n);
        }

        /** Records series {@code s}'s requests of the interval before point {@code k} and returns the point. */
        private ExponentialHistogramDataPoint advance(int s, int k) {
            CumulativeExponentialHistogram h = histograms[s];
            SplittableRandom r = random[s];
            if (h == null) {
                h = histograms[s] = new CumulativeExponentialHistogram();
                r = random[s] = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (s + 1L)));
            }
            long t = timestampMs(k);
            Service svc = SERVICES[s % SERVICES.length];
            int status = status(s);
            double mean = svc.rate() / 3 * STATUS_SHARE[status] * intervalMs / 1000.0;
            long requests = Math.max(0, Math.round(mean + Math.sqrt(mean) * r.nextGaussian()));
            if (h.count() == 0) {
                requests = Math.max(1, requests); // a series is exported once it has recorded a request
            }
            double mu = Math.log(median(s, t));
            double sigma = svc.sigma() + STATUS_SIGMA[status];
            int draws = (int) Math.min(requests, DRAWS_PER_INTERVAL);
            for (int i = 0; i < draws; i++) {
                long each = requests / draws + (i < requests % draws ? 1 : 0);
                h.record(Math.exp(mu + sigma * r.nextGaussian()), each);
            }
            ExponentialHistogramDataPoint.Buckets.Builder positive =
                    ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(h.offset());
            for (long c : h.bucketCounts()) {
                positive.addBucketCounts(c);
            }
            return ExponentialHistogramDataPoint.newBuilder()
                    .addAttributes(attr("http.request.method", svc.methods()[route(s)]))
                    .addAttributes(attr("http.route", svc.routes()[route(s)]))
                    .addAttributes(KeyValue.newBuilder()
                            .setKey("http.response.status_code")
                            .setValue(AnyValue.newBuilder().setIntValue(STATUS[status])))
                    .setStartTimeUnixNano(startTimestampMs() * 1_000_000L)
                    .setTimeUnixNano(t * 1_000_000L)
                    .setCount(h.count())
                    .setSum(h.sum())
                    .setScale(h.scale())
                    .setZeroCount(h.zeroCount())
                    .setPositive(positive)
                    .setMin(h.min())
                    .setMax(h.max())
                    .build();
        }
    }

    private ResourceMetrics resourceMetrics(int resource, List<ExponentialHistogramDataPoint> points) {
        Service svc = SERVICES[resource % SERVICES.length];
        Resource.Builder res = Resource.newBuilder()
                .addAttributes(attr("service.name", svc.name()))
                .addAttributes(attr("service.instance.id", svc.name() + "-" + resource / SERVICES.length));
        if (instance != null) {
            res.addAttributes(attr(SourcePoint.INSTANCE_LABEL, instance));
        }
        return ResourceMetrics.newBuilder()
                .setResource(res)
                .addScopeMetrics(ScopeMetrics.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName(SCOPE))
                        .addMetrics(Metric.newBuilder()
                                .setName(METRIC)
                                .setUnit("s")
                                .setDescription("Duration of HTTP server requests.")
                                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                                        .setAggregationTemporality(
                                                AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                        .addAllDataPoints(points))))
                .build();
    }

    /** {@code <service.instance.id> <method> <route> <status>} of series {@code s}. */
    String seriesKey(int s) {
        Service svc = SERVICES[s % SERVICES.length];
        return svc.name() + "-" + replica(s) + " " + svc.methods()[route(s)] + " " + svc.routes()[route(s)] + " "
                + STATUS[status(s)];
    }

    private static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }
}
