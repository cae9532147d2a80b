package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12, "a job is done only when the whole group's work is done": real writer processes killed with
 * {@code kill -9} at seeded random moments (some during the group join) under both group protocols, static
 * membership, a group of three {@code --stop-at-end} processes losing one member, and configuration mistakes
 * (missing topic, unreachable Kafka, VictoriaMetrics refusing credentials). One broker for the class, a fresh
 * VictoriaMetrics and topic per scenario; each ends with the exact read-back and committed == end offsets.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupMembershipIT {

    static final int PARTITIONS = 3;
    static final int M = 2;
    static final int N = 1;
    /**
     * Seeds per protocol of the repeated-kill scenario: two in the test command (each run is about 37 s of four kills
     * and a drain); {@code -Dit.killSeeds=11,23,37,…} runs more.
     */
    static final long[] SEEDS = Arrays.stream(
                    System.getProperty("it.killSeeds", "11,37").split(","))
            .mapToLong(s -> Long.parseLong(s.trim()))
            .toArray();

    /** One broker; the scenarios start their VictoriaMetrics, proxies and writers through it (stopped after each). */
    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    /** The first few real scrapes (small data, so each scenario stays short). */
    static List<SourcePoint> points;

    static final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    static void loadInput() throws Exception {
        List<SourcePoint> all = Scenario.realPoints();
        points = List.copyOf(all.subList(0, all.size() * 3 / 20)); // 3 of the 20 scrapes' worth of points
    }

    private record Fixture(String topic, String group, VmEndpoint vm) {}

    private Fixture fixture(String name) {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), PARTITIONS);
        stack.produce(topic, PARTITIONS, points, 1);
        return new Fixture(topic, "g-" + topic, stack.startVm("vm-" + topic));
    }

    /** A proxy that slows every write, so a run takes several seconds and kills land mid-work. */
    private FaultProxy slow(Fixture f, Duration delay) throws Exception {
        FaultProxy proxy = stack.own(new FaultProxy(f.vm().url()));
        proxy.mode(new FaultProxy.Delay(delay));
        return proxy;
    }

    private WriterProcess writer(Fixture f, String name, String vmUrl, String... more) {
        List<String> args = stack.runArgs(vmUrl, f.topic(), f.group(), M, N, 2, more);
        args.addAll(List.of(
                "--segment-size",
                "50",
                "--commit-interval",
                "500ms",
                "--batch-samples",
                "50",
                "--max-concurrent-writes",
                "1"));
        return stack.writer(name, args);
    }

    private void assertEverythingWrittenAndCommitted(Fixture f) throws Exception {
        Scenario.assertExactReadBack(f.vm().url(), Scenario.expected(points, M, N));
        assertThat(stack.committedOffsets(f.group(), f.topic())).isEqualTo(stack.endOffsets(f.topic()));
    }

    static Stream<Arguments> killSeeds() {
        List<Arguments> out = new ArrayList<>();
        for (String protocol : List.of("classic", "consumer")) {
            for (long seed : SEEDS) {
                out.add(Arguments.of(protocol, seed));
            }
        }
        return out.stream();
    }

    /**
     * The crash pattern of the issue: four kill -9 at seeded moments 1–6 s after each start (the writer's first log
     * line; several kills land while the process is still joining), then one --stop-at-end run, which must exit 0
     * only once the group committed every
     * partition at its end — the dead members still hold partitions until their sessions expire.
     */
    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("killSeeds")
    void repeatedKillsThenStopAtEndWriteEverySampleOnce(String protocol, long seed) throws Exception {
        Fixture f = fixture("kills-" + protocol);
        FaultProxy proxy = slow(f, Duration.ofMillis(100));
        String[] group = protocol.equals("classic")
                ? new String[] {
                    "--group-protocol",
                    "classic",
                    "--consumer-property",
                    "session.timeout.ms=6000",
                    "--consumer-property",
                    "heartbeat.interval.ms=1000"
                }
                : new String[] {"--group-protocol", "consumer"}; // session timeout is the broker's (6 s in KafkaBroker)
        Random random = new Random(seed);
        for (int i = 1; i <= 4; i++) {
            WriterProcess w = writer(f, "kills-" + protocol + "-" + seed + "-" + i, proxy.url(), group);
            // "start" = the JVM is up and the writer begins (its first log line): on a loaded machine the JVM alone can
            // take longer than 6 s, and a kill before the writer runs tests nothing
            awaitOutput(w, "tsdb-writer run:", Duration.ofSeconds(60));
            Thread.sleep(1000 + random.nextInt(5001));
            w.kill();
        }
        Map<TopicPartition, Long> before = stack.committedOffsets(f.group(), f.topic());
        List<String> finish = new ArrayList<>(List.of(group));
        finish.add("--stop-at-end");
        WriterProcess last =
                writer(f, "kills-" + protocol + "-" + seed + "-final", proxy.url(), finish.toArray(String[]::new));
        assertThat(last.waitFor(Scenario.PROCESS_TIMEOUT)).as(last.output()).isZero();
        assertThat(last.output())
                .contains("stop-at-end: the group's committed offset of every partition (3) reached its recorded end");
        System.out.printf(
                "kills %s seed %d: committed before the final run %s of %s; the final run waited for others %d time(s)%n",
                protocol,
                seed,
                before,
                stack.endOffsets(f.topic()),
                lines(last.output(), "waiting for").size());
        assertEverythingWrittenAndCommitted(f);
    }

    /**
     * Static membership: a process killed with kill -9 and restarted with the same --group-instance-id gets its
     * partitions back within seconds although session.timeout.ms is 45 s.
     */
    @Test
    void staticMemberRestartedAfterKillGetsItsPartitionsBackAtOnce() throws Exception {
        Fixture f = fixture("static");
        FaultProxy proxy = slow(f, Duration.ofMillis(100));
        String[] member = {"--group-instance-id", "writer-0", "--consumer-property", "session.timeout.ms=45000"};
        WriterProcess first = writer(f, "static-1", proxy.url(), member);
        awaitOutput(first, "assigned " + f.topic(), Duration.ofSeconds(60));
        awaitSomeCommitted(f, Duration.ofSeconds(60));
        first.kill();
        long t0 = System.nanoTime();
        List<String> again = new ArrayList<>(List.of(member));
        again.add("--stop-at-end");
        WriterProcess second = writer(f, "static-2", proxy.url(), again.toArray(String[]::new));
        awaitOutput(second, "assigned " + f.topic(), Duration.ofSeconds(40));
        Duration reassigned = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("static member: partitions back " + reassigned.toMillis()
                + " ms after the restart (JVM start included)");
        assertThat(reassigned)
                .as("partitions back after the restart with the same group.instance.id")
                .isLessThan(Duration.ofSeconds(20)); // a dynamic member waits out the 45 s session; idle machine: ~3 s
        assertThat(second.waitFor(Scenario.PROCESS_TIMEOUT)).as(second.output()).isZero();
        assertEverythingWrittenAndCommitted(f);
    }

    /**
     * Three --stop-at-end processes in one group (KIP-848 protocol, so paused partitions, commits and revocation
     * drains run under it), one killed midway: the other two take over its partitions and both exit 0 only once
     * every partition is committed at its end.
     */
    @Test
    void groupOfThreeWithStopAtEndLosingOneExitsOnlyWhenTheWholeTopicIsWritten() throws Exception {
        Fixture f = fixture("three");
        FaultProxy proxy = slow(f, Duration.ofMillis(100));
        String[] args = {"--group-protocol", "consumer", "--stop-at-end"};
        WriterProcess w1 = writer(f, "three-1", proxy.url(), args);
        WriterProcess w2 = writer(f, "three-2", proxy.url(), args);
        WriterProcess w3 = writer(f, "three-3", proxy.url(), args);
        try {
            awaitSomeCommitted(f, Duration.ofSeconds(120)); // three JVMs starting at once on a busy machine
        } catch (AssertionError e) {
            throw new AssertionError(
                    e.getMessage() + "\n--- three-1:\n" + w1.output() + "\n--- three-2:\n" + w2.output()
                            + "\n--- three-3:\n" + w3.output(),
                    e);
        }
        w1.kill();
        assertThat(w2.waitFor(Scenario.PROCESS_TIMEOUT)).as(w2.output()).isZero();
        Map<TopicPartition, Long> end = stack.endOffsets(f.topic());
        assertThat(stack.committedOffsets(f.group(), f.topic()))
                .as("committed when the first survivor exited")
                .isEqualTo(end);
        assertThat(w3.waitFor(Scenario.PROCESS_TIMEOUT)).as(w3.output()).isZero();
        assertEverythingWrittenAndCommitted(f);
    }

    @Test
    void missingTopicIsOneLineAndExitOneAndTheTopicIsNotCreated() throws Exception {
        String topic = "no-such-topic-" + names.incrementAndGet();
        List<String> args = stack.runArgs("http://127.0.0.1:9", topic, "g-" + topic, M, N, 1, "--stop-at-end");
        WriterProcess w = stack.writer("missing-topic", args);
        assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(1);
        assertThat(w.output()).contains("topic '" + topic + "' does not exist").doesNotContain("Exception", "\tat ");
        try (Admin admin = Admin.create(stack.kafka().adminProperties())) {
            assertThat(admin.listTopics().names().get()).doesNotContain(topic);
        }
    }

    /** {@code produce} to a topic the brokers will not create: one line at once, not Kafka's 60 s metadata timeout. */
    @Test
    void produceToAMissingTopicIsOneLineAndExitOneBeforeAnySend() throws Exception {
        String topic = "no-such-produce-topic-" + names.incrementAndGet();
        long start = System.nanoTime();
        WriterProcess p = stack.writer(
                "produce-missing-topic",
                List.of(
                        "produce",
                        "--bootstrap-servers",
                        stack.bootstrapServers(),
                        "--topic",
                        topic,
                        "--instance",
                        "node-0001"));
        assertThat(p.waitFor(Duration.ofSeconds(60))).as(p.output()).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("well inside max.block.ms")
                .isLessThan(Duration.ofSeconds(40));
        assertThat(p.output())
                .contains("produce: topic '" + topic + "' does not exist and the brokers do not create topics"
                        + " (auto.create.topics.enable=false): create it, e.g. kafka-topics.sh --bootstrap-server "
                        + stack.bootstrapServers()
                        + " --create --topic " + topic)
                .doesNotContain("Exception", "\tat ", "records sent");
        try (Admin admin = Admin.create(stack.kafka().adminProperties())) {
            assertThat(admin.listTopics().names().get()).doesNotContain(topic);
        }
    }

    @Test
    void unreachableBootstrapIsOneLineNotReadyAndWithStopAtEndExitOneAfterTheKafkaTimeout() throws Exception {
        String servers;
        try (FreePorts.Reservation nothing = FreePorts.reserve()) {
            servers = "127.0.0.1:" + nothing.port();
        }
        int metricsPort = FreePorts.pick();
        List<String> base = List.of(
                "run",
                "--bootstrap-servers",
                servers,
                "--topic",
                "t",
                "--group-id",
                "g",
                "--vm-url",
                "http://127.0.0.1:9",
                "--report-interval",
                "5s");
        // without --stop-at-end: keeps retrying, not ready
        List<String> service = new ArrayList<>(base);
        service.addAll(List.of("--metrics-port", Integer.toString(metricsPort), "--metrics-address", "127.0.0.1"));
        WriterProcess w = stack.writer("unreachable-service", service);
        awaitOutput(w, "unreachable", Duration.ofSeconds(30));
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> ready = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/health/ready"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(503);
        Thread.sleep(4000);
        assertThat(w.isAlive()).isTrue();
        assertThat(lines(w.output(), servers)).as(w.output()).hasSize(1);
        w.sigterm();
        w.waitFor(Duration.ofSeconds(30));

        // with --stop-at-end: exit 1 within --kafka-timeout (plus start and one attempt)
        List<String> job = new ArrayList<>(base);
        job.addAll(List.of("--metrics-port", "-1", "--stop-at-end", "--kafka-timeout", "5s"));
        long t0 = System.nanoTime();
        WriterProcess j = stack.writer("unreachable-job", job);
        assertThat(j.waitFor(Duration.ofSeconds(40))).as(j.output()).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(25));
        List<String> named = lines(j.output(), servers);
        assertThat(named).as(j.output()).hasSize(2); // "unreachable … retrying" once, then "giving up"
        assertThat(named.get(1)).contains("unreachable for 5s (--kafka-timeout)");
        assertThat(j.output()).doesNotContain("NetworkClient", "\tat ");
    }

    /**
     * VictoriaMetrics with basic auth the writer lacks answers 401: a configuration fault — one clear line naming the
     * endpoint, status and likely cause, counted by status and class, not ready, the data kept (nothing committed),
     * the partitions holding and probing.
     */
    @Test
    void victoriaMetricsAnswering401IsACredentialsLineAndNothingIsCommitted() throws Exception {
        String topic = "auth-" + names.incrementAndGet();
        stack.createTopic(topic, PARTITIONS);
        stack.produce(topic, PARTITIONS, points, 1);
        VmEndpoint vm = stack.startVm("vm-auth", "-httpAuth.username=writer", "-httpAuth.password=s3cret");
        int metricsPort = FreePorts.pick();
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--bootstrap-servers",
                stack.bootstrapServers(),
                "--topic",
                topic,
                "--group-id",
                "g-" + topic,
                "--vm-url",
                vm.url(),
                "--metrics-port",
                Integer.toString(metricsPort),
                "--metrics-address",
                "127.0.0.1",
                "--max-retries",
                "1",
                "--max-backoff",
                "500ms",
                "--drain-timeout",
                "2s",
                "--stop-at-end",
                "--report-interval",
                "5s"));
        WriterProcess w = stack.writer("auth", args);
        awaitOutput(w, "answered 401: a configuration fault, not the data - credentials?", Duration.ofSeconds(60));
        assertThat(w.output()).contains(vm.url() + "/api/v1/import");
        Thread.sleep(3000);
        assertThat(w.isAlive()).as(w.output()).isTrue();
        assertThat(lines(w.output(), "answered 401")).hasSize(1); // at most once a minute
        String metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics).containsPattern("tsdbwriter_write_requests_total\\{[^}]*status=\"401\"[^}]*\\} [1-9]");
        assertThat(metrics).containsPattern("tsdbwriter_write_faults_total\\{[^}]*class=\"4xx\"[^}]*\\} [1-9]");
        assertThat(HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/health/ready"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .as("not ready while the endpoint refuses the credentials")
                .isNotEqualTo(200);
        w.sigterm();
        // a --stop-at-end job stopped by a signal before its end
        assertThat(w.waitFor(Duration.ofSeconds(60))).as(w.output()).isEqualTo(4);
        assertThat(stack.committedOffsets("g-" + topic, topic).values()).allMatch(o -> o == 0L);
    }

    private void awaitSomeCommitted(Fixture f, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, Long> c = stack.committedOffsets(f.group(), f.topic());
            if (c.values().stream().mapToLong(Long::longValue).sum() > 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("nothing committed within " + timeout);
    }

    private static void awaitOutput(WriterProcess w, String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!w.output().contains(text)) {
            if (System.nanoTime() > deadline || !w.isAlive() && !w.output().contains(text)) {
                throw new AssertionError(
                        "no '" + text + "' in the output" + (w.isAlive() ? "" : " (exited)") + ":\n" + w.output());
            }
            Thread.sleep(50);
        }
    }

    private static List<String> lines(String output, String containing) {
        return output.lines().filter(l -> l.contains(containing)).toList();
    }
}
