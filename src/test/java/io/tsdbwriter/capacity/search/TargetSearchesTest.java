package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.capacity.targets.TargetComparison;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several targets one after another: each its own files, a failure as one line, the summary beside their reports. */
class TargetSearchesTest {

    @Test
    void eachTargetsCsvAndChartGetItsNameBeforeTheExtension() {
        assertThat(CapacitySearch.Settings.named(Path.of("out", "steps.csv"), "vm")).isEqualTo(Path.of("out", "steps-vm.csv"));
        assertThat(CapacitySearch.Settings.named(Path.of("chart.v2.png"), "prom")).isEqualTo(Path.of("chart.v2-prom.png"));
        assertThat(CapacitySearch.Settings.named(Path.of("steps"), "t")).isEqualTo(Path.of("steps-t"));
        assertThat(CapacitySearch.Settings.named(null, "t")).isNull();
    }

    @Test
    void aFailedSearchIsOneLineWithoutCredentials() {
        String line = TargetSearches.failure(new IOException("cannot reach http://u:SECRET@vm:8428/metrics\nretried",
                new ConnectException("Connection refused")));
        assertThat(line).isEqualTo("IOException: cannot reach http://vm:8428/metrics retried ← ConnectException: Connection refused");
    }

    @Test
    void theSummaryLinksEachTargetsReportAndSaysHowToReproduce(@TempDir Path dir) throws IOException {
        Path md = TargetSearches.writeSummary(dir.resolve("report"), List.of(
                TargetComparison.Row.of("vm", "import", 1e6, 1, 0.1, "failing step 2: limited by tsdb-cpu"),
                TargetComparison.Row.failed("prom", "remote write 2.0", "ConnectException: Connection refused")),
                "machine x", "tsdb-writer capacity --target vm=http://vm:8428 --target prom=http://p:9090/api/v1/write,output=remote-write");
        assertThat(md).isEqualTo(dir.resolve("report").resolve(CapacityPage.MARKDOWN_FILE));
        String text = Files.readString(md);
        assertThat(text).startsWith("# tsdb-writer capacity: 2 targets\n\n## Targets side by side\n")
                .contains("[vm](vm/capacity-report.md)", "search failed: ConnectException: Connection refused", "- **machine**: machine x",
                        "```\ntsdb-writer capacity --target vm=http://vm:8428 --target prom=");
    }

    @Test
    void aTargetNobodyListensOnIsUnreachableInOneLine() throws IOException {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
            assertThat(TargetSearches.unreachable("http://u:SECRET@127.0.0.1:" + port + "/api/v1/write")).isNull();
        }
        String why = TargetSearches.unreachable("http://u:SECRET@127.0.0.1:" + port + "/api/v1/write");
        assertThat(why).startsWith("unreachable: no connection to 127.0.0.1:" + port + " within 3000 ms").doesNotContain("SECRET");
    }
}
