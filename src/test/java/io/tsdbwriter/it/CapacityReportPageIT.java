package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.capacity.search.CapacityPage;
import io.tsdbwriter.capacity.search.CapacitySearch;
import io.tsdbwriter.capacity.search.CapacityStep;
import io.tsdbwriter.capacity.search.StepLimit;
import io.tsdbwriter.capacity.search.StepReads;
import io.tsdbwriter.capacity.search.StepSeries;
import io.tsdbwriter.capacity.targets.ComparisonPage;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.capacity.targets.TargetComparison;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.DoubleStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code capacity --report}'s HTML page in a real headless browser (Debian's chromium): the page written from
 * constructed steps (three with a read load, the first two with a series limit, the third failing on the target's CPU
 * with a {@code <script>} in its reason) is loaded from its file; the DOM chromium parsed shows the capacity, each
 * step's written samples/min and query p99, the series limit's figures and the verdict, and holds no script element;
 * its screenshot is not blank and shows the chart's colours. No Kafka, no TSDB. Chromium:
 * {@code TSDB_WRITER_CHROMIUM}, else {@code /usr/bin/chromium}, else {@code chromium} or {@code chromium-browser} on
 * the PATH (scripts/test.sh installs it); when none is found the test is skipped, but fails under {@code CI=true}. The
 * page and the screenshot stay in {@code target/capacity-report-it/}.
 *
 * <p>The same for {@code capacity --target … --report DIR}'s page of the targets side by side ({@link ComparisonPage}),
 * written from constructed rows (VictoriaMetrics by import, Prometheus by remote write 2.0, Thanos receive by remote
 * write 1.0 without its disk figure, Prometheus' verdict with a {@code <script>}) into {@code targets/} there: each
 * target's name and capacity are in the parsed DOM, one bar per known figure, no script element; its screenshot is
 * not blank and shows the bars.
 */
@RunsAlone
class CapacityReportPageIT {

    static final Path DIR = Path.of("target/capacity-report-it").toAbsolutePath();
    static final String HOSTILE_REASON = "the target's CPU is saturated <script>document.title='pwned'</script>";
    static final String HOSTILE_VERDICT = "failing step 3: limited by tsdb-cpu <script>document.title='pwned'</script>";
    static String chromium;
    static Path page;
    static List<TargetComparison.Row> rows;
    static Path comparison;

    @BeforeAll
    static void writePage() throws IOException {
        chromium = findChromium();
        if (chromium == null) {
            String why =
                    "no chromium (TSDB_WRITER_CHROMIUM, /usr/bin/chromium, chromium on the PATH): apt-get install chromium";
            assertThat("true".equals(System.getenv("CI")))
                    .as(why + " (CI=true: a missing browser fails the test)")
                    .isFalse();
            Assumptions.abort(why);
        }
        Bottleneck.Verdict ok =
                new Bottleneck.Verdict(Bottleneck.Resource.INPUT, "keeping up", "", List.of(), "eff 100%");
        Bottleneck.Verdict cpu = new Bottleneck.Verdict(
                Bottleneck.Resource.TARGET_CPU,
                HOSTILE_REASON,
                "give the TSDB more cores",
                List.of(Bottleneck.Resource.TARGET_INSERT_CONCURRENCY),
                "target cpu 3.9/4");
        List<CapacityStep> steps = List.of(
                step(1, 1_000, 1.0, 0.120, ok).toBuilder()
                        .limit(new StepLimit(18_252, 2028, 2051))
                        .build(),
                step(2, 2_000, 0.995, 0.250, ok).toBuilder()
                        .limit(new StepLimit(0, 2028, Double.NaN))
                        .build(),
                step(3, 4_000, 0.8, 1.750, cpu));
        CapacitySearch.Result r = new CapacitySearch.Result(
                steps, steps.get(1).writtenPerMinute(), steps.get(1), steps.get(2), 0, null, null);
        List<Path> files = CapacityPage.write(
                DIR,
                r,
                new CapacityPage.Run(
                        "2 cores, 7.8 GiB, Linux 6.1 (amd64), Java 25",
                        "tsdb-writer capacity --start-input-rate 1000 --query-rate 5 --report " + DIR,
                        10,
                        null));
        page = files.get(0);
        writeComparisonPage();
    }

    /** Three targets' rows, their cost figures read from /metrics pages as a search reads them; the page in {@code targets/}. */
    static void writeComparisonPage() throws IOException {
        String vm =
                """
                process_cpu_seconds_total 12.5
                process_resident_memory_bytes 104857600
                vm_cache_entries{type="storage/hour_metric_ids"} 50000
                vm_data_size_bytes{type="indexdb/file"} 1000000
                vm_data_size_bytes{type="storage/small"} 3000000
                vm_rows{type="indexdb/file"} 200000
                vm_rows{type="storage/small"} 8000000
                """;
        String prom =
                """
                process_cpu_seconds_total 40
                process_resident_memory_bytes 209715200
                prometheus_tsdb_head_series 50000
                prometheus_tsdb_head_samples_appended_total{type="float"} 6000000
                prometheus_tsdb_storage_blocks_bytes 0
                prometheus_tsdb_wal_storage_size_bytes 7000000
                prometheus_tsdb_head_chunks_storage_size_bytes 2000000
                """;
        // Thanos receive's page without its WAL size: the disk figure is unknown
        String thanos =
                """
                process_cpu_seconds_total 30
                process_resident_memory_bytes 8192000
                prometheus_tsdb_head_series{tenant="default-tenant"} 1000
                prometheus_tsdb_head_samples_appended_total{tenant="default-tenant",type="float"} 4000000
                prometheus_tsdb_storage_blocks_bytes{tenant="default-tenant"} 0
                """;
        rows = List.of(
                TargetComparison.Row.of(
                        "vm",
                        SearchTarget.parse("vm=http://vm:8428").protocol(),
                        12_000_000,
                        0.995,
                        0.123,
                        "failing step 4: limited by tsdb-cpu: 2.0 of 2 cores",
                        costs(vm, 10, 5_000_000)),
                TargetComparison.Row.of(
                        "prom",
                        SearchTarget.parse("prom=http://prom:9090/api/v1/write,output=remote-write,"
                                        + "remote-write-version=2")
                                .protocol(),
                        6_000_000,
                        0.992,
                        0.310,
                        HOSTILE_VERDICT,
                        costs(prom, 25, 6_000_000)),
                TargetComparison.Row.of(
                        "thanos",
                        SearchTarget.parse("thanos=http://thanos:19291/api/v1/receive,output=remote-write")
                                .protocol(),
                        3_000_000,
                        0.990,
                        0.870,
                        "failing step 2: limited by write-latency",
                        costs(thanos, 27, 1_500_000)));
        Path dir = DIR.resolve("targets");
        Files.createDirectories(dir);
        comparison = dir.resolve(CapacityPage.HTML_FILE);
        Files.writeString(
                comparison,
                ComparisonPage.html(
                        rows,
                        CapacityPage.HTML_FILE,
                        "2 cores, 7.8 GiB, Linux 6.1 (amd64), Java 25",
                        "tsdb-writer capacity --target vm=http://vm:8428 --target prom=… --target thanos=… --report "
                                + dir),
                StandardCharsets.UTF_8);
    }

    /** One measured window whose CPU counter grew from {@code cpuFrom} to the page's; memory and disk from {@code page}. */
    static CostFigures costs(String page, double cpuFrom, double samples) {
        CpuPerSamples cpu = new CpuPerSamples();
        String start = page.replaceAll("process_cpu_seconds_total .*", "process_cpu_seconds_total " + cpuFrom);
        PromSnapshot end = PromSnapshot.parse(page, 1);
        cpu.add(List.of(PromSnapshot.parse(start, 0)), List.of(end), samples);
        return CostFigures.of(cpu, List.of(end));
    }

    static CapacityStep step(
            int index, double pointsPerSecond, double efficiency, double queryP99Seconds, Bottleneck.Verdict verdict) {
        double expected = pointsPerSecond * 60 * 10 * 10;
        boolean passed = efficiency >= 0.99;
        return CapacityStep.builder()
                .index(index)
                .refine(false)
                .timeMultiplier(10)
                .inputPointsPerSecond(pointsPerSecond)
                .expectedPerMinute(expected)
                .writtenPerMinute(expected * efficiency)
                .efficiency(efficiency)
                .p50Seconds(0.05)
                .p99Seconds(0.2 * index)
                .permitWaitMs(1)
                .lagStart(0)
                .lagEnd(passed ? 100 : 50_000)
                .lagGrowing(!passed)
                .writerCpuCores(0.4 * index)
                .targetCpuCores(1.3 * index)
                .targetCores(4)
                .insertsCurrent(2)
                .insertsCapacity(8)
                .loadAverage(1.2)
                .passed(passed)
                .verdict(verdict)
                .lost(0)
                .producedPoints((long) pointsPerSecond * 60)
                .reads(new StepReads(5, 5, queryP99Seconds / 4, queryP99Seconds / 2, queryP99Seconds, 0, 0, 1, 16))
                .series(new StepSeries(100_000 * index, 10 * index, index, 2 * index))
                .build();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theBrowserShowsTheCapacityEachStepsRateAndQueryP99AndTheVerdict() throws Exception {
        String dom = run(List.of("--dump-dom", page.toUri().toString()), DIR.resolve("dump-dom.log"));

        assertThat(dom)
                .contains("<title>tsdb-writer capacity: 11,940,000 samples/min</title>")
                .contains(
                        "capacity: 11,940,000 samples/min sustained (step 2: 2,000 points/s x M=10 x N=10, efficiency 99.5%")
                // each step's offered and written samples/min and query p99 in its row
                .contains(
                        "<td>6,000,000</td><td>6,000,000</td>",
                        "<td>12,000,000</td><td>11,940,000</td>",
                        "<td>24,000,000</td><td>19,200,000</td>")
                .contains("<td>0.120</td>", "<td>0.250</td>", "<td>1.750</td>")
                // and as the chart's points
                .contains(
                        "<title>step 1: query p99 0.120 s</title>",
                        "<title>step 3: query p99 1.750 s</title>",
                        "<title>step 3: written 19,200,000 samples/min</title>",
                        "capacity 11,940,000 samples/min</text>")
                .contains(
                        "<dd class=\"limited-by\">target-cpu</dd>",
                        "<dd class=\"advice\">give the TSDB more cores</dd>",
                        "<dd class=\"also-saturated\">target-insert-concurrency</dd>")
                // the series limit's table (steps 1 and 2 had one, step 3 not) and step 1's tooltip
                .contains(
                        "<h2>Series limit</h2>",
                        "<td>1</td><td>2,028</td><td>18,252</td><td>2,051</td>",
                        "<td>2</td><td>2,028</td><td>0</td><td>–</td>",
                        "<td>3</td><td>–</td><td>–</td><td>–</td>",
                        "<title>step 1: written 6,000,000 samples/min; series limit: 18,252 samples dropped, 2,028 series "
                                + "admitted, 2,051 new series in the TSDB</title>")
                // the reason's markup is text in the parsed page, never an element
                .contains("the target's CPU is saturated &lt;script&gt;document.title='pwned'&lt;/script&gt;")
                .doesNotContain("<script")
                .doesNotContain("pwned</title>");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theScreenshotShowsTheChart() throws Exception {
        Path png = DIR.resolve("capacity-report.png");
        Files.deleteIfExists(png);
        run(
                List.of(
                        "--screenshot=" + png,
                        "--window-size=1280,1400",
                        "--hide-scrollbars",
                        page.toUri().toString()),
                DIR.resolve("screenshot.log"));

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as(png + " is a PNG").isNotNull();
        assertThat(image.getWidth()).isEqualTo(1280);
        Set<Integer> colours = new HashSet<>();
        int written = 0;
        int query = 0;
        int pass = 0;
        int fail = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                written += rgb == 0x1f77b4 ? 1 : 0;
                query += rgb == 0xff7f0e ? 1 : 0;
                pass += rgb == 0x2ca02c ? 1 : 0;
                fail += rgb == 0xd62728 ? 1 : 0;
            }
        }
        assertThat(colours.size()).as("distinct colours in " + png).isGreaterThan(50);
        // the written line, the query p99 line and points, the passing steps' and the failing step's dots are drawn
        assertThat(List.of(written, query, pass, fail))
                .as("pixels of #1f77b4, #ff7f0e, #2ca02c, #d62728 in " + png)
                .allSatisfy(n -> assertThat(n).isGreaterThan(40));
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theBrowserShowsTheTargetsSideBySideWithOneBarPerKnownFigure() throws Exception {
        String dom = run(List.of("--dump-dom", comparison.toUri().toString()), DIR.resolve("targets-dump-dom.log"));

        assertThat(dom)
                .contains("<title>tsdb-writer capacity: 3 targets</title>")
                .contains(
                        "<a href=\"vm/capacity-report.html\">vm</a></td><td>import</td><td class=\"num\">12,000,000</td>",
                        "<a href=\"prom/capacity-report.html\">prom</a></td><td>remote write 2.0</td><td class=\"num\">6,000,000</td>",
                        "<a href=\"thanos/capacity-report.html\">thanos</a></td><td>remote write 1.0</td><td class=\"num\">3,000,000</td>")
                // the capacity chart's bars: the largest fills 440 px, the others in proportion
                .contains(
                        "<title>vm: 12,000,000 samples/min</title>",
                        "<title>prom: 6,000,000 samples/min</title>",
                        "<title>thanos: 3,000,000 samples/min</title>",
                        "width=\"220.0\"",
                        "width=\"110.0\"")
                // Thanos' unknown disk figure: text, no bar
                .contains(ComparisonPage.UNKNOWN)
                .doesNotContain("<title>thanos: – bytes/sample")
                .contains("failing step 3: limited by tsdb-cpu &lt;script&gt;document.title='pwned'&lt;/script&gt;")
                .doesNotContain("<script")
                .doesNotContain("pwned</title>");
        long known = 0;
        for (TargetComparison.Row r : rows) {
            known += DoubleStream.of(
                            r.capacityPerMinute(),
                            r.p99Seconds(),
                            r.costs().cpuSecondsPerMillion().value(),
                            r.costs().residentBytesPerSeries().value(),
                            r.costs().bytesPerSample().value())
                    .filter(Double::isFinite)
                    .count();
        }
        assertThat(known).as("known figures: 3 targets x 5, less Thanos' disk").isEqualTo(14);
        assertThat(dom.split("<rect class=\"bar\"", -1).length - 1)
                .as("bars in the parsed page")
                .isEqualTo((int) known);
        assertThat(dom.split("<svg", -1).length - 1).as("one chart per figure").isEqualTo(5);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theComparisonScreenshotShowsTheBars() throws Exception {
        Path png = DIR.resolve("targets").resolve("capacity-report.png");
        Files.deleteIfExists(png);
        run(
                List.of(
                        "--screenshot=" + png,
                        "--window-size=1280,2000",
                        "--hide-scrollbars",
                        comparison.toUri().toString()),
                DIR.resolve("targets-screenshot.log"));

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as(png + " is a PNG").isNotNull();
        assertThat(image.getWidth()).isEqualTo(1280);
        Set<Integer> colours = new HashSet<>();
        int bar = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                bar += rgb == Integer.parseInt(ComparisonPage.BAR_COLOUR.substring(1), 16) ? 1 : 0;
            }
        }
        assertThat(colours.size()).as("distinct colours in " + png).isGreaterThan(50);
        // 14 bars 16 px high; the shortest of each chart is at least a few px wide
        assertThat(bar)
                .as("pixels of " + ComparisonPage.BAR_COLOUR + " in " + png)
                .isGreaterThan(14 * 16 * 10);
    }

    /** Runs headless chromium with {@code args}; returns its standard output. Its standard error goes to {@code log}. */
    static String run(List<String> args, Path log) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        List<String> cmd = new ArrayList<>(List.of(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-extensions",
                "--user-data-dir=" + profile));
        cmd.addAll(args);
        Path out = Files.createTempFile("chromium", ".out");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(log.toFile())
                .start();
        try {
            if (!p.waitFor(150, TimeUnit.SECONDS)) {
                throw new AssertionError("chromium did not finish in 150 s: " + cmd + "; its log: " + log);
            }
            assertThat(p.exitValue())
                    .as("chromium's exit code, " + cmd + "; its log: " + Files.readString(log))
                    .isZero();
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            Files.deleteIfExists(out);
            deleteTree(profile);
        }
    }

    static String findChromium() {
        String env = System.getenv("TSDB_WRITER_CHROMIUM");
        if (env != null && !env.isBlank()) {
            return env;
        }
        if (Files.isExecutable(Path.of("/usr/bin/chromium"))) {
            return "/usr/bin/chromium";
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }

    static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
