package io.tsdbwriter.encode.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.json.PointDecoder;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Label;
import io.tsdbwriter.it.support.RemoteWriteBodies.Sample;
import io.tsdbwriter.it.support.RemoteWriteBodies.Series;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.write.SnappyBlock;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemoteWriteEncoderTest {

    private static final long T = 1_795_300_857_000L;

    private static List<Series> encode(
            AmplificationPlan plan, String metric, String[] names, String[] values, long t, double v) throws Exception {
        RemoteWriteEncoder e = new RemoteWriteEncoder(plan);
        byte[] series = e.prepareSeries(metric, names, values, 0, names.length);
        ByteBuf out = new ByteBuf(16);
        int n = e.encodePoint(series, 0, t, v, out);
        assertThat(n).isEqualTo(plan.samplesPerPoint());
        return RemoteWriteBodies.decode(Arrays.copyOf(out.array(), out.length()));
    }

    @Test
    void oneTimeSeriesPerVariantWithItsMSamplesAscendingAndLabelsSortedByName() throws Exception {
        List<Series> got = encode(
                new AmplificationPlan(3, 2, 60_000),
                "node_load1",
                new String[] {"cpu", "instanceNo", "productKey"},
                new String[] {"0", "node-0001", "node"},
                T,
                1.5);
        assertThat(got).hasSize(2);
        assertThat(got.get(0).labels())
                .containsExactly(
                        new Label("__name__", "node_load1"),
                        new Label("cpu", "0"),
                        new Label("instanceNo", "node-0001"),
                        new Label("productKey", "node"));
        assertThat(got.get(1).label("instanceNo")).isEqualTo("node-0001-1");
        for (Series s : got) {
            assertThat(s.samples())
                    .containsExactly(new Sample(1.5, T), new Sample(1.5, T + 20_000), new Sample(1.5, T + 40_000));
        }
    }

    @Test
    void nameLabelTakesItsPlaceInByteOrderAndAPlainRelayAddsNoInstanceLabel() throws Exception {
        List<Series> got = encode(
                AmplificationPlan.relay(),
                "up",
                new String[] {"Zone", "a_b", "job"},
                new String[] {"z", "x", "j"},
                0,
                -0.0);
        List<String> names = got.get(0).labels().stream().map(Label::name).toList();
        assertThat(names).as("M = N = 1 is a plain copy (DESIGN §3)").containsExactly("Zone", "__name__", "a_b", "job");
        assertThat(got.get(0).samples()).containsExactly(new Sample(-0.0, 0));
    }

    @Test
    void aMissingInstanceIsTheBaseUnknownOnlyWithInstanceVariants() throws Exception {
        List<Series> got =
                encode(new AmplificationPlan(1, 3, 60_000), "up", new String[] {"job"}, new String[] {"j"}, T, 1);
        assertThat(got).extracting(s -> s.label("instanceNo")).containsExactly("unknown", "unknown-1", "unknown-2");
        List<Series> m6 =
                encode(new AmplificationPlan(6, 1, 60_000), "up", new String[] {"job"}, new String[] {"j"}, T, 1);
        assertThat(m6.get(0).labels())
                .as("N = 1 at any M: the labels as they are")
                .containsExactly(new Label("__name__", "up"), new Label("job", "j"));
    }

    @Test
    void theInstanceLabelOfThePlanIsTheOneVariedAndTheOneAddedWhenMissing() throws Exception {
        AmplificationPlan plan = new AmplificationPlan(1, 2, 60_000).withInstanceLabel("host");
        List<Series> got = encode(
                plan,
                "cpu_usage_idle",
                new String[] {"cpu", "host", "instanceNo"},
                new String[] {"0", "h1", "kept"},
                T,
                1);
        assertThat(got).extracting(s -> s.label("host")).containsExactly("h1", "h1-1");
        assertThat(got).extracting(s -> s.label("instanceNo")).containsExactly("kept", "kept");
        List<Series> missing =
                encode(plan.withInstanceLabel("instance"), "up", new String[] {"job"}, new String[] {"j"}, T, 1);
        assertThat(missing.get(0).labels().stream().map(Label::name).toList())
                .containsExactly("__name__", "instance", "job");
        assertThat(missing).extracting(s -> s.label("instance")).containsExactly("unknown", "unknown-1");
    }

    @Test
    void atNEqualsOneTheVerbatimPathCopiesTheLabelsAndAddsNoInstanceLabel() throws Exception {
        RemoteWriteEncoder encoder =
                new RemoteWriteEncoder(AmplificationPlan.relay().withInstanceLabel("host"));
        DecodedPoints points = new DecodedPoints();
        assertThat(new PointDecoder(1 << 20)
                        .decode(
                                "{\"metric\":\"up\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"job\":\"j\"}}"
                                        .getBytes(StandardCharsets.UTF_8),
                                points))
                .isNull();
        ByteBuf out = new ByteBuf(16);
        assertThat(encoder.encodePointVerbatim(points, 0, out)).isEqualTo(1);
        Series s = RemoteWriteBodies.decode(Arrays.copyOf(out.array(), out.length()))
                .get(0);
        assertThat(s.labels()).containsExactly(new Label("__name__", "up"), new Label("job", "j"));
    }

    @Test
    void utf8ValuesAndNegativeAndLargeTimestampsRoundTrip() throws Exception {
        List<Series> got = encode(
                new AmplificationPlan(2, 1, 60_000),
                "m",
                new String[] {"k"},
                new String[] {"ünïcödé \"q\""},
                -5_000,
                1e300);
        assertThat(got.get(0).label("k")).isEqualTo("ünïcödé \"q\"");
        assertThat(got.get(0).samples()).containsExactly(new Sample(1e300, -5_000), new Sample(1e300, 25_000));
    }

    @Test
    void concatenatedPointsFormOneWriteRequestThatSnappyRoundTrips() throws Exception {
        AmplificationPlan plan = new AmplificationPlan(12, 3, 60_000);
        SampleEncoder e = RemoteWriteEncoder.factory(plan).newEncoder();
        PointAmplifier amp = new PointAmplifier(1 << 20, e, new SeriesCache(100));
        ByteBuf body = new ByteBuf(16);
        int samples = 0;
        for (int minute = 0; minute < 5; minute++) {
            String rec = "[{\"metric\":\"a\",\"timestamp\":" + (T + minute * 60_000L) + ",\"value\":" + minute
                    + ",\"dimensions\":{\"instanceNo\":\"n1\"}},{\"metric\":\"b\",\"timestamp\":"
                    + (T + minute * 60_000L)
                    + ",\"value\":2.25,\"productKey\":\"p\"}]";
            assertThat(amp.decode(rec.getBytes(StandardCharsets.UTF_8))).isNull();
            for (int p = 0; p < amp.pointCount(); p++) {
                samples += amp.encodePoint(p, body);
            }
        }
        assertThat(samples).isEqualTo(5 * 2 * 36);
        SnappyBlock snappy = new SnappyBlock(2);
        SnappyBlock.Compressed c = snappy.compress(body.array(), body.length());
        List<Series> got = RemoteWriteBodies.decodeSnappy(Arrays.copyOf(c.array(), c.length()));
        snappy.release(c);
        assertThat(got).hasSize(5 * 2 * 3);
        assertThat(got.stream().mapToInt(s -> s.samples().size()).sum()).isEqualTo(samples);
        // per series, timestamps ascend across the whole request
        Map<List<Label>, Long> last = new HashMap<>();
        for (Series s : got) {
            for (Sample x : s.samples()) {
                Long prev = last.put(s.labels(), x.timestampMs());
                assertThat(prev == null || prev < x.timestampMs()).isTrue();
            }
        }
        assertThat(got.get(1).labels()).containsExactly(new Label("__name__", "a"), new Label("instanceNo", "n1-1"));
        assertThat(got.get(3).labels())
                .containsExactly(
                        new Label("__name__", "b"), new Label("instanceNo", "unknown"), new Label("productKey", "p"));
    }

    @Test
    void encodingAPointAllocatesNothingOnceWarm() {
        RemoteWriteEncoder e = new RemoteWriteEncoder(new AmplificationPlan(12, 1, 60_000));
        byte[] series = e.prepareSeries("m", new String[] {"instanceNo"}, new String[] {"x"}, 0, 1);
        ByteBuf out = new ByteBuf(1 << 20);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) {
            out.reset();
            e.encodePoint(series, 0, T + i, i, out);
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1000; i++) {
            out.reset();
            e.encodePoint(series, 0, T + i, i, out);
        }
        assertThat(mx.getCurrentThreadAllocatedBytes() - before).isLessThan(1024);
    }

    @Test
    void atNEqualsOneTheVerbatimPathWritesTheSameBytesAsTheSeriesCachePath() throws Exception {
        String[] records = {
            "{\"metric\":\"node_load1\",\"timestamp\":1795300857000,\"value\":0.5,\"dimensions\":{\"instanceNo\":\"node-0001\",\"Zone\":\"eu\",\"_x\":\"1\",\"zeta\":\"ü\"},\"productKey\":\"node\"}",
            "{\"metric\":\"up\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"A_b\":\"x\",\"job\":\"j\"}}",
            "{\"metric\":\"m\",\"timestamp\":1795300857123,\"value\":-2.5}",
            "[{\"metric\":\"a\",\"timestamp\":1795300857000,\"value\":3,\"dimensions\":{\"instanceNo\":\"h\",\"zz\":\""
                    + "v".repeat(200) + "\"}},"
                    + "{\"metric\":\"b\",\"timestamp\":1795300917000,\"value\":4,\"dimensions\":{\"instanceNo\":\"h\"}}]",
        };
        for (int m : new int[] {1, 12}) {
            AmplificationPlan plan = new AmplificationPlan(m, 1, 60_000);
            RemoteWriteEncoder encoder = new RemoteWriteEncoder(plan);
            PointDecoder decoder = new PointDecoder(1 << 20);
            DecodedPoints points = new DecodedPoints();
            for (String r : records) {
                assertThat(decoder.decode(r.getBytes(StandardCharsets.UTF_8), points))
                        .isNull();
                assertThat(encoder.canEncodeVerbatim(points)).as(r).isTrue();
                for (int p = 0; p < points.count(); p++) {
                    ByteBuf verbatim = new ByteBuf(16);
                    assertThat(encoder.encodePointVerbatim(points, p, verbatim)).isEqualTo(m);
                    int n = points.labelEnd(p) - points.labelStart(p);
                    String[] names = new String[n];
                    String[] values = new String[n];
                    for (int i = 0; i < n; i++) {
                        names[i] = points.labelName(points.labelStart(p) + i);
                        values[i] = points.labelValue(points.labelStart(p) + i);
                    }
                    ByteBuf cached = new ByteBuf(16);
                    encoder.encodePoint(
                            encoder.prepareSeries(points.metric(p), names, values, 0, n),
                            0,
                            points.timestampMs(p),
                            points.value(p),
                            cached);
                    assertThat(Arrays.copyOf(verbatim.array(), verbatim.length()))
                            .as(r + " M=" + m)
                            .isEqualTo(Arrays.copyOf(cached.array(), cached.length()));
                    List<Series> decoded = RemoteWriteBodies.decode(Arrays.copyOf(verbatim.array(), verbatim.length()));
                    List<String> labelNames =
                            decoded.get(0).labels().stream().map(Label::name).toList();
                    assertThat(labelNames).isSorted();
                }
            }
        }
    }
}
