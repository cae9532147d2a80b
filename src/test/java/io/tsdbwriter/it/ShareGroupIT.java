package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.Components.KafkaEndpoint;
import io.tsdbwriter.it.support.Components.KafkaOptions;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --consumer-mode share} (issue 28) with a real Kafka 4.3 broker (share groups on; record lock 6 s), real
 * VictoriaMetrics and real writer processes: six processes on a 2-partition topic all get records and the read-back is
 * exact; two of six killed with kill -9 after they wrote (VictoriaMetrics stored their samples, they never heard so),
 * their locked records delivered again once the locks expire and written again, exact; a member paused past the locks
 * gives its records up and stops cleanly; an
 * outage of VictoriaMetrics longer than the lock, held records renewed, none delivered twice, exact; malformed records
 * with a dead-letter topic (dead-lettered, accepted) and without (rejected, counted); a cluster with share groups
 * disabled: one line, exit 1.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@RunsAlone // its scenarios hold records across 6 s locks: a neighbour's load can let one expire
class ShareGroupIT {

    static final int M = 6;
    static final int N = 3;

    /** One broker and one VictoriaMetrics (each scenario has its own productKey). */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    private static WriterProcess writer(Fixture f, String name, String... more) {
        return writer(f, name, true, more);
    }

    /** @param small 50 records per poll, no prefetch (share.acquire.mode=record_limit): records spread over many members */
    private static WriterProcess writer(Fixture f, String name, boolean small, String... more) {
        return writerTo(stack.vmUrl(), f, name, small, more);
    }

    private static WriterProcess writerTo(String vmUrl, Fixture f, String name, boolean small, String... more) {
        List<String> args = stack.runArgs(vmUrl, f.topic(), f.group(), M, N, 1, more);
        args.addAll(List.of("--consumer-mode", "share", "--drain-timeout", "20s", "--max-backoff", "1s"));
        if (small) {
            args.addAll(List.of(
                    "--consumer-property",
                    "share.acquire.mode=record_limit",
                    "--consumer-property",
                    "max.poll.records=50"));
        }
        return stack.writer(name, args);
    }

    /** The real points under their own productKey: each scenario reads back only its own samples from the one VictoriaMetrics. */
    private static List<SourcePoint> pointsOf(String productKey) {
        return points.stream()
                .map(p -> new SourcePoint(p.metric(), p.labels(), productKey, p.timestampMs(), p.value()))
                .toList();
    }

    /** Exact read-back of {@code pts} amplified, within 90 s (the writers are still at work). */
    private static void assertExact(String productKey, List<SourcePoint> pts) throws Exception {
        ExpectedSamples expected = Scenario.expected(pts, M, N);
        VerificationResult r = new ReadBackVerifier(
                        stack.vmUrl(), "{productKey=\"" + productKey + "\"}", 1e-9, new okhttp3.OkHttpClient())
                .verifyWithin(expected, Duration.ofSeconds(90), Duration.ofMillis(500));
        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
        assertThat(r.unexpectedSeries()).isZero();
    }

