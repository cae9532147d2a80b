package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Capacity tests as they are run (issue 27, docs/capacity-testing.md "Capacity testing"): a window of real points replayed by time and
 * by offset, rebased and looped, with series churn and at a set rate — exact read-backs, and the group named by
 * {@code --group-id} never touched. Each scenario has its own product key, so its read-back selects only its samples.
 */
class ReplayIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    static final List<Path> files = NodeExporterFiles.all();

    /** The real scrapes with their own product key; sorted by time, scrape by scrape. */
    private static List<SourcePoint> points(String productKey, int scrapes) throws IOException {
        return RealInput.load(files.subList(0, scrapes), Scenario.INSTANCE, productKey, OptionalLong.empty());
    }

    /** Produces one point per record, record i to partition i % partitions, its Kafka timestamp the point's own time. */
    private static void produceTimed(String topic, int partitions, List<SourcePoint> points) {
        stack.createTopic(topic, partitions);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(points.size());
        for (int i = 0; i < points.size(); i++) {
            SourcePoint sp = points.get(i);
            records.add(new ProducerRecord<>(topic, i % partitions, sp.timestampMs(), null, PointRecords.encode(sp)));
        }
        stack.produce(records);
    }

    private static List<String> replayArgs(
            String topic, String group, int m, int n, int p, Path summary, String... more) {
        List<String> a = new ArrayList<>(
                stack.runArgs(topic, group, m, n, p, "--summary-json", summary.toString(), "--segment-size", "500"));
        a.addAll(List.of(more));
        return a;
    }

    private static VerificationResult assertExact(String productKey, ExpectedSamples expected) throws Exception {
        VerificationResult r = new ReadBackVerifier(
                        stack.vmUrl(), "{productKey=\"" + productKey + "\"}", 1e-9, new okhttp3.OkHttpClient())
                .verifyWithin(expected, Scenario.READ_BACK_TIMEOUT, Duration.ofMillis(500));
        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
        assertThat(r.unexpectedSeries()).isZero();
        return r;
    }

    private static SourcePoint shifted(SourcePoint p, long shiftMs) {
        return new SourcePoint(p.metric(), p.labels(), p.productKey(), p.timestampMs() + shiftMs, p.value());
    }

    private static Map<TopicPartition, OffsetAndMetadata> commitFor(
            String group, String topic, int partitions, long offset) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            offsets.put(new TopicPartition(topic, i), new OffsetAndMetadata(offset));
        }
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.commitSync(offsets);
        }
        return offsets;
    }

    @Test
    void windowByTimeReadsExactlyTheRecordsOfThatTimeOnEveryPartition() throws Exception {
        String key = "replay-time";
        List<SourcePoint> all = points(key, 12);
        String topic = "replay-time";
        produceTimed(topic, 3, all);
        List<Long> times =
                all.stream().map(SourcePoint::timestampMs).distinct().sorted().toList();
        long from = times.get(3);
        long to = times.get(8); // scrapes 3..7
        Path summary = stack.path("time-summary.json");
        WriterProcess w = stack.writer(
                "time-writer",
                replayArgs(
                        topic,
                        "g-" + topic,
                        2,
                        1,
                        2,
                        summary,
                        "--from",
                        Instant.ofEpochMilli(from).toString(),
                        "--to",
                        Instant.ofEpochMilli(to).toString()));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

        List<SourcePoint> window = all.stream()
                .filter(p -> p.timestampMs() >= from && p.timestampMs() < to)
                .toList();
        assertThat(window).isNotEmpty().hasSizeLessThan(all.size());
        assertExact(key, Scenario.expected(window, 2, 1));
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(window.size());
        assertThat(s.get("passes")).hasSize(1);
        assertThat(stack.committedOffsets("g-" + topic, topic))
                .as("a replay commits nothing")
                .isEmpty();
    }

    @Test
    void windowByOffsetAtASetRateReadsExactlyThoseOffsets() throws Exception {
        String key = "replay-offset";
        List<SourcePoint> all = points(key, 6);
        String topic = "replay-offset";
        produceTimed(topic, 3, all);
        Path summary = stack.path("offset-summary.json");
        // offsets 100..399 of each partition: records i with 100 <= i / 3 < 400
        List<String> args = replayArgs(
                topic,
                "g-" + topic,
                1,
                3,
                1,
                summary,
                "--from",
                "offset:100",
                "--to",
                "offset:400",
                "--max-samples-per-second",
                "20000");
        int t = args.indexOf("--topic"); // by Kafka's pattern subscription instead: the one topic it matches
        args.set(t, "--topic-pattern");
        args.set(t + 1, "replay-off.*");
        WriterProcess w = stack.writer("offset-writer", args);
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

        List<SourcePoint> window = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (i / 3 >= 100 && i / 3 < 400) {
                window.add(all.get(i));
            }
        }
        assertThat(window).hasSize(900);
        assertExact(key, Scenario.expected(window, 1, 3));
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("samples_written").asLong()).isEqualTo(900L * 3);
        assertThat(s.get("rate_set").asDouble()).isEqualTo(20000.0);
        assertThat(stack.committedOffsets("g-" + topic, topic)).isEmpty();
    }

    @Test
    void rebasedLoopsLandAtThreeShiftedTimesAndLeaveTheSourceGroupAlone() throws Exception {
        String key = "replay-loop";
        List<SourcePoint> all = points(key, 4);
        String topic = "replay-loop";
        produceTimed(topic, 3, all);
        String group = "production-relay";
        Map<TopicPartition, OffsetAndMetadata> before = commitFor(group, topic, 3, 7);
        long first = all.stream().mapToLong(SourcePoint::timestampMs).min().orElseThrow();
        long last = all.stream().mapToLong(SourcePoint::timestampMs).max().orElseThrow();
        long rebaseTo = Instant.now()
                .minus(2, ChronoUnit.DAYS)
                .truncatedTo(ChronoUnit.MINUTES)
                .toEpochMilli();
        Path summary = stack.path("loop-summary.json");
        WriterProcess w = stack.writer(
                "loop-writer",
                replayArgs(
                        topic,
                        group,
                        6,
                        1,
                        2,
                        summary,
                        "--rebase-time",
                        Instant.ofEpochMilli(rebaseTo).toString(),
                        "--loop",
                        "3"));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

        long shift0 = rebaseTo - first;
        long length = last - first + 60_000;
        ExpectedSamples.Builder expected = ExpectedSamples.builder(6, 1, 60_000);
        for (int pass = 0; pass < 3; pass++) {
            long shift = shift0 + pass * length;
            all.forEach(p -> expected.add(shifted(p, shift)));
        }
        ExpectedSamples e = expected.build();
        assertThat(e.sampleCount()).isEqualTo(3L * all.size() * 6);
        assertExact(key, e);
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("passes")).hasSize(3);
        assertThat(s.get("passes").get(2).get("shift_ms").asLong()).isEqualTo(shift0 + 2 * length);
        assertThat(s.get("rebased_to").asText())
                .isEqualTo(Instant.ofEpochMilli(rebaseTo).toString());
        // the verify command follows the shifts too, from the replay's summary
        List<String> verify = new ArrayList<>(List.of(
                "verify",
                "--vm-url",
                stack.vmUrl(),
                "--match",
                "{productKey=\"" + key + "\"}",
                "--time-multiplier",
                "6",
                "--instance",
                Scenario.INSTANCE,
                "--product-key",
                key,
                "--replay-summary",
                summary.toString(),
                "--keep-timestamps")); // the topic holds the scrape times of the files, as the fixture produced them
        files.subList(0, 4).forEach(f -> verify.add(f.toString()));
        WriterProcess v = stack.writer("loop-verify", verify);
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
        Map<TopicPartition, Long> after = stack.committedOffsets(group, topic);
        Map<TopicPartition, Long> expectedOffsets = new HashMap<>();
        before.forEach((tp, om) -> expectedOffsets.put(tp, om.offset()));
        assertThat(after).as("the source group's offsets are unchanged").isEqualTo(expectedOffsets);
    }

    @Test
    void churnGivesEveryIntervalANewGenerationOfSeries() throws Exception {
        String key = "replay-churn";
        List<SourcePoint> all = points(key, 9); // 9 scrapes a minute apart: 3 intervals of 3 minutes
        String topic = "replay-churn";
        produceTimed(topic, 3, all);
        Path summary = stack.path("churn-summary.json");
        WriterProcess w = stack.writer(
                "churn-writer",
                replayArgs(topic, "g-" + topic, 1, 10, 1, summary, "--from", "offset:0", "--churn-interval", "3m"));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

        long origin = all.stream().mapToLong(SourcePoint::timestampMs).min().orElseThrow();
        Set<String> generations = new TreeSet<>(); // (series, generation) pairs: each becomes N new series
        Set<Long> seen = new TreeSet<>();
        all.forEach(p -> {
            long g = (p.timestampMs() - origin) / 180_000;
            seen.add(g);
            generations.add(p.seriesKey() + "@g" + g);
        });
        assertThat(seen).containsExactly(0L, 1L, 2L);
        long expectedSeries = 10L * generations.size();
        long deadline = System.nanoTime() + Scenario.READ_BACK_TIMEOUT.toNanos();
        long found = seriesCount(key, origin);
        while (found != expectedSeries && System.nanoTime() < deadline) {
            Thread.sleep(500);
            found = seriesCount(key, origin);
        }
        assertThat(found).as("N x series x generations").isEqualTo(expectedSeries);
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("series_created").asLong()).isEqualTo(expectedSeries);
        assertThat(s.get("samples_written").asLong()).isEqualTo(10L * all.size());
    }

    /** Distinct series of a product key, as VictoriaMetrics' /api/v1/series reports them. */
    private static long seriesCount(String productKey, long fromMs) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        http.send(
                HttpRequest.newBuilder(URI.create(stack.vmUrl() + "/internal/force_flush"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        String q = URLEncoder.encode("{productKey=\"" + productKey + "\"}", StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(stack.vmUrl() + "/api/v1/series?start=" + (fromMs / 1000 - 3600)
                                + "&end=" + (System.currentTimeMillis() / 1000 + 3600) + "&match[]=" + q))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return PointRecords.objectMapper().readTree(r.body()).get("data").size();
    }
}
