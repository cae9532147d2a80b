package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --relabel-config} on the hot path: once per series, before amplification, dropped series cached as dropped. */
class RelabelPipelineTest {

    private static final long T = 1_795_300_800_000L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RelabelRules RULES = RelabelRules.parse(
            """
            - {source_labels: [__name__], regex: 'noisy_.*', action: drop}
            - {regex: 'pod_uid', action: labeldrop}
            - {target_label: loadtest, replacement: '1'}
            """,
            "test.yml");

    private static byte[] record(String metric, String dimensions) {
        return ("{\"metric\":\"" + metric + "\",\"timestamp\":" + T + ",\"value\":1,\"dimensions\":{" + dimensions
                        + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static List<JsonNode> lines(ByteBuf out) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        String text = new String(out.array(), 0, out.length(), StandardCharsets.UTF_8);
        for (String l : text.split("\n")) {
            if (!l.isEmpty()) {
                lines.add(JSON.readTree(l));
            }
        }
        return lines;
    }

    private static PointAmplifier amplifier(int n, SeriesCache cache) {
        return new PointAmplifier(
                        1 << 20, new ImportLineEncoder(AmplificationPlan.of(1, n, Duration.ofSeconds(60))), cache)
                .relabel(RULES);
    }

    @Test
    void theRelabeledLabelsAreAmplifiedAndALabelIsTaggedAndOneRemoved() throws Exception {
        PointAmplifier a = amplifier(2, new SeriesCache(100));
        a.decode(record("cpu", "\"instanceNo\":\"h\",\"pod_uid\":\"x1\""), 0);
        ByteBuf out = new ByteBuf(256);

        assertThat(a.encodePoint(0, out)).isEqualTo(2);

        List<JsonNode> got = lines(out);
        assertThat(got).hasSize(2);
        assertThat(got.get(0).get("metric").toString())
                .isEqualTo("{\"__name__\":\"cpu\",\"instanceNo\":\"h\",\"loadtest\":\"1\"}");
        assertThat(got.get(1).get("metric").get("instanceNo").asText()).isEqualTo("h-1");
        assertThat(a.relabelDropped()).isZero();
    }

    @Test
    void aDroppedSeriesIsCountedPerPointAndEncodesNothing() {
        SeriesCache cache = new SeriesCache(100);
        PointAmplifier a = amplifier(3, cache);
        ByteBuf out = new ByteBuf(256);
        for (int i = 0; i < 4; i++) {
            a.decode(record("noisy_requests", "\"instanceNo\":\"h\""), 0);
            assertThat(a.encodePoint(0, out)).isZero();
        }
        assertThat(out.length()).isZero();
        assertThat(a.relabelDropped()).isEqualTo(4);
        assertThat(a.seriesPrepared()).as("a dropped series begins none").isZero();
        assertThat(cache.size()).as("cached once, as dropped").isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void atNEqualsOneRelabelingStillAppliesNoVerbatimCopy() throws Exception {
        PointAmplifier a = amplifier(1, new SeriesCache(100));
        a.decode(record("cpu", "\"pod_uid\":\"x1\""), 0);
        ByteBuf out = new ByteBuf(256);

        a.encodePoint(0, out);

        assertThat(lines(out).get(0).get("metric").toString()).isEqualTo("{\"__name__\":\"cpu\",\"loadtest\":\"1\"}");
    }

    @Test
    void sourceSeriesThatRelabelIntoOneShareItsLaneAndEncodeAfterIt() throws Exception {
        PointAmplifier a =
                amplifier(1, new SeriesCache(1000)); // pod_uid dropped: every pod_uid of a host is one series
        int lanes = 16;
        for (int host = 0; host < 20; host++) {
            int first = -1;
            for (int uid = 0; uid < 10; uid++) {
                a.decode(record("cpu", "\"host\":\"h" + host + "\",\"pod_uid\":\"u" + uid + "\""), 0);
                int lane = a.lane(0, lanes);
                first = first < 0 ? lane : first;
                assertThat(lane).as("host %d uid %d", host, uid).isEqualTo(first);
                ByteBuf out = new ByteBuf(256);
                assertThat(a.encodePoint(0, out)).isEqualTo(1);
                assertThat(lines(out).get(0).get("metric").toString())
                        .isEqualTo("{\"__name__\":\"cpu\",\"host\":\"h" + host + "\",\"loadtest\":\"1\"}");
            }
        }
        a.decode(record("noisy_x", "\"host\":\"h\""), 0);
        assertThat(a.lane(0, lanes)).isBetween(0, lanes - 1);
        assertThat(a.encodePoint(0, new ByteBuf(64))).isZero();
    }

    @Test
    void withChurnTheLaneIsTheRelabeledSeriesInEveryGeneration() throws Exception {
        PointAmplifier a = amplifier(2, new SeriesCache(1000)).timeline(0, 60_000, T);
        a.decode(record("cpu", "\"instanceNo\":\"h\",\"pod_uid\":\"u1\""), 0);
        int lane = a.lane(0, 16);
        ByteBuf out = new ByteBuf(256);
        assertThat(a.encodePoint(0, out)).isEqualTo(2);
        assertThat(lines(out).get(1).get("metric").get("instanceNo").asText()).isEqualTo("h-1-g0");
        a.decode(record("cpu", "\"instanceNo\":\"h\",\"pod_uid\":\"u2\""), 0);
        assertThat(a.lane(0, 16)).isEqualTo(lane);
    }

    @Test
    void aSeriesRelabeledWithoutItsNameIsDropped() {
        PointAmplifier a = new PointAmplifier(
                        1 << 20,
                        new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))),
                        new SeriesCache(10))
                .relabel(RelabelRules.parse("- {regex: __name__, action: labeldrop}", "t.yml"));
        a.decode(record("cpu", "\"a\":\"1\""), 0);
        assertThat(a.encodePoint(0, new ByteBuf(64))).isZero();
        assertThat(a.relabelDropped()).isEqualTo(1);
    }
}
