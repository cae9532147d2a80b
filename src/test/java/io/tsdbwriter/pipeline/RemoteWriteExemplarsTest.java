package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OpenMetrics exemplars into remote write 1.0's {@code TimeSeries.exemplars} (issue 53 item 4; the 1.0
 * {@code prompb.Exemplar}: labels, value, timestamp) and 2.0's (labels through the symbol table, the same values):
 * the exemplar's own labels (escapes resolved), value and
 * timestamp (OpenMetrics seconds into ms; the sample's when it has none), once per TimeSeries — so with every instance
 * copy, and with the time copies only as the M samples of the one TimeSeries that carries it at its own timestamp.
 */
class RemoteWriteExemplarsTest {

    private static final long T = 1_700_000_000_000L;

    private static List<String> exemplars(AmplificationPlan plan, String text) throws Exception {
        PointAmplifier amp = new PointAmplifier(
                RecordDecoders.create(InputFormat.PROMETHEUS, 1 << 20, InfluxDecoder.Precision.NS),
                RemoteWriteEncoder.factory(plan).newEncoder(),
                new SeriesCache(100));
        assertThat(amp.decode(text.getBytes(StandardCharsets.UTF_8), T).total()).isZero();
        ByteBuf body = new ByteBuf(64);
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
        byte[] v1 = Arrays.copyOf(body.array(), body.length());
        assertThat(RemoteWriteBodies.decode(v1))
                .hasSize(RemoteWriteBodies.exemplarsV1(v1).size());
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1, v1.length);
        byte[] req = Arrays.copyOf(v2.array(), v2.length());
        assertThat(RemoteWriteBodies.exemplarsV2(req))
                .as("2.0 carries the same exemplars")
                .isEqualTo(RemoteWriteBodies.exemplarsV1(v1));
        assertThat(RemoteWriteBodies.decodeV2(req).series()).isEqualTo(RemoteWriteBodies.decode(v1));
        return RemoteWriteBodies.exemplarsV1(v1);
    }

    private static final String TEXT =
            """
            # TYPE rpc_seconds histogram
            rpc_seconds_bucket{le="1"} 3 1700000000.000 # {trace_id="abc",span_id="s\\\\1"} 0.5 1699999999.5
            rpc_seconds_bucket{le="+Inf"} 4 1700000000.000 # {trace_id="def"} 7
            rpc_seconds_count 4 1700000000.000
            # EOF
            """;

    @Test
    void anExemplarGoesWithItsSeriesAtItsOwnTimestamp() throws Exception {
        assertThat(exemplars(AmplificationPlan.relay(), TEXT))
                .containsExactly("trace_id=abc,span_id=s\\1|0.5|1699999999500", "trace_id=def|7.0|1700000000000", "");
    }

    @Test
    void everyInstanceCopyCarriesItOnceWhateverTheTimeCopies() throws Exception {
        String a = "trace_id=abc,span_id=s\\1|0.5|1699999999500";
        String b = "trace_id=def|7.0|1700000000000";
        assertThat(exemplars(new AmplificationPlan(3, 2, 60_000), TEXT)).containsExactly(a, a, b, b, "", "");
    }
}
