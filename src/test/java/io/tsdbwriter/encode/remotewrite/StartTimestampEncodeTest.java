package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.wire.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * Start timestamps from the decoded points through amplification into remote write 2.0's {@code Sample.start_timestamp}
 * (3) and {@code Histogram.start_timestamp} (17); none in a 1.0 request.
 */
class StartTimestampEncodeTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long S_MS = T_MS - 3_600_000L;

    /** A cumulative sum {@code requests} and an exponential histogram {@code lat}, both started at {@code startMs}. */
    private static byte[] otlpRecord(long startMs) {
        Metric requests = Metric.newBuilder()
                .setName("requests")
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setStartTimeUnixNano(startMs * 1_000_000L)
                                .setTimeUnixNano(T_MS * 1_000_000L)
                                .setAsInt(42)))
                .build();
        Metric lat = Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setStartTimeUnixNano(startMs * 1_000_000L)
                                .setTimeUnixNano(T_MS * 1_000_000L)
                                .setCount(3)
                                .setSum(4.5)
                                .setScale(2)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(1)
                                        .addBucketCounts(3))))
                .build();
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(
                                ScopeMetrics.newBuilder().addMetrics(requests).addMetrics(lat)))
                .build()
                .toByteArray();
    }

    /** The 1.0 body of {@code record}'s points amplified by {@code plan}, start timestamps written when {@code v2}. */
    private static byte[] body(AmplificationPlan plan, byte[] record, boolean v2) {
        PointAmplifier a = new PointAmplifier(
                new OtlpDecoder(1 << 20, Decoded.ANY_TIME), new RemoteWriteEncoder(plan, v2), new SeriesCache(1000));
        assertThat(a.decode(record, 0).total()).isZero();
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < a.pointCount(); p++) {
            a.encodePoint(p, out);
        }
        return Arrays.copyOf(out.array(), out.length());
    }

    @Test
    void everyTimeCopyAndVariantOfA2Point0RequestKeepsTheOriginalsStartTimestamp() throws IOException {
        AmplificationPlan plan = new AmplificationPlan(3, 2, 60_000);
        byte[] v1 = body(plan, otlpRecord(S_MS), true);
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        List<long[]> got = V2Starts.of(Arrays.copyOf(v2.array(), v2.length()));
        // per entry {kind (2 sample, 3 histogram), timestamp, start timestamp}; 2 series × 2 variants × 3 copies
        assertThat(got).hasSize(12);
        List<Long> sampleTimes = new ArrayList<>();
        for (long[] e : got) {
            assertThat(e[2])
                    .as("start timestamp of %s at %d", e[0] == 2 ? "a sample" : "a histogram", e[1])
                    .isEqualTo(S_MS);
            if (e[0] == 2) {
                sampleTimes.add(e[1]);
            }
        }
        assertThat(got.stream().filter(e -> e[0] == 3)).hasSize(6);
        assertThat(sampleTimes).containsExactly(T_MS, T_MS + 20_000, T_MS + 40_000, T_MS, T_MS + 20_000, T_MS + 40_000);
    }

    @Test
    void aOnePoint0RequestCarriesNoStartTimestamp() {
        AmplificationPlan plan = new AmplificationPlan(2, 2, 60_000);
        assertThat(body(plan, otlpRecord(S_MS), false))
                .as("byte for byte the body of the same points without start times")
                .isEqualTo(body(plan, otlpRecord(0), false))
                .isEqualTo(body(plan, otlpRecord(0), true));
    }

    @Test
    void theRemoteWriteDecoderReadsThemBackFromTheBody() {
        byte[] v1 = body(new AmplificationPlan(2, 1, 60_000), otlpRecord(S_MS), true);
        DecodedPoints back = new DecodedPoints();
        back.histograms().accept(true);
        Rejections r = new Rejections();
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME).decode(snappy(v1), 0, back, r);
        assertThat(r.total()).isZero();
        assertThat(back.count()).isEqualTo(4);
        for (int p = 0; p < back.count(); p++) {
            assertThat(back.startTimestampMs(p)).isEqualTo(S_MS);
        }
        assertThat(back.histograms().count()).isEqualTo(2);
    }

    @Test
    void pointsCopiedVerbatimAtNOneKeepTheirsToo() throws IOException {
        AmplificationPlan plan = new AmplificationPlan(2, 1, 60_000);
        PointAmplifier a = new PointAmplifier(
                new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME),
                new RemoteWriteEncoder(plan, true),
                new SeriesCache(1000));
        assertThat(a.decode(snappy(remoteWriteSample(S_MS, T_MS)), 0).total()).isZero();
        // a remote write record of plain labels is JSON-safe, without families: at N = 1 encodePointVerbatim writes it
        ByteBuf out = new ByteBuf(64);
        a.encodePoint(0, out);
        ByteBuf v2 = RemoteWrite2Request.fromV1(out.array(), out.length());
        assertThat(V2Starts.of(Arrays.copyOf(v2.array(), v2.length())))
                .extracting(e -> e[1], e -> e[2])
                .containsExactly(tuple(T_MS, S_MS), tuple(T_MS + 30_000, S_MS));
    }

    /** A WriteRequest of one sample {@code up 1} at {@code timestampMs} with {@code start_timestamp} (field 3). */
    private static byte[] remoteWriteSample(long startMs, long timestampMs) throws IOException {
        ByteArrayOutputStream sample = new ByteArrayOutputStream();
        CodedOutputStream so = CodedOutputStream.newInstance(sample);
        so.writeDouble(1, 1);
        so.writeInt64(2, timestampMs);
        so.writeInt64(3, startMs);
        so.flush();
        ByteArrayOutputStream label = new ByteArrayOutputStream();
        CodedOutputStream lo = CodedOutputStream.newInstance(label);
        lo.writeString(1, "__name__");
        lo.writeString(2, "up");
        lo.flush();
        ByteArrayOutputStream series = new ByteArrayOutputStream();
        CodedOutputStream to = CodedOutputStream.newInstance(series);
        to.writeByteArray(1, label.toByteArray());
        to.writeByteArray(2, sample.toByteArray());
        to.flush();
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        CodedOutputStream ro = CodedOutputStream.newInstance(request);
        ro.writeByteArray(1, series.toByteArray());
        ro.flush();
        return request.toByteArray();
    }

    private static byte[] snappy(byte[] b) {
        try {
            return Snappy.compress(b);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The samples (field 2) and histograms (field 3) of a 2.0 request's series (field 5), each's field 15/17 or 2/3. */
    private static final class V2Starts {

        static List<long[]> of(byte[] request) throws IOException {
            List<long[]> out = new ArrayList<>();
            CodedInputStream in = CodedInputStream.newInstance(request);
            int tag;
            while ((tag = in.readTag()) != 0) {
                if (tag != (5 << 3 | 2)) {
                    in.skipField(tag);
                    continue;
                }
                CodedInputStream ts = CodedInputStream.newInstance(in.readByteArray());
                int t;
                while ((t = ts.readTag()) != 0) {
                    if (t == (2 << 3 | 2) || t == (3 << 3 | 2)) {
                        boolean sample = t == (2 << 3 | 2);
                        out.add(entry(ts.readByteArray(), sample ? 2 : 15, sample ? 3 : 17, sample ? 2 : 3));
                    } else {
                        ts.skipField(t);
                    }
                }
            }
            return out;
        }

        private static long[] entry(byte[] message, int timestampField, int startField, int kind) throws IOException {
            long[] e = {kind, 0, 0};
            CodedInputStream m = CodedInputStream.newInstance(message);
            int t;
            while ((t = m.readTag()) != 0) {
                if (t == (timestampField << 3)) {
                    e[1] = m.readInt64();
                } else if (t == (startField << 3)) {
                    e[2] = m.readInt64();
                } else {
                    m.skipField(t);
                }
            }
            return e;
        }
    }
}
