package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.RemoteWriteDecoderTest;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Sample;
import io.tsdbwriter.it.support.RemoteWriteBodies.Series;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * Every valid float64 passes where the output can carry it (the remote write specification: a sample's value is any
 * float64; issue 53 item 3): NaN, ±Inf and Prometheus' staleness marker, bit for bit, into remote write, amplified copies
 * included; ±Inf into the import API in the spelling VictoriaMetrics exports and reads back, NaN counted there (it
 * answers 2xx and drops it).
 */
class NonFiniteValuesTest {

    private static final double STALE = Double.longBitsToDouble(Rejections.STALE_MARKER_BITS);
    private static final long T = System.currentTimeMillis() / 60_000 * 60_000 - 600_000;

    private static byte[] remoteWriteRecord() throws Exception {
        return Snappy.compress(RemoteWriteDecoderTest.writeRequest(
                new Object[][] {{"__name__", "v_nan", "host", "h"}, {Double.NaN, T}},
                new Object[][] {{"__name__", "v_pinf", "host", "h"}, {Double.POSITIVE_INFINITY, T}},
                new Object[][] {{"__name__", "v_ninf", "host", "h"}, {Double.NEGATIVE_INFINITY, T}},
                new Object[][] {{"__name__", "v_stale", "host", "h"}, {1.0, T, STALE, T + 60_000}}));
    }

    private static List<Series> remoteWrite(byte[] record, InputFormat format, int m) throws Exception {
        AmplificationPlan plan = new AmplificationPlan(m, 1, 60_000);
        PointAmplifier amp = new PointAmplifier(
                RecordDecoders.create(format, 1 << 20, InfluxDecoder.Precision.NS),
                RemoteWriteEncoder.factory(plan).newEncoder(),
                new SeriesCache(100));
        Rejections r = amp.decode(record, T);
        assertThat(r.total()).as("nothing skipped into remote write").isZero();
        ByteBuf body = new ByteBuf(64);
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
        return RemoteWriteBodies.decode(Arrays.copyOf(body.array(), body.length()));
    }

    private static List<Long> bits(List<Series> got, String metric) {
        List<Long> out = new ArrayList<>();
        for (Series s : got) {
            if (s.labels().get(0).value().equals(metric)) {
                s.samples().forEach(x -> out.add(Double.doubleToRawLongBits(x.value())));
            }
        }
        return out;
    }

    @Test
    void remoteWriteCarriesNaNInfinitiesAndTheStalenessMarkerBitForBitInEveryAmplifiedCopy() throws Exception {
        List<Series> got = remoteWrite(remoteWriteRecord(), InputFormat.PROMREMOTEWRITE, 3);

        assertThat(bits(got, "v_nan")).hasSize(3).allSatisfy(b -> assertThat(Double.isNaN(Double.longBitsToDouble(b)))
                .isTrue());
        assertThat(bits(got, "v_pinf"))
                .containsOnly(Double.doubleToRawLongBits(Double.POSITIVE_INFINITY))
                .hasSize(3);
        assertThat(bits(got, "v_ninf"))
                .containsOnly(Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY))
                .hasSize(3);
        List<Long> stale = bits(got, "v_stale");
        assertThat(stale).hasSize(6);
        assertThat(stale.subList(0, 3)).containsOnly(Double.doubleToRawLongBits(1.0));
        assertThat(stale.subList(3, 6))
                .as("the staleness marker's own bits, not any NaN")
                .containsOnly(Rejections.STALE_MARKER_BITS);
    }

    @Test
    void prometheusTextNaNAndInfinitiesReachRemoteWrite() throws Exception {
        String page = "m_nan NaN " + T + "\nm_pinf +Inf " + T + "\nm_ninf -Inf " + T + "\nm_one 1 " + T + "\n";
        List<Series> got = remoteWrite(page.getBytes(StandardCharsets.UTF_8), InputFormat.PROMETHEUS, 1);

        assertThat(got).hasSize(4);
        assertThat(got.stream().map(s -> s.samples().get(0)).map(Sample::value).toList())
                .satisfiesExactlyInAnyOrder(
                        v -> assertThat(v).isNaN(),
                        v -> assertThat(v).isEqualTo(Double.POSITIVE_INFINITY),
                        v -> assertThat(v).isEqualTo(Double.NEGATIVE_INFINITY),
                        v -> assertThat(v).isEqualTo(1.0));
    }

    @Test
    void theImportApiGetsInfinitiesAsVictoriaMetricsExportsThemAndNaNIsCountedNotSent() throws Exception {
        PointAmplifier amp = new PointAmplifier(
                RecordDecoders.create(InputFormat.PROMREMOTEWRITE, 1 << 20, InfluxDecoder.Precision.NS),
                new ImportLineEncoder(AmplificationPlan.relay()),
                new SeriesCache(100));
        Rejections r = amp.decode(remoteWriteRecord(), T);

        assertThat(r.count(DecodeError.NON_FINITE_VALUE))
                .as("NaN and the staleness marker")
                .isEqualTo(2);
        assertThat(r.malformed()).as("counted, not dead-lettered").isFalse();
        ByteBuf body = new ByteBuf(64);
        for (int p = 0; p < amp.pointCount(); p++) {
            amp.encodePoint(p, body);
        }
        String lines = new String(body.array(), 0, body.length(), StandardCharsets.UTF_8);
        assertThat(lines)
                .contains("\"v_pinf\"")
                .contains("\"values\":[+Inf]")
                .contains("\"values\":[-Inf]")
                .doesNotContain("NaN")
                .doesNotContain("Infinity")
                .contains("\"v_stale\"");
        assertThat(lines.lines().count()).isEqualTo(3);
    }

    @Test
    void aDecoderOnItsOwnSkipsEveryValueThatIsNotFiniteAsBefore() {
        Rejections skip = new Rejections();
        Rejections imports = new Rejections(Rejections.NonFinite.KEEP_INFINITIES);
        Rejections remote = new Rejections(Rejections.NonFinite.KEEP);
        for (double v : new double[] {Double.NaN, STALE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThat(skip.skips(v)).isTrue();
            assertThat(remote.skips(v)).isFalse();
            assertThat(imports.skips(v)).isEqualTo(Double.isNaN(v));
        }
        for (Rejections r : List.of(skip, imports, remote)) {
            assertThat(r.skips(0.5)).isFalse();
            assertThat(r.skips(-0.0)).isFalse();
        }
    }
}
