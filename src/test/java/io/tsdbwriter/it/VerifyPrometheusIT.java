package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code verify} against Prometheus 3 through its query API: the writer writes the real scrapes (M=2, N=2) into a
 * Prometheus 3 remote write receiver; {@code verify} reads them back sample by sample with range-vector queries,
 * {@code --read-api auto} (Prometheus answers the export 404) and {@code prometheus}, bit-exact; from a Prometheus
 * 2.42 (Debian's) too. Exit codes: 0 exact,
 * 1 a sample missing (an instance variant never written) or a series not expected (one written that the check does
 * not expect).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class VerifyPrometheusIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    private static final int M = 2;
    private static final int N = 2;
    private static PrometheusEndpoint prom;
    private static List<SourcePoint> points;

    @BeforeAll
    static void writeTheRealScrapesIntoPrometheus3() throws Exception {
        GoBuilds.built(PrometheusServer.CURRENT_BINARY); // the test command may still build it
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        prom = stack.startPrometheus(
                "prom3", PrometheusVersion.CURRENT, Duration.ofDays(30), true, "prometheus.WriteRequest");
        points = Scenario.realPoints(); // productKey "node"
        write("prom3", prom);
    }

    /** The real scrapes, M x N, written into {@code receiver} by remote write. */
    private static void write(String name, PrometheusEndpoint receiver) {
        Fixture f = stack.realInput("verify-" + name, 3, points);
        List<String> args = stack.runArgs("http://127.0.0.1:1", f.topic(), f.group(), M, N, 1, "--stop-at-end");
        args.addAll(List.of("--output", "remote-write", "--remote-write-url", receiver.remoteWriteUrl()));
        WriterProcess w = stack.writer("writer-" + name, args);
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
    }

    /** {@code verify} of the real scrapes amplified M x {@code n} against the Prometheus 3, plus {@code more}. */
    private static WriterProcess verify(String name, int n, String... more) {
        return verify(name, prom, n, more);
    }

    private static WriterProcess verify(String name, PrometheusEndpoint from, int n, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "verify",
                "--vm-url",
                from.url(),
                "--time-multiplier",
                Integer.toString(M),
                "--instance-multiplier",
                Integer.toString(n),
                "--instance",
                Scenario.INSTANCE,
                "--product-key",
                "node",
                "--value-tolerance",
                "0",
                "--keep-timestamps")); // the scenario produced the scrapes at their own times
        a.addAll(Arrays.asList(more));
        NodeExporterFiles.all().forEach(p -> a.add(p.toString()));
        WriterProcess v = stack.writer(name, a);
        v.waitFor(Scenario.PROCESS_TIMEOUT);
        return v;
    }

    @Test
    void autoReadsPrometheus3BackExactlyThroughItsQueryApi() {
        WriterProcess v = verify("verify-auto", N);

        long expected = points.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
        assertThat(v.output())
                .contains("/api/v1/export answered 404: reading back through the Prometheus query API, " + prom.url()
                        + "/api/v1/query")
                .contains("expected samples:   " + expected + " ")
                .contains("read back:          " + expected + "\n")
                .contains("found:              " + expected + "\n")
                .contains("missing:            0 ")
                .contains("unexpected series:  0\n")
                .contains("duplicate samples:  0\n")
                .contains("value mismatches:   0 (bit-exact)")
                .contains("result: PASSED");
    }

    /** Prometheus 2 includes a sample exactly at a range's start, which Prometheus 3 leaves out: read once all the same. */
    @Test
    void prometheus2ReadsBackExactlyToo() {
        try (PrometheusEndpoint prom2 = stack.startPrometheus("prom2")) {
            write("prom2", prom2);

            WriterProcess v = verify("verify-prom2", prom2, N, "--read-api", "prometheus");

            long expected = points.size() * (long) M * N;
            assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
            assertThat(v.output())
                    .contains("found:              " + expected + "\n")
                    .contains("duplicate samples:  0\n")
                    .contains("value mismatches:   0 (bit-exact)")
                    .contains("result: PASSED");
        }
    }

    @Test
    void theQueryApiNamedWithAMatchReadsBackExactly() {
        WriterProcess v =
                verify("verify-prometheus", N, "--read-api", "prometheus", "--match", "{productKey=\"node\"}");

        long expected = points.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isZero();
        assertThat(v.output())
                .doesNotContain("answered 404")
                .contains("found:              " + expected + "\n")
                .contains("unexpected series:  0\n")
                .contains("result: PASSED");
    }

    @Test
    void samplesNeverWrittenAreReportedMissingAndExitOne() {
        WriterProcess v = verify("verify-missing", N + 1);

        long found = points.size() * (long) M * N;
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isEqualTo(1);
        assertThat(v.output())
                .contains("found:              " + found + "\n")
                .contains("missing:            " + points.size() * (long) M + " ")
                .contains("e.g. ")
                .contains("result: FAILED");
    }

    @Test
    void seriesWrittenButNotExpectedAreReportedAndExitOne() {
        WriterProcess v = verify("verify-unexpected", 1, "--read-api", "prometheus");

        ExpectedSamples one = Scenario.expected(points, M, 1);
        assertThat(v.waitFor(Scenario.PROCESS_TIMEOUT)).as(v.output()).isEqualTo(1);
        assertThat(v.output())
                .contains("found:              " + one.sampleCount() + "\n")
                .contains("missing:            0 ")
                .contains("unexpected series:  " + one.seriesCount() + "\n")
                .contains("unexpected samples: " + one.sampleCount() + " ")
                .contains("result: FAILED");
    }
}
