package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.Main;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.ThanosReceive;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code capacity --target} against three receivers the test starts (issue 55 item 4): VictoriaMetrics (import API),
 * Prometheus 3 (remote write 2.0, at its defaults: no out-of-order window) and Thanos receive (remote write 1.0, its
 * {@code /metrics} on another port than its remote write, given as {@code metrics-url}), one short step each. Exact:
 * every target's store holds every sample the steps produced, read from the receiver's own counter
 * ({@code vm_rows_inserted_total{type="vmimport"}}, {@code prometheus_tsdb_head_samples_appended_total}); the side by
 * side table has a known CPU, memory and disk figure per target; and the memory and disk figures equal what
 * {@link CostFigures} computes from the receiver's page read again after the command (Prometheus' and Thanos' disk
 * within 1 %, the resident memory within 10 % (40 % where the read-back's queries ran after the command's reading);
 * VictoriaMetrics' disk within a factor of 2, as its background merges
 * shrink its parts after the flush, and its stored rows exactly every sample); the read-back pass compares every sample
 * the search fed, sample by sample, with what VictoriaMetrics' export and Prometheus' query API (given as
 * {@code query-url}) return — none missing, none more, none mismatched — and reads none on Thanos receive. Skipped
 * without the Go-built Prometheus 3 and Thanos.
 */
