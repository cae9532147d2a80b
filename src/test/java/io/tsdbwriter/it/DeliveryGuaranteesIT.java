package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Never lose a point (issue "crashes, outages, bad input and rebalances"): fault injection with real processes —
 * a Kafka broker, VictoriaMetrics, the writer jar — and a fault proxy on loopback. Each scenario ends with the
 * exact read-back of the real input and the group's committed offsets at the end offsets.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DeliveryGuaranteesIT {

    static final int PARTITIONS = 3;
    static final int M = 2;
    static final int N = 3;

    /** One broker (killed and restarted by one scenario); a fresh VictoriaMetrics per scenario, so each reads back only its own samples. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVmPerTest();

    static List<SourcePoint> points;
    static final AtomicInteger names = new AtomicInteger();

    /**
     * A classic member's session of 6 s (heartbeat 1 s) for the scenarios that kill -9 a member: the next member to
     * join waits until the dead one's session expires (Kafka's default 45 s, which the crash scenario waited out whole).
     */
    static final String[] SHORT_SESSION = {
        "--consumer-property", "session.timeout.ms=6000", "--consumer-property", "heartbeat.interval.ms=1000"
    };

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    private Fixture realInput(String name) {
        return stack.realInput(name, PARTITIONS, points);
    }

    private WriterProcess writer(Fixture f, String name, String vmUrl, String... more) {
        List<String> args = stack.runArgs(vmUrl, f.topic(), f.group(), M, N, 3, more);
        args.addAll(List.of("--segment-size", "300", "--commit-interval", "500ms"));
        return stack.writer(name, args);
    }

    private void finishAndVerifyAll(Fixture f, String name) throws Exception {
        Path summary = stack.path(name + "-finish.json");
        WriterProcess finish =
                writer(f, name + "-finish", stack.vmUrl(), "--stop-at-end", "--summary-json", summary.toString());
        assertThat(finish.waitFor(Scenario.PROCESS_TIMEOUT)).as(finish.output()).isZero();
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    /** Everything below the committed offsets is in VictoriaMetrics. */
    private Map<TopicPartition, Long> assertCommittedIsDurable(Fixture f) throws Exception {
        Map<TopicPartition, Long> committed = stack.committedOffsets(f.group(), f.topic());
        List<SourcePoint> below = new ArrayList<>();
        if (!committed.isEmpty()) {
            for (int i : Scenario.recordsBelow(committed, PARTITIONS, f.records())) {
                below.add(points.get(i));
            }
        }
        if (!below.isEmpty()) {
            stack.assertPresent(Scenario.expected(below, M, N));
        }
        return committed;
    }

    private static String[] concat(String[] first, String... more) {
        return Stream.concat(Arrays.stream(first), Arrays.stream(more)).toArray(String[]::new);
    }

    private Map<TopicPartition, Long> awaitSomeCommitted(Fixture f, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, Long> c = stack.committedOffsets(f.group(), f.topic());
            if (c.values().stream().mapToLong(Long::longValue).sum() > 0) {
                return c;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("nothing committed within " + timeout);
    }

    @Test
    void sigtermDrainsCommitsTheWatermarkAndExitsZero() throws Exception {
        Fixture f = realInput("sigterm");
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            // slow enough that work remains when the first durable commit comes (at least the 2 s window after the
            // first acks): ~100 batches of 600 samples at 2 in flight x 150 ms take ~8 s; at 30 ms they were all
            // written before the first commit on a busy machine, and the SIGTERM found nothing left to drain
            slow.mode(new FaultProxy.Delay(Duration.ofMillis(150)));
            WriterProcess w =
                    writer(f, "sigterm", slow.url(), "--batch-samples", "600", "--max-concurrent-writes", "2");
            awaitSomeCommitted(f, Duration.ofSeconds(60));
            w.sigterm();
            assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isZero();
            assertThat(w.output()).contains("final report");
        }
        Map<TopicPartition, Long> committed = assertCommittedIsDurable(f);
        assertThat(committed.values().stream().mapToLong(Long::longValue).sum()).isLessThan(f.records());
        finishAndVerifyAll(f, "sigterm");
    }

    @Test
    void sigtermWhileWritesStillFailExitsNonZeroAndCommitsNothingUnwritten() throws Exception {
        Fixture f = realInput("sigterm-failing");
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.Status(503, -1));
            WriterProcess w = writer(
                    f,
                    "sigterm-failing",
                    proxy.url(),
                    "--max-retries",
                    "1",
                    "--max-backoff",
                    "500ms",
                    "--drain-timeout",
                    "2s");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (proxy.faulted() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(proxy.faulted()).isGreaterThanOrEqualTo(5);
            w.sigterm();
            assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(1);
            assertThat(proxy.passed()).isZero();
        }
        assertThat(stack.committedOffsets(f.group(), f.topic()).values()).allMatch(o -> o == 0L);
        finishAndVerifyAll(f, "sigterm-failing");
    }

    @Test
    void killMinusNineThenRestartLeavesEveryExpectedSampleAndNothingElse() throws Exception {
        Fixture f = realInput("crash");
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            slow.mode(new FaultProxy.Delay(Duration.ofMillis(30)));
            WriterProcess w = writer(
                    f,
                    "crash",
                    slow.url(),
                    concat(SHORT_SESSION, "--batch-samples", "600", "--max-concurrent-writes", "2"));
            awaitSomeCommitted(f, Duration.ofSeconds(60));
            Thread.sleep(500);
            w.kill();
            w.waitFor(Duration.ofSeconds(10));
        }
        Map<TopicPartition, Long> committed = assertCommittedIsDurable(f);
        assertThat(committed.values().stream().mapToLong(Long::longValue).sum()).isLessThan(f.records());
        Path summary = stack.path("crash-finish.json");
        WriterProcess finish =
                writer(f, "crash-finish", stack.vmUrl(), "--stop-at-end", "--summary-json", summary.toString());
        assertThat(finish.waitFor(Scenario.PROCESS_TIMEOUT)).as(finish.output()).isZero();
        // the restart reads exactly what was not committed
        long uncommitted = 0;
        for (Map.Entry<TopicPartition, Long> e : stack.endOffsets(f.topic()).entrySet()) {
            uncommitted += e.getValue() - committed.getOrDefault(e.getKey(), 0L);
        }
        assertThat(Scenario.summary(summary).get("records").asLong()).isEqualTo(uncommitted);
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void victoriaMetricsDownThenBackIsRetriedUntilEverythingIsWritten() throws Exception {
        Fixture f = realInput("vm-down");
        stack.vm().stop();
        Path summary = stack.path("vm-down.json");
        WriterProcess w = writer(
                f,
                "vm-down",
                stack.vmUrl(),
                "--stop-at-end",
                "--max-retries",
                "2",
                "--max-backoff",
                "1s",
                "--summary-json",
                summary.toString());
        // down for 6 s of the writer's work: counted from its assignment, not its start (at load 6-9 the JVM and the
        // join took 4 s of a fixed 6 s, VictoriaMetrics was back before the first write, and retries was 0)
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!w.output().contains("assigned " + f.topic())) {
            assertThat(w.isAlive() && System.nanoTime() < deadline)
                    .as("assigned within 60 s: %s", w.output())
                    .isTrue();
            Thread.sleep(100);
        }
        Thread.sleep(6000);
        assertThat(w.isAlive()).as(w.output()).isTrue();
        stack.vm().restart();
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("retries").asLong()).isPositive();
        // VictoriaMetrics restarted: what it acknowledged before may be lost, so the writer re-read from its last
        // commit
        // (at-least-once: the 2xx count may exceed the expected; dedup leaves one sample per timestamp)
        assertThat(s.get("durability").get("tsdb_restarts").asLong())
                .as(s.toString())
                .isPositive();
        assertThat(s.get("samples_written").asLong()).isGreaterThanOrEqualTo(points.size() * (long) M * N);
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void answers503And429WithRetryAfterAndSlowAnswersAreRetried() throws Exception {
        Fixture f = realInput("flaky");
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.Status(503, -1));
            Path summary = stack.path("flaky.json");
            WriterProcess w = writer(
                    f,
                    "flaky",
                    proxy.url(),
                    "--stop-at-end",
                    "--max-retries",
                    "2",
                    "--max-backoff",
                    "1s",
                    "--call-timeout",
                    "1s",
                    "--summary-json",
                    summary.toString());
            Thread.sleep(3000);
            proxy.mode(new FaultProxy.Status(429, 1));
            Thread.sleep(3000);
            proxy.mode(new FaultProxy.Slow(Duration.ofSeconds(3)));
            Thread.sleep(4000);
            assertThat(w.isAlive()).as(w.output()).isTrue();
            proxy.mode(new FaultProxy.Pass());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            assertThat(proxy.faulted()).isPositive();
            assertThat(Scenario.summary(summary).get("retries").asLong()).isPositive();
        }
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void deadLetterPolicySendsEveryRecordOfAFailingBatchToTheDeadLetterTopic() throws Exception {
        Fixture f = realInput("dlq-write");
        String dlq = f.topic() + "-dlq";
        stack.createTopic(dlq, 1);
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.Status(503, -1));
            Path summary = stack.path("dlq-write.json");
            WriterProcess w = writer(
                    f,
                    "dlq-write",
                    proxy.url(),
                    "--stop-at-end",
                    "--max-retries",
                    "1",
                    "--max-backoff",
                    "200ms",
                    "--on-write-failure",
                    "dead-letter",
                    "--dead-letter-topic",
                    dlq,
                    "--batch-samples",
                    "20000",
                    "--summary-json",
                    summary.toString());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("samples_dead_lettered").asLong()).isEqualTo(points.size() * (long) M * N);
            assertThat(s.get("samples_written").asLong()).isZero();
        }
        List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
        assertThat(dead).hasSize(f.records());
        assertThat(dead)
                .allSatisfy(r -> assertThat(header(r, "tsdbwriter.reason")).isEqualTo("write_failed"));
        assertThat(sortedValues(dead)).isEqualTo(sortedValues(produced(f)));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void malformedRecordsAreCountedDeadLetteredWithHeadersAndTheValidPointsAroundThemAreWritten() throws Exception {
        String topic = "bad-input-" + names.incrementAndGet();
        String dlq = topic + "-dlq";
        stack.createTopic(topic, PARTITIONS);
        stack.createTopic(dlq, 1);
        Map<String, byte[]> malformed = new LinkedHashMap<>();
        malformed.put("invalid_json", "{not json".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "invalid_value",
                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":\"NaN\"}".getBytes(StandardCharsets.UTF_8));
        malformed.put("missing_metric", "{\"timestamp\":1795300857000,\"value\":1}".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "missing_value", "{\"metric\":\"m\",\"timestamp\":1795300857000}".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "invalid_metric",
                "{\"metric\":\"1bad\",\"timestamp\":1795300857000,\"value\":1}".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "invalid_label_name",
                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a-b\":\"x\"}}"
                        .getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "reserved_label_name",
                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"__x\":\"x\"}}"
                        .getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "invalid_timestamp",
                "{\"metric\":\"m\",\"timestamp\":\"soon\",\"value\":1}".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "timestamp_in_seconds",
                "{\"metric\":\"m\",\"timestamp\":1795300857,\"value\":1}".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "implausible_timestamp",
                "{\"metric\":\"m\",\"timestamp\":1795300857000000,\"value\":1}".getBytes(StandardCharsets.UTF_8));
        malformed.put("empty_array", "[]".getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "invalid_dimensions",
                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":1}}"
                        .getBytes(StandardCharsets.UTF_8));
        malformed.put("invalid_utf8", new byte[] {'{', '"', 'm', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'});
        malformed.put(
                "too_large",
                ("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"pad\":\""
                                + "x".repeat(5000) + "\"}}")
                        .getBytes(StandardCharsets.UTF_8));
        malformed.put(
                "not_an_object",
                "[{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1}, 7]".getBytes(StandardCharsets.UTF_8));
        List<byte[]> values = new ArrayList<>();
        List<byte[]> bad = new ArrayList<>(malformed.values());
        int every = points.size() / bad.size();
        int b = 0;
        for (int i = 0; i < points.size(); i++) {
            values.add(PointRecords.encode(points.get(i)));
            if (i % every == every / 2 && b < bad.size()) {
                values.add(bad.get(b++));
            }
        }
        assertThat(b).isEqualTo(bad.size());
        stack.produceRaw(topic, PARTITIONS, values);
        Path summary = stack.path("bad-input.json");
        List<String> args = stack.runArgs(
                topic,
                "g-" + topic,
                M,
                N,
                3,
                "--stop-at-end",
                "--dead-letter-topic",
                dlq,
                "--max-record-bytes",
                "4KiB",
                "--summary-json",
                summary.toString(),
                "--segment-size",
                "300");
        WriterProcess w = stack.writer("bad-input", args);
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("decode_errors").asLong()).isEqualTo(bad.size());
        assertThat(s.get("records").asLong()).isEqualTo(values.size());
        List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
        assertThat(dead).hasSize(bad.size());
        assertThat(sortedValues(dead)).isEqualTo(sortedValues(bad));
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String reason = header(r, "tsdbwriter.reason");
            assertThat(malformed.get(reason))
                    .as("record dead-lettered with reason %s", reason)
                    .isEqualTo(r.value());
            assertThat(header(r, "tsdbwriter.source.topic")).isEqualTo(topic);
            assertThat(header(r, "tsdbwriter.source.partition")).isNotBlank();
            assertThat(header(r, "tsdbwriter.source.offset")).isNotBlank();
            assertThat(header(r, "tsdbwriter.error")).isNotBlank();
        }
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        assertThat(stack.committedOffsets("g-" + topic, topic)).isEqualTo(stack.endOffsets(topic));
    }

    @Test
    void aBatchVictoriaMetricsRefusesIsSplitUntilTheRefusedRecordsAreDeadLettered() throws Exception {
        String topic = "refused-" + names.incrementAndGet();
        String dlq = topic + "-dlq";
        stack.createTopic(topic, PARTITIONS);
        stack.createTopic(dlq, 1);
        List<byte[]> values = new ArrayList<>();
        List<byte[]> poisoned = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            values.add(PointRecords.encode(points.get(i)));
            if (i % 3000 == 1500) {
                byte[] p = ("{\"metric\":\"poisoned_metric\",\"timestamp\":1795300857000,\"value\":" + i
                                + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"marker\":\"poison\"}}")
                        .getBytes(StandardCharsets.UTF_8);
                values.add(p);
                poisoned.add(p);
            }
        }
        stack.produceRaw(topic, PARTITIONS, values);
        Path summary = stack.path("refused.json");
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.RejectContaining("\"poison\""));
            List<String> args = stack.runArgs(
                    proxy.url(),
                    topic,
                    "g-" + topic,
                    M,
                    N,
                    3,
                    "--stop-at-end",
                    "--dead-letter-topic",
                    dlq,
                    "--summary-json",
                    summary.toString());
            WriterProcess w = stack.writer("refused", args);
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        }
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("samples_dead_lettered").asLong()).isEqualTo(poisoned.size() * (long) M * N);
        assertThat(s.get("samples_written").asLong()).isEqualTo(points.size() * (long) M * N);
        List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
        assertThat(sortedValues(dead)).isEqualTo(sortedValues(poisoned));
        assertThat(dead)
                .allSatisfy(r -> assertThat(header(r, "tsdbwriter.reason")).isEqualTo("vm_rejected"));
        stack.assertExactReadBack(Scenario.expected(points, M, N));
    }

    @Test
    void brokerRestartMidRunLosesNothing() throws Exception {
        Fixture f = realInput("broker-restart");
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            slow.mode(new FaultProxy.Delay(Duration.ofMillis(20)));
            WriterProcess w = writer(
                    f,
                    "broker-restart",
                    slow.url(),
                    "--stop-at-end",
                    "--batch-samples",
                    "600",
                    "--max-concurrent-writes",
                    "2");
            awaitSomeCommitted(f, Duration.ofSeconds(60));
            stack.kafka().kill();
            Thread.sleep(3000);
            stack.kafka().restart();
            slow.mode(new FaultProxy.Pass());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        }
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void membersJoiningAndDyingInOneGroupLoseNothing() throws Exception {
        String topic = "rebalance-" + names.incrementAndGet();
        stack.createTopic(topic, 6);
        int records = stack.produce(topic, 6, points, 1);
        Fixture f = new Fixture(topic, "g-" + topic, records);
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            slow.mode(new FaultProxy.Delay(Duration.ofMillis(15)));
            String[] fast = concat(SHORT_SESSION, "--batch-samples", "600", "--max-concurrent-writes", "2");
            WriterProcess w1 = writer(f, "member-1", slow.url(), fast);
            WriterProcess w2 = writer(f, "member-2", slow.url(), fast);
            awaitSomeCommitted(f, Duration.ofSeconds(60));
            WriterProcess w3 = writer(f, "member-3", slow.url(), fast);
            Thread.sleep(4000);
            w1.kill();
            slow.mode(new FaultProxy.Pass());
            awaitCommittedAtEnd(f, Duration.ofSeconds(90));
            w2.sigterm();
            w3.sigterm();
            assertThat(w2.waitFor(Duration.ofSeconds(60))).as(w2.output()).isZero();
            assertThat(w3.waitFor(Duration.ofSeconds(60))).as(w3.output()).isZero();
        }
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }

    private void awaitCommittedAtEnd(Fixture f, Duration timeout) throws Exception {
        Map<TopicPartition, Long> end = stack.endOffsets(f.topic());
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, Long> c = Map.of();
        while (System.nanoTime() < deadline) {
            c = stack.committedOffsets(f.group(), f.topic());
            if (c.equals(end)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("committed " + c + " never reached " + end);
    }

    private List<byte[]> produced(Fixture f) {
        List<byte[]> out = new ArrayList<>();
        for (SourcePoint p : points) {
            out.add(PointRecords.encode(p));
        }
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static List<String> sortedValues(List<?> valuesOrRecords) {
        List<String> out = new ArrayList<>();
        for (Object o : valuesOrRecords) {
            byte[] v = o instanceof ConsumerRecord<?, ?> r ? (byte[]) r.value() : (byte[]) o;
            out.add(Arrays.toString(v));
        }
        out.sort(null);
        return out;
    }
}
