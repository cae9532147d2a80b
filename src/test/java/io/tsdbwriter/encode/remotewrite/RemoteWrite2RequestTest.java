package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Series;
import io.tsdbwriter.wire.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class RemoteWrite2RequestTest {

    private static final long T = 1_795_300_857_000L;

    private static ByteBuf v1Body(AmplificationPlan plan, int points) {
        RemoteWriteEncoder e = new RemoteWriteEncoder(plan);
        ByteBuf out = new ByteBuf(64);
        for (int p = 0; p < points; p++) {
            byte[] series = e.prepareSeries(
                    p % 2 == 0 ? "node_cpu_seconds_total" : "node_load1",
                    new String[] {"cpu", "instanceNo", "mode"},
                    new String[] {Integer.toString(p), "node-0001", "idle"},
                    0,
                    3);
            e.encodePoint(series, 0, T + p, p + 0.5, out);
        }
        return out;
    }

    @Test
    void theRequestHoldsExactlyTheSeriesAndSamplesOfTheOneZeroBody() throws Exception {
        ByteBuf v1 = v1Body(new AmplificationPlan(6, 3, 60_000), 40);
        List<Series> expected = RemoteWriteBodies.decode(Arrays.copyOf(v1.array(), v1.length()));
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1.array(), v1.length());
        RemoteWriteBodies.V2Request got = RemoteWriteBodies.decodeV2(Arrays.copyOf(v2.array(), v2.length()));
        assertThat(got.series()).isEqualTo(expected);
        assertThat(expected).hasSize(40 * 3);
        assertThat(got.symbols().get(0)).isEmpty();
    }

    @Test
    void everyStringIsSentOnceSoTheVariantsShareTheirSymbols() throws Exception {
        ByteBuf v1 = v1Body(new AmplificationPlan(12, 50, 60_000), 10);
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1.array(), v1.length());
        RemoteWriteBodies.V2Request got = RemoteWriteBodies.decodeV2(Arrays.copyOf(v2.array(), v2.length()));
        // "", 2 metric names, __name__, cpu, instanceNo, mode, idle, 10 cpu values, 50 instance values
        assertThat(got.symbols()).hasSize(1 + 2 + 5 + 10 + 50).doesNotHaveDuplicates();
        assertThat(v2.length()).as("labels as references: fewer bytes than 1.0").isLessThan(v1.length());
    }

    /**
     * The request has the shape Prometheus' own 2.0 sender builds for the same samples (v0.316.0,
     * {@code storage/remote/queue_manager.go} populateV2TimeSeries, {@code writev2.SymbolsTable}): one table per
     * request with "" at 0, each string once, in the order of first use walking the series in order and each series'
     * labels name then value ({@code SymbolizeLabels}); one {@code TimeSeries} per source {@code TimeSeries}, its
     * references in label order (sorted by name). The one difference: Prometheus writes an empty {@code metadata}
     * (field 5, type unknown, refs 0) in every series, which a receiver decodes exactly as the absent field we send.
     */
    @Test
    void symbolsAndSeriesAreInTheOrderOfPrometheusOwnSender() throws Exception {
        ByteBuf v1 = v1Body(new AmplificationPlan(2, 4, 60_000), 12);
        List<Series> source = RemoteWriteBodies.decode(Arrays.copyOf(v1.array(), v1.length()));
        List<String> prometheusSymbols = new ArrayList<>(List.of(""));
        for (Series s : source) {
            for (RemoteWriteBodies.Label l : s.labels()) {
                if (!prometheusSymbols.contains(l.name())) {
                    prometheusSymbols.add(l.name());
                }
                if (!prometheusSymbols.contains(l.value())) {
                    prometheusSymbols.add(l.value());
                }
            }
            assertThat(s.labels()).isSortedAccordingTo(Comparator.comparing(RemoteWriteBodies.Label::name));
        }
        ByteBuf v2 = RemoteWrite2Request.fromV1(v1.array(), v1.length());
        RemoteWriteBodies.V2Request got = RemoteWriteBodies.decodeV2(Arrays.copyOf(v2.array(), v2.length()));
        assertThat(got.symbols()).isEqualTo(prometheusSymbols);
        assertThat(got.series()).isEqualTo(source);
    }

    @Test
    void anEmptyBodyIsAnEmptyRequestAndABrokenOneIsRefused() {
        assertThat(RemoteWrite2Request.fromV1(new byte[0], 0).length()).isZero();
        byte[] broken = {0x0A, 0x7F, 0x01};
        assertThatThrownBy(() -> RemoteWrite2Request.fromV1(broken, broken.length))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void varintsOfEverySizeRoundTrip() {
        for (int v : new int[] {
            0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, Integer.MAX_VALUE
        }) {
            ByteBuf b = new ByteBuf(8);
            RemoteWrite2Request.putVarint(b, v);
            assertThat(b.length()).as("size of " + v).isEqualTo(RemoteWrite2Request.varintSize(v));
        }
    }
}
