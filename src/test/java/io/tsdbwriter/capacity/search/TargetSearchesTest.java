package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.capacity.targets.TargetComparison;
import io.tsdbwriter.lab.CpuPinning;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several targets one after another: each its own files, a failure as one line, the summary beside their reports. */
class TargetSearchesTest {

    @Test
    void eachTargetsCsvAndChartGetItsNameBeforeTheExtension() {
        assertThat(CapacitySearch.Settings.named(Path.of("out", "steps.csv"), "vm"))
                .isEqualTo(Path.of("out", "steps-vm.csv"));
        assertThat(CapacitySearch.Settings.named(Path.of("chart.v2.png"), "prom"))
                .isEqualTo(Path.of("chart.v2-prom.png"));
        assertThat(CapacitySearch.Settings.named(Path.of("steps"), "t")).isEqualTo(Path.of("steps-t"));
        assertThat(CapacitySearch.Settings.named(null, "t")).isNull();
    }

    @Test
    void aFailedSearchIsOneLineWithoutCredentials() {
        String line = TargetSearches.failure(new IOException(
                "cannot reach http://u:SECRET@vm:8428/metrics\nretried", new ConnectException("Connection refused")));
        assertThat(line)
                .isEqualTo(
                        "IOException: cannot reach http://vm:8428/metrics retried ← ConnectException: Connection refused");
    }

    @Test
    void theSummaryLinksEachTargetsReportAndSaysHowToReproduce(@TempDir Path dir) throws IOException {
        List<Path> files = TargetSearches.writeSummary(
                dir.resolve("report"),
                List.of(
                        TargetComparison.Row.of("vm", "import", 1e6, 1, 0.1, "failing step 2: limited by tsdb-cpu"),
                        TargetComparison.Row.failed(
                                "prom", "remote write 2.0", "ConnectException: Connection refused")),
                "machine x",
                "tsdb-writer capacity --target vm=http://vm:8428 --target prom=http://p:9090/api/v1/write,output=remote-write");
        assertThat(files)
                .containsExactly(
                        dir.resolve("report").resolve(CapacityPage.HTML_FILE),
                        dir.resolve("report").resolve(CapacityPage.MARKDOWN_FILE));
        String text = Files.readString(files.get(1));
        assertThat(text)
                .startsWith("# tsdb-writer capacity: 2 targets\n\n## Targets side by side\n")
                .contains(
                        "[vm](vm/capacity-report.md)",
                        "search failed: ConnectException: Connection refused",
                        "- **machine**: machine x",
                        "```\ntsdb-writer capacity --target vm=http://vm:8428 --target prom=");
        assertThat(Files.readString(files.get(0)))
                .startsWith("<!DOCTYPE html>")
                .contains(
                        "<a href=\"vm/capacity-report.html\">vm</a>",
                        "search failed: ConnectException: Connection refused",
                        "<dd id=\"machine\">machine x</dd>",
                        "<code id=\"command\">tsdb-writer capacity --target vm=http://vm:8428 --target prom=");
    }