@RunsAlone
class CapacityTargetsIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void threeReceiversSideBySideEachFigureFromItsOwnPage() throws Exception {
        String why = ThanosReceive.unavailable();
        Assumptions.assumeTrue(why == null, why);
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        PrometheusEndpoint prom = stack.startPrometheus(
                "targets-prom",
                PrometheusVersion.CURRENT,
                null,
                true,
                "prometheus.WriteRequest",
                "io.prometheus.write.v2.Request");
        ThanosReceive thanos = stack.own(ThanosReceive.start(stack.path("targets-thanos")));
        Path report = stack.path("targets-report");

        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            exit = Main.execute(
                    "capacity",
                    "--bootstrap-servers",
                    stack.bootstrapServers(),
                    "--target",
                    "vm=" + stack.vmUrl(),
                    "--target",
                    "prom=" + prom.remoteWriteUrl() + ",output=remote-write,remote-write-version=2,query-url="
                            + prom.url(),
                    "--target",
                    "thanos=" + thanos.remoteWriteUrl() + ",output=remote-write,metrics-url=" + thanos.url()
                            + "/metrics",
                    "--topic-prefix",
                    "cap-targets-it",
                    "--start-input-rate",
                    "500",
                    "--step-duration",
                    "12s",
                    "--warm-up",
                    "3s",
                    "--max-steps",
                    "1",
                    "--refine-steps",
                    "0",
                    "--parallelism",
                    "1",
                    "--points-per-pass",
                    "10000",
                    "--data-dir",
                    NodeExporterFiles.dir().toString(),
                    "--step-drain-timeout",
                    "60s",
                    "--csv",
                    stack.path("targets.csv").toString(),
                    "--report",
                    report.toString(),
                    "--work-dir",
                    stack.path("targets-steps").toString(),
                    "--writer-jar",
                    System.getProperty("tsdbwriter.jar", "target/tsdb-writer.jar"),
                    "--writer-jvm-option=-Xmx256m",
                    "--writer-jvm-option=-XX:TieredStopAtLevel=1");
        } finally {
            System.setOut(saved);
        }
        String output = buf.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(exit).as(output).isZero();
        assertThat(output).contains("targets side by side:", "disk figure after /internal/force_flush");

        stack.vm().forceFlush();
        PromSnapshot vmPage = page(stack.vmUrl() + "/metrics");
        PromSnapshot promPage = page(prom.url() + "/metrics");
        PromSnapshot thanosPage = page(thanos.url() + "/metrics");
        assertThat(vmPage.sum("vm_rows_inserted_total", "type=\"vmimport\"")).isEqualTo(produced("vm")); // M = N = 1
        assertThat(promPage.sum(CostFigures.PROM_APPENDED, "")).isEqualTo(produced("prom"));
        assertThat(thanosPage.sum(CostFigures.PROM_APPENDED, "")).isEqualTo(produced("thanos"));

        String md = Files.readString(report.resolve("capacity-report.md"));
        // VictoriaMetrics merges its parts in the background after the flush (the bytes shrink, the rows stay): its
        // rows
        // are every sample, its bytes within a factor of 2 of the later page's; Prometheus' and Thanos' do not move
        assertThat(vmPage.sum(CostFigures.VM_ROWS, "type=\"storage/")).isEqualTo(produced("vm"));
        // the read-back pass runs after the command's reading: its queries grow VictoriaMetrics' and Prometheus'
        // resident
        // memory (caches) before this test's page (seen: 65,859 then 84,998 bytes/series), Thanos' not
        assertFigures(row(md, "vm"), vmPage, "import", 40, 100);
        assertFigures(row(md, "prom"), promPage, "remote write 2.0", 40, 1);
        assertFigures(row(md, "thanos"), thanosPage, "remote write 1.0", 10, 1);
        // the read-back pass: every sample fed compared sample by sample (VictoriaMetrics' export, Prometheus' query
        // API
        // on its query-url): `all N` with nothing after it is none missing, none more, none mismatched (M = N = 1:
        // a sample per point produced); Thanos receive serves no query API
        assertThat(row(md, "vm").get(8)).isEqualTo(String.format(Locale.ROOT, "all %,d", produced("vm")));
        assertThat(row(md, "prom").get(8)).isEqualTo(String.format(Locale.ROOT, "all %,d", produced("prom")));
        assertThat(output)
                .contains(String.format(
                        Locale.ROOT,
                        "read back: all %,d samples fed, compared sample by sample on VictoriaMetrics' export",
                        produced("vm")))
                .contains(String.format(
                        Locale.ROOT,
                        "read back: all %,d samples fed, compared sample by sample on the Prometheus query API",
                        produced("prom")))
                .doesNotContain("not compared sample by sample");
        assertThat(row(md, "thanos").get(8)).isEqualTo("–");
        assertThat(output).contains("thanos: read back unknown: no query API given");
        assertThat(md)
                .contains(
                        CostFigures.VM_TSIDS,
                        CostFigures.PROM_ACTIVE,
                        CostFigures.PROM_APPENDED,
                        "process_cpu_seconds_total");
        for (String name : List.of("vm", "prom", "thanos")) {
            assertThat(report.resolve(name).resolve("capacity-report.md")).exists();
        }
    }

    /** The cells of the Markdown table's row of {@code name}: target, protocol, capacity, …, disk, read back, verdict, report. */
    private static List<String> row(String markdown, String name) {
        return markdown.lines()
                .filter(l -> l.startsWith("| " + name + " |"))
                .findFirst()
                .map(l -> List.of(l.substring(1, l.length() - 1).split(" \\| ")).stream()
                        .map(String::strip)
                        .toList())
                .orElseThrow(() -> new AssertionError("no row " + name + " in\n" + markdown));
    }

    private static void assertFigures(
            List<String> cells, PromSnapshot page, String protocol, double rssPercent, double diskPercent) {
        assertThat(cells.get(1)).isEqualTo(protocol);
        assertThat(number(cells.get(2))).as("capacity of %s", cells).isPositive();
        assertThat(number(cells.get(5))).as("CPU-s/1M samples of %s", cells).isPositive();
        double rss = CostFigures.residentBytesPerSeries(List.of(page)).value();
        assertThat(number(cells.get(6)))
                .as("RSS bytes/series of %s", cells)
                .isCloseTo(rss, Percentage.withPercentage(rssPercent));
        double disk = CostFigures.bytesPerSample(List.of(page)).value();
        assertThat(number(cells.get(7)))
                .as("disk bytes/sample of %s", cells)
                .isCloseTo(disk, Percentage.withPercentage(diskPercent));
        assertThat(cells.get(9)).as("verdict of %s", cells).doesNotStartWith("search failed");
    }

    private static double number(String cell) {
        assertThat(cell).as("a known figure").isNotEqualTo("–");
        return Double.parseDouble(cell.replace(",", "").replace("%", "").toLowerCase(Locale.ROOT));
    }

    /** The points the target's steps produced ({@code produced_points} of its CSV, {@code targets-NAME.csv}). */
    private static long produced(String name) throws Exception {
        List<String> lines = Files.readAllLines(stack.path("targets-" + name + ".csv"));
        int column = List.of(lines.get(0).split(",")).indexOf("produced_points");
        long produced = lines.subList(1, lines.size()).stream()
                .mapToLong(l -> Long.parseLong(l.split(",")[column]))
                .sum();
        assertThat(produced).isPositive();
        return produced;
    }

    private static PromSnapshot page(String url) throws Exception {
        HttpResponse<String> r =
                HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        return PromSnapshot.parse(r.body(), 0);
    }
}
