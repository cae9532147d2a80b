package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedInputStream;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.encode.remotewrite.MetricMetadata.Type;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.wire.ByteBuf;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricMetadataTest {

    /** The fields of one length-delimited message: field number to its value (a varint as Long, a string as String). */
    private static Map<Integer, Object> fields(byte[] message) throws Exception {
        Map<Integer, Object> got = new LinkedHashMap<>();
        CodedInputStream in = CodedInputStream.newInstance(message);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            int field = tag >>> 3;
            got.put(field, (tag & 7) == 0 ? (Object) in.readUInt64() : in.readStringRequireUtf8());
        }
        return got;
    }

    /** The payload of the single length-delimited entry {@code entry}, after checking its field number. */
    private static byte[] payload(byte[] entry, int length, int expectedField) throws Exception {
        CodedInputStream in = CodedInputStream.newInstance(entry, 0, length);
        int tag = in.readTag();
        assertThat(tag).isEqualTo(expectedField << 3 | 2);
        byte[] p = in.readByteArray();
        assertThat(in.isAtEnd()).isTrue();
        return p;
    }

    @Test
    void aV1EntryIsWriteRequestField3WithTypeFamilyHelpAndUnit() throws Exception {
        byte[] e = new MetricMetadata(Type.COUNTER, "http_requests", "Requests served, by code.", "seconds").v1Entry();
        assertThat(fields(payload(e, e.length, 3)))
                .containsExactly(
                        Map.entry(1, 1L),
                        Map.entry(2, "http_requests"),
                        Map.entry(4, "Requests served, by code."),
                        Map.entry(5, "seconds"));
    }

    @Test
    void defaultsAreLeftOutAsProto3Does() throws Exception {
        byte[] e = new MetricMetadata(Type.UNKNOWN, "x", "", "").v1Entry();
        assertThat(fields(payload(e, e.length, 3))).containsExactly(Map.entry(2, "x"));
    }

    @Test
    void aV2EntryIsTimeSeriesField5WithTypeAndSymbolReferences() throws Exception {
        ByteBuf out = new ByteBuf(1);
        new MetricMetadata(Type.HISTOGRAM, "rpc_duration", "h", "seconds").putV2Entry(7, 300, out);
        assertThat(fields(payload(out.array(), out.length(), 5)))
                .containsExactly(Map.entry(1, 3L), Map.entry(3, 7L), Map.entry(4, 300L));
        ByteBuf none = new ByteBuf(1);
        new MetricMetadata(Type.GAUGE, "g", "", "").putV2Entry(0, 0, none);
        assertThat(fields(payload(none.array(), none.length(), 5))).containsExactly(Map.entry(1, 2L));
    }

    @Test
    void theExpositionTypeTokensMapToBothSchemasNumbers() {
        assertThat(Arrays.stream(new String[] {
                            "counter",
                            "GAUGE",
                            "histogram",
                            "gaugehistogram",
                            "summary",
                            "info",
                            "stateset",
                            "untyped",
                            "unknown",
                            "bogus"
                        })
                        .map(t -> Type.ofExposition(t).wire()))
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 0, 0, 0);
    }

    @Test
    void aBodyWithMetadataStaysAWriteRequestAndItsV2ConversionKeepsTheSeries() throws Exception {
        RemoteWriteEncoder enc = new RemoteWriteEncoder(AmplificationPlan.relay());
        byte[] series = enc.prepareSeries("up", new String[] {"job"}, new String[] {"j"}, 0, 1);
        ByteBuf body = new ByteBuf(16);
        enc.encodePoint(series, 0, 1_000, 1.0, body);
        new MetricMetadata(Type.GAUGE, "up", "Is the target up.", "").appendV1(body);
        byte[] bytes = Arrays.copyOf(body.array(), body.length());
        assertThat(RemoteWriteBodies.decode(bytes)).hasSize(1);
        ByteBuf v2 = RemoteWrite2Request.fromV1(bytes, bytes.length);
        assertThat(RemoteWriteBodies.decodeV2(Arrays.copyOf(v2.array(), v2.length()))
                        .series())
                .hasSize(1);
    }

    @Test
    void theV2RequestGivesEachSeriesOfAFamilyItsMetadataThroughTheSymbolTable() throws Exception {
        RemoteWriteEncoder enc = new RemoteWriteEncoder(AmplificationPlan.relay());
        ByteBuf body = new ByteBuf(16);
        new MetricMetadata(Type.HISTOGRAM, "rpc_seconds", "RPC latency.", "seconds").appendV1(body);
        new MetricMetadata(Type.GAUGE, "rpc_seconds", "a second entry of a family is ignored", "").appendV1(body);
        for (String name : new String[] {"rpc_seconds_bucket", "rpc_seconds_sum", "other", "rpc_seconds_x"}) {
            enc.encodePoint(
                    enc.prepareSeries(name, new String[] {"job"}, new String[] {"j"}, 0, 1), 0, 1_000, 1.0, body);
        }
        new MetricMetadata(Type.COUNTER, "other", "", "").appendV1(body);
        byte[] v1 = Arrays.copyOf(body.array(), body.length());
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        byte[] req = Arrays.copyOf(v2.array(), v2.length());
        assertThat(RemoteWriteBodies.metadataV2(req))
                .containsExactly("3|RPC latency.|seconds", "3|RPC latency.|seconds", "1||", "-");
        assertThat(RemoteWriteBodies.decodeV2(req).series()).hasSize(4);
    }
}
