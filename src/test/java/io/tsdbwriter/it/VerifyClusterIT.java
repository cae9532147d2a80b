package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.VictoriaMetricsCluster;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code verify} against a real VictoriaMetrics cluster (issue 42, item 2): two vmstorage nodes, vminsert and vmselect
 * ({@link VictoriaMetricsCluster}, the release's {@code -cluster} build; the class is skipped with the reason when it is
 * not built). The writer writes the real scrapes into vminsert; {@code verify} reads them back from vmselect, which does
 * not serve {@code /internal/force_flush}: with {@code --flush-url} on every vmstorage it flushes there, without it it
 * waits for the samples to become searchable. Exit codes: 0 exact, 1 a mismatch, 5 VictoriaMetrics not reachable.
 */
class VerifyClusterIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    private static final int M = 2;
    private static final int N = 2;
    private static VictoriaMetricsCluster cluster;
    private static List<SourcePoint> points;

    @BeforeAll
    static void writeTheRealScrapesThroughVminsert() throws Exception {
        String why = VictoriaMetricsCluster.unavailable();
        Assumptions.assumeTrue(why == null, why);
        cluster = stack.own(VictoriaMetricsCluster.start(stack.path("cluster"), 2));
        points = Scenario.realPoints(); // productKey "node"
        write("node", points);
    }

    private static void write(String name, List<SourcePoint> input) {
        Fixture f = stack.realInput(name, 3, input);
        WriterProcess w = stack.writer(
                "writer-" + name,
                stack.runArgs(
                        cluster.insertUrl(), f.topic(), f.group(), M, N, 1, "--stop-at-end", "--segment-size", "2000"));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
    }

    /** {@code verify} of the real scrapes with product key {@code key}, amplified M x {@code n}, plus {@code more}. */
    private static WriterProcess verify(String name, String vmUrl, String key, int n, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "verify",
                "--vm-url",
                vmUrl,
                "--match",
                "{productKey=\"" + key + "\"}",
                "--time-multiplier",
                Integer.toString(M),
                "--instance-multiplier",
                Integer.toString(n),
                "--instance",
                Scenario.INSTANCE,
                "--product-key",
                key,
                "--keep-timestamps")); // the scenario produced the scrapes at their own times
        a.addAll(Arrays.asList(more));
        NodeExporterFiles.all().forEach(p -> a.add(p.toString()));
        WriterProcess v = stack.writer(name, a);
        v.waitFor(Scenario.PROCESS_TIMEOUT);
        return v;
    }

    private static String[] flushEveryVmstorage() {
        return cluster.storageUrls().stream()
                .flatMap(u -> Stream.of("--flush-url", u))
                .toArray(String[]::new);
    }

    @Test
    void flushedOnEveryVmstorageTheReadBackFromVmselectIsExact() {
        WriterProcess v = verify("verify-flushed", cluster.selectUrl(), "node", N, flushEveryVmstorage());

        long expected = points.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
        assertThat(v.output())
                .contains("expected samples:   " + expected + " ")
                .contains("read back:          " + expected + "\n")
                .contains("found:              " + expected + "\n")
                .contains("missing:            0 ")
                .contains("unexpected series:  0\n")
                .contains("value mismatches:   0 ")
                .contains("result: PASSED");
    }

    @Test
    void withoutFlushUrlItWaitsUntilTheJustWrittenSamplesAreSearchable() throws Exception {
        List<SourcePoint> fresh =
                RealInput.load(NodeExporterFiles.all(), Scenario.INSTANCE, "unflushed", OptionalLong.empty());
        write("unflushed", fresh);

        WriterProcess v = verify(
                "verify-unflushed", cluster.selectUrl(), "unflushed", N); // docs/verify.md's cluster line, as it was

        long expected = fresh.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
        assertThat(v.output())
                .contains("found:              " + expected + "\n")
                .contains("result: PASSED")
                .contains("does not serve /internal/force_flush");
    }

    @Test
    void aMismatchExitsOne() {
        WriterProcess v = verify("verify-mismatch", cluster.selectUrl(), "node", N + 1, flushEveryVmstorage());

        long found = points.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isEqualTo(1);
        assertThat(v.output())
                .contains("found:              " + found + "\n")
                .contains("missing:            " + points.size() * (long) M + " ")
                .contains("result: FAILED");
    }

    @Test
    void anUnreachableVmUrlOrFlushUrlExitsFiveWithOneLine() {
        String dead;
        try (FreePorts.Reservation port = FreePorts.reserve()) { // reserved, nothing listens on it
            dead = "http://127.0.0.1:" + port.port();
            WriterProcess v = verify("verify-unreachable", dead + "/select/0/prometheus", "node", N);
            assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isEqualTo(5);
            assertOneLineNaming(v.output(), dead);

            WriterProcess s = verify(
                    "verify-unreachable-flushed", dead + "/select/0/prometheus", "node", N, flushEveryVmstorage());
            assertThat(s.waitFor(Scenario.PROCESS_TIMEOUT)).as(s.output()).isEqualTo(5);
            assertOneLineNaming(s.output(), dead);

            WriterProcess f = verify("verify-unreachable-flush", cluster.selectUrl(), "node", N, "--flush-url", dead);
            assertThat(f.waitFor(Scenario.PROCESS_TIMEOUT)).as(f.output()).isEqualTo(5);
            assertOneLineNaming(f.output(), dead);
        }
    }

    private static void assertOneLineNaming(String output, String url) {
        List<String> lines = output.lines()
                .filter(l -> !l.startsWith("verify: ") || !l.contains(" points from "))
                .toList();
        assertThat(lines).as(output).hasSize(1);
        assertThat(lines.get(0)).startsWith("verify: cannot reach").contains(url);
        assertThat(output).doesNotContain("result:");
    }
}