    /** SIGTERM to each, exit 0 each, their summaries. */
    private static List<JsonNode> stopAll(List<WriterProcess> writers, List<Path> summaries) throws Exception {
        writers.forEach(WriterProcess::sigterm);
        List<JsonNode> out = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            assertThat(writers.get(i).waitFor(Scenario.PROCESS_TIMEOUT))
                    .as(writers.get(i).output())
                    .isZero();
            out.add(Scenario.summary(summaries.get(i)));
        }
        return out;
    }

    @Test
    void sixProcessesOnTwoPartitionsAllTakeRecordsAndTheReadBackIsExact() throws Exception {
        List<SourcePoint> pts = pointsOf("share-six");
        Fixture f = stack.realInput("share-six", 2, pts);
        List<WriterProcess> writers = new ArrayList<>();
        List<Path> summaries = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            summaries.add(stack.path("six-" + i + ".json"));
            writers.add(writer(f, "six-" + i, "--summary-json", summaries.get(i).toString()));
        }
        assertExact("share-six", pts);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!writers.stream().allMatch(w -> w.output().contains("| limited_by=")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        long accepted = 0;
        for (JsonNode s : stopAll(writers, summaries)) {
            assertThat(s.get("records").asLong())
                    .as("every process took records: " + s)
                    .isPositive();
            assertThat(s.get("share_redeliveries").asLong()).isZero();
            assertThat(s.path("limited_by").asText())
                    .as("a share member is limited by the acquisition, the permits or the TSDB: " + s)
                    .isNotEmpty()
                    .isNotEqualTo("input")
                    .isNotEqualTo("kafka-fetch");
            accepted += s.get("share_accepted").asLong();
        }
        for (WriterProcess w : writers) {
            assertThat(w.output())
                    .as("report lines: no lag in share mode")
                    .contains("| limited_by=")
                    .doesNotContain("limited_by=input")
                    .doesNotContain("lag steady")
                    .doesNotContain("lag growing");
        }
        assertThat(accepted).as("each record accepted once").isEqualTo(f.records());
        assertThat(writers)
                .as("the first to start set the new group to earliest; the others kept it")
                .anyMatch(w -> w.output().contains("share.auto.offset.reset was not set: set to earliest"));
    }

    /**
     * The write-then-kill duplicate case: the two to be killed start first and write through a proxy that stores every
     * import in VictoriaMetrics and answers 503, so they have written samples whose acknowledgement they never heard —
     * they hold (and renew) those records until kill -9. The records come to the four others once the locks expire and
     * are written again: the same samples twice, which VictoriaMetrics' deduplication leaves once. Exact read-back, each
     * record accepted once.
     */
    @Test
    void twoOfSixKilledAfterTheyWroteTheirRecordsComeAgainAndTheReadBackIsExact() throws Exception {
        List<SourcePoint> pts = pointsOf("share-kill");
        Fixture f = stack.realInput("share-kill", 2, pts);
        List<WriterProcess> writers = new ArrayList<>();
        List<Path> summaries = new ArrayList<>();
        List<FaultProxy> proxies = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                FaultProxy proxy = new FaultProxy(stack.vmUrl());
                proxy.mode(new FaultProxy.StoreThenStatus(503));
                proxies.add(proxy);
                summaries.add(stack.path("kill-" + i + ".json"));
                writers.add(writerTo(
                        proxy.url(),
                        f,
                        "kill-" + i,
                        true,
                        "--summary-json",
                        summaries.get(i).toString()));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!proxies.stream().allMatch(p -> p.faulted() > 0) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(proxies)
                    .as("both wrote samples VictoriaMetrics stored, and heard 503")
                    .allMatch(p -> p.faulted() > 0);
            for (int i = 2; i < 6; i++) {
                summaries.add(stack.path("kill-" + i + ".json"));
                writers.add(writer(
                        f, "kill-" + i, "--summary-json", summaries.get(i).toString()));
            }
            Thread.sleep(2000);
            writers.get(0).kill();
            writers.get(1).kill();
            assertExact("share-kill", pts);
        } finally {
            proxies.forEach(FaultProxy::close);
        }
        List<JsonNode> survivors = stopAll(writers.subList(2, 6), summaries.subList(2, 6));
        long redelivered = survivors.stream()
                .mapToLong(s -> s.get("share_redeliveries").asLong())
                .sum();
        long accepted = survivors.stream()
                .mapToLong(s -> s.get("share_accepted").asLong())
                .sum();
        System.err.printf(
                "ShareGroupIT: kill -9 of 2 of 6 after they wrote: %d record(s) delivered again to the survivors%n",
                redelivered);
        assertThat(redelivered).as("the killed members' records came again").isPositive();
        assertThat(accepted).as("the survivors accepted every record once").isEqualTo(f.records());
    }

    /**
     * A member paused (SIGSTOP) past its records' locks while it held them: they go to another member; resumed, it
     * forgets them instead of waiting for acknowledgements it can no longer give, and a SIGTERM stops it cleanly (exit
     * 0). The loop's survivors that kept such records exited 1 "stopped with writes unfinished" after waiting the whole
     * drain timeout.
     */
    @Test
    void aMemberPausedPastTheLockGivesItsRecordsUpAndStopsCleanly() throws Exception {
        List<SourcePoint> pts = pointsOf("share-pause");
        Fixture f = stack.realInput("share-pause", 2, pts);
        List<Path> summaries = List.of(stack.path("pause-0.json"), stack.path("pause-1.json"));
        List<WriterProcess> writers = new ArrayList<>();
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.StoreThenStatus(503)); // it writes, never hears so: it holds its records
            writers.add(writerTo(
                    proxy.url(),
                    f,
                    "pause-0",
                    true,
                    "--summary-json",
                    summaries.get(0).toString()));
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (proxy.faulted() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            signal("STOP", writers.get(0));
            try {
                writers.add(
                        writer(f, "pause-1", "--summary-json", summaries.get(1).toString()));
                Thread.sleep(15_000); // 2.5 locks of 6 s: its records go to pause-1
            } finally {
                signal("CONT", writers.get(0));
            }
            // resumed while its writes still fail: its next round renews the records it holds, and the broker refuses
            // (their locks ran out); then its writes succeed, and what it still held would never be acknowledged
            Thread.sleep(5000);
            proxy.mode(new FaultProxy.Pass());
            assertExact("share-pause", pts);
            Thread.sleep(3000); // the resumed member's next rounds
            long accepted = 0;
            for (JsonNode s : stopAll(writers, summaries)) {
                accepted += s.get("share_accepted").asLong();
            }
            // at least once: a resumed member was seen to count ACCEPTs of records the other member accepted too (50 of
            // 10,140 in 2 of 3 runs; the client reported no failure for them)
            assertThat(accepted).as("every record accepted").isGreaterThanOrEqualTo(f.records());
            assertThat(writers.get(0).output()).contains("they are the group's again");
        }
    }

    private static void signal(String name, WriterProcess w) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + name, Long.toString(w.pid()))
                        .inheritIO()
                        .start()
                        .waitFor())
                .isZero();
    }

    @Test
    void anOutageLongerThanTheLockRenewsHeldRecordsAndDeliversNoneTwice() throws Exception {
        List<SourcePoint> pts = pointsOf("share-outage");
        String topic = "share-outage";
        stack.createTopic(topic, 2);
        Fixture f = new Fixture(topic, "g-" + topic, pts.size());
        List<WriterProcess> writers = new ArrayList<>();
        List<Path> summaries = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            summaries.add(stack.path("outage-" + i + ".json"));
            writers.add(writer(
                    f, "outage-" + i, false, "--summary-json", summaries.get(i).toString()));
        }
        // both members in the group before the records arrive: no rebalance moves held records during the outage
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!writers.stream().allMatch(w -> w.output().contains("share consumer(s) on"))
                && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(5000);
        stack.vm().stop();
        try {
            stack.produce(topic, 2, pts, 1);
            Thread.sleep(15_000); // 2.5 record locks of 6 s
        } finally {
            stack.vm().restart();
        }
        assertExact("share-outage", pts);
        long accepted = 0;
        for (JsonNode s : stopAll(writers, summaries)) {
            assertThat(s.get("share_redeliveries").asLong())
                    .as("renewed, never expired: " + s + "\n" + writers.get(0).output() + "\n"
                            + writers.get(1).output())
                    .isZero();
            accepted += s.get("share_accepted").asLong();
        }
        assertThat(accepted).as("each record accepted once").isEqualTo(pts.size());
        assertThat(summaries.stream()
                        .mapToLong(p -> {
                            try {
                                return Scenario.summary(p).get("share_renewed").asLong();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        })
                        .sum())
                .as("records held through the outage were renewed")
                .isPositive();
    }

    @Test
    void malformedRecordsAreDeadLetteredAndAcceptedOrRejectedAndNeverComeAgain() throws Exception {
        String topic = "share-bad";
        stack.createTopic(topic, 2);
        stack.createTopic("share-dlq", 1);
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            values.add(
                    i % 5 == 0
                            ? ("not a point " + i).getBytes(StandardCharsets.UTF_8)
                            : PointRecords.encode(points.get(i)));
        }
        stack.produceRaw(topic, 2, values);
        for (boolean dlq : new boolean[] {true, false}) {
            Path summary = stack.path("bad-" + dlq + ".json");
            List<String> args = new ArrayList<>(List.of("--summary-json", summary.toString()));
            if (dlq) {
                args.addAll(List.of("--dead-letter-topic", "share-dlq"));
            }
            WriterProcess w = writer(new Fixture(topic, "g-bad-" + dlq, 20), "bad-" + dlq, args.toArray(String[]::new));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!w.output().contains("share group") && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            Thread.sleep(5000);
            w.sigterm();
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("decode_errors").asLong()).isEqualTo(4);
            assertThat(s.get("share_redeliveries").asLong()).isZero();
            if (dlq) {
                assertThat(s.get("share_accepted").asLong()).isEqualTo(20);
                assertThat(stack.endOffsets("share-dlq").values().stream()
                                .mapToLong(Long::longValue)
                                .sum())
                        .isEqualTo(4);
            } else {
                assertThat(s.get("share_accepted").asLong()).isEqualTo(16);
                assertThat(s.get("share_rejected").asLong()).isEqualTo(4);
            }
        }
    }

    @Test
    void aClusterWithShareGroupsDisabledIsOneLineAndExitOne() throws Exception {
        try (KafkaEndpoint off = stack.startKafka("share-off", KafkaOptions.features("share.version=0"))) {
            off.createTopic("t", 1);
            WriterProcess w = stack.writer(
                    "share-off",
                    Scenario.runArgs(
                            off.bootstrapServers(), stack.vmUrl(), "t", "g-off", 1, 1, 1, "--consumer-mode", "share"));
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
            assertThat(w.output())
                    .contains("has share groups disabled (share.version=")
                    .contains("Apache Kafka >= 4.2");
        }
    }

    @Test
    void aGroupIdThatIsAConsumerGroupIsOneLineAndExitOne() throws Exception {
        stack.createTopic("share-taken", 1);
        Properties p = new Properties();
        p.put("bootstrap.servers", stack.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.alterConsumerGroupOffsets(
                            "g-taken", Map.of(new TopicPartition("share-taken", 0), new OffsetAndMetadata(0)))
                    .all()
                    .get();
        }
        WriterProcess w = stack.writer(
                "share-taken", stack.runArgs("share-taken", "g-taken", 1, 1, 1, "--consumer-mode", "share"));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
        assertThat(w.output()).contains("--group-id g-taken is a classic consumer group on this cluster");
    }
}
