package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.lab.IngestDelays;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CapacityPageTest {

    static final String HOSTILE = "<script>alert('x')</script> & \"quoted\" | piped";

    /** A step whose figures follow from its number: written = expected × efficiency. */
    static CapacityStep step(
            int index,
            boolean passed,
            double pointsPerSecond,
            double efficiency,
            StepReads reads,
            StepSeries series,
            Bottleneck.Verdict verdict) {
        double expected = pointsPerSecond * 60 * 10;
        return CapacityStep.builder()
                .index(index)
                .refine(false)
                .timeMultiplier(10)
                .inputPointsPerSecond(pointsPerSecond)
                .expectedPerMinute(expected)
                .writtenPerMinute(expected * efficiency)
                .efficiency(efficiency)
                .p50Seconds(0.05 * index)
                .p99Seconds(0.1 * index)
                .permitWaitMs(1.5)
                .lagStart(100)
                .lagEnd(passed ? 120 : 90_000)
                .lagGrowing(!passed)
                .writerCpuCores(0.5 * index)
                .targetCpuCores(1.25 * index)
                .targetCores(4)
                .insertsCurrent(2)
                .insertsCapacity(8)
                .loadAverage(1.5)
                .passed(passed)
                .verdict(verdict)
                .lost(0)
                .producedPoints((long) (pointsPerSecond * 60))
                .reads(reads)
                .series(series)
                .build();
    }

    static Bottleneck.Verdict verdict(Bottleneck.Resource resource, String reason, String advice) {
        return new Bottleneck.Verdict(resource, reason, advice, List.of(), "cpu 3.9/4 cores");
    }

    static StepReads reads(double p99Seconds) {
        return new StepReads(5, 4.5, p99Seconds / 4, p99Seconds / 2, p99Seconds, 1, 0, 2, 16);
    }

    /** Three steps: 1000 and 2000 points/s pass, 4000 fails limited by the target's CPU (with {@code reason}). */
    static CapacitySearch.Result result(String reason, boolean withReads, boolean withSeries) {
        Bottleneck.Verdict ok = verdict(Bottleneck.Resource.INPUT, "keeping up", "");
        CapacityStep s1 = step(
                1,
                true,
                1000,
                1.0,
                withReads ? reads(0.120) : null,
                withSeries ? new StepSeries(50_000, 12.5, 3.25, 7.5) : null,
                ok);
        CapacityStep s2 = step(
                2,
                true,
                2000,
                0.995,
                withReads ? reads(0.250) : null,
                withSeries ? new StepSeries(60_000, 20, 4, 9) : null,
                ok);
        CapacityStep s3 = step(
                3,
                false,
                4000,
                0.8,
                withReads ? reads(1.750) : null,
                withSeries ? new StepSeries(70_000, 30, 40, 90) : null,
                verdict(Bottleneck.Resource.TARGET_CPU, reason, "give the TSDB more cores"));
        return new CapacitySearch.Result(List.of(s1, s2, s3), s2.writtenPerMinute(), s2, s3, 0, null, null);
    }

    static CapacityPage.Run run(String commandLine) {
        return new CapacityPage.Run("4 cores, 15.6 GiB, Linux", commandLine, 10, null);
    }

    @Test
    void everythingFromTheRunIsEscapedInTheHtml() {
        String html = CapacityPage.html(
                result(HOSTILE, true, true),
                new CapacityPage.Run(
                        "<b>machine</b>", "tsdb-writer capacity --topic '<img src=x onerror=alert(1)>'", 1, null));

        assertThat(html)
                .doesNotContain("<script")
                .doesNotContain("<img")
                .doesNotContain("<b>machine")
                .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; | piped")
                .contains("--topic &#39;&lt;img src=x onerror=alert(1)&gt;&#39;")
                .contains("&lt;b&gt;machine&lt;/b&gt;");
    }

    @Test
    void theMarkdownRendersHostileTextAsText() {
        String md = CapacityMarkdown.markdown(
                result(HOSTILE, false, false), run("tsdb-writer capacity --topic '<x>' ```"), null);

        assertThat(md)
                .doesNotContain("<script")
                .contains("- **reason**: &lt;script&gt;alert('x')&lt;/script&gt; &amp; \"quoted\" | piped")
                .contains("| 3 |")
                .contains("````\ntsdb-writer capacity --topic '<x>' ```\n````\n");
        // the table's cells never hold a bare |: every row has as many cells as the head
        List<String> rows = md.lines().filter(l -> l.startsWith("|")).toList();
        long heads = rows.get(0).chars().filter(c -> c == '|').count();
        assertThat(rows).hasSize(5).allSatisfy(r -> assertThat(
                        r.replace("\\|", "").chars().filter(c -> c == '|').count())
                .isEqualTo(heads));
    }

    @Test
    void thePageIsSelfContained() {
        String html = CapacityPage.html(result("target CPU saturated", true, true), run("tsdb-writer capacity"));

        assertThat(html)
                .doesNotContain("<script")
                .doesNotContain("src=")
                .doesNotContain("href=")
                .doesNotContain("url(")
                .doesNotContain("@import")
                .contains("<style>")
                .contains("<svg xmlns=\"http://www.w3.org/2000/svg\"");
    }

    @Test
    void withoutReadsThereIsNoQuerySeriesNorQueryColumn() {
        CapacitySearch.Result r = result("target CPU saturated", false, false);
        String html = CapacityPage.html(r, run("tsdb-writer capacity --start-input-rate 1000"));

        assertThat(html)
                .contains("<h2>Ingestion per step</h2>")
                .doesNotContain("query")
                .doesNotContain("active series")
                .contains("class=\"written\"")
                .contains("class=\"offered\"")
                .contains("class=\"capacity\"");
        assertThat(CapacityPage.tables(r.steps())).singleElement().satisfies(t -> assertThat(t.columns())
                .extracting(CapacityPage.Column::head)
                .containsExactly(
                        "step",
                        "M",
                        "points/s in",
                        "offered samples/min",
                        "written samples/min",
                        "efficiency",
                        "write p99 s",
                        "lag records",
                        "writer CPU cores",
                        "TSDB CPU cores",
                        "passed",
                        "limited by"));
    }

    @Test
    void withReadsTheChartHasTheQueryP99OnASecondAxisAndTheTableItsColumns() {
        CapacitySearch.Result r = result("target CPU saturated", true, false);
        String html = CapacityPage.html(r, run("tsdb-writer capacity --query-rate 5"));

        assertThat(html)
                .contains("<h2>Ingestion and query latency p99 per step</h2>")
                .contains("query latency p99, s")
                .contains("<h2>Read load</h2>")
                .contains("<th>query p99 s</th>")
                .contains("<td>0.120</td>")
                .contains("<td>0.250</td>")
                .contains("<td>1.750</td>")
                .contains("<title>step 3: query p99 1.750 s</title>")
                .contains("<title>step 2: written 1,194,000 samples/min</title>");
        assertThat(html.split("<circle class=\"query-p99\"", -1)).hasSize(4);
        assertThat(html).doesNotContain("active series");
    }

    @Test
    void aStepWithoutReadsAmongStepsWithReadsShowsADashAndNoPoint() {
        CapacitySearch.Result all = result("r", true, false);
        CapacityStep noReads = step(4, false, 8000, 0.5, null, null, all.edge().verdict());
        CapacitySearch.Result r = new CapacitySearch.Result(
                List.of(all.steps().get(0), all.steps().get(1), all.steps().get(2), noReads),
                all.capacityPerMinute(),
                all.best(),
                all.edge(),
                0,
                null,
                null);

        String html = CapacityPage.html(r, run("c"));

        assertThat(html.split("<circle class=\"query-p99\"", -1)).hasSize(4);
        assertThat(html).contains("<tr id=\"steps-4\" class=\"fail\"");
        String row4 = html.substring(
                html.indexOf("<tr id=\"reads-4\""), html.indexOf("</tr>", html.indexOf("<tr id=\"reads-4\"")));
        assertThat(row4)
                .endsWith(
                        "><td>4</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td>");
    }

    @Test
    void theSeriesFiguresAppearWhenStepsCarryThem() {
        String html = CapacityPage.html(result("r", false, true), run("c"));

        assertThat(html)
                .contains("<h2>Series</h2>")
                .doesNotContain("<h2>Read load</h2>")
                .contains(
                        "<th>step</th><th>active series</th><th>new series/s</th><th>slow inserts/s</th><th>cache misses/s</th>")
                .contains("<td>3</td><td>70,000</td><td>30.0</td><td>40.0</td><td>90.0</td>");
    }

    @Test
    void theCapacityTheVerdictTheCpuAndTheMachineAreShown() {
        String html = CapacityPage.html(
                result("the target's CPU is saturated", false, false),
                run("tsdb-writer capacity --vm-url http://vm:8428"));

        assertThat(html)
                .contains(
                        "<p id=\"capacity\" class=\"capacity\">capacity: 1,194,000 samples/min sustained (step 2: 2,000 "
                                + "points/s x M=10 x N=10, efficiency 99.5%, write p99 0.200 s)</p>")
                .contains("<h2>Verdict (failing step 3, the nearest above the capacity)</h2>")
                .contains("<dt>limited by</dt><dd class=\"limited-by\">target-cpu</dd>")
                .contains("<dt>reason</dt><dd class=\"reason\">the target&#39;s CPU is saturated</dd>")
                .contains("<dt>advice</dt><dd class=\"advice\">give the TSDB more cores</dd>")
                .contains("<td>1.50</td><td>3.75 of 4</td>")
                .contains("<dd id=\"machine\">4 cores, 15.6 GiB, Linux</dd>")
                .contains("<code id=\"command\">tsdb-writer capacity --vm-url http://vm:8428</code>")
                .contains("<p id=\"lost\">lost: nothing (every produced sample was written)</p>");
    }

    @Test
    void noPassingStepSaysSo() {
        CapacitySearch.Result r0 = result("r", false, false);
        CapacitySearch.Result r =
                new CapacitySearch.Result(List.of(r0.edge()), Double.NaN, null, r0.edge(), 12, null, null);

        String html = CapacityPage.html(r, run("c"));

        assertThat(html)
                .contains("capacity: below the first step (no step passed); lower --start-input-rate")
                .contains("lost: 12 samples not written")
                .doesNotContain("class=\"capacity\" x1");
    }

    @Test
    void writeWritesBothFilesAndTheMarkdownLinksThePngBesideIt(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report");
        List<Path> files = CapacityPage.write(
                report,
                result("r", true, true),
                new CapacityPage.Run("m", "tsdb-writer capacity", 1, report.resolve("capacity.png")));

        assertThat(files).containsExactly(report.resolve("capacity-report.html"), report.resolve("capacity-report.md"));
        assertThat(Files.readString(files.get(0), StandardCharsets.UTF_8)).startsWith("<!DOCTYPE html>");
        assertThat(Files.readString(files.get(1), StandardCharsets.UTF_8))
                .contains("![capacity chart](capacity.png)")
                .contains("| step | M | points/s in |");
    }

    /** A step that measured the ingest delay adds its table: written samples/min beside p50/p99 per stage. */
    @Test
    void theIngestDelayHasATableBesideTheWrittenRate() {
        CapacitySearch.Result r = result("target CPU saturated", false, false);
        List<CapacityStep> steps = List.of(
                r.steps().get(0).toBuilder()
                        .delays(new IngestDelays(0.12, 0.48, 1.5, 2.75))
                        .build(),
                r.steps().get(1),
                r.steps().get(2));
        List<CapacityPage.Table> tables = CapacityPage.tables(steps);
        assertThat(tables).extracting(CapacityPage.Table::id).containsExactly("steps", "delay");
        CapacityPage.Table delay = tables.get(1);
        assertThat(delay.columns())
                .extracting(CapacityPage.Column::head)
                .containsExactly(
                        "step",
                        "written samples/min",
                        "acknowledged p50 s",
                        "acknowledged p99 s",
                        "committed p50 s",
                        "committed p99 s");
        assertThat(delay.columns().stream().map(c -> c.cell().apply(steps.get(0))))
                .containsExactly("1", "600,000", "0.120", "0.480", "1.500", "2.750");
        assertThat(delay.columns().stream().map(c -> c.cell().apply(steps.get(1))))
                .containsExactly("2", "1,194,000", "–", "–", "–", "–");
    }

    /** Steps 1 and 2 of {@link #result} with a series limit (step 2's writer page unread), step 3 without. */
    static List<CapacityStep> limitedSteps(CapacitySearch.Result r) {
        return List.of(
                r.steps().get(0).toBuilder()
                        .limit(new StepLimit(18_252, 2028, 2051))
                        .build(),
                r.steps().get(1).toBuilder()
                        .limit(new StepLimit(0, Double.NaN, Double.NaN))
                        .build(),
                r.steps().get(2));
    }

    /** A step whose writer had a series limit adds its table; the written points' tooltips and the lost line say it. */
    @Test
    void theSeriesLimitHasATableTheTooltipsAndTheLostLineSayItOnlyWithALimit() {
        CapacitySearch.Result plain = result("target CPU saturated", false, false);
        List<CapacityStep> steps = limitedSteps(plain);
        CapacitySearch.Result limited =
                new CapacitySearch.Result(steps, plain.capacityPerMinute(), steps.get(1), steps.get(2), 0, null, null);

        List<CapacityPage.Table> tables = CapacityPage.tables(steps);
        assertThat(tables).extracting(CapacityPage.Table::id).containsExactly("steps", "limit");
        CapacityPage.Table limit = tables.get(1);
        assertThat(limit.title()).isEqualTo("Series limit");
        assertThat(limit.columns())
                .extracting(CapacityPage.Column::head)
                .containsExactly(
                        "step",
                        "series admitted at the end",
                        "samples dropped by the limit, whole step",
                        "TSDB new series, whole step");
        // {step, series admitted, samples dropped, TSDB new series} per step: unread figures and no limit read –
        String[][] rows = {
            {"1", "2,028", "18,252", "2,051"},
            {"2", "–", "0", "–"},
            {"3", "–", "–", "–"},
        };
        for (int i = 0; i < rows.length; i++) {
            CapacityStep st = steps.get(i);
            assertThat(limit.columns().stream().map(c -> c.cell().apply(st)))
                    .as("step %d", i + 1)
                    .containsExactly(rows[i]);
        }

        String html = CapacityPage.html(limited, run("tsdb-writer capacity --max-hourly-series 2028"));
        assertThat(html)
                .contains("<h2>Series limit</h2>")
                .contains("<td>1</td><td>2,028</td><td>18,252</td><td>2,051</td>")
                .contains(
                        "<title>step 1: written 600,000 samples/min; series limit: 18,252 samples dropped, 2,028 series "
                                + "admitted, 2,051 new series in the TSDB</title>")
                .contains("<title>step 3: written 1,920,000 samples/min</title>")
                .contains("<p id=\"lost\">lost: nothing (every produced sample was written or dropped by the series "
                        + "limit)</p>");
        assertThat(CapacityMarkdown.markdown(limited, run("c"), null))
                .contains("## Series limit\n\n| step | series admitted at the end |")
                .contains("| 1 | 2,028 | 18,252 | 2,051 |")
                .contains("| 3 | – | – | – |");

        // no limit: nothing of it
        assertThat(CapacityPage.tables(plain.steps()))
                .extracting(CapacityPage.Table::id)
                .containsExactly("steps");
        assertThat(CapacityPage.html(plain, run("c")))
                .doesNotContain("Series limit", "series limit", "dropped")
                .contains("<p id=\"lost\">lost: nothing (every produced sample was written)</p>");
        assertThat(CapacityMarkdown.markdown(plain, run("c"), null)).doesNotContain("Series limit", "series limit");
    }

    /**
     * The PNG: a series limit adds a panel below the three, the image that much taller, the three drawn as without a
     * limit; the panel has the TSDB's new series (purple) and the dropped samples (red figures).
     */
    @Test
    void thePngHasTheSeriesLimitPanelBelowTheOthersOnlyWithALimit() {
        System.setProperty("java.awt.headless", "true");
        CapacitySearch.Result plain = result("target CPU saturated", false, false);
        BufferedImage without = CapacityChart.render("t", "s", plain.steps());
        BufferedImage with = CapacityChart.render("t", "s", limitedSteps(plain));

        assertThat(without.getHeight()).isEqualTo(CapacityChart.HEIGHT);
        assertThat(with.getHeight()).isEqualTo(CapacityChart.HEIGHT + CapacityChart.LIMIT_PANEL);
        assertThat(with.getWidth()).isEqualTo(without.getWidth());
        int panelTop = CapacityChart.LIMIT_PANEL_TOP;
        for (int y = 0; y < panelTop; y++) {
            for (int x = 0; x < with.getWidth(); x++) {
                if (with.getRGB(x, y) != without.getRGB(x, y)) {
                    throw new AssertionError("the three panels differ at " + x + "," + y);
                }
            }
        }
        assertThat(count(without, panelTop, 0x9467bd) + count(without, panelTop, 0xd62728))
                .as("nothing drawn below the three panels without a limit")
                .isZero();
        assertThat(count(with, panelTop, 0x9467bd)).as("the TSDB's new series").isGreaterThan(20);
        assertThat(count(with, panelTop, 0xd62728))
                .as("the dropped samples' figures")
                .isGreaterThan(10);
        assertThat(CapacityChart.dropped(new StepLimit(18_252, 2028, 2051))).isEqualTo("dropped 18,252");
    }

    /** Pixels of colour {@code rgb} from row {@code fromY} down. */
    private static int count(BufferedImage image, int fromY, int rgb) {
        int n = 0;
        for (int y = fromY; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                n += (image.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
            }
        }
        return n;
    }
}
