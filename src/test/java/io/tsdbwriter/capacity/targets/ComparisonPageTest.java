package io.tsdbwriter.capacity.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.CostFigures;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The targets side by side as an HTML page: the table, the cost notes, one bar chart per figure, the run. */
class ComparisonPageTest {

    private static final String HOSTILE = "failing step 2: limited by tsdb-cpu <script>alert('x')</script>";

    private static final List<TargetComparison.Row> ROWS = List.of(
            TargetComparison.Row.of(
                    "vm",
                    "import",
                    12_345_678,
                    0.995,
                    0.123,
                    "failing step 4: limited by tsdb-cpu",
                    costs(0.5, 2097.152, 0.5, List.of())),
            TargetComparison.Row.failed("prom", "remote write 2.0", "ConnectException: <refused> & gone"),
            TargetComparison.Row.of(
                    "thanos",
                    "remote write 1.0",
                    6_172_839,
                    0.991,
                    0.5,
                    HOSTILE,
                    costs(2.0, 8192, Double.NaN, List.of(CostFigures.PROM_WAL))));

    private static final String PAGE = ComparisonPage.html(
            ROWS,
            "capacity-report.html",
            "2 cores, Linux <6.1>",
            "tsdb-writer capacity --target vm=http://vm:8428 --report out && echo");

    /** Figures as CostFigures carries them; the disk figure unknown when {@code disk} is NaN, {@code missing} its absent metrics. */
    private static CostFigures costs(double cpu, double rss, double disk, List<String> missing) {
        return new CostFigures(
                new CostFigures.Figure(
                        cpu, "process_cpu_seconds_total ÷ samples written", List.of(), "1 measured window"),
                new CostFigures.Figure(rss, CostFigures.RSS + " ÷ " + CostFigures.PROM_ACTIVE, List.of(), null),
                new CostFigures.Figure(
                        disk,
                        "(" + CostFigures.PROM_BLOCKS + " + " + CostFigures.PROM_WAL + ") ÷ "
                                + CostFigures.PROM_APPENDED,
                        missing,
                        null));
    }

    /** The {@code <figure>} of chart {@code id}. */
    private static String chart(String id) {
        int from = PAGE.indexOf("<figure id=\"chart-" + id + "\">");
        assertThat(from).as("chart " + id).isNotNegative();
        return PAGE.substring(from, PAGE.indexOf("</figure>", from));
    }

