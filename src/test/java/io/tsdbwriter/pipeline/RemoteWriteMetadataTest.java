package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Metadata;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TYPE, HELP and UNIT of the exposition into remote write (issue 53 item 4; the 1.0 specification's
 * {@code WriteRequest.metadata}, the 2.0 specification's "Metadata": SHOULD be sent when known): one 1.0 entry per
 * family per request body, whatever the points and amplified copies of that family in it; in 2.0 every series of the
 * family, every copy included, carries it. The bytes are decoded here as a receiver would.
 */
class RemoteWriteMetadataTest {

    private static final long T = 1_700_000_000_000L;
    private static final String TEXT =
            """
            # HELP http_requests_total Requests served, by code.\\nSecond line.
            # TYPE http_requests_total counter
            http_requests_total{code="200"} 10
            http_requests_total{code="500"} 1
            # HELP rpc_seconds RPC latency.
            # TYPE rpc_seconds histogram
            # UNIT rpc_seconds seconds
            rpc_seconds_bucket{le="1"} 3
            rpc_seconds_bucket{le="+Inf"} 4
            rpc_seconds_sum 2.5
            rpc_seconds_count 4
            undeclared 7
            """;

    private static PointAmplifier amplifier(AmplificationPlan plan, InputFormat format) {
        return new PointAmplifier(
                RecordDecoders.create(format, 1 << 20, InfluxDecoder.Precision.NS),
                RemoteWriteEncoder.factory(plan).newEncoder(),
                new SeriesCache(100));
    }

    private static void encode(PointAmplifier amp, String record, ByteBuf body) {
        assertThat(amp.decode(record.getBytes(StandardCharsets.UTF_8), T).total())
                .isZero();
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
    }

    private static byte[] bytes(ByteBuf body) {
        return Arrays.copyOf(body.array(), body.length());
    }

    private static final Metadata HTTP =
            new Metadata(1, "http_requests_total", "Requests served, by code.\nSecond line.", "");
    private static final Metadata RPC = new Metadata(3, "rpc_seconds", "RPC latency.", "seconds");

    @Test
    void aRequestCarriesOneV1EntryPerFamilyWithItsFirstPoint() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.PROMETHEUS);
        ByteBuf body = new ByteBuf(64);
        encode(amp, TEXT, body);
        encode(amp, TEXT, body); // a second scrape into the same request adds no entry
        byte[] v1 = bytes(body);
        assertThat(RemoteWriteBodies.metadataV1(v1)).containsExactly(HTTP, RPC);
        assertThat(RemoteWriteBodies.decode(v1)).hasSize(14);

        ByteBuf next = new ByteBuf(64); // the next request carries them again
        encode(amp, TEXT, next);
        assertThat(RemoteWriteBodies.metadataV1(bytes(next))).containsExactly(HTTP, RPC);
    }

    @Test
    void aBodyResetForANewRequestGetsTheEntriesAgain() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.PROMETHEUS);
        ByteBuf body = new ByteBuf(64);
        encode(amp, TEXT, body);
        body.reset();
        encode(amp, TEXT, body);
        assertThat(RemoteWriteBodies.metadataV1(bytes(body))).containsExactly(HTTP, RPC);
    }

    @Test
    void bodiesFilledInTurnEachGetTheirOwnEntries() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.PROMETHEUS);
        ByteBuf a = new ByteBuf(64);
        ByteBuf b = new ByteBuf(64);
        assertThat(amp.decode(TEXT.getBytes(StandardCharsets.UTF_8), T).total()).isZero();
        for (int round = 0; round < 2; round++) {
            for (int p = 0; p < amp.pointCount(); p++) {
                amp.encodePoint(p, p % 2 == 0 ? a : b); // as ordered lanes fill their batches
            }
        }
        assertThat(RemoteWriteBodies.metadataV1(bytes(a))).containsExactly(HTTP, RPC);
        assertThat(RemoteWriteBodies.metadataV1(bytes(b))).containsExactly(HTTP, RPC);
    }

    @Test
    void everyAmplifiedCopyCarriesItsFamilysMetadataIn2Point0() throws Exception {
        PointAmplifier amp = amplifier(new AmplificationPlan(2, 3, 60_000), InputFormat.PROMETHEUS);
        ByteBuf body = new ByteBuf(64);
        encode(amp, TEXT, body);
        byte[] v1 = bytes(body);
        assertThat(RemoteWriteBodies.metadataV1(v1)).containsExactly(HTTP, RPC);
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        List<String> md = RemoteWriteBodies.metadataV2(bytes(v2));
        String http = "1|Requests served, by code.\nSecond line.|";
        String rpc = "3|RPC latency.|seconds";
        assertThat(md)
                .containsExactly(
                        http, http, http, http, http, http, rpc, rpc, rpc, rpc, rpc, rpc, rpc, rpc, rpc, rpc, rpc, rpc,
                        "-", "-", "-");
    }

    @Test
    void openMetricsFamiliesMatchTheirSuffixedSeries() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.PROMETHEUS);
        ByteBuf body = new ByteBuf(64);
        encode(
                amp,
                """
                # TYPE jobs counter
                # HELP jobs Jobs run.
                # UNIT jobs
                jobs_total 3
                jobs_created 1.7e9
                # EOF
                """,
                body);
        byte[] v1 = bytes(body);
        assertThat(RemoteWriteBodies.metadataV1(v1)).containsExactly(new Metadata(1, "jobs", "Jobs run.", ""));
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        assertThat(RemoteWriteBodies.metadataV2(bytes(v2))).containsExactly("1|Jobs run.|", "1|Jobs run.|");
    }

    @Test
    void aFormatWithoutFamiliesSendsNoMetadata() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.INFLUX);
        ByteBuf body = new ByteBuf(64);
        encode(amp, "cpu,host=a usage=1 1700000000000000000\n", body);
        assertThat(RemoteWriteBodies.metadataV1(bytes(body))).isEmpty();
        assertThat(RemoteWriteBodies.decode(bytes(body))).hasSize(1);
    }

    /**
     * With relabel rules a series' state is routed (its hash and tenant before the prepared labels): its metadata id
     * is still found after them; a renamed series takes the family of its new name, here none.
     */
    @Test
    void relabeledSeriesKeepTheirFamilysMetadataAndARenamedOneTakesItsNewNamesFamily() throws Exception {
        PointAmplifier amp = amplifier(AmplificationPlan.relay(), InputFormat.PROMETHEUS)
                .relabel(RelabelRules.parse(
                        """
                - {source_labels: [code], regex: "500", target_label: __name__, replacement: errors_total}
                """,
                        "t.yml"));
        ByteBuf body = new ByteBuf(64);
        encode(amp, TEXT, body);
        byte[] v1 = bytes(body);
        assertThat(RemoteWriteBodies.metadataV1(v1)).containsExactly(HTTP, RPC);
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        String http = "1|Requests served, by code.\nSecond line.|";
        String rpc = "3|RPC latency.|seconds";
        assertThat(RemoteWriteBodies.metadataV2(bytes(v2))).containsExactly(http, "-", rpc, rpc, rpc, rpc, "-");
    }
}
