package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 42, "permits add up across processes": three writer processes with {@code --max-concurrent-writes auto} (the
 * default) in one consumer group drain one backlog into one VictoriaMetrics started with
 * {@code -maxConcurrentInserts=4}. Each process takes its share of the target's {@code vm_concurrent_insert_capacity}
 * (its partitions of the topic's), so VictoriaMetrics never has to queue a request: its own counter of requests that
 * found the insert limit reached ({@code vm_concurrent_insert_limit_reached_total}, exact, kept by VictoriaMetrics) stays
 * 0, and the writers' permit gauges, sampled every 20 ms, never add up to more than the limit. Everything is written
 * exactly once (read back) and committed. The same with {@code --consumer-mode share}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@RunsAlone
class PermitSharingIT {

    /** {@code -maxConcurrentInserts} of the VictoriaMetrics under test. */
    static final int LIMIT = 4;
    /** 4 partitions over 3 members: 2, 1, 1, so the shares are 2, 1, 1 permits, adding up to exactly the limit. */
    static final int PARTITIONS = 4;

    static final int WRITERS = 3;
    static final int M = 10;
    static final int N = 2;

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    /** Under both group protocols: their rebalances hand partitions over differently (eager rounds vs the broker's). */
    @ParameterizedTest(name = "--group-protocol {0}")
    @ValueSource(strings = {"classic", "consumer"})
    void threeAutoWritersTogetherNeverExceedTheTargetsInsertLimit(String protocol) throws Exception {
        VmEndpoint vm = stack.startVm("vm-limit-" + protocol, "-maxConcurrentInserts=" + LIMIT);
        String topic = stack.createTopic("permits-" + protocol, PARTITIONS);
        String group = "g-" + topic;
        Writers writers = startWriters(vm, topic, group, "segments", "--group-protocol", protocol);
        awaitGroupSettled(group, writers.processes);
        for (WriterProcess w : writers.processes) { // each one line per change, naming its share
            awaitOutput(w, "of " + PARTITIONS + " partitions)");
        }

        // every writer holds its partitions of the empty topic: the backlog arrives for all three at once
        Sampler sampler = writers.sample(vm);
        stack.produce(topic, PARTITIONS, points, 1);
        awaitCommittedAtEnd(group, topic, writers.processes);
        assertNoQueueInsideTheTarget(vm, writers, sampler);
        Scenario.assertExactReadBack(vm.url(), Scenario.expected(points, M, N));
    }

    /**
     * {@code --consumer-mode share}: each process takes its share consumers of the share group's members (1 of 3 here,
     * read every 5 s), so three processes hold 3 of the 4 insert slots once the group's members are known to all.
     */
    @Test
    void threeAutoShareGroupWritersTogetherNeverExceedTheTargetsInsertLimit() throws Exception {
        VmEndpoint vm = stack.startVm("vm-share-limit", "-maxConcurrentInserts=" + LIMIT);
        String topic = stack.createTopic("permits-share", PARTITIONS);
        Writers writers = startWriters(vm, topic, "share-" + topic, "share", "--drain-timeout", "20s");
        for (WriterProcess w : writers.processes) {
            awaitOutput(w, "this process's share: 1 of " + WRITERS + " share consumers");
        }

        Sampler sampler = writers.sample(vm);
        stack.produce(topic, PARTITIONS, points, 1);
        Scenario.assertExactReadBackWithin(vm.url(), Scenario.expected(points, M, N), Duration.ofMinutes(3));
        assertNoQueueInsideTheTarget(vm, writers, sampler);
    }

    private record Writers(List<WriterProcess> processes, List<Integer> ports) {
        Sampler sample(VmEndpoint vm) {
            Sampler sampler = new Sampler(vm.url(), ports);
            sampler.thread = Thread.ofPlatform().name("permit-sampler").start(sampler);
            return sampler;
        }
    }

    /** Three writers with automatic permits (the default), each with its /metrics on a port of its own. */
    private static Writers startWriters(
            VmEndpoint vm, String topic, String group, String consumerMode, String... more) {
        List<WriterProcess> writers = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            int port = FreePorts.pick();
            ports.add(port);
            List<String> args = new ArrayList<>(List.of(
                    "run",
                    "--bootstrap-servers",
                    stack.bootstrapServers(),
                    "--topic",
                    topic,
                    "--group-id",
                    group,
                    "--vm-url",
                    vm.url(),
                    "--time-multiplier",
                    Integer.toString(M),
                    "--instance-multiplier",
                    Integer.toString(N),
                    "--batch-samples",
                    "500",
                    "--report-interval",
                    "5s",
                    "--metrics-address",
                    "127.0.0.1",
                    "--metrics-port",
                    Integer.toString(port),
                    "--consumer-mode",
                    consumerMode));
            args.addAll(
                    consumerMode.equals("share")
                            ? List.of("--parallelism", "1")
                            : List.of("--parallelism", "2", "--segment-size", "500", "--commit-interval", "500ms"));
            args.addAll(List.of(more));
            writers.add(stack.writer(group + "-" + i, args));
        }
        return new Writers(writers, ports);
    }

    /**
     * Stops the sampling and the writers, then: VictoriaMetrics' own count of requests that found its insert limit
     * reached is 0, and the writers' permits never added up to more than the limit.
     */
    private static void assertNoQueueInsideTheTarget(VmEndpoint vm, Writers writers, Sampler sampler) throws Exception {
        sampler.stop.set(true);
        sampler.thread.join();
        for (WriterProcess w : writers.processes) {
            w.sigterm();
        }
        for (WriterProcess w : writers.processes) {
            w.waitFor(Duration.ofSeconds(60));
        }
        double limitReached = metric(vm.url() + "/metrics", "vm_concurrent_insert_limit_reached_total");
        double requests = sum(get(vm.url() + "/metrics"), "vm_http_requests_total{path=\"/api/v1/import\", ");
        System.out.printf(
                "permits: %d samples; writers' permits summed at most %d capacity, %d in use; VictoriaMetrics "
                        + "inserts at most %d of %d; %.0f of %.0f import requests found the insert limit reached%n",
                sampler.samples.get(),
                sampler.maxCapacity.get(),
                sampler.maxInUse.get(),
                sampler.maxInserts.get(),
                LIMIT,
                limitReached,
                requests);
        assertThat(sampler.samples.get()).isPositive();
        assertThat(limitReached)
                .as("import requests that queued inside VictoriaMetrics (its insert limit reached), of %.0f", requests)
                .isZero();
        assertThat(sampler.maxCapacity.get())
                .as("the writers' write permits, summed")
                .isBetween(1, LIMIT);
        assertThat(sampler.maxInUse.get())
                .as("the writers' permits in use, summed")
                .isBetween(1, LIMIT);
    }

    private static void awaitOutput(WriterProcess w, String text) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!w.output().contains(text)) {
            if (System.nanoTime() > deadline || !w.isAlive()) {
                throw new AssertionError(
                        "no '" + text + "' in the output" + (w.isAlive() ? "" : " (exited)") + ":\n" + w.output());
            }
            Thread.sleep(100);
        }
    }

    /** Samples every 20 ms: the writers' permit gauges summed, and VictoriaMetrics' inserts in progress. */
    private static final class Sampler implements Runnable {
        final String vmUrl;
        final List<Integer> ports;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger samples = new AtomicInteger();
        final AtomicInteger maxCapacity = new AtomicInteger();
        final AtomicInteger maxInUse = new AtomicInteger();
        final AtomicInteger maxInserts = new AtomicInteger();
        Thread thread;

        Sampler(String vmUrl, List<Integer> ports) {
            this.vmUrl = vmUrl;
            this.ports = ports;
        }

        @Override
        public void run() {
            while (!stop.get()) {
                try {
                    int capacity = 0;
                    int inUse = 0;
                    for (int port : ports) {
                        String page = get("http://127.0.0.1:" + port + "/metrics");
                        capacity += (int) sum(page, "tsdbwriter_write_permits_capacity");
                        inUse += (int) sum(page, "tsdbwriter_write_permits_in_use");
                    }
                    int inserts = (int) metric(vmUrl + "/metrics", "vm_concurrent_insert_current");
                    maxCapacity.accumulateAndGet(capacity, Math::max);
                    maxInUse.accumulateAndGet(inUse, Math::max);
                    maxInserts.accumulateAndGet(inserts, Math::max);
                    samples.incrementAndGet();
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // a writer not answering for a moment: the next round samples again
                }
            }
        }
    }

    /** Waits until the group has the three writers as members and every partition is assigned to one of them. */
    private static void awaitGroupSettled(String group, List<WriterProcess> writers) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        try (Admin admin = Admin.create(stack.kafka().adminProperties())) {
            while (true) {
                ConsumerGroupDescription g;
                try {
                    g = admin.describeConsumerGroups(List.of(group))
                            .describedGroups()
                            .get(group)
                            .get();
                } catch (ExecutionException e) {
                    g = null; // not created yet: no member has joined
                }
                if (g == null) {
                    assertThat(System.nanoTime())
                            .as("group %s never appeared", group)
                            .isLessThan(deadline);
                    Thread.sleep(200);
                    continue;
                }
                long assigned = g.members().stream()
                        .mapToLong(m -> m.assignment().topicPartitions().size())
                        .sum();
                boolean everyMemberHolds = g.members().stream()
                        .noneMatch(m -> m.assignment().topicPartitions().isEmpty());
                if (g.members().size() == WRITERS && everyMemberHolds && assigned == PARTITIONS) {
                    return;
                }
                for (WriterProcess w : writers) {
                    assertThat(w.isAlive()).as(w.output()).isTrue();
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("group " + group + " did not settle: "
                            + g.members().stream()
                                    .map(MemberDescription::toString)
                                    .toList());
                }
                Thread.sleep(200);
            }
        }
    }

    private static void awaitCommittedAtEnd(String group, String topic, List<WriterProcess> writers) throws Exception {
        Map<TopicPartition, Long> end = stack.endOffsets(topic);
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!stack.committedOffsets(group, topic).equals(end)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not committed at the end: " + stack.committedOffsets(group, topic) + " of "
                        + end + "\n" + writers.get(0).output());
            }
            Thread.sleep(200);
        }
    }

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static String get(String url) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    /** The value of the exposition line that starts with {@code series} and a space; 0 when there is none. */
    private static double metric(String url, String series) throws Exception {
        for (String line : get(url).lines().toList()) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }

    /** Sum of every sample of {@code name} (any labels; or the lines that start with {@code name} when it ends with a space). */
    private static double sum(String page, String name) {
        double s = 0;
        for (String line : page.lines().toList()) {
            if (line.startsWith(name.endsWith(" ") ? name : name + "{") || line.startsWith(name + " ")) {
                s += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return s;
    }
}