    private static int count(String text, String part) {
        Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void eachFigureGetsOneBarPerKnownTarget() {
        assertThat(ComparisonPage.CHARTS)
                .extracting(ComparisonPage.Chart::id)
                .containsExactly("capacity", "p99", "cpu", "memory", "disk");
        assertThat(List.of("capacity", "p99", "cpu", "memory", "disk"))
                .extracting(id -> count(chart(id), "<rect class=\"bar\""))
                .containsExactly(2, 2, 2, 2, 1);
        assertThat(count(PAGE, "<rect")).isEqualTo(9);
        // the largest figure fills the bar's 440 px, the others in proportion: 6,172,839 is half of 12,345,678
        assertThat(chart("capacity"))
                .contains(
                        "<rect class=\"bar\" x=\"150\" y=\"11\" width=\"440.0\" height=\"16\" fill=\"#1f77b4\"><title>vm: 12,345,678 samples/min</title></rect>",
                        "<text class=\"value\" x=\"596.0\" y=\"23\" font-size=\"13\">12,345,678</text>",
                        "<rect class=\"bar\" x=\"150\" y=\"63\" width=\"220.0\" height=\"16\" fill=\"#1f77b4\"><title>thanos: 6,172,839 samples/min</title></rect>");
        assertThat(chart("cpu"))
                .contains(
                        "width=\"110.0\" height=\"16\" fill=\"#1f77b4\"><title>vm: 0.500 CPU-s/1M samples</title>",
                        "width=\"440.0\" height=\"16\" fill=\"#1f77b4\"><title>thanos: 2.000 CPU-s/1M samples</title>");
    }

    @Test
    void aReadLoadAddsTheQueryColumnsAndTheQueryP99Chart() {
        List<TargetComparison.Row> rows = List.of(
                ROWS.get(0).withQueries(0.02, 0.4), ROWS.get(1), ROWS.get(2).withQueries(0.01, 0.1));
        String page = ComparisonPage.html(rows, "capacity-report.html", "m", "c");
        assertThat(page)
                .contains(
                        "<th class=\"num\">query p50 s</th><th class=\"num\">query p99 s</th><th>read back</th><th>verdict</th>",
                        "<td class=\"num\">0.020</td><td class=\"num\">0.400</td>",
                        "<figure id=\"chart-query-p99\">",
                        "<title>vm: 0.400 s</title>",
                        "<title>thanos: 0.100 s</title>");
        assertThat(PAGE).doesNotContain("query p99", "chart-query-p99");
    }

    @Test
    void eachChartSaysItsUnitAndWhichWayIsBetter() {
        assertThat(chart("capacity")).contains("<figcaption>capacity, samples/min (higher is better)</figcaption>");
        assertThat(chart("p99"))
                .contains(
                        "<figcaption>write latency p99 of the best passing step, seconds (lower is better)</figcaption>");
        assertThat(chart("cpu"))
                .contains("<figcaption>CPU seconds per 1M samples written (lower is better)</figcaption>");
        assertThat(chart("memory"))
                .contains("<figcaption>resident memory (RSS) bytes per active series (lower is better)</figcaption>");
        assertThat(chart("disk")).contains("<figcaption>disk bytes per sample stored (lower is better)</figcaption>");
    }

    @Test
    void anUnknownFigureHasNoBar() {
        String disk = chart("disk");
        // prom's search failed (row 2), thanos' disk figure is unknown (row 3): each its name and "– unknown", no bar
        assertThat(disk)
                .contains(
                        "<text x=\"142\" y=\"75\" font-size=\"13\" text-anchor=\"end\">thanos</text>\n"
                                + "<text class=\"unknown\" x=\"156\" y=\"75\" font-size=\"13\" fill=\"#777777\">– unknown</text>\n");
        assertThat(count(disk, "– unknown")).isEqualTo(2);
        assertThat(disk)
                .doesNotContain("<title>thanos:", "<title>prom:")
                .contains("<title>vm: 0.500 bytes/sample</title>");
        assertThat(count(PAGE, ">– unknown</text>")).isEqualTo(6);
    }

    @Test
    void aVerdictIsEscaped() {
        assertThat(PAGE)
                .contains(
                        "<td>failing step 2: limited by tsdb-cpu &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td>",
                        "<td>search failed: ConnectException: &lt;refused&gt; &amp; gone</td>",
                        "<dd id=\"machine\">2 cores, Linux &lt;6.1&gt;</dd>",
                        "<code id=\"command\">tsdb-writer capacity --target vm=http://vm:8428 --report out &amp;&amp; echo</code>")
                .doesNotContain("<script", "alert('x')");
    }

    @Test
    void targetNamesLinkToTheirOwnReports() {
        assertThat(PAGE)
                .contains(
                        "<tr id=\"target-vm\" class=\"pass\"><td><a href=\"vm/capacity-report.html\">vm</a></td><td>import</td>",
                        "<tr id=\"target-thanos\" class=\"pass\"><td><a href=\"thanos/capacity-report.html\">thanos</a></td>",
                        // a failed search wrote no report: its name links nothing
                        "<tr id=\"target-prom\" class=\"fail\"><td>prom</td><td>remote write 2.0</td>");
        assertThat(count(PAGE, "<a href=")).isEqualTo(2);
    }

    @Test
    void theTableHoldsTheMarkdownsCells() {
        assertThat(PAGE)
                .contains(
                        "<th>target</th><th>protocol</th><th class=\"num\">capacity samples/min</th><th class=\"num\">efficiency"
                                + "</th><th class=\"num\">write p99 s</th><th class=\"num\">CPU-s/1M samples</th><th class=\"num\">RSS bytes/series</th>"
                                + "<th class=\"num\">disk bytes/sample</th><th>read back</th><th>verdict</th>",
                        "<td class=\"num\">12,345,678</td><td class=\"num\">99.5%</td><td class=\"num\">0.123</td><td class=\"num\">0.500</td>"
                                + "<td class=\"num\">2,097</td><td class=\"num\">0.500</td><td>–</td><td>failing step 4: limited by tsdb-cpu</td>",
                        "<td class=\"num\">2.000</td><td class=\"num\">8,192</td><td class=\"num\">–</td>");
    }

    @Test
    void howEachFigureWasMeasuredTheMachineAndTheCommandFollowTheTable() {
        int table = PAGE.indexOf("</table>");
        int notes = PAGE.indexOf("<ul class=\"notes\">");
        int charts = PAGE.indexOf("<section id=\"charts\">");
        int run = PAGE.indexOf("<section id=\"run\">");
        assertThat(List.of(table, notes, charts, run)).isSorted().doesNotContain(-1);
        assertThat(PAGE)
                .contains(
                        "<p class=\"notes\">How the cost figures were measured, each from the target&#39;s own <code>/metrics</code>",
                        "<li><b>RSS bytes/series</b>: the TSDB process&#39;s resident memory per active series, read once after the last step: "
                                + "<code>process_resident_memory_bytes</code> ÷ VictoriaMetrics&#39; <code>vm_cache_entries{type=&quot;storage/"
                                + "hour_metric_ids&quot;}</code>",
                        "vm: <code>process_cpu_seconds_total ÷ samples written</code> (1 measured window)",
                        "thanos: <code>(prometheus_tsdb_storage_blocks_bytes + prometheus_tsdb_wal_storage_size_bytes) ÷ "
                                + "prometheus_tsdb_head_samples_appended_total</code>, missing <code>prometheus_tsdb_wal_storage_size_bytes</code>.</li>");
        // the failed target has no figures, so no entry
        assertThat(PAGE.substring(notes, charts)).doesNotContain("prom:");
    }

    @Test
    void thePageFetchesNothingAndRunsNothing() {
        assertThat(PAGE)
                .startsWith(
                        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tsdb-writer capacity: 3 targets</title>")
                .contains("<h1>tsdb-writer capacity: 3 targets</h1>", "<h2>Targets side by side</h2>")
                .doesNotContain("<script", "<link", "src=", "<img", "url(");
    }
}
