package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.RemoteWriteDecoderTest;
import io.tsdbwriter.it.support.CapturingReceiver;
import io.tsdbwriter.it.support.CapturingReceiver.Answer;
import io.tsdbwriter.it.support.CapturingReceiver.Request;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.it.support.RemoteWriteBodies.Label;
import io.tsdbwriter.it.support.RemoteWriteBodies.Sample;
import io.tsdbwriter.it.support.RemoteWriteBodies.Series;
import io.tsdbwriter.it.support.RemoteWriteRun;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xerial.snappy.Snappy;

/**
 * The remote write specification's rules for a sender that does not scrape, rule by rule, against a receiver that
 * records every request ({@link CapturingReceiver}), with the real writer process reading a real Kafka topic (issue 53
 * item 6; docs/remote-write.md has the table). Sections: Remote-Write 1.0 (https://prometheus.io/docs/specs/prw/remote_write_spec/)
 * "Protocol", "Labels", "Ordering", "Retries &amp; Backoff", "Stale Markers"; Remote-Write 2.0
 * (https://prometheus.io/docs/specs/prw/remote_write_spec_2_0/) "Protocol", "Content-Type", "Symbols", "Samples",
 * "Metadata", "Exemplars", "Retries &amp; Backoff". Prometheus' own sender compliance suite is not vendored (its code
 * may not be copied); these are
 * our tests of the same rules. Exact outcomes: every sample counted, every request inspected.
 */
class RemoteWriteConformanceIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static final int M = 2;
    static final AtomicInteger names = new AtomicInteger();
    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    /** One partition read by three segment readers: per-series order is the writer's to keep, not Kafka's. */
    private static String topic(String name, List<SourcePoint> input) {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), 1);
        stack.produce(topic, 1, input, 1);
        return topic;
    }

    private static WriterProcess writer(String topic, String name, CapturingReceiver rx, int version, String... more) {
        return writer(topic, name, rx, version, M, more);
    }

    private static WriterProcess writer(
            String topic, String name, CapturingReceiver rx, int version, int m, String... more) {
        return stack.writer(
                name,
                new RemoteWriteRun()
                        .topic(topic)
                        .group("g-" + name + "-" + names.incrementAndGet())
                        .url(rx.writeUrl())
                        .version(version)
                        .multipliers(m, 1)
                        .parallelism(3)
                        .tsdbMetricsNone()
                        .summaryJson(stack.path(name + ".json"))
                        .flags("--segment-size", "400", "--commit-interval", "500ms")
                        .flags(more));
    }

    private static JsonNode summary(String name) throws Exception {
        return Scenario.summary(stack.path(name + ".json"));
    }

    /**
     * Every request of a main job (M = 2, P = 3, one partition): a POST to the write path and nothing else (no
     * {@code /metrics} GET with {@code --tsdb-metrics-url none}); the protocol's headers; a snappy block, not a frame
     * (1.0 and 2.0 "Protocol"); labels sorted by name, unique, none empty, {@code __name__} present (1.0 "Labels"); 2.0's
     * symbol table starts with "" and every reference resolves (2.0 "Symbols"); each series' samples in timestamp order
     * across all requests (1.0 "Ordering", 2.0 "Samples"); every sample sent exactly once.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void everyRequestFollowsTheProtocolLabelAndOrderingRules(int version) throws Exception {
        String name = "rules-v" + version;
        String topic = topic(name, points);
        try (CapturingReceiver rx = new CapturingReceiver(version == 2)) {
            WriterProcess w = writer(topic, name, rx, version);
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

            List<Request> all = rx.requests();
            assertThat(all).isNotEmpty().allSatisfy(r -> {
                assertThat(r.method())
                        .as("only writes: no GET /metrics with --tsdb-metrics-url none")
                        .isEqualTo("POST");
                assertThat(r.path()).isEqualTo("/api/v1/write");
                assertThat(r.header("Content-Encoding")).isEqualTo("snappy");
                assertThat(r.header("Content-Type"))
                        .isEqualTo(
                                version == 1
                                        ? "application/x-protobuf"
                                        : "application/x-protobuf;proto=io.prometheus.write.v2.Request");
                assertThat(r.header("X-Prometheus-Remote-Write-Version")).isEqualTo(version == 1 ? "0.1.0" : "2.0.0");
                assertThat(r.header("User-Agent")).startsWith("tsdb-writer/");
                assertThat(r.body())
                        .as("a snappy block (not the framed format)")
                        .isNotNull();
            });
            Map<List<Label>, Long> last = new HashMap<>();
            long samples = 0;
            for (Request r : rx.writes(version)) {
                for (Series s : CapturingReceiver.series(r, version)) {
                    List<String> labelNames =
                            s.labels().stream().map(Label::name).toList();
                    assertThat(labelNames)
                            .as("sorted by name")
                            .isSorted()
                            .doesNotHaveDuplicates()
                            .contains("__name__");
                    assertThat(s.labels())
                            .allSatisfy(l -> assertThat(l.value()).as(l.name()).isNotEmpty());
                    for (Sample x : s.samples()) {
                        Long prev = last.put(s.labels(), x.timestampMs());
                        assertThat(prev == null || prev < x.timestampMs())
                                .as("%s at %d after %d", s.labels(), x.timestampMs(), prev)
                                .isTrue();
                        samples++;
                    }
                }
            }
            assertThat(samples).as("each sample once").isEqualTo(points.size() * (long) M);
            assertThat(summary(name).get("samples_written").asLong()).isEqualTo(samples);
        }
    }

    /**
     * A data refusal is never retried (1.0 "Retries &amp; Backoff": MUST NOT retry a 4xx but 429): the receiver refuses
     * every request that holds one series; the writer sends the empty probe, splits, and sends no body twice; only the
     * refused series' samples are lost (exit 3), the rest written.
     */
    @Test
    void aDataRefusalIsNeverSentAgain() throws Exception {
        String name = "refusal";
        String refused = points.get(0).metric();
        String topic = topic(name, points.subList(0, 400));
        try (CapturingReceiver rx = new CapturingReceiver(false)) {
            rx.answering((r, i) -> {
                try {
                    boolean holds =
                            CapturingReceiver.series(r, 1).stream().anyMatch(s -> refused.equals(s.label("__name__")));
                    return Answer.of(holds ? 400 : 204);
                } catch (IOException e) {
                    return Answer.of(400);
                }
            });
            WriterProcess w = writer(topic, name, rx, 1);
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(3);

            Set<String> bodies = new HashSet<>();
            long refusedSamples = 0;
            for (Request r : rx.writes(1)) {
                assertThat(bodies.add(Arrays.toString(r.body())))
                        .as("no body sent twice")
                        .isTrue();
            }
            for (SourcePoint p : points.subList(0, 400)) {
                refusedSamples += p.metric().equals(refused) ? M : 0;
            }
            JsonNode s = summary(name);
            assertThat(s.get("samples_refused").asLong()).isEqualTo(refusedSamples);
            assertThat(s.get("samples_written").asLong()).isEqualTo(400L * M - refusedSamples);
        }
    }

    /**
     * 5xx and 429 are retried with a backoff (1.0 "Retries &amp; Backoff": MUST retry 5xx, MUST use a backoff; 429 MAY be
     * retried, Retry-After honoured): three 503s, then a 429 with {@code Retry-After: 1}, then 204; the same body each
     * time, at least the initial backoff's lower bound (100 ms) apart, and a second after the 429.
     */
    @Test
    void fiveHundredsAnd429AreRetriedWithBackoffAndRetryAfter() throws Exception {
        String name = "backoff";
        String topic = topic(name, points.subList(0, 20));
        try (CapturingReceiver rx = new CapturingReceiver(false)) {
            AtomicInteger writes = new AtomicInteger();
            rx.answering((r, i) -> {
                int k = writes.getAndIncrement();
                return k < 3 ? Answer.of(503) : k == 3 ? new Answer(429, Map.of("Retry-After", "1")) : Answer.of(204);
            });
            WriterProcess w =
                    writer(topic, name, rx, 1, "--batch-samples", "100000", "--ordering", "none"); // one batch
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

            List<Request> tries = rx.writes(1);
            assertThat(tries).hasSize(5);
            for (int i = 1; i < tries.size(); i++) {
                assertThat(tries.get(i).raw())
                        .as("a retry sends the same body")
                        .isEqualTo(tries.get(0).raw());
                long gapMs = TimeUnit.NANOSECONDS.toMillis(
                        tries.get(i).arrivedNanos() - tries.get(i - 1).arrivedNanos());
                assertThat(gapMs).as("gap before try %d", i + 1).isGreaterThanOrEqualTo(i == 4 ? 1000 : 100);
            }
            assertThat(summary(name).get("samples_written").asLong()).isEqualTo(20L * M);
        }
    }

    /**
     * {@code --on-configuration-fault refuse}, the specification's rule for a 4xx: a 401 is sent once per batch, not
     * retried and not probed; its samples are counted refused (exit 3). The default (hold) retries it with backoff until
     * the endpoint is fixed: the unit tests of the writer and docs/design.md §10 cover that deviation.
     */
    @Test
    void underRefuseA401IsNotRetried() throws Exception {
        String name = "refuse-401";
        String topic = topic(name, points.subList(0, 20));
        try (CapturingReceiver rx = new CapturingReceiver(false)) {
            rx.answering((r, i) -> Answer.of(401));
            WriterProcess w = writer(
                    topic,
                    name,
                    rx,
                    1,
                    "--on-configuration-fault",
                    "refuse",
                    "--batch-samples",
                    "100000",
                    "--ordering",
                    "none");
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(3);
            assertThat(rx.requests())
                    .as("one request for the one batch, no probe, no retry")
                    .hasSize(1);
            assertThat(summary(name).get("samples_refused").asLong()).isEqualTo(20L * M);
        }
    }

    /**
     * Every float64 is a value (1.0 "Stale Markers", 2.0 "Samples"): NaN, ±Inf and the staleness marker's bits arrive as
     * the input had them, in both versions.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void nanInfinitiesAndTheStalenessMarkerArriveBitForBit(int version) throws Exception {
        String name = "special-v" + version;
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 600_000;
        double stale = Double.longBitsToDouble(Rejections.STALE_MARKER_BITS);
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), 1);
        stack.produceRaw(
                topic,
                1,
                List.of(Snappy.compress(RemoteWriteDecoderTest.writeRequest(
                        new Object[][] {{"__name__", "v", "k", "nan"}, {Double.NaN, t}},
                        new Object[][] {{"__name__", "v", "k", "pinf"}, {Double.POSITIVE_INFINITY, t}},
                        new Object[][] {{"__name__", "v", "k", "ninf"}, {Double.NEGATIVE_INFINITY, t}},
                        new Object[][] {{"__name__", "v", "k", "stale"}, {stale, t}}))));
        try (CapturingReceiver rx = new CapturingReceiver(version == 2)) {
            WriterProcess w = writer(topic, name, rx, version, 1, "--input-format", "promremotewrite");
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            Map<String, Long> bits = new HashMap<>();
            for (Request r : rx.writes(version)) {
                for (Series s : CapturingReceiver.series(r, version)) {
                    bits.put(
                            s.label("k"),
                            Double.doubleToRawLongBits(s.samples().get(0).value()));
                }
            }
            assertThat(Double.isNaN(Double.longBitsToDouble(bits.get("nan")))).isTrue();
            assertThat(bits.get("pinf")).isEqualTo(Double.doubleToRawLongBits(Double.POSITIVE_INFINITY));
            assertThat(bits.get("ninf")).isEqualTo(Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY));
            assertThat(bits.get("stale")).isEqualTo(Rejections.STALE_MARKER_BITS);
        }
    }

    /** Writes a topic of the one Prometheus text record {@code text} into {@code rx} (M = 1, N = 2), to the end. */
    private static void relayExposition(String name, String text, CapturingReceiver rx, int version) throws Exception {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), 1);
        stack.produceRaw(topic, 1, List.of(text.getBytes(StandardCharsets.UTF_8)));
        WriterProcess w = stack.writer(
                name,
                new RemoteWriteRun()
                        .topic(topic)
                        .group("g-" + name)
                        .url(rx.writeUrl())
                        .version(version)
                        .multipliers(1, 2)
                        .inputFormat("prometheus")
                        .tsdbMetricsNone());
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
    }

    /**
     * Metadata (2.0 "Metadata": a sender SHOULD send each series' type, help and unit when it has them; 1.0's
     * {@code WriteRequest.metadata}, per metric family name, experimental in the 1.0 specification): from Prometheus
     * text's TYPE, HELP and UNIT, with N = 2 copies. In 1.0 every request holds exactly one entry per family it holds
     * points of; in 2.0 every series of a declared family carries its metadata, HELP and UNIT through the symbols, and
     * a series without a family none.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void metadataGoesWithEverySeriesOfADeclaredFamily(int version) throws Exception {
        String name = "metadata-v" + version;
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 600_000;
        RemoteWriteBodies.Metadata requests =
                new RemoteWriteBodies.Metadata(1, "md_requests_total", "Requests served, by code.", "");
        RemoteWriteBodies.Metadata latency =
                new RemoteWriteBodies.Metadata(3, "md_latency_seconds", "RPC latency.", "seconds");
        try (CapturingReceiver rx = new CapturingReceiver(version == 2)) {
            relayExposition(name, RemoteWriteMetadataIT.exposition(t), rx, version);
            int series = 0;
            for (Request r : rx.writes(version)) {
                List<Series> got = CapturingReceiver.series(r, version);
                series += got.size();
                if (version == 1) {
                    List<RemoteWriteBodies.Metadata> want = new ArrayList<>();
                    for (RemoteWriteBodies.Metadata m : List.of(requests, latency)) {
                        if (got.stream().anyMatch(s -> s.label("__name__").startsWith(m.family()))) {
                            want.add(m);
                        }
                    }
                    assertThat(RemoteWriteBodies.metadataV1(r.body())).containsExactlyInAnyOrderElementsOf(want);
                    continue;
                }
                List<String> md = RemoteWriteBodies.metadataV2(r.body());
                for (int i = 0; i < got.size(); i++) {
                    String n = got.get(i).label("__name__");
                    assertThat(md.get(i))
                            .as(n)
                            .isEqualTo(
                                    n.startsWith("md_requests_total")
                                            ? "1|Requests served, by code.|"
                                            : n.startsWith("md_latency_seconds") ? "3|RPC latency.|seconds" : "-");
                }
            }
            assertThat(series).as("7 series, 2 copies each").isEqualTo(14);
        }
    }

    /**
     * Exemplars (2.0 "Exemplars": a sender SHOULD send them when it has them; 1.0 {@code TimeSeries.exemplars}): an
     * OpenMetrics exemplar arrives with its labels, value and timestamp (seconds into ms), once in each of the N = 2
     * copies of its series and in no other series, in both versions.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void anExemplarGoesWithEachCopyOfItsSeries(int version) throws Exception {
        String name = "exemplars-v" + version;
        long s = System.currentTimeMillis() / 60_000 * 60 - 600;
        try (CapturingReceiver rx = new CapturingReceiver(version == 2)) {
            relayExposition(
                    name,
                    "# TYPE jobs counter\njobs_total{k=\"a\"} 1 " + s + " # {trace_id=\"t1\"} 2.5 " + s
                            + "\njobs_total{k=\"b\"} 1 " + s + "\n# EOF\n",
                    rx,
                    version);
            Map<String, Integer> got = new HashMap<>();
            for (Request r : rx.writes(version)) {
                List<Series> series = CapturingReceiver.series(r, version);
                List<String> exemplars = version == 1
                        ? RemoteWriteBodies.exemplarsV1(r.body())
                        : RemoteWriteBodies.exemplarsV2(r.body());
                for (int i = 0; i < series.size(); i++) {
                    got.merge(series.get(i).label("k") + ":" + exemplars.get(i), 1, Integer::sum);
                }
            }
            assertThat(got).containsOnly(Map.entry("a:trace_id=t1|2.5|" + s * 1000, 2), Map.entry("b:", 2));
        }
    }
}
