package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.otlp.OtlpJsonDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.Snappy;

/**
 * Start timestamps read from the input: OTLP's {@code start_time_unix_nano} (protobuf and JSON) and remote write's
 * {@code Sample.start_timestamp} (3) and {@code Histogram.start_timestamp} (17), per point in {@link DecodedPoints}.
 */
class StartTimestampDecodeTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long T_NS = T_MS * 1_000_000L + 123_456;
    private static final long S_MS = T_MS - 3_600_000L;
    private static final long S_NS = S_MS * 1_000_000L + 999_999;

    private static Sum.Builder cumulativeSum(long startNs) {
        return Sum.newBuilder()
                .setIsMonotonic(true)
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                .addDataPoints(NumberDataPoint.newBuilder()
                        .setStartTimeUnixNano(startNs)
                        .setTimeUnixNano(T_NS)
                        .setAsDouble(7));
    }

    private static Metric sum(long startNs) {
        return Metric.newBuilder()
                .setName("requests")
                .setSum(cumulativeSum(startNs))
                .build();
    }

    private static Metric explicit() {
        return Metric.newBuilder()
                .setName("lat")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setStartTimeUnixNano(S_NS)
                                .setTimeUnixNano(T_NS)
                                .setCount(3)
                                .setSum(1.5)
                                .addAllExplicitBounds(List.of(0.5, 1.0))
                                .addAllBucketCounts(List.of(1L, 1L, 1L))))
                .build();
    }

    private static Metric exponential() {
        return Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setStartTimeUnixNano(S_NS)
                                .setTimeUnixNano(T_NS)
                                .setCount(3)
                                .setSum(1.5)
                                .setScale(0)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(0)
                                        .addAllBucketCounts(List.of(1L, 2L)))))
                .build();
    }

    private static Metric summary() {
        return Metric.newBuilder()
                .setName("rpc")
                .setSummary(Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder()
                                .setStartTimeUnixNano(S_NS)
                                .setTimeUnixNano(T_NS)
                                .setCount(2)
                                .setSum(3)
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(0.5)
                                        .setValue(1))))
                .build();
    }

    private static List<Long> times(int n, long startMs) {
        return Collections.nCopies(n, startMs);
    }

    /** Name, metric, output (native histograms accepted, with custom buckets), the points' start timestamps. */
    static Stream<Arguments> otlpStartTimesAreEachSamplesStartTimestamp() {
        Metric gauge = Metric.newBuilder()
                .setName("temp")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setStartTimeUnixNano(S_NS)
                                .setTimeUnixNano(T_NS)
                                .setAsDouble(21)))
                .build();
        return Stream.of(
                arguments("cumulative sum", sum(S_NS), false, false, List.of(S_MS)),
                arguments("sum without a start time (0: unset)", sum(0), false, false, List.of(0L)),
                arguments("sum starting at its own time: none", sum(T_NS), false, false, List.of(0L)),
                arguments("sum starting after its time: none", sum(T_NS + 5_000_000_000L), false, false, List.of(0L)),
                arguments("gauge: its start time is not read", gauge, false, false, List.of(0L)),
                arguments("classic histogram: _count, _sum, 3 × _bucket", explicit(), false, false, times(5, S_MS)),
                arguments("histogram with custom buckets", explicit(), true, true, List.of(S_MS)),
                arguments("native exponential histogram", exponential(), true, false, List.of(S_MS)),
                arguments("exponential histogram as vmrange samples", exponential(), false, false, times(4, S_MS)),
                arguments("summary: _count, _sum, a quantile", summary(), false, false, times(3, S_MS)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void otlpStartTimesAreEachSamplesStartTimestamp(
            String name, Metric metric, boolean nativeHistograms, boolean customBuckets, List<Long> expected)
            throws IOException {
        byte[] proto = OtlpDecoderTest.request(null, metric).toByteArray();
        byte[] json = JsonFormat.printer()
                .print(OtlpDecoderTest.request(null, metric))
                .getBytes(StandardCharsets.UTF_8);
        assertThat(starts(new OtlpDecoder(1 << 20, Decoded.ANY_TIME), proto, nativeHistograms, customBuckets))
                .isEqualTo(expected);
        assertThat(starts(new OtlpJsonDecoder(1 << 20, Decoded.ANY_TIME), json, nativeHistograms, customBuckets))
                .as("OTLP JSON")
                .isEqualTo(expected);
    }

    /** Name, remote write record (snappy), native histograms accepted, the points' start timestamps. */
    static Stream<Arguments> remoteWriteStartTimestampsAreThePoints() throws IOException {
        byte[] histogram =
                NativeHistogramMessage.integer(5, 2.5, 0, 1e-128, 1, new int[] {0, 2}, new long[] {1, 2}, 2000);
        return Stream.of(
                arguments(
                        "samples: 3 set, 0, not earlier",
                        samples(500, 1000, 0, 2000, 3000, 3000),
                        true,
                        List.of(500L, 0L, 0L)),
                arguments(
                        "native histogram: field 17",
                        NativeHistogramMessage.writeRequest(withStart(histogram, 1500)),
                        true,
                        List.of(1500L)),
                arguments(
                        "native histogram without field 17",
                        NativeHistogramMessage.writeRequest(histogram),
                        true,
                        List.of(0L)),
                arguments(
                        "native histogram as vmrange samples: none",
                        NativeHistogramMessage.writeRequest(withStart(histogram, 1500)),
                        false,
                        times(5, 0L)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void remoteWriteStartTimestampsAreThePoints(
            String name, byte[] request, boolean nativeHistograms, List<Long> expected) throws IOException {
        assertThat(starts(new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME), request, nativeHistograms, false))
                .isEqualTo(expected);
    }

    @Test
    void aRemoteWriteHistogramsStartTimestampIsTakenOutOfItsBytesAsItsTimestampIs() throws IOException {
        byte[] histogram =
                NativeHistogramMessage.integer(5, 2.5, 0, 1e-128, 1, new int[] {0, 2}, new long[] {1, 2}, 2000);
        DecodedPoints points = new DecodedPoints();
        points.histograms().accept(true);
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(NativeHistogramMessage.writeRequest(withStart(histogram, 1500)), 0, points, new Rejections());
        PointHistograms hs = points.histograms();
        int h = hs.of(0);
        assertThat(Arrays.copyOfRange(hs.bytes(), hs.offset(h), hs.offset(h) + hs.length(h)))
                .isEqualTo(
                        NativeHistogramMessage.integer(5, 2.5, 0, 1e-128, 1, new int[] {0, 2}, new long[] {1, 2}, 0));
    }

    @Test
    void startTimestampsAreClearedWithTheBufferAndShiftedWithTheTimestamps() {
        DecodedPoints points = new DecodedPoints();
        int p = points.begin();
        points.set(p, 10_000, 1);
        points.setStartTimestamp(p, 4_000);
        assertThat(points.hasStartTimestamps()).isTrue();
        int q = points.begin();
        points.set(q, 10_000, 1);
        points.setStartTimestamp(q, 1_000);
        points.shiftTimestamps(-2_000);
        assertThat(points.startTimestampMs(p)).isEqualTo(2_000);
        assertThat(points.startTimestampMs(q)).as("no longer above 0: dropped").isZero();
        assertThat(points.timestampMs(q)).isEqualTo(8_000);
        points.clear();
        assertThat(points.hasStartTimestamps()).isFalse();
        assertThat(points.startTimestampMs(points.begin()))
                .as("a reused index starts without one")
                .isZero();
    }

    private static List<Long> starts(RecordDecoder decoder, byte[] record, boolean nativeHistograms, boolean custom) {
        DecodedPoints points = new DecodedPoints();
        points.histograms().accept(nativeHistograms);
        points.histograms().acceptCustomBuckets(custom);
        Rejections rejections = new Rejections();
        decoder.decode(record, 42_000, points, rejections);
        assertThat(rejections.total()).isZero();
        List<Long> starts = new ArrayList<>();
        for (int p = 0; p < points.count(); p++) {
            starts.add(points.startTimestampMs(p));
        }
        return starts;
    }

    /** A snappy-compressed WriteRequest of one series {@code up} with samples given as (start, timestamp) pairs, value 1 each. */
    private static byte[] samples(long... startAndTimestamp) throws IOException {
        ByteArrayOutputStream ts = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(ts);
        ByteArrayOutputStream lb = new ByteArrayOutputStream();
        CodedOutputStream lo = CodedOutputStream.newInstance(lb);
        lo.writeString(1, "__name__");
        lo.writeString(2, "up");
        lo.flush();
        t.writeByteArray(1, lb.toByteArray());
        for (int i = 0; i < startAndTimestamp.length; i += 2) {
            ByteArrayOutputStream sb = new ByteArrayOutputStream();
            CodedOutputStream so = CodedOutputStream.newInstance(sb);
            so.writeDouble(1, 1);
            so.writeInt64(2, startAndTimestamp[i + 1]);
            so.writeInt64(3, startAndTimestamp[i]); // start_timestamp, 0 = none
            so.flush();
            t.writeByteArray(2, sb.toByteArray());
        }
        t.flush();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(1, ts.toByteArray());
        out.flush();
        return Snappy.compress(bytes.toByteArray());
    }

    /** A {@code Histogram} message with {@code start_timestamp} (field 17) appended. */
    private static byte[] withStart(byte[] histogram, long startMs) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(b);
        out.writeRawBytes(histogram);
        out.writeInt64(17, startMs);
        out.flush();
        return b.toByteArray();
    }
}
