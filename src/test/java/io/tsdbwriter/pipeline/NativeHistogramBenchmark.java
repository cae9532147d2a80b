package io.tsdbwriter.pipeline;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.wire.ByteBuf;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of decode → amplify → encode on histogram-heavy OTLP records into remote write 1.0, single-threaded: each
 * record holds {@value #POINTS} histogram data points (one series each, 40 buckets), each becoming one native histogram,
 * M copies: {@code kind} {@code exponential} at scale {@code scale} (10 merges 4 into 1, 3 none), or {@code explicit}
 * (39 explicit bounds) written as a native histogram with custom buckets ({@code --convert-histograms-to-nhcb}). The
 * score is <b>OTLP histogram data points per second per core</b> (each operation one data point decoded and written as
 * M native histograms).
 *
 * <p>Run: {@code java -cp target/test-classes:target/classes:$(cat target/test.classpath) org.openjdk.jmh.Main
 * NativeHistogramBenchmark} after {@code scripts/jmh.sh} built the classpath (short runs; the machine is shared).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class NativeHistogramBenchmark {

    static final int RECORDS = 20;
    static final int POINTS = 50;

    @Param({"1", "12"})
    int timeMultiplier;

    @Param({"10"})
    int scale;

    @Param({"exponential", "explicit"})
    String kind;

    private byte[][] records;
    private PointAmplifier amplifier;
    private ByteBuf out;

    @Setup
    public void setUp() {
        long t = 1_795_300_857_000L;
        records = new byte[RECORDS][];
        for (int r = 0; r < RECORDS; r++) {
            ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
            for (int p = 0; p < POINTS; p++) {
                if (kind.equals("explicit")) {
                    scope.addMetrics(explicit(t + r * 60_000L, r, p));
                    continue;
                }
                ExponentialHistogramDataPoint.Buckets.Builder pos =
                        ExponentialHistogramDataPoint.Buckets.newBuilder().setOffset(p * 3 - 60);
                long count = 0;
                for (int i = 0; i < 40; i++) {
                    long c = (i * 7L + p) % 6 == 0 ? 0 : (i + p + r) % 13;
                    pos.addBucketCounts(c);
                    count += c;
                }
                scope.addMetrics(Metric.newBuilder()
                        .setName("http_server_duration")
                        .setExponentialHistogram(ExponentialHistogram.newBuilder()
                                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                        .addAttributes(KeyValue.newBuilder()
                                                .setKey("route")
                                                .setValue(AnyValue.newBuilder().setStringValue("/api/" + p)))
                                        .setTimeUnixNano((t + r * 60_000L) * 1_000_000L)
                                        .setScale(scale)
                                        .setZeroCount(3)
                                        .setCount(count + 3)
                                        .setSum(count * 0.37)
                                        .setPositive(pos))));
            }
            records[r] = ExportMetricsServiceRequest.newBuilder()
                    .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope))
                    .build()
                    .toByteArray();
        }
        AmplificationPlan plan = new AmplificationPlan(timeMultiplier, 1, 60_000);
        amplifier = new PointAmplifier(
                        new OtlpDecoder(64 << 20, new TimestampWindow(0, Long.MAX_VALUE)),
                        new RemoteWriteEncoder(plan),
                        new SeriesCache(10_000))
                .convertHistogramsToNhcb(true);
        out = new ByteBuf(1 << 20);
        Rejections rejections = amplifier.decode(records[0], 0);
        if (rejections.total() > 0 || amplifier.pointCount() != POINTS) {
            throw new IllegalStateException("record refused: " + rejections.first() + " " + rejections.firstDetail());
        }
    }

    /** Data point {@code p} of record {@code r} as an explicit-bucket histogram: 39 bounds, empty buckets among 40. */
    private static Metric explicit(long tMs, int r, int p) {
        HistogramDataPoint.Builder point = HistogramDataPoint.newBuilder()
                .addAttributes(KeyValue.newBuilder()
                        .setKey("route")
                        .setValue(AnyValue.newBuilder().setStringValue("/api/" + p)))
                .setTimeUnixNano(tMs * 1_000_000L);
        long count = 0;
        for (int i = 0; i < 40; i++) {
            if (i < 39) {
                point.addExplicitBounds(0.001 * Math.pow(1.4, i));
            }
            long c = (i * 7L + p) % 6 == 0 ? 0 : (i + p + r) % 13;
            point.addBucketCounts(c);
            count += c;
        }
        return Metric.newBuilder()
                .setName("http_server_duration")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(point.setCount(count).setSum(count * 0.37)))
                .build();
    }

    /** Every record decoded and each of its histograms encoded M times: {@code RECORDS × POINTS} operations. */
    @Benchmark
    @OperationsPerInvocation(RECORDS * POINTS)
    public int histograms() {
        int n = 0;
        for (byte[] record : records) {
            amplifier.decode(record, 0);
            out.reset();
            for (int p = 0, c = amplifier.pointCount(); p < c; p++) {
                n += amplifier.encodePoint(p, out);
            }
        }
        return n;
    }
}
