package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 18: one oversized record must not kill the job. Real points with malformed records among them — one of
 * them a 2 MB record over {@code --max-record-bytes} (1 MiB) in a topic that allows 4 MiB — through a real writer,
 * broker and VictoriaMetrics: every malformed record is dead-lettered exactly once (the oversized one as a stub
 * with its coordinates), a missing dead-letter topic holds the partitions and fails the run, and a thread that dies
 * of a {@code StackOverflowError} ends the process; each ends with the exact read-back and commits at the end.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DeadLetterIT {

    static final int PARTITIONS = 3;
    static final int M = 2;
    static final int N = 3;
    static final int TWO_MB = 2 * 1024 * 1024;

    /** One broker; a fresh VictoriaMetrics per scenario, so each reads back only its own samples. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVmPerTest();

    static List<SourcePoint> points;
    static final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    /** The malformed kinds DeliveryGuaranteesIT uses, with a 2 MB point as the too_large one. */
    static Map<String, byte[]> malformed() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("invalid_json", utf8("{not json"));
        m.put("invalid_value", utf8("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":\"NaN\"}"));
        m.put("missing_metric", utf8("{\"timestamp\":1795300857000,\"value\":1}"));
        m.put("missing_value", utf8("{\"metric\":\"m\",\"timestamp\":1795300857000}"));
        m.put("invalid_metric", utf8("{\"metric\":\"1bad\",\"timestamp\":1795300857000,\"value\":1}"));
        m.put(
                "invalid_label_name",
                utf8("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a-b\":\"x\"}}"));
        m.put(
                "reserved_label_name",
                utf8("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"__x\":\"x\"}}"));
        m.put("invalid_timestamp", utf8("{\"metric\":\"m\",\"timestamp\":\"soon\",\"value\":1}"));
        m.put("timestamp_in_seconds", utf8("{\"metric\":\"m\",\"timestamp\":1795300857,\"value\":1}"));
        m.put("empty_array", utf8("[]"));
        m.put(
                "invalid_dimensions",
                utf8("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":1}}"));
        m.put("invalid_utf8", new byte[] {'{', '"', 'm', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'});
        m.put("not_an_object", utf8("[{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1}, 7]"));
        String head = "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"pad\":\"";
        String tail = "\"}}";
        m.put("too_large", utf8(head + "x".repeat(TWO_MB - head.length() - tail.length()) + tail));
        return m;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A 3-partition topic (max.message.bytes 4 MiB) with the real points and each malformed record once among them. */
    private record Input(String topic, String group, List<byte[]> values, Map<String, byte[]> malformed) {
        /** Index of the produced record at a partition's offset (record i went to partition i % 3, offset i / 3). */
        byte[] at(int partition, long offset) {
            return values.get((int) (offset * PARTITIONS + partition));
        }
    }

    private Input input(String name) {
        String topic = name + "-" + names.incrementAndGet();
        stack.createTopic(topic, PARTITIONS, Map.of("max.message.bytes", Integer.toString(4 * 1024 * 1024)));
        Map<String, byte[]> bad = malformed();
        List<byte[]> badValues = new ArrayList<>(bad.values());
        List<byte[]> values = new ArrayList<>();
        int every = points.size() / badValues.size();
        int b = 0;
        for (int i = 0; i < points.size(); i++) {
            values.add(PointRecords.encode(points.get(i)));
            if (i % every == every / 2 && b < badValues.size()) {
                values.add(badValues.get(b++));
            }
        }
        assertThat(b).isEqualTo(badValues.size());
        produce(topic, values);
        return new Input(topic, "g-" + topic, values, bad);
    }

    /** Record i to partition i % 3, in order, every send checked (Scenario.produce; its max.request.size lets the 2 MB record through). */
    private static void produce(String topic, List<byte[]> values) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            records.add(new ProducerRecord<>(topic, i % PARTITIONS, null, values.get(i)));
        }
        stack.produce(records);
    }

    private WriterProcess writer(Input in, String name, String dlq, List<String> jvmArgs, String... more) {
        List<String> args = stack.runArgs(in.topic(), in.group(), M, N, 3, more);
        args.addAll(List.of("--segment-size", "500", "--commit-interval", "500ms"));
        if (dlq != null) {
            args.addAll(List.of("--dead-letter-topic", dlq));
        }
        return stack.writer(name, jvmArgs, args);
    }

    private void assertDone(Input in) throws Exception {
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        assertThat(stack.committedOffsets(in.group(), in.topic())).isEqualTo(stack.endOffsets(in.topic()));
    }

    /** Every malformed record is in the dead-letter topic exactly once; the 2 MB one as a stub naming its coordinates. */
    private void assertDeadLetters(Input in, String dlq) {
        List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
        assertThat(dead).hasSize(in.malformed().size());
        Map<String, Integer> byReason = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String reason = header(r, "tsdbwriter.reason");
            byReason.merge(reason, 1, Integer::sum);
            assertThat(header(r, "tsdbwriter.source.topic")).isEqualTo(in.topic());
            byte[] original = in.at(
                    Integer.parseInt(header(r, "tsdbwriter.source.partition")),
                    Long.parseLong(header(r, "tsdbwriter.source.offset")));
            assertThat(original)
                    .as("the source record at the stub's coordinates")
                    .isEqualTo(in.malformed().get(reason));
            assertThat(header(r, "tsdbwriter.source.size")).isEqualTo(Integer.toString(original.length));
            assertThat(header(r, "tsdbwriter.source.timestamp")).isNotBlank();
            if (reason.equals("too_large")) {
                assertThat(header(r, "tsdbwriter.truncated")).isEqualTo("true");
                assertThat(r.value().length).isPositive().isLessThan(original.length);
                assertThat(r.value()).isEqualTo(Arrays.copyOf(original, r.value().length));
            } else {
                assertThat(header(r, "tsdbwriter.truncated")).isNull();
                assertThat(r.value()).isEqualTo(original);
            }
        }
        assertThat(byReason).hasSize(in.malformed().size()).allSatisfy((reason, n) -> assertThat(n)
                .isOne());
    }

    private void runsToTheEndWithEveryMalformedRecordDeadLetteredOnce(String dlqMaxMessageBytes) throws Exception {
        Input in = input("oversized");
        String dlq = in.topic() + "-dlq";
        stack.createTopic(
                dlq, 1, dlqMaxMessageBytes == null ? Map.of() : Map.of("max.message.bytes", dlqMaxMessageBytes));
        Path summary = stack.path(in.topic() + ".json");
        WriterProcess w = writer(in, in.topic(), dlq, List.of(), "--stop-at-end", "--summary-json", summary.toString());
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        assertThat(w.output()).doesNotContain("StackOverflowError").doesNotContain("died of");
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("decode_errors").asLong()).isEqualTo(in.malformed().size());
        assertThat(s.get("records").asLong()).isEqualTo(in.values().size());
        assertDeadLetters(in, dlq);
        assertDone(in);
    }

    @Test
    void oversizedRecordGoesAsAStubToADeadLetterTopicAtTheDefaultLimit() throws Exception {
        runsToTheEndWithEveryMalformedRecordDeadLetteredOnce(null);
    }

    @Test
    void oversizedRecordGoesAsAStubToADeadLetterTopicAllowing4MiB() throws Exception {
        runsToTheEndWithEveryMalformedRecordDeadLetteredOnce(Integer.toString(4 * 1024 * 1024));
    }

    @Test
    void aMissingDeadLetterTopicHoldsThePartitionsFailsTheRunAndARestartAfterItIsCreatedFinishes() throws Exception {
        Input in = input("no-dlq");
        String dlq = in.topic() + "-dlq";
        WriterProcess w = writer(in, in.topic() + "-1", dlq, List.of(), "--stop-at-end", "--drain-timeout", "2s");
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
        assertThat(w.output())
                .contains("dead-letter topic " + dlq + ": the topic does not exist")
                .contains("cannot store record")
                .doesNotContain("Exception in thread");
        try (Admin admin = Admin.create(stack.kafka().adminProperties())) {
            assertThat(admin.listTopics().names().get()).doesNotContain(dlq); // the writer never creates topics
        }
        // nothing committed past the first record of each partition that needed the dead-letter topic
        Map<TopicPartition, Long> committed = stack.committedOffsets(in.group(), in.topic());
        Map<Integer, Long> firstMalformed = new HashMap<>();
        List<byte[]> bad = new ArrayList<>(in.malformed().values());
        for (int i = 0; i < in.values().size(); i++) {
            byte[] v = in.values().get(i);
            if (bad.stream().anyMatch(b -> b == v)) {
                firstMalformed.putIfAbsent(i % PARTITIONS, (long) (i / PARTITIONS));
            }
        }
        for (int p = 0; p < PARTITIONS; p++) {
            long c = committed.getOrDefault(new TopicPartition(in.topic(), p), 0L);
            assertThat(c).as("committed offset of partition %d", p).isLessThanOrEqualTo(firstMalformed.get(p));
        }
        stack.createTopic(dlq, 1);
        WriterProcess restart = writer(in, in.topic() + "-2", dlq, List.of(), "--stop-at-end");
        assertThat(restart.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(restart.output())
                .isZero();
        assertDeadLetters(in, dlq);
        assertDone(in);
    }

    @Test
    void whileARecordCannotBeDeadLetteredTheWriterIsNotReadyAndItGoesOnOnceTheTopicExists() throws Exception {
        Input in = input("held");
        String dlq = in.topic() + "-dlq";
        int port = FreePorts.pick();
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--bootstrap-servers",
                stack.bootstrapServers(),
                "--topic",
                in.topic(),
                "--group-id",
                in.group(),
                "--vm-url",
                stack.vmUrl(),
                "--time-multiplier",
                Integer.toString(M),
                "--instance-multiplier",
                Integer.toString(N),
                "--parallelism",
                "3",
                "--metrics-address",
                "127.0.0.1",
                "--metrics-port",
                Integer.toString(port),
                "--report-interval",
                "5s",
                "--segment-size",
                "500",
                "--commit-interval",
                "500ms",
                "--max-backoff",
                "1s",
                "--dead-letter-topic",
                dlq));
        WriterProcess w = stack.writer(in.topic(), args);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!w.output().contains("cannot store record") && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(w.output()).contains("cannot store record");
            assertThat(httpStatus(port, "/health/ready")).isEqualTo(503);
            assertThat(httpBody(port, "/metrics"))
                    .contains("tsdbwriter_dead_letter_failures_total{reason=\"unknown_topic\"}");
            assertThat(w.isAlive()).isTrue();
            stack.createTopic(dlq, 1);
            Map<TopicPartition, Long> end = stack.endOffsets(in.topic());
            deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!(stack.committedOffsets(in.group(), in.topic()).equals(end)
                            && httpStatus(port, "/health/ready") == 200)
                    && System.nanoTime() < deadline) {
                Thread.sleep(300);
            }
            assertThat(httpStatus(port, "/health/ready")).as(w.output()).isEqualTo(200);
            w.sigterm();
            assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isZero();
        } finally {
            w.close();
        }
        assertDeadLetters(in, dlq);
        assertDone(in);
    }

    private static int httpStatus(int port, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }

    private static String httpBody(int port, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void aSegmentThreadDyingOfStackOverflowStopsTheProcessAndARestartFinishesExactly() throws Exception {
        String topic = "thread-death-" + names.incrementAndGet();
        stack.createTopic(topic, PARTITIONS);
        int records = stack.produce(topic, PARTITIONS, points, 1);
        Input in = new Input(topic, "g-" + topic, List.of(), Map.of());
        WriterProcess w = writer(
                in,
                topic + "-1",
                null,
                List.of("-Dtsdbwriter.test.throwInSegment=StackOverflowError@1:1700"),
                "--stop-at-end");
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
        String out = w.output();
        assertThat(out)
                .contains("died of java.lang.StackOverflowError: test hook")
                .contains("at io.tsdbwriter.kafka.segment.TestHooks")
                .contains("exit 1: a thread died");
        Map<TopicPartition, Long> committed = stack.committedOffsets(in.group(), topic);
        assertThat(committed.getOrDefault(new TopicPartition(topic, 1), 0L)).isLessThanOrEqualTo(1700L);
        List<SourcePoint> below = new ArrayList<>();
        if (!committed.isEmpty()) {
            for (int i : Scenario.recordsBelow(committed, PARTITIONS, records)) {
                below.add(points.get(i));
            }
            stack.assertPresent(Scenario.expected(below, M, N)); // committed only what is durable
        }
        WriterProcess restart = writer(in, topic + "-2", null, List.of(), "--stop-at-end");
        assertThat(restart.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(restart.output())
                .isZero();
        assertDone(in);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
