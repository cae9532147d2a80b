package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replay's time line on the hot path: a constant shift, and churn generations of the instance variants. */
class PointAmplifierTimelineTest {

    private static final long T = 1_795_300_800_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static byte[] record(long t) {
        return ("{\"metric\":\"node_load1\",\"timestamp\":" + t
                        + ",\"value\":0.5,\"dimensions\":{\"instanceNo\":\"host\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static List<JsonNode> encode(PointAmplifier a, long t) throws Exception {
        assertThat(a.decode(record(t), 0).total()).isZero();
        ByteBuf out = new ByteBuf(256);
        a.encodePoint(0, out);
        List<JsonNode> lines = new ArrayList<>();
        for (String l : new String(out.array(), 0, out.length(), StandardCharsets.UTF_8).split("\n")) {
            lines.add(JSON.readTree(l));
        }
        return lines;
    }

    private static PointAmplifier amplifier(int m, int n) {
        return new PointAmplifier(
                1 << 20,
                new ImportLineEncoder(AmplificationPlan.of(m, n, Duration.ofSeconds(60))),
                new SeriesCache(100));
    }

    @Test
    void theShiftMovesEverySampleAndTheSourceRangeIsTracked() throws Exception {
        PointAmplifier a = amplifier(2, 1).timeline(86_400_000L, 0, 0);

        List<JsonNode> lines = encode(a, T);
        encode(a, T + 60_000);

        assertThat(lines.get(0).get("timestamps").toString())
                .isEqualTo("[" + (T + 86_400_000L) + "," + (T + 86_430_000L) + "]");
        assertThat(a.minSourceTimestampMs()).isEqualTo(T);
        assertThat(a.maxSourceTimestampMs()).isEqualTo(T + 60_000);
    }

    @Test
    void eachChurnIntervalIsANewGenerationOfTheNVariants() throws Exception {
        PointAmplifier a = amplifier(1, 2).timeline(0, 120_000, T);

        List<String> instances = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // minutes 0..4: generations 0, 0, 1, 1, 2
            encode(a, T + i * 60_000L)
                    .forEach(
                            l -> instances.add(l.get("metric").get("instanceNo").asText()));
        }

        assertThat(instances)
                .containsExactly(
                        "host-g0",
                        "host-1-g0",
                        "host-g0",
                        "host-1-g0",
                        "host-g1",
                        "host-1-g1",
                        "host-g1",
                        "host-1-g1",
                        "host-g2",
                        "host-1-g2");
        assertThat(a.seriesPrepared()).as("N per generation").isEqualTo(6);
    }

    @Test
    void withChurnARelayIsNoLongerAPlainCopy() throws Exception {
        PointAmplifier a = amplifier(1, 1).timeline(0, 60_000, 0);

        JsonNode line = encode(a, T).get(0);

        assertThat(line.get("metric").get("instanceNo").asText()).isEqualTo("host-g" + (T / 60_000));
    }

    @Test
    void generationsOlderThanTheKeepSpanLeaveTheSharedCache() throws Exception {
        SeriesCache cache = new SeriesCache(100);
        PointAmplifier a = new PointAmplifier(
                        1 << 20, new ImportLineEncoder(AmplificationPlan.of(1, 2, Duration.ofSeconds(60))), cache)
                .timeline(0, 60_000, T, 120_000); // readers at most 2 generations apart

        for (int g = 0; g < 6; g++) {
            encode(a, T + g * 60_000L);
        }

        assertThat(cache.size())
                .as("generations 2..5 kept: newest 5 - 120 s / 60 s - 1")
                .isEqualTo(4);
        encode(a, T + 2 * 60_000L); // a reader still in generation 2: cached, not prepared again
        assertThat(a.seriesPrepared()).isEqualTo(12);
    }

    @Test
    void withoutAKeepSpanEveryGenerationStaysCached() throws Exception {
        SeriesCache cache = new SeriesCache(100);
        PointAmplifier a = new PointAmplifier(
                        1 << 20, new ImportLineEncoder(AmplificationPlan.of(1, 2, Duration.ofSeconds(60))), cache)
                .timeline(0, 60_000, T);

        for (int g = 0; g < 6; g++) {
            encode(a, T + g * 60_000L);
        }

        assertThat(cache.size()).isEqualTo(6);
    }

    @Test
    void aSeriesKeyThatOutgrowsTheKeyBufferIsLookedUpUnderItsOwnKey() throws Exception {
        PointAmplifier a = amplifier(1, 2); // N = 2: through the series cache, not the plain copy
        encode(a, T); // a short key first: the key buffer stays small
        String longValue = "h".repeat(1_000); // the next key needs a larger buffer than the first left
        byte[] rec = ("{\"metric\":\"node_load1\",\"timestamp\":" + T
                        + ",\"value\":0.5,\"dimensions\":{\"instanceNo\":\"" + longValue + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(a.decode(rec, 0).total()).isZero();
        ByteBuf out = new ByteBuf(4096);

        a.encodePoint(0, out);

        JsonNode first = JSON.readTree(new String(out.array(), 0, out.length(), StandardCharsets.UTF_8).split("\n")[0]);
        assertThat(first.get("metric").get("instanceNo").asText()).isEqualTo(longValue);
        assertThat(a.seriesPrepared()).as("two series, N variants each").isEqualTo(4);
    }
}