    @Test
    void aTargetNobodyListensOnIsUnreachableInOneLine() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
            assertThat(TargetSearches.unreachable("http://u:SECRET@127.0.0.1:" + port + "/api/v1/write"))
                    .isNull();
        }
        String why = TargetSearches.unreachable("http://u:SECRET@127.0.0.1:" + port + "/api/v1/write");
        assertThat(why)
                .startsWith("unreachable: no connection to 127.0.0.1:" + port + " within 3000 ms")
                .doesNotContain("SECRET");
    }

    @Test
    void aTargetThatCannotBeSearchedIsOneLineAndTheNextOneRuns(@TempDir Path dir) throws Exception {
        int a = closedPort();
        int b = closedPort();
        CapacitySearch.Settings base = settings(dir);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new TargetSearches(
                        base,
                        List.of(
                                new TargetSearches.Planned(SearchTarget.parse("a=http://127.0.0.1:" + a), null),
                                new TargetSearches.Planned(
                                        SearchTarget.parse("b=http://127.0.0.1:" + b
                                                + "/api/v1/write,output=remote-write,remote-write-version=2"),
                                        null)),
                        new PrintStream(bytes, true, StandardCharsets.UTF_8))
                .run();
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).isEqualTo(1);
        assertThat(out)
                .contains(
                        "capacity: target a (1 of 2): start: import to http://127.0.0.1:" + a
                                + ", topics pre-a-…, work directory "
                                + dir.resolve("work").resolve("a"),
                        "capacity: target a (1 of 2): end: search failed: unreachable: no connection to 127.0.0.1:" + a,
                        "; going on with the next",
                        "capacity: target b (2 of 2): start: remote write 2.0 to http://127.0.0.1:" + b
                                + "/api/v1/write, topics pre-b-…");
        assertThat(out.lines()
                        .filter(l -> l.contains("target b (2 of 2): end: search failed: unreachable"))
                        .toList())
                .singleElement()
                .satisfies(l -> assertThat(l).doesNotContain("going on"));
        List<String> table =
                out.substring(out.indexOf("targets side by side:")).lines().toList();
        assertThat(table.get(2)).startsWith("a ").contains("import", "search failed: unreachable");
        assertThat(table.get(3)).startsWith("b ").contains("remote write 2.0", "search failed: unreachable");
        assertThat(out)
                .contains("report: " + dir.resolve("report").resolve(CapacityPage.HTML_FILE)
                        + " and capacity-report.md (each " + "target's own in "
                        + dir.resolve("report").resolve("NAME") + ", NAME: a, b)");
        String md = Files.readString(dir.resolve("report").resolve(CapacityPage.MARKDOWN_FILE));
        assertThat(md).contains("| a | import |", "| b | remote write 2.0 |").doesNotContain("](a/");
    }

    @Test
    void sideBySideTheSearchesRunAtOnceEachLinePrefixedAndTheRowsStayInTheOrderGiven(@TempDir Path dir)
            throws Exception {
        ServerSocket a = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ServerSocket b = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        try (a;
                b) {
            // each fake search waits for the other: they pass only when both run at the same time
            CyclicBarrier both = new CyclicBarrier(2);
            TargetSearches.Search search = (settings, o) -> {
                try {
                    both.await(10, TimeUnit.SECONDS);
                } catch (BrokenBarrierException | TimeoutException e) {
                    throw new IllegalStateException("the other search did not run beside this one", e);
                }
                o.println("step of " + settings.topicPrefix());
                return new CapacitySearch.Reported(
                        new CapacitySearch.Result(List.of(), Double.NaN, null, null, 0, null, null),
                        "m",
                        0,
                        null,
                        ReadBack.counted(5, 5, "q"));
            };
            CpuPinning.Plan rest = CpuPinning.Plan.SHARED; // placeSelf: nothing when shared
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int code = new TargetSearches(
                            settings(dir),
                            List.of(
                                    new TargetSearches.Planned(
                                            SearchTarget.parse("a=http://127.0.0.1:" + a.getLocalPort()),
                                            null,
                                            CpuPinning.Plan.SHARED),
                                    new TargetSearches.Planned(
                                            SearchTarget.parse("b=http://127.0.0.1:" + b.getLocalPort()),
                                            null,
                                            CpuPinning.Plan.SHARED)),
                            new PrintStream(bytes, true, StandardCharsets.UTF_8),
                            rest,
                            search)
                    .run();
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertThat(code).as(out).isZero();
            assertThat(out).contains("[a] step of pre-a", "[b] step of pre-b");
            assertThat(out.lines().filter(l -> l.contains("target a (1 of 2): end:")))
                    .singleElement()
                    .satisfies(l -> assertThat(l).startsWith("[a] "));
            assertThat(out).doesNotContain("going on with the next");
            List<String> table =
                    out.substring(out.indexOf("targets side by side:")).lines().toList();
            assertThat(table.get(2)).startsWith("a ").contains("all 5");
            assertThat(table.get(3)).startsWith("b ").contains("all 5");
        }
    }

    @Test
    void aPrefixedStreamWritesWholeLinesOnly() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream shared = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        PrintStream p = new PrintStream(new LinePrefix(shared, "[x] "), false, StandardCharsets.UTF_8);
        p.print("one ");
        p.print("line\ntwo");
        p.flush();
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("[x] one line" + System.lineSeparator() + "[x] two" + System.lineSeparator());
    }

    private static CapacitySearch.Settings settings(Path dir) {
        // the command's defaults but for the names and directories
        return CapacitySearch.Settings.builder()
                .topicPrefix("pre")
                .report(dir.resolve("report"))
                .workDir(dir.resolve("work"))
                .commandLine("tsdb-writer capacity …")
                .build();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
