package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.wire.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exemplars of OTLP histogram data points in remote write 1.0 ({@code TimeSeries.exemplars} = 3) and 2.0
 * ({@code TimeSeries.exemplars} = 4, labels as symbol refs): an explicit-bucket histogram's on the {@code _bucket}
 * series of their bucket, an exponential one's all on its native histogram series, each with every instance copy of
 * its series (once per {@code TimeSeries}, whatever the time copies), in the order they were decoded (by time).
 */
class HistogramExemplarEncodeTest {

    private static final long T_MS = 1_795_300_857_000L;
    private static final long T_NS = T_MS * 1_000_000L;

    private static Exemplar exemplar(double value, long ageMs, int traceByte) {
        return Exemplar.newBuilder()
                .setAsDouble(value)
                .setTimeUnixNano(T_NS - ageMs * 1_000_000L)
                .setTraceId(ByteString.copyFrom(new byte[] {(byte) traceByte}))
                .build();
    }

    private static byte[] record(Metric metric) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(metric)))
                .build()
                .toByteArray();
    }

    /** {@code lat}: bounds 1 and 10, exemplars 0.5 (in le=1), 5 and 7 (in le=10; 7 the older). */
    private static byte[] classic() {
        return record(Metric.newBuilder()
                .setName("lat")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(3)
                                .setSum(12.5)
                                .addExplicitBounds(1)
                                .addExplicitBounds(10)
                                .addBucketCounts(1)
                                .addBucketCounts(2)
                                .addBucketCounts(0)
                                .addExemplars(exemplar(0.5, 0, 0x0a))
                                .addExemplars(exemplar(5, 0, 0x0b))
                                .addExemplars(exemplar(7, 10, 0x0c))))
                .build());
    }

    /** {@code lat}: an exponential histogram with exemplars 1.5 and 3 (3 the older). */
    private static byte[] exponential() {
        return record(Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setTimeUnixNano(T_NS)
                                .setCount(3)
                                .setSum(4.5)
                                .setScale(0)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .addBucketCounts(2)
                                        .addBucketCounts(1))
                                .addExemplars(exemplar(1.5, 0, 0x01))
                                .addExemplars(exemplar(3, 20, 0x02))))
                .build());
    }

    private static byte[] body(AmplificationPlan plan, byte[] record) {
        PointAmplifier a = new PointAmplifier(
                new OtlpDecoder(1 << 20, Decoded.ANY_TIME), new RemoteWriteEncoder(plan, false), new SeriesCache(1000));
        assertThat(a.decode(record, 0).total()).isZero();
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < a.pointCount(); p++) {
            a.encodePoint(p, out);
        }
        return Arrays.copyOf(out.array(), out.length());
    }

    private static byte[] v2(byte[] v1) {
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        return Arrays.copyOf(v2.array(), v2.length());
    }

    /** Per TimeSeries its exemplars ({@link RemoteWriteBodies#exemplarsV1}); 2.0 the same. */
    private static List<String> exemplars(AmplificationPlan plan, byte[] record) throws IOException {
        byte[] v1 = body(plan, record);
        List<String> got = RemoteWriteBodies.exemplarsV1(v1);
        assertThat(RemoteWriteBodies.exemplarsV2(v2(v1)))
                .as("2.0 carries the same")
                .isEqualTo(got);
        return got;
    }

    private static List<String> eachTwice(String... perSeries) {
        List<String> out = new ArrayList<>();
        for (String s : perSeries) {
            out.addAll(Collections.nCopies(2, s));
        }
        return out;
    }

    private static final String E05 = "trace_id=0a|0.5|" + T_MS;
    private static final String E5 = "trace_id=0b|5.0|" + T_MS;
    private static final String E7 = "trace_id=0c|7.0|" + (T_MS - 10);
    private static final String E15 = "trace_id=01|1.5|" + T_MS;
    private static final String E3 = "trace_id=02|3.0|" + (T_MS - 20);

    @Test
    void explicitBucketExemplarsGoOnTheirBucketSeries() throws IOException {
        // _count, _sum, le=1, le=10, le=+Inf
        assertThat(exemplars(AmplificationPlan.relay(), classic())).containsExactly("", "", E05, E7 + ";" + E5, "");
    }

    @Test
    void withEveryInstanceCopyWhateverTheTimeCopies() throws IOException {
        assertThat(exemplars(new AmplificationPlan(3, 2, 60_000), classic()))
                .isEqualTo(eachTwice("", "", E05, E7 + ";" + E5, ""));
        assertThat(exemplars(new AmplificationPlan(3, 2, 60_000), exponential()))
                .isEqualTo(eachTwice(E3 + ";" + E15));
    }

    @Test
    void exponentialExemplarsGoOnTheNativeHistogramSeries() throws IOException {
        byte[] v1 = body(AmplificationPlan.relay(), exponential());
        List<List<byte[]>> histograms = RemoteWriteBodies.histogramsV1(v1);
        assertThat(histograms).hasSize(1);
        assertThat(histograms.get(0)).hasSize(1);
        assertThat(RemoteWriteBodies.exemplarsV1(v1)).containsExactly(E3 + ";" + E15);
    }

    /** 1.0: {@code Exemplar { repeated Label labels = 1; double value = 2; int64 timestamp = 3; }}, byte for byte. */
    @Test
    void v1ExemplarEntriesByteForByte() throws IOException {
        byte[] v1 = body(AmplificationPlan.relay(), exponential());
        List<byte[]> got = fields(only(fields(v1, 1)), 3);
        assertThat(got).hasSize(2);
        assertThat(got.get(0)).isEqualTo(v1Exemplar("02", 3, T_MS - 20));
        assertThat(got.get(1)).isEqualTo(v1Exemplar("01", 1.5, T_MS));
    }

    /** 2.0: {@code Exemplar { repeated uint32 labels_refs = 1; double value = 2; int64 timestamp = 3; }}, byte for byte. */
    @Test
    void v2ExemplarEntriesByteForByte() throws IOException {
        byte[] req = v2(body(AmplificationPlan.relay(), exponential()));
        List<String> symbols = new ArrayList<>();
        for (byte[] s : fields(req, 4)) {
            symbols.add(new String(s, StandardCharsets.UTF_8));
        }
        List<byte[]> got = fields(only(fields(req, 5)), 4);
        assertThat(got).hasSize(2);
        assertThat(got.get(0)).isEqualTo(v2Exemplar(symbols, "02", 3, T_MS - 20));
        assertThat(got.get(1)).isEqualTo(v2Exemplar(symbols, "01", 1.5, T_MS));
    }

    private static byte[] v1Exemplar(String trace, double value, long t) throws IOException {
        ByteArrayOutputStream label = new ByteArrayOutputStream();
        CodedOutputStream l = CodedOutputStream.newInstance(label);
        l.writeString(1, "trace_id");
        l.writeString(2, trace);
        l.flush();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        CodedOutputStream o = CodedOutputStream.newInstance(b);
        o.writeByteArray(1, label.toByteArray());
        o.writeDouble(2, value);
        o.writeInt64(3, t);
        o.flush();
        return b.toByteArray();
    }

    private static byte[] v2Exemplar(List<String> symbols, String trace, double value, long t) throws IOException {
        assertThat(symbols).contains("trace_id", trace);
        ByteArrayOutputStream refs = new ByteArrayOutputStream();
        CodedOutputStream r = CodedOutputStream.newInstance(refs);
        r.writeUInt32NoTag(symbols.indexOf("trace_id"));
        r.writeUInt32NoTag(symbols.indexOf(trace));
        r.flush();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        CodedOutputStream o = CodedOutputStream.newInstance(b);
        o.writeByteArray(1, refs.toByteArray());
        o.writeDouble(2, value);
        o.writeInt64(3, t);
        o.flush();
        return b.toByteArray();
    }

    /** The payloads of the length-delimited field {@code number} of the message {@code m}, in order. */
    private static List<byte[]> fields(byte[] m, int number) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(m);
        List<byte[]> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == (number << 3 | 2)) {
                out.add(in.readByteArray());
            } else {
                in.skipField(tag);
            }
        }
        return out;
    }

    private static byte[] only(List<byte[]> entries) {
        assertThat(entries).hasSize(1);
        return entries.get(0);
    }
}
