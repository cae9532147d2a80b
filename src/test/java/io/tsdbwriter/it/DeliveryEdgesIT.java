package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.ChildServer;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.VerificationResult;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The edges where a writer loses data or lies (issue 23, DESIGN §5 and §6), each as an operator meets it, with real
 * processes — a Kafka broker, VictoriaMetrics, Prometheus, vmauth, the writer jar: a wrong {@code --vm-url} prefix, a
 * remote write receiver that is not enabled, an unknown token behind vmauth and a redirecting endpoint each hold the
 * data (nothing stored, nothing committed, exit 1 after {@code --write-fault-timeout}) until the configuration is
 * right, then the exact read-back; SIGTERM before the end exits 4 naming the partitions left short; records deleted
 * below a stopped group's committed offset are skipped and reported, never a hang; refused samples without a
 * dead-letter topic exit 3.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DeliveryEdgesIT {

    static final int PARTITIONS = 3;

    /** One broker; a fresh VictoriaMetrics per scenario, so each reads back only its own samples. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVmPerTest();

    static List<SourcePoint> points;
    static final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    private Fixture realInput(String name) {
        return stack.realInput(name, PARTITIONS, points);
    }

    private WriterProcess writer(Fixture f, String name, String vmUrl, int m, String... more) {
        List<String> args = stack.runArgs(vmUrl, f.topic(), f.group(), m, 1, 3, more);
        args.addAll(List.of("--segment-size", "300", "--commit-interval", "500ms"));
        return stack.writer(name, args);
    }

    /** A job against a misconfigured endpoint: holds the data, says why, exits 1 after the fault timeout, commits nothing. */
    private WriterProcess assertHeldThenExit1(Fixture f, String name, String url, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--stop-at-end",
                "--write-fault-timeout",
                "3s",
                "--max-backoff",
                "500ms",
                "--summary-json",
                stack.path(name + ".json").toString()));
        args.addAll(List.of(more));
        WriterProcess w = writer(f, name, url, 1, args.toArray(String[]::new));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
        assertThat(stack.committedOffsets(f.group(), f.topic()).values())
                .as("nothing committed past unwritten data")
                .allMatch(o -> o == 0L);
        JsonNode s = Scenario.summary(stack.path(name + ".json"));
        assertThat(s.get("exit_code").asInt()).isEqualTo(1);
        assertThat(s.get("samples_written").asLong()).isZero();
        assertThat(s.get("samples_refused").asLong())
                .as("a configuration fault is not a data refusal")
                .isZero();
        return w;
    }

    private void assertNothingStored() {
        stack.vm().forceFlush();
        assertThat(stack.vm().export("{productKey=\"node\"}"))
                .as("nothing reached VictoriaMetrics")
                .isEmpty();
    }

    private void finishExactly(Fixture f, String name, String url, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--stop-at-end"));
        args.addAll(List.of(more));
        WriterProcess w = writer(f, name, url, 1, args.toArray(String[]::new));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        stack.assertExactReadBack(Scenario.expected(points, 1, 1));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void aWrongVmUrlPrefixHoldsEveryRecordThenTheRightOneWritesThemAll() throws Exception {
        Fixture f = realInput("prefix");
        WriterProcess w = assertHeldThenExit1(f, "prefix-wrong", stack.vmUrl() + "/wrong/prefix");
        assertThat(w.output())
                .contains(
                        "/wrong/prefix/api/v1/import answered 400: a configuration fault, not the data - wrong path prefix?")
                .contains("--write-fault-timeout");
        assertNothingStored();
        finishExactly(f, "prefix-right", stack.vmUrl());
    }

    @Test
    void aRedirectIsNeverFollowedTheLineNamesTheLocationAndTheTargetGetsEverythingOnceItIsUsed() throws Exception {
        Fixture f = realInput("redirect");
        HttpServer redirecting = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        AtomicInteger gets = new AtomicInteger();
        redirecting.createContext("/", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                if (ex.getRequestMethod().equals("GET")
                        && !ex.getRequestURI().getPath().equals("/metrics")) { // the capacity probe GETs /metrics
                    gets.incrementAndGet();
                }
                ex.getResponseHeaders()
                        .set("Location", stack.vmUrl() + ex.getRequestURI().getPath());
                ex.sendResponseHeaders(301, -1);
            }
        });
        redirecting.start();
        try {
            WriterProcess w = assertHeldThenExit1(
                    f,
                    "redirect",
                    "http://127.0.0.1:" + redirecting.getAddress().getPort());
            assertThat(w.output())
                    .contains("answered 301: a configuration fault, not the data - redirect to " + stack.vmUrl()
                            + "/api/v1/import");
            assertThat(gets.get()).as("no redirect followed as a GET").isZero();
        } finally {
            redirecting.stop(0);
        }
        assertNothingStored();
        finishExactly(f, "redirect-target", stack.vmUrl());
    }

    @Test
    void anUnknownTokenBehindVmauthHoldsTheDataThenTheRightTokenWritesItAll() throws Exception {
        Fixture f = realInput("token");
        Path authConfig = stack.path("vmauth-token.yml");
        Files.writeString(
                authConfig, "users:\n- bearer_token: \"right-token\"\n  url_prefix: \"" + stack.vmUrl() + "\"\n");
        Path token = stack.path("token");
        try (ChildServer vmauth = stack.own(ChildServer.start(
                ChildServer.VMAUTH,
                stack.path("vmauth"),
                "vmauth",
                false,
                new OkHttpClient(),
                port -> List.of("-auth.config=" + authConfig)))) {
            Files.writeString(token, "wrong-token\n");
            WriterProcess w =
                    assertHeldThenExit1(f, "token-wrong", vmauth.url(), "--vm-bearer-token-file", token.toString());
            // vmauth 1.79 answers an unknown token with 400, current releases with 401: a configuration fault either
            // way
            assertThat(w.output())
                    .containsAnyOf("answered 400: a configuration fault", "answered 401: a configuration fault")
                    .as("vmauth echoes the token it refused: never printed")
                    .doesNotContain("wrong-token");
            assertNothingStored();
            Files.writeString(token, "right-token\n");
            finishExactly(f, "token-right", vmauth.url(), "--vm-bearer-token-file", token.toString());
        }
    }

    @Test
    void aRemoteWriteReceiverNotEnabledHoldsTheDataThenTheEnabledOneGetsItAll() throws Exception {
        Fixture f = realInput("receiver");
        try (PrometheusEndpoint off =
                stack.startPrometheus("prom-off", PrometheusVersion.DEBIAN, Duration.ofDays(30), false)) {
            WriterProcess w = assertHeldThenExit1(
                    f,
                    "receiver-off",
                    stack.vmUrl(),
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    off.remoteWriteUrl());
            assertThat(w.output())
                    .contains(off.remoteWriteUrl()
                            + " answered 404: a configuration fault, not the data - receiver not enabled?");
        }
        try (PrometheusEndpoint on = stack.startPrometheus("prom-on")) {
            WriterProcess w = writer(
                    f,
                    "receiver-on",
                    stack.vmUrl(),
                    1,
                    "--stop-at-end",
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    on.remoteWriteUrl());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            VerificationResult r =
                    on.readBackWithin("{productKey=\"node\"}", Scenario.expected(points, 1, 1), Duration.ofSeconds(20));
            assertThat(r.passed()).as(r.summary()).isTrue();
            assertThat(r.foundSamples()).isEqualTo(points.size());
            stack.assertCommittedAtEnd(f);
        }
    }

    @Test
    void sigtermBeforeTheEndExits4AndTheSummaryNamesThePartitionsLeftShort() throws Exception {
        Fixture f = realInput("sigterm");
        Path summary = stack.path("sigterm.json");
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            slow.mode(new FaultProxy.Delay(Duration.ofMillis(50)));
            WriterProcess w = writer(
                    f,
                    "sigterm",
                    slow.url(),
                    12,
                    "--stop-at-end",
                    "--batch-samples",
                    "600",
                    "--max-concurrent-writes",
                    "2",
                    "--summary-json",
                    summary.toString());
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (stack.committedOffsets(f.group(), f.topic()).values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()
                            == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            w.sigterm();
            assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(4);
        }
        Map<TopicPartition, Long> committed = stack.committedOffsets(f.group(), f.topic());
        Map<TopicPartition, Long> ends = stack.endOffsets(f.topic());
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("exit_code").asInt()).isEqualTo(4);
        Map<TopicPartition, Long> reported = new HashMap<>();
        for (JsonNode p : s.get("partitions_short")) {
            TopicPartition tp = new TopicPartition(
                    p.get("topic").asText(), p.get("partition").asInt());
            long c = p.get("committed").asLong();
            assertThat(c).isEqualTo(committed.getOrDefault(tp, -1L));
            assertThat(p.get("end").asLong()).isEqualTo(ends.get(tp));
            assertThat(p.get("records_short").asLong()).isEqualTo(ends.get(tp) - Math.max(0, c));
            reported.put(tp, c);
        }
        Map<TopicPartition, Long> shortNow = new HashMap<>();
        ends.forEach((tp, end) -> {
            if (committed.getOrDefault(tp, -1L) < end) {
                shortNow.put(tp, committed.getOrDefault(tp, -1L));
            }
        });
        assertThat(reported)
                .as("every partition short, and only those")
                .isEqualTo(shortNow)
                .isNotEmpty();
        WriterProcess finish = writer(f, "sigterm-finish", stack.vmUrl(), 12, "--stop-at-end");
        assertThat(finish.waitFor(Scenario.PROCESS_TIMEOUT)).as(finish.output()).isZero();
        stack.assertExactReadBack(Scenario.expected(points, 12, 1));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void sigtermBeforeKafkaEverAnsweredExits4() throws Exception {
        int deadPort;
        try (FreePorts.Reservation r = FreePorts.reserve()) {
            deadPort = r.port();
        }
        List<String> args = Scenario.runArgs(
                "127.0.0.1:" + deadPort, stack.vmUrl(), "nowhere", "g-nowhere", 1, 1, 1, "--stop-at-end");
        WriterProcess w = stack.writer("no-kafka", args);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!w.output().contains("tsdb-writer run:") && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        w.sigterm();
        assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(4);
        assertThat(w.output()).contains("exit 4: stopped by a signal before the end");
    }

    @Test
    void recordsDeletedBelowAStoppedGroupsCommittedOffsetAreSkippedReportedAndTheRestWrittenExactly() throws Exception {
        Fixture f = realInput("deleted");
        long committedAt = 1000;
        long deletedBelow = 1500;
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            commit.put(new TopicPartition(f.topic(), p), new OffsetAndMetadata(committedAt));
            delete.put(new TopicPartition(f.topic(), p), RecordsToDelete.beforeOffset(deletedBelow));
        }
        try (Admin admin = Admin.create(stack.kafka().adminProperties())) {
            admin.alterConsumerGroupOffsets(f.group(), commit).all().get(); // the group stopped at 1000
            admin.deleteRecords(delete).all().get(); // retention removed everything below 1500
        }
        Path summary = stack.path("deleted.json");
        WriterProcess w = writer(f, "deleted", stack.vmUrl(), 2, "--stop-at-end", "--summary-json", summary.toString());
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(w.output())
                    .contains(f.topic() + "-" + p + ": offsets 1000 to 1500 were deleted (retention or deleteRecords) "
                            + "before they were written: skipping 500 record(s)");
        }
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records_skipped").asLong()).isEqualTo(PARTITIONS * (deletedBelow - committedAt));
        List<String> ranges = new ArrayList<>();
        s.get("skipped_ranges")
                .forEach(r -> ranges.add(r.get("topic").asText() + "-"
                        + r.get("partition").asInt() + " " + r.get("from").asLong() + ".."
                        + r.get("to").asLong() + " " + r.get("reason").asText()));
        assertThat(ranges)
                .containsExactlyInAnyOrder(
                        f.topic() + "-0 1000..1500 deleted",
                        f.topic() + "-1 1000..1500 deleted",
                        f.topic() + "-2 1000..1500 deleted");
        // record i went to partition i % 3 at offset i / 3: what is left is every record from offset 1500 on
        List<SourcePoint> left = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            if (i / PARTITIONS >= deletedBelow) {
                left.add(points.get(i));
            }
        }
        assertThat(s.get("records").asLong()).isEqualTo(left.size());
        stack.assertExactReadBack(Scenario.expected(left, 2, 1));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void samplesRefusedWithoutADeadLetterTopicExit3AndTheSummaryListsThemByReason() throws Exception {
        String topic = "refused-" + names.incrementAndGet();
        stack.createTopic(topic, PARTITIONS);
        List<byte[]> values = new ArrayList<>();
        int poisoned = 0;
        for (int i = 0; i < points.size(); i++) {
            values.add(PointRecords.encode(points.get(i)));
            if (i % 3000 == 1500) {
                values.add(("{\"metric\":\"poisoned_metric\",\"timestamp\":1795300857000,\"value\":" + i
                                + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"marker\":\"poison\"}}")
                        .getBytes(StandardCharsets.UTF_8));
                poisoned++;
            }
        }
        stack.produceRaw(topic, PARTITIONS, values);
        Fixture f = new Fixture(topic, "g-" + topic, values.size());
        Path summary = stack.path("refused.json");
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.RejectContaining("\"poison\""));
            WriterProcess w =
                    writer(f, "refused", proxy.url(), 1, "--stop-at-end", "--summary-json", summary.toString());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(3);
            assertThat(w.output())
                    .contains("exit 3: done, but " + poisoned
                            + " sample(s) were refused by the receiver and not dead-lettered");
        }
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("exit_code").asInt()).isEqualTo(3);
        assertThat(s.get("samples_refused").asLong()).isEqualTo(poisoned);
        assertThat(s.get("samples_refused_by_reason")
                        .get("400 cannot parse: injected rejection")
                        .asLong())
                .isEqualTo(poisoned);
        stack.assertExactReadBack(Scenario.expected(points, 1, 1));
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void releasingManyPartitionsWhileTheTargetIsDownIsBoundedByTheDrainTimeoutInTotal() throws Exception {
        String topic = "many-" + names.incrementAndGet();
        int partitions = 8;
        stack.createTopic(topic, partitions);
        stack.produce(topic, partitions, points, 1);
        stack.vm().stop(); // every write held (a refused connection), every permit taken, the readers blocked handing
        // batches over
        List<String> args = stack.runArgs(
                topic,
                "g-" + topic,
                1,
                1,
                2,
                "--segment-size",
                "300",
                "--batch-samples",
                "100",
                "--drain-timeout",
                "3s",
                "--max-backoff",
                "500ms");
        WriterProcess w = stack.writer("many", args);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!w.output().contains("a configuration fault, not the data - connection refused")
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(w.output())
                .contains("a configuration fault, not the data - connection refused")
                .contains("assigned " + topic + "-7");
        long t0 = System.nanoTime();
        w.sigterm();
        assertThat(w.waitFor(Duration.ofSeconds(60)))
                .as(w.output())
                .isEqualTo(1); // a service stopped with writes unfinished
        // one bound for all 8 partitions: the drain timeout, plus a second to interrupt readers and the report;
        // released one after another it took ~11 s per partition
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as(w.output()).isLessThan(Duration.ofSeconds(15));
        assertThat(stack.committedOffsets("g-" + topic, topic).values()).allMatch(o -> o == 0L);
    }

    @Test
    void aPlainRelayOfPointsWithoutAnInstanceLabelIsAPlainCopy() throws Exception {
        List<SourcePoint> bare = points.stream()
                .map(p -> {
                    Map<String, String> labels = new HashMap<>(p.labels());
                    labels.remove(SourcePoint.INSTANCE_LABEL);
                    return new SourcePoint(p.metric(), labels, p.productKey(), p.timestampMs(), p.value());
                })
                .toList();
        Fixture f = stack.realInput("bare", PARTITIONS, bare);
        WriterProcess w = writer(f, "bare", stack.vmUrl(), 1, "--stop-at-end");
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        // exact: the same series and samples, no series with an instanceNo the writer added
        stack.assertExactReadBack(Scenario.expected(bare, 1, 1));
        stack.vm().forceFlush();
        assertThat(stack.vm().export("{instanceNo=~\".+\"}"))
                .as("no instance label added at M = N = 1")
                .isEmpty();
        stack.assertCommittedAtEnd(f);
    }

    @Test
    void microAndNanosecondTimestampsInJsonAndInfluxRecordsAreMalformedAndDeadLetteredTheRestWrittenExactly()
            throws Exception {
        // influx lines of real points whose label values need no escaping; the field "v" makes the metric <name>_v
        List<SourcePoint> good = points.stream()
                .filter(p -> p.labels().values().stream().allMatch(v -> v.matches("[A-Za-z0-9_.:/-]+")))
                .limit(600)
                .toList();
        List<byte[]> json = new ArrayList<>();
        List<byte[]> influx = new ArrayList<>();
        List<SourcePoint> influxExpected = new ArrayList<>();
        List<byte[]> bad = new ArrayList<>();
        for (int i = 0; i < good.size(); i++) {
            SourcePoint p = good.get(i);
            json.add(PointRecords.encode(p));
            StringBuilder line = new StringBuilder(p.metric());
            new TreeMap<>(p.labels())
                    .forEach((k, v) -> line.append(',').append(k).append('=').append(v));
            influx.add((line + " v=" + p.value() + " " + p.timestampMs()).getBytes(StandardCharsets.UTF_8));
            influxExpected.add(new SourcePoint(p.metric() + "_v", p.labels(), null, p.timestampMs(), p.value()));
            if (i % 200 == 100) {
                for (long factor : new long[] {1000L, 1_000_000L}) { // µs and ns sent as ms
                    byte[] j = PointRecords.encode(new SourcePoint(
                            p.metric(), p.labels(), p.productKey(), p.timestampMs() * factor, p.value()));
                    byte[] l = (line + " v=" + p.value() + " " + p.timestampMs() * factor)
                            .getBytes(StandardCharsets.UTF_8);
                    json.add(j);
                    influx.add(l);
                    bad.add(j);
                    bad.add(l);
                }
            }
        }
        int badPerTopic = bad.size() / 2;
        List<byte[]> deadLettered = new ArrayList<>();
        for (String format : List.of("json", "influx")) {
            String topic = "implausible-" + format + "-" + names.incrementAndGet();
            String dlq = topic + "-dlq";
            stack.createTopic(topic, PARTITIONS);
            stack.createTopic(dlq, 1);
            List<byte[]> values = format.equals("json") ? json : influx;
            stack.produceRaw(topic, PARTITIONS, values);
            Fixture f = new Fixture(topic, "g-" + topic, values.size());
            Path summary = stack.path(topic + ".json");
            WriterProcess w = writer(
                    f,
                    topic,
                    stack.vmUrl(),
                    1,
                    "--stop-at-end",
                    "--input-format",
                    format,
                    "--influx-precision",
                    "ms",
                    "--dead-letter-topic",
                    dlq,
                    "--summary-json",
                    summary.toString());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            JsonNode sum = Scenario.summary(summary);
            assertThat(sum.get("decode_errors").asLong()).as(format).isEqualTo(badPerTopic);
            assertThat(sum.get("samples_written").asLong()).as(format).isEqualTo(good.size());
            assertThat(w.output()).contains("implausible_timestamp");
            List<ConsumerRecord<byte[], byte[]>> dead = Scenario.readAll(stack.bootstrapServers(), dlq, badPerTopic);
            assertThat(dead).as(format).hasSize(badPerTopic).allSatisfy(r -> assertThat(new String(
                            r.headers().lastHeader("tsdbwriter.reason").value(), StandardCharsets.UTF_8))
                    .isEqualTo("implausible_timestamp"));
            dead.forEach(r -> deadLettered.add(r.value()));
            stack.assertCommittedAtEnd(f);
        }
        assertThat(deadLettered.stream()
                        .map(b -> new String(b, StandardCharsets.UTF_8))
                        .sorted()
                        .toList())
                .isEqualTo(bad.stream()
                        .map(b -> new String(b, StandardCharsets.UTF_8))
                        .sorted()
                        .toList());
        List<SourcePoint> all = new ArrayList<>(good);
        all.addAll(influxExpected);
        stack.assertExactReadBack(Scenario.expected(all, 1, 1));
    }

    @Test
    void aTakenMetricsPortIsOneLineAndExit1AndAnAddressNotOfThisHostExit2() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<String> args = new ArrayList<>(List.of(
                    "run",
                    "--bootstrap-servers",
                    stack.bootstrapServers(),
                    "--topic",
                    "t",
                    "--vm-url",
                    stack.vmUrl(),
                    "--metrics-address",
                    "127.0.0.1",
                    "--metrics-port",
                    Integer.toString(taken.getLocalPort())));
            WriterProcess w = stack.writer("port-taken", args);
            assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(1);
            assertThat(w.output())
                    .contains("--metrics-port " + taken.getLocalPort() + " on --metrics-address 127.0.0.1: ")
                    .contains("another process holds it")
                    .doesNotContain("\tat ");
        }
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--bootstrap-servers",
                stack.bootstrapServers(),
                "--topic",
                "t",
                "--vm-url",
                stack.vmUrl(),
                "--metrics-address",
                "no-such-host.invalid",
                "--metrics-port",
                "0"));
        WriterProcess w = stack.writer("bad-address", args);
        assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(2);
        assertThat(w.output())
                .contains("--metrics-address no-such-host.invalid cannot be bound")
                .doesNotContain("\tat ");
    }
}
