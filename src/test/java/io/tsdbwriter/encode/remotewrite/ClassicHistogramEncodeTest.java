package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --convert-classic-histograms-to-nhcb} from an exposition record through amplification into remote write 1.0
 * and 2.0: the histogram's series carries the metadata type {@code histogram} (remote write 2.0 "Metadata":
 * {@code METRIC_TYPE_HISTOGRAM}, 3; 1.0's {@code MetricMetadata.HISTOGRAM}) with its family's HELP and UNIT, a
 * {@code gaugehistogram} family stays classic series typed {@code gaugehistogram} (4) — its {@code _gcount} and
 * {@code _gsum} too —, and the import API keeps classic series.
 */
class ClassicHistogramEncodeTest {

    private static final byte[] RECORD =
            """
            # HELP lat Request latency.
            # TYPE lat histogram
            # UNIT lat seconds
            lat_bucket{code="200",le="0.1"} 2 1795300857000
            lat_bucket{code="200",le="1"} 2 1795300857000
            lat_bucket{code="200",le="10"} 7 1795300857000
            lat_bucket{code="200",le="+Inf"} 8 1795300857000
            lat_sum{code="200"} 20.5 1795300857000
            lat_count{code="200"} 8 1795300857000
            # TYPE q gaugehistogram
            q_bucket{le="1"} 3 1795300857000
            q_bucket{le="+Inf"} 4 1795300857000
            q_gcount 4 1795300857000
            q_gsum 9 1795300857000
            """
                    .getBytes(StandardCharsets.UTF_8);

    private static final long T_MS = 1_795_300_857_000L;

    private static PointAmplifier amplifier(PointAmplifier a) {
        Rejections r = a.decode(RECORD, 0);
        assertThat(r.total()).isZero();
        return a;
    }

    private static byte[] remoteWrite(AmplificationPlan plan) {
        PointAmplifier a = amplifier(new PointAmplifier(
                        new ExpositionDecoder(1 << 20, Decoded.ANY_TIME),
                        new RemoteWriteEncoder(plan),
                        new SeriesCache(1000))
                .convertClassicHistogramsToNhcb(true));
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < a.pointCount(); p++) {
            a.encodePoint(p, out);
        }
        return Arrays.copyOf(out.array(), out.length());
    }

    @Test
    void theHistogramIsMNativeHistogramsPerVariantTypedHistogramIn1And2TheGaugeHistogramStaysClassic()
            throws Exception {
        byte[] body = remoteWrite(new AmplificationPlan(2, 1, 60_000));
        List<RemoteWriteBodies.Series> series = RemoteWriteBodies.decode(body);
        assertThat(series)
                .extracting(s -> s.label("__name__"))
                .containsExactly("lat", "q_bucket", "q_bucket", "q_gcount", "q_gsum");
        List<byte[]> copies = RemoteWriteBodies.histogramsV1(body).get(0);
        assertThat(copies).hasSize(2);
        NativeHistogramMessage m = NativeHistogramMessage.parse(copies.get(1), 0, copies.get(1).length);
        assertThat(m.timestamp()).isEqualTo(T_MS + 30_000);
        assertThat(m.countInt()).isEqualTo(8);
        assertThat(m.sum()).isEqualTo(20.5);
        assertThat(m.schema()).isEqualTo(-53);
        assertThat(m.customValues()).containsExactly(0.1, 1.0, 10.0);
        assertThat(m.positive()).isEqualTo(Map.of(0, 2L, 2, 5L, 3, 1L));
        assertThat(RemoteWriteBodies.metadataV1(body))
                .extracting(
                        RemoteWriteBodies.Metadata::type,
                        RemoteWriteBodies.Metadata::family,
                        RemoteWriteBodies.Metadata::help,
                        RemoteWriteBodies.Metadata::unit)
                .containsExactly(tuple(3L, "lat", "Request latency.", "seconds"), tuple(4L, "q", "", ""));

        ByteBuf v2 = RemoteWrite2Request.fromV1(body, body.length);
        byte[] request = Arrays.copyOf(v2.array(), v2.length());
        assertThat(RemoteWriteBodies.metadataV2(request))
                .containsExactly("3|Request latency.|seconds", "4||", "4||", "4||", "4||");
        assertThat(RemoteWriteBodies.histogramsV2(request).get(0)).containsExactlyElementsOf(copies);
    }

    @Test
    void theImportOutputKeepsClassicSeriesWithTheOption() {
        PointAmplifier a = amplifier(new PointAmplifier(
                        new ExpositionDecoder(1 << 20, Decoded.ANY_TIME),
                        new ImportSampleEncoder(new ImportLineEncoder(new AmplificationPlan(1, 1, 60_000))),
                        new SeriesCache(1000))
                .convertClassicHistogramsToNhcb(true));
        assertThat(a.pointCount()).isEqualTo(10);
    }
}
