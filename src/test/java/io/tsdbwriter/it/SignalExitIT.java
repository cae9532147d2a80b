package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a signal makes the writer exit with (docs/delivery.md "Exit codes", issue 41 items 2 and 8), with real processes: a
 * replay or a {@code --stop-at-end} job signalled after its last pass was written exits 0 once what it wrote counts as
 * stored, not 4 with "0 partition(s) short"; a service signalled while the TSDB fails (5xx, refused connections) exits
 * 1 within seconds saying the data is held, instead of waiting {@code --drain-timeout} while its retries back off, and
 * commits nothing past what is stored. Each ends with the exact read-back and, for the group, the committed offsets.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SignalExitIT {

    static final int PARTITIONS = 3;
    static final int M = 2;
    static final int N = 3;
    /** "Within a few seconds" of a signal during a write fault: today's default --drain-timeout is 30 s. */
    static final Duration FEW_SECONDS = Duration.ofSeconds(10);

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVmPerTest();

    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        points = Scenario.realPoints();
    }

    private Fixture realInput(String name) {
        return stack.realInput(name, PARTITIONS, points);
    }

    private WriterProcess writer(Fixture f, String name, String vmUrl, String... more) {
        List<String> args = stack.runArgs(vmUrl, f.topic(), f.group(), M, N, PARTITIONS, more);
        args.addAll(List.of("--segment-size", "300", "--commit-interval", "500ms"));
        return stack.writer(name, args);
    }

    /** Waits until the writer's output holds {@code text}. */
    private static void awaitOutput(WriterProcess w, String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!w.output().contains(text)) {
            if (System.nanoTime() > deadline || !w.isAlive()) {
                throw new AssertionError(
                        "the writer never logged \"" + text + "\" (alive: " + w.isAlive() + "):\n" + w.output());
            }
            Thread.sleep(50);
        }
    }

    /** Waits until the proxy answered {@code count} write requests with its fault. */
    private static void awaitFaulted(FaultProxy proxy, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (proxy.faulted() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the proxy faulted only " + proxy.faulted() + " write(s) within " + timeout);
            }
            Thread.sleep(50);
        }
    }

    /** Sends SIGTERM and returns how long the writer took to exit; its exit code in {@code code[0]}. */
    private static Duration stop(WriterProcess w, int[] code) {
        long t0 = System.nanoTime();
        w.sigterm();
        code[0] = w.waitFor(Duration.ofSeconds(90));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.printf(
                "[SignalExitIT] exit %d %.1f s after SIGTERM: %s%n",
                code[0],
                took.toMillis() / 1000.0,
                logLines(w, "exit " + code[0] + ":").stream().findFirst().orElse("(no exit line)"));
        return took;
    }

    /** The log lines holding {@code text} (the final report's {@code exit_reason} repeats the exit line: left out). */
    private static List<String> logLines(WriterProcess w, String text) {
        return Arrays.stream(w.output().split("\n"))
                .filter(l -> l.contains(text) && !l.startsWith("exit_reason"))
                .toList();
    }

    // ------------------------------------------------------------------------------------------ item 2: after the end

    @Test
    void aReplaySignalledWhileItWaitsOutTheDurabilityWindowExitsZero() throws Exception {
        Fixture f = realInput("replay-window");
        Path summary = stack.path("replay-window.json");
        WriterProcess w = writer(
                f,
                "replay-window",
                stack.vmUrl(),
                "--from",
                "offset:0",
                "--durability-window",
                "10s",
                "--summary-json",
                summary.toString());
        awaitOutput(w, "every write acknowledged; waiting 10s", Scenario.PROCESS_TIMEOUT);
        int[] code = new int[1];
        Duration took = stop(w, code);
        assertThat(code[0]).as(w.output()).isZero();
        assertThat(took)
                .as("the stop waits out the rest of the window, within --drain-timeout")
                .isLessThan(Duration.ofSeconds(25));
        assertThat(w.output()).doesNotContain("partition(s) short");
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("exit_code").asInt()).isZero();
        assertThat(s.get("passes").get(0).get("complete").asBoolean()).isTrue();
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        assertThat(stack.committedOffsets(f.group(), f.topic()))
                .as("a replay commits nothing")
                .isEmpty();
    }

    @Test
    void aReplaySignalledWhileItsLastPassDrainsExitsZeroOnceItIsWrittenAndStored() throws Exception {
        Fixture f = realInput("replay-drain");
        Path summary = stack.path("replay-drain.json");
        try (FaultProxy slow = new FaultProxy(stack.vmUrl())) {
            // ~35 batches at 2 in flight x 1 s: the last pass is read about a second before its last writes are
            // answered
            slow.mode(new FaultProxy.Delay(Duration.ofSeconds(1)));
            WriterProcess w = writer(
                    f,
                    "replay-drain",
                    slow.url(),
                    "--from",
                    "offset:0",
                    "--batch-samples",
                    "1800",
                    "--max-concurrent-writes",
                    "2",
                    "--summary-json",
                    summary.toString());
            awaitOutput(w, "replay pass 1 read in", Scenario.PROCESS_TIMEOUT);
            int[] code = new int[1];
            stop(w, code);
            assertThat(code[0]).as(w.output()).isZero();
            assertThat(w.output()).doesNotContain("partition(s) short");
            assertThat(Scenario.summary(summary).get("exit_code").asInt()).isZero();
        }
        stack.assertExactReadBack(Scenario.expected(points, M, N));
    }

    @Test
    void aStopAtEndJobSignalledWhileItsLastCommitWaitsForTheWindowExitsZero() throws Exception {
        Fixture f = realInput("stop-at-end-window");
        Path summary = stack.path("stop-at-end-window.json");
        WriterProcess w = writer(
                f,
                "stop-at-end-window",
                stack.vmUrl(),
                "--stop-at-end",
                "--durability-window",
                "20s",
                "--summary-json",
                summary.toString());
        stack.assertExactReadBack(
                Scenario.expected(points, M, N)); // every sample written: the commits wait for the window
        assertThat(w.isAlive()).as(w.output()).isTrue();
        int[] code = new int[1];
        stop(w, code);
        assertThat(code[0]).as(w.output()).isZero();
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("exit_code").asInt()).isZero();
        assertThat(s.get("durability").get("records_awaiting_durability").asLong())
                .as("the stop's last commit covered every acknowledged record: none awaits the window")
                .isZero();
        stack.assertCommittedAtEnd(f);
    }

    // ------------------------------------------------------------------------------------------ item 8: a write fault

    @Test
    void aServiceSignalledWhileTheTsdbAnswers503ExitsOneWithinSecondsAndCommitsNothingUnstored() throws Exception {
        Fixture f = realInput("stop-503");
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.Delay(Duration.ofMillis(150)));
            // the defaults that make the wait: --drain-timeout 30s, --max-backoff 30s, --max-retries 5
            WriterProcess w =
                    writer(f, "stop-503", proxy.url(), "--batch-samples", "600", "--max-concurrent-writes", "2");
            awaitSomeCommitted(f, Duration.ofSeconds(60));
            proxy.mode(new FaultProxy.Status(503, -1));
            awaitFaulted(proxy, 5, Duration.ofSeconds(60)); // retries backing off, the circuit breaker opening
            int[] code = new int[1];
            Duration took = stop(w, code);
            assertThat(code[0]).as(w.output()).isEqualTo(1);
            assertThat(took).as("exit after SIGTERM\n" + w.output()).isLessThan(FEW_SECONDS);
            assertThat(logLines(w, "sample(s) held")).as(w.output()).hasSize(1);
            assertThat(logLines(w, "sample(s) held").get(0)).contains("exit 1", "not committed past", "next start");
        }
        Map<TopicPartition, Long> committed = assertCommittedIsStored(f);
        assertThat(committed.values().stream().mapToLong(Long::longValue).sum()).isLessThan(f.records());
        finishAndVerifyAll(f, "stop-503");
    }

    @Test
    void aServiceSignalledWhileTheTsdbRefusesConnectionsExitsOneWithinSeconds() throws Exception {
        Fixture f = realInput("stop-down");
        stack.vm().stop();
        WriterProcess w = writer(f, "stop-down", stack.vmUrl());
        awaitOutput(
                w,
                "a configuration fault, not the data",
                Duration.ofSeconds(60)); // a refused connection: held, tried again
        int[] code = new int[1];
        Duration took = stop(w, code);
        assertThat(code[0]).as(w.output()).isEqualTo(1);
        assertThat(took).as("exit after SIGTERM\n" + w.output()).isLessThan(FEW_SECONDS);
        assertThat(logLines(w, "sample(s) held")).as(w.output()).hasSize(1);
        assertThat(stack.committedOffsets(f.group(), f.topic()).values()).allMatch(o -> o == 0L);
        stack.vm().restart();
        finishAndVerifyAll(f, "stop-down");
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

    /** Everything below the committed offsets is in VictoriaMetrics. */
    private Map<TopicPartition, Long> assertCommittedIsStored(Fixture f) throws Exception {
        Map<TopicPartition, Long> committed = stack.committedOffsets(f.group(), f.topic());
        List<SourcePoint> below = new ArrayList<>();
        for (int i : Scenario.recordsBelow(committed, PARTITIONS, f.records())) {
            below.add(points.get(i));
        }
        if (!below.isEmpty()) {
            stack.assertPresent(Scenario.expected(below, M, N));
        }
        return committed;
    }

    private void finishAndVerifyAll(Fixture f, String name) throws Exception {
        WriterProcess finish = writer(f, name + "-finish", stack.vmUrl(), "--stop-at-end");
        assertThat(finish.waitFor(Scenario.PROCESS_TIMEOUT)).as(finish.output()).isZero();
        stack.assertExactReadBack(Scenario.expected(points, M, N));
        stack.assertCommittedAtEnd(f);
    }
}
