package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class VerifyCommandTest {

    private static final long T = 1795300857000L;

    @TempDir
    Path dir;

    private Path scrape;
    private MockWebServer vm;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void setUp() throws IOException {
        scrape = dir.resolve("node-exporter-1795300857.prom");
        Files.writeString(scrape, "# TYPE node_load1 gauge\nnode_load1 0.25\n");
        vm = new MockWebServer();
        vm.start();
    }

    @AfterEach
    void tearDown() throws IOException {
        vm.shutdown();
    }

    private int run(String... args) {
        CommandLine cl = new CommandLine(new VerifyCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private static String line(String instance, String values, long... ts) {
        StringBuilder t = new StringBuilder();
        for (long x : ts) {
            t.append(t.isEmpty() ? "" : ",").append(x);
        }
        return "{\"metric\":{\"__name__\":\"node_load1\",\"instanceNo\":\"" + instance
                + "\",\"productKey\":\"node\"},\"values\":[" + values + "],\"timestamps\":[" + t + "]}\n";
    }

    private void serveExport(String body) {
        vm.enqueue(new MockResponse().setResponseCode(204));
        vm.enqueue(new MockResponse().setBody(body));
    }

    @Test
    void exitsZeroWhenVictoriaMetricsHoldsExactlyTheAmplifiedSamples() {
        serveExport(line("h", "0.25,0.25", T, T + 30_000) + line("h-1", "0.25,0.25", T, T + 30_000));

        int code = run(
                "--vm-url",
                vm.url("/").toString(),
                "--instance",
                "h",
                "--time-multiplier",
                "2",
                "--instance-multiplier",
                "2",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString())
                .contains("expected samples:   4 (2 series; 1 source points x M=2 x N=2)")
                .contains("found:              4")
                .contains("missing:            0")
                .contains("unexpected series:  0")
                .contains("value mismatches:   0")
                .endsWith("result: PASSED\n");
    }

    @Test
    void exitsOneAndShowsExamplesWhenSamplesAreMissing() {
        serveExport(line("h", "0.25", T) + line("h-1", "0.25,0.25", T, T + 30_000));

        int code = run(
                "--vm-url",
                vm.url("/").toString(),
                "--instance",
                "h",
                "--time-multiplier",
                "2",
                "--instance-multiplier",
                "2",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).isEqualTo(1);
        assertThat(out.toString())
                .contains("missing:            1")
                .contains("e.g. node_load1{instanceNo=\"h\",productKey=\"node\"} @" + (T + 30_000))
                .endsWith("result: FAILED\n");
    }

    @Test
    void exitsFiveWithOneLineWhenVictoriaMetricsCannotBeReached() throws IOException {
        String url = vm.url("/").toString();
        vm.shutdown();

        int code = run("--vm-url", url, "--instance", "h", "--keep-timestamps", scrape.toString());

        assertThat(code).isEqualTo(5);
        List<String> lines =
                err.toString().lines().filter(l -> !l.contains(" points from ")).toList();
        assertThat(lines).as(err.toString()).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("verify: cannot reach VictoriaMetrics: GET " + url + "internal/force_flush: ")
                .contains("Failed to connect");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void exitsFiveWhenAFlushUrlCannotBeReached() throws IOException {
        MockWebServer storage = new MockWebServer();
        storage.start();
        String dead = storage.url("/").toString();
        storage.shutdown();

        int code = run(
                "--vm-url",
                vm.url("/select/0/prometheus").toString(),
                "--flush-url",
                dead,
                "--instance",
                "h",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).isEqualTo(5);
        assertThat(err.toString())
                .contains("verify: cannot reach VictoriaMetrics: GET " + dead + "internal/force_flush: ");
        assertThat(vm.getRequestCount()).isZero();
    }

    @Test
    void flushesEveryFlushUrlNotTheVmUrlThenReadsBackFromTheVmUrl() throws Exception {
        try (MockWebServer storage0 = new MockWebServer();
                MockWebServer storage1 = new MockWebServer()) {
            storage0.enqueue(new MockResponse().setResponseCode(200));
            storage1.enqueue(new MockResponse().setResponseCode(200));
            vm.enqueue(new MockResponse().setBody(line("h", "0.25", T)));

            int code = run(
                    "--vm-url",
                    vm.url("/select/0/prometheus").toString(),
                    "--flush-url",
                    storage0.url("/").toString(),
                    "--flush-url",
                    storage1.url("").toString(),
                    "--instance",
                    "h",
                    "--keep-timestamps",
                    scrape.toString());

            assertThat(code).as(out + "\n" + err).isZero();
            assertThat(storage0.takeRequest().getPath()).isEqualTo("/internal/force_flush");
            assertThat(storage1.takeRequest().getPath()).isEqualTo("/internal/force_flush");
            assertThat(vm.getRequestCount()).isEqualTo(1);
            assertThat(vm.takeRequest().getRequestUrl().encodedPath()).isEqualTo("/select/0/prometheus/api/v1/export");
        }
    }

    @Test
    void readsBackWithoutAFlushWhenTheVmUrlDoesNotServeIt() throws Exception {
        vm.enqueue(new MockResponse()
                .setResponseCode(400)
                .setBody("unsupported path requested: \"/select/0/prometheus/internal/force_flush\""));
        vm.enqueue(new MockResponse().setBody(line("h", "0.25", T)));

        int code = run(
                "--vm-url",
                vm.url("/select/0/prometheus").toString(),
                "--instance",
                "h",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(err.toString())
                .contains("does not serve /internal/force_flush")
                .contains("--flush-url");
        assertThat(out.toString()).endsWith("result: PASSED\n");
    }

    @Test
    void exitsTwoWhenTheInputCannotBeParsed() throws IOException {
        Files.writeString(scrape, "garbage{{{ 1\n");

        assertThat(run("--vm-url", vm.url("/").toString(), "--instance", "h", scrape.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("verify: cannot read the input: ");
        assertThat(vm.getRequestCount()).isZero();
    }

    @Test
    void demandsBitExactValuesWithToleranceZero() {
        serveExport(line("h", "0.25000000000000006", T));
        assertThat(run(
                        "--vm-url",
                        vm.url("/").toString(),
                        "--instance",
                        "h",
                        "--value-tolerance",
                        "0",
                        "--keep-timestamps",
                        scrape.toString()))
                .isEqualTo(1);
        serveExport(line("h", "0.25000000000000006", T));
        assertThat(run("--vm-url", vm.url("/").toString(), "--instance", "h", "--keep-timestamps", scrape.toString()))
                .isZero();
    }

    @Test
    void expectsTheTimestampsProduceSentWhenGivenTheSameNow() {
        long year = Duration.ofDays(365).toMillis();
        serveExport(line("h", "0.25", T + year));

        int code = run(
                "--vm-url",
                vm.url("/").toString(),
                "--instance",
                "h",
                "--now",
                Long.toString(T + year + 59_999),
                scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(err.toString())
                .contains("verify: timestamps relative to --now " + (T + year + 59_999)
                        + ": the scrape times moved by +" + year + " ms");
    }

    @Test
    void exitsTwoOnBadFlags() {
        assertThat(run("--time-multiplier", "0", scrape.toString())).isEqualTo(2);
        assertThat(run("--instance-multiplier", "100001", scrape.toString())).isEqualTo(2);
        assertThat(run("--vm-url", "localhost:8428", scrape.toString())).isEqualTo(2);
        assertThat(run("--value-tolerance", "2", scrape.toString())).isEqualTo(2);
        assertThat(run("--flush-url", "localhost:8482", scrape.toString())).isEqualTo(2);
        assertThat(run("--search-timeout", "-1s", scrape.toString())).isEqualTo(2);
        assertThat(vm.getRequestCount()).isZero();
    }

    // ------------------------------------------------------------------------------------------------ --read-api

    /** A query API answer of node_load1 of instance {@code instance} with the value 0.25 at {@code ts}. */
    private static String matrix(String instance, long... ts) {
        StringBuilder v = new StringBuilder();
        for (long x : ts) {
            v.append(v.isEmpty() ? "" : ",")
                    .append('[')
                    .append(x / 1000)
                    .append('.')
                    .append(String.format("%03d", x % 1000))
                    .append(",\"0.25\"]");
        }
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"__name__\":"
                + "\"node_load1\",\"instanceNo\":\"" + instance + "\",\"productKey\":\"node\"},\"values\":[" + v
                + "]}]}}";
    }

    @Test
    void readsAPrometheusQueryApiWithoutAFlush() throws Exception {
        vm.enqueue(new MockResponse().setBody(matrix("h", T, T + 30_000)));

        int code = run(
                "--vm-url",
                vm.url("/").toString(),
                "--read-api",
                "prometheus",
                "--instance",
                "h",
                "--time-multiplier",
                "2",
                "--value-tolerance",
                "0",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("found:              2").endsWith("result: PASSED\n");
        assertThat(vm.getRequestCount()).isEqualTo(1);
        assertThat(vm.takeRequest().getRequestUrl().encodedPath()).isEqualTo("/api/v1/query");
    }

    @Test
    void autoReadsTheQueryApiWhereTheExportAnswers404AndSaysSo() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(404).setBody("404 page not found"));
        vm.enqueue(new MockResponse().setResponseCode(404).setBody("404 page not found"));
        vm.enqueue(new MockResponse().setBody(matrix("h", T)));

        int code = run("--vm-url", vm.url("/").toString(), "--instance", "h", "--keep-timestamps", scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(err.toString())
                .contains("verify: " + vm.url("/api/v1/export")
                        + " answered 404: reading back through the Prometheus query API, " + vm.url("/api/v1/query"))
                .doesNotContain("force_flush");
        assertThat(out.toString()).endsWith("result: PASSED\n");
        assertThat(vm.takeRequest().getPath()).isEqualTo("/internal/force_flush");
        assertThat(vm.takeRequest().getPath()).isEqualTo("/api/v1/export");
        assertThat(vm.takeRequest().getPath()).isEqualTo("/api/v1/query");
    }

    @Test
    void exitsFiveWithOneLineWhenTheQueryApiCannotBeReached() throws IOException {
        String url = vm.url("/").toString();
        vm.shutdown();

        int code = run(
                "--vm-url", url, "--read-api", "prometheus", "--instance", "h", "--keep-timestamps", scrape.toString());

        assertThat(code).isEqualTo(5);
        List<String> lines =
                err.toString().lines().filter(l -> !l.contains(" points from ")).toList();
        assertThat(lines).as(err.toString()).hasSize(1);
        assertThat(lines.get(0)).startsWith("verify: cannot reach the query API: POST " + url + "api/v1/query: ");
    }

    @Test
    void exitsTwoOnABadReadApiOrFlushUrlsForTheQueryApi() {
        assertThat(run("--read-api", "mimir", scrape.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("'mimir' is not auto, vm-export or prometheus");
        assertThat(run("--read-api", "prometheus", "--flush-url", "http://vmstorage:8482", scrape.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--flush-url names VictoriaMetrics' vmstorage nodes");
        assertThat(vm.getRequestCount()).isZero();
    }

    @Test
    void ignoresTheLabelsAThanosQueryAdds() {
        vm.enqueue(new MockResponse()
                .setBody(
                        matrix("h", T).replace("\"productKey\":", "\"tenant_id\":\"default-tenant\",\"productKey\":")));

        int code = run(
                "--vm-url",
                vm.url("/").toString(),
                "--read-api",
                "prometheus",
                "--ignore-label",
                "tenant_id",
                "--instance",
                "h",
                "--keep-timestamps",
                scrape.toString());

        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("unexpected series:  0").endsWith("result: PASSED\n");
    }
}
