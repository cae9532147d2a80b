package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
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
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.wire.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/** Native histograms from decode through amplification into remote write 1.0 and 2.0 bodies. */
class NativeHistogramEncodeTest {

    private static final long T_MS = 1_795_300_857_000L;

    /** One OTLP exponential histogram {@code lat{host="h1"}} at scale 10 (merged to 8) and a gauge {@code g}. */
    static byte[] otlpRecord() {
        return otlpRecord(T_MS);
    }

    static byte[] otlpRecord(long tMs) {
        Metric lat = Metric.newBuilder()
                .setName("lat")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("host")
                                        .setValue(AnyValue.newBuilder().setStringValue("h1")))
                                .setTimeUnixNano(tMs * 1_000_000L)
                                .setCount(12)
                                .setSum(30.5)
                                .setScale(10)
                                .setZeroCount(2)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(4)
                                        .addAllBucketCounts(List.of(1L, 2L, 3L, 4L)))))
                .build();
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(lat)))
                .build()
                .toByteArray();
    }

    /** One OTLP explicit-bucket histogram {@code lat_explicit{host="h1"}}: bounds 0.1, 1, 10, counts 2, 0, 5, 1. */
    static byte[] otlpExplicitRecord() {
        Metric lat = Metric.newBuilder()
                .setName("lat_explicit")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder()
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("host")
                                        .setValue(AnyValue.newBuilder().setStringValue("h1")))
                                .setTimeUnixNano(T_MS * 1_000_000L)
                                .setCount(8)
                                .setSum(20.5)
                                .addAllExplicitBounds(List.of(0.1, 1.0, 10.0))
                                .addAllBucketCounts(List.of(2L, 0L, 5L, 1L))))
                .build();
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(lat)))
                .build()
                .toByteArray();
    }

    /** Decodes {@code record} and encodes every point through an amplifier for {@code plan}; the 1.0 body. */
    private static byte[] amplify(AmplificationPlan plan, byte[] record) {
        return amplify(plan, record, false);
    }

    /** As {@link #amplify(AmplificationPlan, byte[])}, explicit-bucket histograms as custom buckets when {@code nhcb}. */
    private static byte[] amplify(AmplificationPlan plan, byte[] record, boolean nhcb) {
        PointAmplifier a = new PointAmplifier(
                        new OtlpDecoder(1 << 20, Decoded.ANY_TIME), new RemoteWriteEncoder(plan), new SeriesCache(1000))
                .convertHistogramsToNhcb(nhcb);
        Rejections r = a.decode(record, 0);
        assertThat(r.total()).isZero();
        ByteBuf out = new ByteBuf(64);
        int samples = 0;
        for (int p = 0; p < a.pointCount(); p++) {
            samples += a.encodePoint(p, out);
        }
        assertThat(samples).as("a histogram is one sample per copy").isEqualTo(a.pointCount() * plan.samplesPerPoint());
        return Arrays.copyOf(out.array(), out.length());
    }

    @Test
    void anOtlpExponentialHistogramIsOneTimeSeriesWithMHistogramsPerVariant() throws Exception {
        AmplificationPlan plan = new AmplificationPlan(3, 2, 60_000);
        byte[] body = amplify(plan, otlpRecord());
        List<RemoteWriteBodies.Series> series = RemoteWriteBodies.decode(body);
        assertThat(series).hasSize(2);
        assertThat(series.get(0).label("__name__")).isEqualTo("lat");
        assertThat(series.get(0).label("host")).isEqualTo("h1");
        assertThat(series.get(0).samples()).isEmpty();
        List<List<byte[]>> histograms = RemoteWriteBodies.histogramsV1(body);
        for (List<byte[]> copies : histograms) {
            assertThat(copies).hasSize(3);
            List<Long> timestamps = new ArrayList<>();
            for (byte[] h : copies) {
                NativeHistogramMessage m = NativeHistogramMessage.parse(h, 0, h.length);
                timestamps.add(m.timestamp());
                assertThat(m.countInt()).isEqualTo(12);
                assertThat(m.sum()).isEqualTo(30.5);
                assertThat(m.schema()).isEqualTo(8);
                assertThat(m.zeroCountInt()).isEqualTo(2);
                // OTLP indices 4..7 at scale 10 are index 1 at scale 8, + 1: native bucket 2 holds all 10
                assertThat(m.positive()).isEqualTo(Map.of(2, 10L));
            }
            assertThat(timestamps).containsExactly(T_MS, T_MS + 20_000, T_MS + 40_000);
        }
        assertThat(RemoteWriteBodies.metadataV1(body))
                .extracting(RemoteWriteBodies.Metadata::type, RemoteWriteBodies.Metadata::family)
                .containsExactly(tuple(3L, "lat")); // HISTOGRAM
    }

    @Test
    void theRemoteWriteDecoderReadsTheBodyBackHistogramForHistogram() throws Exception {
        AmplificationPlan plan = new AmplificationPlan(2, 2, 60_000);
        byte[] body = amplify(plan, otlpRecord());
        DecodedPoints back = new DecodedPoints();
        back.histograms().accept(true);
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(Snappy.compress(body), 0, back, new Rejections(Rejections.NonFinite.KEEP));
        assertThat(back.count()).isEqualTo(4);
        NativeHistogramMessage first = NativeHistogramMessage.of(back, 0);
        for (int p = 0; p < 4; p++) {
            assertThat(NativeHistogramMessage.of(back, p))
                    .usingRecursiveComparison()
                    .isEqualTo(first);
        }
        assertThat(back.timestampMs(0)).isEqualTo(T_MS);
        assertThat(back.timestampMs(1)).isEqualTo(T_MS + 30_000);
    }

    @Test
    void remoteWrite2CarriesTheSameHistogramMessagesUnderField3() throws Exception {
        byte[] body = amplify(new AmplificationPlan(2, 1, 60_000), otlpRecord());
        ByteBuf v2 = RemoteWrite2Request.fromV1(body, body.length);
        byte[] request = Arrays.copyOf(v2.array(), v2.length());
        RemoteWriteBodies.V2Request decoded = RemoteWriteBodies.decodeV2(request);
        assertThat(decoded.series()).hasSize(1);
        assertThat(decoded.series().get(0).label("__name__")).isEqualTo("lat");
        assertThat(decoded.series().get(0).samples()).isEmpty();
        List<byte[]> v1Histograms = RemoteWriteBodies.histogramsV1(body).get(0);
        List<byte[]> v2Histograms = RemoteWriteBodies.histogramsV2(request).get(0);
        assertThat(v2Histograms).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(v2Histograms.get(i)).isEqualTo(v1Histograms.get(i));
        }
        assertThat(RemoteWriteBodies.metadataV2(request)).containsExactly("3||");
    }

    @Test
    void anOtlpExplicitHistogramWithCustomBucketsIsMNativeHistogramsPerVariantIn1And2() throws Exception {
        AmplificationPlan plan = new AmplificationPlan(3, 2, 60_000);
        byte[] body = amplify(plan, otlpExplicitRecord(), true);
        List<RemoteWriteBodies.Series> series = RemoteWriteBodies.decode(body);
        assertThat(series).hasSize(2);
        assertThat(series).allSatisfy(s -> {
            assertThat(s.label("__name__")).isEqualTo("lat_explicit");
            assertThat(s.samples()).isEmpty();
        });
        List<List<byte[]>> histograms = RemoteWriteBodies.histogramsV1(body);
        assertThat(histograms).hasSize(2);
        for (List<byte[]> copies : histograms) {
            assertThat(copies).hasSize(3);
            List<Long> timestamps = new ArrayList<>();
            for (byte[] h : copies) {
                NativeHistogramMessage m = NativeHistogramMessage.parse(h, 0, h.length);
                timestamps.add(m.timestamp());
                assertThat(m.countInt()).isEqualTo(8);
                assertThat(m.sum()).isEqualTo(20.5);
                assertThat(m.schema()).isEqualTo(-53);
                assertThat(m.zeroCountInt()).isZero();
                assertThat(m.customValues()).containsExactly(0.1, 1.0, 10.0);
                assertThat(m.positive()).isEqualTo(Map.of(0, 2L, 2, 5L, 3, 1L));
            }
            assertThat(timestamps).containsExactly(T_MS, T_MS + 20_000, T_MS + 40_000);
        }
        assertThat(RemoteWriteBodies.metadataV1(body))
                .extracting(RemoteWriteBodies.Metadata::type, RemoteWriteBodies.Metadata::family)
                .containsExactly(tuple(3L, "lat_explicit")); // HISTOGRAM
        ByteBuf v2 = RemoteWrite2Request.fromV1(body, body.length);
        byte[] request = Arrays.copyOf(v2.array(), v2.length());
        List<List<byte[]>> v2Histograms = RemoteWriteBodies.histogramsV2(request);
        assertThat(v2Histograms).hasSize(2);
        for (int s = 0; s < 2; s++) {
            assertThat(v2Histograms.get(s)).containsExactlyElementsOf(histograms.get(s));
        }
    }

    @Test
    void withoutTheOptionAnOtlpExplicitHistogramStaysClassicSeries() throws Exception {
        byte[] body = amplify(new AmplificationPlan(1, 1, 60_000), otlpExplicitRecord(), false);
        assertThat(RemoteWriteBodies.histogramsV1(body))
                .allSatisfy(h -> assertThat(h).isEmpty());
        assertThat(RemoteWriteBodies.decode(body))
                .extracting(s -> s.label("__name__"))
                .containsExactlyInAnyOrder(
                        "lat_explicit_count",
                        "lat_explicit_sum",
                        "lat_explicit_bucket",
                        "lat_explicit_bucket",
                        "lat_explicit_bucket",
                        "lat_explicit_bucket");
    }

    @Test
    void theImportOutputKeepsClassicSeriesWithTheOption() {
        PointAmplifier a = new PointAmplifier(
                        new OtlpDecoder(1 << 20, Decoded.ANY_TIME),
                        new ImportSampleEncoder(new ImportLineEncoder(new AmplificationPlan(1, 1, 60_000))),
                        new SeriesCache(1000))
                .convertHistogramsToNhcb(true);
        a.decode(otlpExplicitRecord(), 0);
        assertThat(a.pointCount()).isEqualTo(6);
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < a.pointCount(); p++) {
            a.encodePoint(p, out);
        }
        String lines = new String(out.array(), 0, out.length(), StandardCharsets.UTF_8);
        assertThat(lines).contains("\"lat_explicit_bucket\"").contains("\"le\":\"+Inf\"");
    }

    /** A float histogram with custom buckets (schema -53, NHCB): counts as doubles, the bounds in custom_values. */
    private static byte[] customBucketsHistogram(long timestamp) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeDouble(2, 7.5); // count_float
        out.writeDouble(3, 12.25);
        out.writeSInt32(4, -53);
        ByteArrayOutputStream span = new ByteArrayOutputStream();
        CodedOutputStream so = CodedOutputStream.newInstance(span);
        so.writeUInt32(2, 3);
        so.flush();
        out.writeByteArray(11, span.toByteArray());
        out.writeTag(13, 2); // positive_counts, packed
        out.writeUInt32NoTag(24);
        for (double c : new double[] {1.5, 2, 4}) {
            out.writeDoubleNoTag(c);
        }
        out.writeEnum(14, 3); // GAUGE
        out.writeInt64(15, timestamp);
        out.writeTag(16, 2); // custom_values, packed
        out.writeUInt32NoTag(16);
        out.writeDoubleNoTag(0.5);
        out.writeDoubleNoTag(1);
        out.flush();
        return bytes.toByteArray();
    }

    /** The message without its timestamp field, which the writer appends after the others. */
    private static byte[] timestampLast(byte[] message, long timestamp) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedInputStream in = CodedInputStream.newInstance(message);
        int tag;
        while ((tag = in.readTag()) != 0) {
            int at = in.getTotalBytesRead() - CodedOutputStream.computeUInt32SizeNoTag(tag);
            in.skipField(tag);
            if (tag >>> 3 != 15) {
                bytes.write(message, at, in.getTotalBytesRead() - at);
            }
        }
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeInt64(15, timestamp);
        out.flush();
        return bytes.toByteArray();
    }

    @Test
    void remoteWriteHistogramsPassThroughToRemoteWrite1And2ByteForByteButTheirTimestamps() throws Exception {
        byte[] source = customBucketsHistogram(T_MS);
        PointAmplifier a = new PointAmplifier(
                new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME),
                new RemoteWriteEncoder(new AmplificationPlan(2, 1, 60_000)),
                new SeriesCache(1000));
        a.decode(NativeHistogramMessage.writeRequest(source), 0);
        assertThat(a.pointCount()).isEqualTo(1);
        ByteBuf out = new ByteBuf(64);
        assertThat(a.encodePoint(0, out)).isEqualTo(2);
        byte[] body = Arrays.copyOf(out.array(), out.length());
        byte[][] expected = {timestampLast(source, T_MS), timestampLast(source, T_MS + 30_000)};
        assertThat(RemoteWriteBodies.histogramsV1(body).get(0)).containsExactly(expected);
        ByteBuf v2 = RemoteWrite2Request.fromV1(body, body.length);
        assertThat(RemoteWriteBodies.histogramsV2(Arrays.copyOf(v2.array(), v2.length()))
                        .get(0))
                .containsExactly(expected);
        NativeHistogramMessage m = NativeHistogramMessage.parse(expected[1], 0, expected[1].length);
        assertThat(m.customValues()).containsExactly(0.5, 1.0);
        assertThat(m.positiveCounts()).containsExactly(1.5, 2.0, 4.0);
        assertThat(m.countFloat()).isEqualTo(7.5);
        assertThat(m.schema()).isEqualTo(-53);
        assertThat(m.resetHint()).isEqualTo(3);
        assertThat(m.timestamp()).isEqualTo(T_MS + 30_000);
    }

    @Test
    void theImportOutputKeepsVmrangeSamples() {
        AmplificationPlan plan = new AmplificationPlan(1, 1, 60_000);
        PointAmplifier a = new PointAmplifier(
                new OtlpDecoder(1 << 20, Decoded.ANY_TIME),
                new ImportSampleEncoder(new ImportLineEncoder(plan)),
                new SeriesCache(1000));
        a.decode(otlpRecord(), 0);
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < a.pointCount(); p++) {
            a.encodePoint(p, out);
        }
        String lines = new String(out.array(), 0, out.length(), StandardCharsets.UTF_8);
        assertThat(lines).contains("\"lat_count\"").contains("vmrange").doesNotContain("\"__name__\":\"lat\"");
    }
}
