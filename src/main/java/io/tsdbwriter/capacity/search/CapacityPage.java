package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.targets.Html;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The page a person reads after {@code capacity --report DIR}: {@value #HTML_FILE} (self-contained: inline CSS and an
 * inline SVG chart from {@link CapacitySvg}, no script, nothing fetched) and {@value #MARKDOWN_FILE} beside it (the same
 * content as text and a table, from {@link CapacityMarkdown}). Both show the capacity, the verdict (resource, reason,
 * advice), per step the offered and written samples/min, write latency p99, the writer's and the TSDB's CPU, the query
 * load's figures when steps carry {@link StepReads}, the series figures when they carry {@link StepSeries} and the
 * series limit's when they carry a {@link StepLimit} (series admitted, samples dropped by the limit, the TSDB's new
 * series; a run without a limit shows none of them), the machine and the command line to reproduce the run (as given:
 * its secrets are already redacted by the caller). Every text put into the HTML is escaped ({@link Html#escape}).
 * Stateless; thread-safe.
 */
public final class CapacityPage {

    /** The HTML page's file name in the report directory. */
    public static final String HTML_FILE = "capacity-report.html";
    /** The Markdown page's file name in the report directory. */
    public static final String MARKDOWN_FILE = "capacity-report.md";

    /**
     * What the page shows besides the steps.
     *
     * @param machine            the machine line ({@code Machine.line})
     * @param commandLine        the command line to reproduce the run, secrets redacted
     * @param instanceMultiplier the writers' N
     * @param chartPng           the PNG chart of {@code --chart}, or null when none is drawn (the Markdown links it)
     */
    public record Run(String machine, String commandLine, int instanceMultiplier, Path chartPng) {}

    /** One column of a steps' table: its head and a step's cell as plain text. */
    record Column(String head, Function<CapacityStep, String> cell) {}

    /** One table of the steps: its element id, its heading, its columns (one row per step). */
    record Table(String id, String title, List<Column> columns) {}

    private CapacityPage() {}

    /**
     * Writes {@value #HTML_FILE} and {@value #MARKDOWN_FILE} into {@code dir} (created when missing; files there of
     * those names are replaced).
     *
     * @return the two files written, HTML first
     * @throws IOException when the directory or a file cannot be written
     */
    public static List<Path> write(Path dir, CapacitySearch.Result r, Run run) throws IOException {
        Files.createDirectories(dir);
        Path html = dir.resolve(HTML_FILE);
        Path md = dir.resolve(MARKDOWN_FILE);
        Files.writeString(html, html(r, run), StandardCharsets.UTF_8);
        String chart = null;
        if (run.chartPng() != null) {
            Path png = run.chartPng().toAbsolutePath();
            chart = png.startsWith(dir.toAbsolutePath())
                    ? dir.toAbsolutePath().relativize(png).toString()
                    : png.toString();
        }
        Files.writeString(md, CapacityMarkdown.markdown(r, run, chart), StandardCharsets.UTF_8);
        return List.of(html, md);
    }

    /** The HTML page as one string. */
    static String html(CapacitySearch.Result r, Run run) {
        StringBuilder b = new StringBuilder(16_384);
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(Html.escape(title(r)))
                .append("</title>\n<style>\n")
                .append(CSS)
                .append("</style>\n</head>\n<body>\n");
        b.append("<h1>tsdb-writer capacity</h1>\n");
        b.append("<p id=\"capacity\" class=\"capacity\">")
                .append(Html.escape(capacity(r, run.instanceMultiplier())))
                .append("</p>\n");
        b.append("<section id=\"verdict\">\n<h2>")
                .append(Html.escape(verdictTitle(r)))
                .append("</h2>\n<dl>\n");
        for (String[] row : verdictRows(r)) {
            b.append("<dt>")
                    .append(Html.escape(row[0]))
                    .append("</dt><dd class=\"")
                    .append(row[0].replace(' ', '-'))
                    .append("\">")
                    .append(Html.escape(row[1]))
                    .append("</dd>\n");
        }
        b.append("</dl>\n<p id=\"lost\">").append(Html.escape(lost(r))).append("</p>\n</section>\n");
        b.append("<section id=\"chart\">\n<h2>")
                .append(Html.escape(chartTitle(r.steps())))
                .append("</h2>\n")
                .append(CapacitySvg.svg(r.steps(), r.capacityPerMinute()))
                .append("</section>\n");
        for (Table t : tables(r.steps())) {
            b.append("<section id=\"")
                    .append(t.id())
                    .append("\">\n<h2>")
                    .append(Html.escape(t.title()))
                    .append("</h2>\n<table>\n<thead><tr>");
            for (Column c : t.columns()) {
                b.append("<th>").append(Html.escape(c.head())).append("</th>");
            }
            b.append("</tr></thead>\n<tbody>\n");
            for (CapacityStep s : r.steps()) {
                b.append("<tr id=\"")
                        .append(t.id())
                        .append('-')
                        .append(Html.escape(stepName(s)))
                        .append("\" class=\"")
                        .append(s.passed() ? "pass" : "fail")
                        .append("\" title=\"")
                        .append(Html.escape(s.verdict().toString()))
                        .append("\">");
                for (Column c : t.columns()) {
                    b.append("<td>").append(Html.escape(c.cell().apply(s))).append("</td>");
                }
                b.append("</tr>\n");
            }
            b.append("</tbody>\n</table>\n</section>\n");
        }
        b.append("<p class=\"note\">").append(Html.escape(NOTE)).append("</p>\n");
        b.append("<section id=\"run\">\n<h2>Run</h2>\n<dl>\n<dt>machine</dt><dd id=\"machine\">")
                .append(Html.escape(run.machine()))
                .append("</dd>\n<dt>reproduce</dt><dd><code id=\"command\">")
                .append(Html.escape(run.commandLine()))
                .append("</code></dd>\n</dl>\n</section>\n</body>\n</html>\n");
        return b.toString();
    }

    /** The page's title: the capacity, or that no step passed. */
    static String title(CapacitySearch.Result r) {
        return "tsdb-writer capacity: "
                + (r.best() == null ? "no passing step" : count(r.capacityPerMinute()) + " samples/min");
    }

    /** The capacity sentence (as the console prints it). */
    static String capacity(CapacitySearch.Result r, int instanceMultiplier) {
        CapacityStep b = r.best();
        if (b == null) {
            return "capacity: below the first step (no step passed); lower --start-input-rate";
        }
        return String.format(
                Locale.ROOT,
                "capacity: %s samples/min sustained (step %s: %s points/s x M=%d x N=%d, efficiency %s, "
                        + "write p99 %s s)",
                count(r.capacityPerMinute()),
                stepName(b),
                count(b.inputPointsPerSecond()),
                b.timeMultiplier(),
                instanceMultiplier,
                percent(b.efficiency()),
                dec(b.p99Seconds(), 3));
    }

    /** The verdict's heading: which step it is of. */
    static String verdictTitle(CapacitySearch.Result r) {
        if (r.edge() == null) {
            return "Verdict: none (no step ran)";
        }
        if (r.ceiling() != null) {
            return "Verdict (last step " + stepName(r.edge()) + ")";
        }
        return r.edge().passed()
                ? "Verdict (last step " + stepName(r.edge()) + ", capacity not reached)"
                : "Verdict (failing step " + stepName(r.edge()) + ", the nearest above the capacity)";
    }

    /** The verdict as rows {name, text}: search end (when the largest M passed), limited by, reason, advice, also, evidence. */
    static List<String[]> verdictRows(CapacitySearch.Result r) {
        List<String[]> rows = new ArrayList<>();
        if (r.ceiling() != null) {
            rows.add(new String[] {"search end", r.ceiling()});
        }
        if (r.edge() != null) {
            Bottleneck.Verdict v = r.edge().verdict();
            rows.add(new String[] {"limited by", v.resource().label()});
            rows.add(new String[] {"reason", v.reason()});
            if (!v.advice().isEmpty()) {
                rows.add(new String[] {"advice", v.advice()});
            }
            if (!v.also().isEmpty()) {
                rows.add(new String[] {
                    "also saturated",
                    String.join(
                            ", ",
                            v.also().stream().map(Bottleneck.Resource::label).toList())
                });
            }
            rows.add(new String[] {"evidence", v.evidence()});
        }
        return rows;
    }

    /** What was lost; with a series limit, the samples it dropped are handled, not lost (as the console says it). */
    static String lost(CapacitySearch.Result r) {
        if (r.lost() != 0) {
            return "lost: " + r.lost() + " samples not written";
        }
        return limited(r.steps())
                ? "lost: nothing (every produced sample was written or dropped by the series limit)"
                : "lost: nothing (every produced sample was written)";
    }

    /** Whether a step's writer had a series limit ({@link StepLimit}). */
    static boolean limited(List<CapacityStep> steps) {
        return steps.stream().anyMatch(s -> s.limit() != null);
    }

    static String chartTitle(List<CapacityStep> steps) {
        return steps.stream().anyMatch(s -> s.reads() != null)
                ? "Ingestion and query latency p99 per step"
                : "Ingestion per step";
    }

    /**
     * The steps' tables: ingestion (id {@code steps}); the read load's when a step carries {@link StepReads} (id
     * {@code reads}); the series' when a step carries {@link StepSeries} (id {@code series}); the ingest delay's when a
     * step measured one (id {@code delay}: written samples/min beside the writer's ingest delay p50 and p99 to the
     * acknowledgement and to the offset commit); the series limit's when a step's writer had one (id {@code limit}:
     * the series its limiter admitted, the samples the limit dropped over the step, the targets' new series over the
     * step, {@link StepLimit}). A step without reads, series, delay or limit figures shows {@code –} in those tables.
     */
    static List<Table> tables(List<CapacityStep> steps) {
        List<Table> tables = new ArrayList<>();
        tables.add(new Table(
                "steps",
                "Steps",
                List.of(
                        new Column("step", CapacityPage::stepName),
                        new Column("M", s -> Integer.toString(s.timeMultiplier())),
                        new Column("points/s in", s -> count(s.inputPointsPerSecond())),
                        new Column("offered samples/min", s -> count(s.expectedPerMinute())),
                        new Column("written samples/min", s -> count(s.writtenPerMinute())),
                        new Column("efficiency", s -> percent(s.efficiency())),
                        new Column("write p99 s", s -> dec(s.p99Seconds(), 3)),
                        new Column(
                                "lag records",
                                s -> String.format(
                                        Locale.ROOT,
                                        "%.0f → %.0f%s",
                                        s.lagStart(),
                                        s.lagEnd(),
                                        s.lagGrowing() ? " growing" : "")),
                        new Column("writer CPU cores", s -> dec(s.writerCpuCores(), 2)),
                        new Column(
                                "TSDB CPU cores", s -> dec(s.targetCpuCores(), 2) + " of " + dec(s.targetCores(), 0)),
                        new Column("passed", s -> s.passed() ? "yes" : "NO"),
                        new Column("limited by", s -> s.verdict().resource().label()))));
        if (steps.stream().anyMatch(s -> s.reads() != null)) {
            tables.add(new Table(
                    "reads",
                    "Read load",
                    List.of(
                            new Column("step", CapacityPage::stepName),
                            new Column(
                                    "queries/s offered",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().offeredPerSecond(), 1)),
                            new Column(
                                    "queries/s answered",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().donePerSecond(), 1)),
                            new Column(
                                    "query p50 s",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().p50Seconds(), 3)),
                            new Column(
                                    "query p90 s",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().p90Seconds(), 3)),
                            new Column(
                                    "query p99 s",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().p99Seconds(), 3)),
                            new Column(
                                    "query errors",
                                    s -> s.reads() == null
                                            ? NONE
                                            : Long.toString(s.reads().errors())),
                            new Column(
                                    "query timeouts",
                                    s -> s.reads() == null
                                            ? NONE
                                            : Long.toString(s.reads().timeouts())),
                            new Column(
                                    "selects",
                                    s -> s.reads() == null
                                            ? NONE
                                            : dec(s.reads().selectsCurrent(), 1) + " of "
                                                    + dec(s.reads().selectsCapacity(), 0)))));
        }
        if (steps.stream().anyMatch(s -> s.series() != null)) {
            tables.add(new Table(
                    "series",
                    "Series",
                    List.of(
                            new Column("step", CapacityPage::stepName),
                            new Column(
                                    "active series",
                                    s -> s.series() == null
                                            ? NONE
                                            : count(s.series().activeSeries())),
                            new Column(
                                    "new series/s",
                                    s -> s.series() == null
                                            ? NONE
                                            : dec(s.series().createdPerSecond(), 1)),
                            new Column(
                                    "slow inserts/s",
                                    s -> s.series() == null
                                            ? NONE
                                            : dec(s.series().slowInsertsPerSecond(), 1)),
                            new Column(
                                    "cache misses/s",
                                    s -> s.series() == null
                                            ? NONE
                                            : dec(s.series().cacheMissesPerSecond(), 1)))));
        }
        if (steps.stream().anyMatch(s -> s.delays().measured())) {
            tables.add(new Table(
                    "delay",
                    "Ingest delay",
                    List.of(
                            new Column("step", CapacityPage::stepName),
                            new Column("written samples/min", s -> count(s.writtenPerMinute())),
                            new Column("acknowledged p50 s", s -> dec(s.delays().acknowledgedP50(), 3)),
                            new Column("acknowledged p99 s", s -> dec(s.delays().acknowledgedP99(), 3)),
                            new Column("committed p50 s", s -> dec(s.delays().committedP50(), 3)),
                            new Column("committed p99 s", s -> dec(s.delays().committedP99(), 3)))));
        }
        if (limited(steps)) {
            tables.add(new Table(
                    "limit",
                    "Series limit",
                    List.of(
                            new Column("step", CapacityPage::stepName),
                            new Column(
                                    "series admitted at the end",
                                    s -> s.limit() == null
                                            ? NONE
                                            : count(s.limit().admittedSeries())),
                            new Column(
                                    "samples dropped by the limit, whole step",
                                    s -> s.limit() == null
                                            ? NONE
                                            : count(s.limit().droppedSamples())),
                            new Column(
                                    "TSDB new series, whole step",
                                    s -> s.limit() == null
                                            ? NONE
                                            : count(s.limit().tsdbNewSeries())))));
        }
        return tables;
    }

    /** What the table's figures are. */
    static final String NOTE =
            "Rates are per minute (samples) or per second (points, queries, series) of each step's measured "
                    + "window, after the warm-up. Offered = what the input demanded (points x M x N); a step passes with the efficiency, "
                    + "the write p99 and the lag within the limits. CPU in cores; TSDB = the busiest target; selects = the target's "
                    + "concurrent selects of its capacity. Ingest delay = seconds from a batch's Kafka record timestamp to the "
                    + "TSDB's 2xx (acknowledged) and to the offset commit that covered it (committed). – = unknown or not "
                    + "measured.";

    private static final String NONE = "–";

    /** {@code 3} or {@code 3r} (a refinement step). */
    static String stepName(CapacityStep s) {
        return s.index() + (s.refine() ? "r" : "");
    }

    /** {@code 1,234,567}; {@code –} for NaN. */
    static String count(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : NONE;
    }

    static String percent(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.1f%%", ratio * 100) : NONE;
    }

    static String dec(double v, int digits) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + digits + "f", v) : NONE;
    }

    private static final String CSS =
            """
            body { font-family: sans-serif; margin: 24px; color: #222222; background: #ffffff; }
            h1 { font-size: 22px; margin-bottom: 4px; }
            h2 { font-size: 17px; margin-top: 24px; }
            section { overflow-x: auto; }
            .capacity { font-size: 16px; font-weight: bold; background: #eef6ee; border-left: 6px solid #2ca02c; padding: 8px 12px; }
            dl { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; }
            dt { font-weight: bold; }
            dd { margin: 0; }
            dd.limited-by { color: #d62728; font-weight: bold; }
            table { border-collapse: collapse; font-size: 13px; }
            th, td { border: 1px solid #cccccc; padding: 3px 6px; text-align: right; white-space: nowrap; }
            th { background: #f0f0f0; }
            tr.pass td:first-child { border-left: 4px solid #2ca02c; }
            tr.fail td:first-child { border-left: 4px solid #d62728; }
            tr.fail { background: #fff3f3; }
            code { background: #f6f6f6; padding: 4px; display: block; white-space: pre-wrap; word-break: break-all; }
            .note { font-size: 12px; color: #555555; }
            """;
}
