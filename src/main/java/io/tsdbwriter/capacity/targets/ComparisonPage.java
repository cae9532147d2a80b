package io.tsdbwriter.capacity.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The targets of one {@code capacity --target …} run side by side as one self-contained HTML page (inline CSS and
 * inline SVG, no script, nothing fetched): a heading; the table of {@link TargetComparison} (target, protocol, capacity
 * samples/min, efficiency, write p99 s, CPU-s/1M samples, RSS bytes/series, disk bytes/sample, the verdict or
 * {@code search failed: …}), each target's name linking its own report {@code NAME/<reportFile>} (a failed search's
 * name links nothing); under it how each cost figure was measured and from which metrics ({@link CostNotes#html});
 * then one horizontal bar chart per figure ({@link #CHARTS}: capacity, write p99, CPU, memory, disk), one row per
 * target in the order given, a bar ({@code <rect class="bar">}) per known figure, none and the text
 * {@value #UNKNOWN} for an unknown one (NaN, or a failed search); last the machine line and the command line to
 * reproduce the run. Every text from the data is escaped ({@link Html#escape}). Stateless; thread-safe.
 */
public final class ComparisonPage {

    /** The text a target's row of a chart carries instead of a bar when its figure is unknown. */
    public static final String UNKNOWN = "– unknown";

    /**
     * One bar chart.
     *
     * @param id             its element id ({@code chart-ID})
     * @param title          what the bars are, their unit and which way is better
     * @param unit           the unit after a value in a bar's tooltip
     * @param column         the {@link TargetComparison.Row#cells(boolean)} cell that shows the value as text
     * @param value          the figure of a row in its unit; NaN when unknown
     */
    record Chart(String id, String title, String unit, int column, ToDoubleFunction<TargetComparison.Row> value) {}

    /** The charts, in the order of the table's columns. */
    static final List<Chart> CHARTS = List.of(
            new Chart(
                    "capacity",
                    "capacity, samples/min (higher is better)",
                    "samples/min",
                    2,
                    TargetComparison.Row::capacityPerMinute),
            new Chart(
                    "p99",
                    "write latency p99 of the best passing step, seconds (lower is better)",
                    "s",
                    4,
                    TargetComparison.Row::p99Seconds),
            new Chart(
                    "cpu",
                    "CPU seconds per 1M samples written (lower is better)",
                    "CPU-s/1M samples",
                    5,
                    r -> r.costs() == null
                            ? Double.NaN
                            : r.costs().cpuSecondsPerMillion().value()),
            new Chart(
                    "memory",
                    "resident memory (RSS) bytes per active series (lower is better)",
                    "bytes/series",
                    6,
                    r -> r.costs() == null
                            ? Double.NaN
                            : r.costs().residentBytesPerSeries().value()),
            new Chart(
                    "disk",
                    "disk bytes per sample stored (lower is better)",
                    "bytes/sample",
                    7,
                    r -> r.costs() == null
                            ? Double.NaN
                            : r.costs().bytesPerSample().value()));

    /** The chart added when a target's search measured query latencies (its cell after the cost figures'). */
    static final Chart QUERY_CHART = new Chart(
            "query-p99",
            "query latency p99 of the best passing step under --query-rate, seconds " + "(lower is better)",
            "s",
            TargetComparison.LAST_NUMBER + 2,
            TargetComparison.Row::queryP99Seconds);

    static final int WIDTH = 760;
    private static final int LABEL = 150;
    private static final int BAR = 440;
    private static final int ROW = 26;
    private static final int BAR_HEIGHT = 16;
    private static final int PAD = 6;
    /** The bars' fill colour, {@code #rrggbb}. */
    public static final String BAR_COLOUR = "#1f77b4";

    private ComparisonPage() {}

    /**
     * The page as one string.
     *
     * @param rows        the targets in the order given
     * @param reportFile  the file name of each target's own HTML report in {@code NAME/}, relative to this page's directory
     * @param machine     the machine line
     * @param commandLine the command line to reproduce the run, secrets redacted by the caller
     */
    public static String html(List<TargetComparison.Row> rows, String reportFile, String machine, String commandLine) {
        StringBuilder b = new StringBuilder(16_384);
        String title = "tsdb-writer capacity: " + rows.size() + " targets";
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(Html.escape(title))
                .append("</title>\n<style>\n")
                .append(CSS)
                .append("</style>\n</head>\n<body>\n<h1>")
                .append(Html.escape(title))
                .append("</h1>\n");
        b.append("<section id=\"targets\">\n<h2>")
                .append(Html.escape(TargetComparison.HEADING))
                .append("</h2>\n<p>")
                .append(Html.escape(TargetComparison.INTRO))
                .append("</p>\n");
        table(b, rows, reportFile);
        b.append(CostNotes.html(rows)).append("</section>\n<section id=\"charts\">\n<h2>Figures per target</h2>\n");
        List<Chart> charts = new ArrayList<>(CHARTS);
        if (TargetComparison.hasReads(rows)) {
            charts.add(QUERY_CHART);
        }
        for (Chart c : charts) {
            b.append("<figure id=\"chart-")
                    .append(c.id())
                    .append("\">\n<figcaption>")
                    .append(Html.escape(c.title()))
                    .append("</figcaption>\n")
                    .append(svg(c, rows))
                    .append("</figure>\n");
        }
        b.append("</section>\n<section id=\"run\">\n<h2>Run</h2>\n<dl>\n<dt>machine</dt><dd id=\"machine\">")
                .append(Html.escape(machine))
                .append("</dd>\n<dt>reproduce</dt><dd><code id=\"command\">")
                .append(Html.escape(commandLine))
                .append("</code></dd>\n</dl>\n</section>\n</body>\n</html>\n");
        return b.toString();
    }

    private static void table(StringBuilder b, List<TargetComparison.Row> rows, String reportFile) {
        boolean queries = TargetComparison.hasReads(rows);
        List<String> heads = TargetComparison.heads(queries);
        b.append("<table>\n<thead><tr>");
        for (int i = 0; i < heads.size(); i++) {
            b.append("<th")
                    .append(numeric(i, queries))
                    .append('>')
                    .append(Html.escape(heads.get(i)))
                    .append("</th>");
        }
        b.append("</tr></thead>\n<tbody>\n");
        for (TargetComparison.Row r : rows) {
            b.append("<tr id=\"target-")
                    .append(Html.escape(r.name()))
                    .append("\" class=\"")
                    .append(r.isFailed() ? "fail" : "pass")
                    .append("\">");
            List<String> cells = r.cells(queries);
            for (int i = 0; i < cells.size(); i++) {
                String text = Html.escape(cells.get(i));
                if (i == 0 && !r.isFailed()) {
                    text = "<a href=\"" + Html.escape(r.name() + "/" + reportFile) + "\">" + text + "</a>";
                }
                b.append("<td")
                        .append(numeric(i, queries))
                        .append('>')
                        .append(text)
                        .append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</tbody>\n</table>\n");
    }

    private static String numeric(int column, boolean queries) {
        return column >= TargetComparison.FIRST_NUMBER && column <= TargetComparison.lastNumber(queries)
                ? " class=\"num\""
                : "";
    }

    /**
     * One chart's {@code <svg>}: per target a row with its name, then a bar as long as its figure ÷ the largest known
     * figure of the chart (the largest fills {@value #BAR} px; a figure at or below 0 draws a bar of width 0) and the
     * figure as text, or {@value #UNKNOWN} and no bar.
     */
    static String svg(Chart c, List<TargetComparison.Row> rows) {
        double max = 0;
        for (TargetComparison.Row r : rows) {
            double v = c.value().applyAsDouble(r);
            if (Double.isFinite(v)) {
                max = Math.max(max, v);
            }
        }
        int height = 2 * PAD + rows.size() * ROW;
        StringBuilder b = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" "
                        + "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                WIDTH,
                height,
                WIDTH,
                height,
                Html.escape(c.title())));
        b.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999999\"/>%n",
                LABEL,
                PAD,
                LABEL,
                height - PAD));
        for (int i = 0; i < rows.size(); i++) {
            TargetComparison.Row r = rows.get(i);
            double v = c.value().applyAsDouble(r);
            int top = PAD + i * ROW + (ROW - BAR_HEIGHT) / 2;
            int baseline = top + BAR_HEIGHT - 4;
            b.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" font-size=\"13\" text-anchor=\"end\">%s</text>%n",
                    LABEL - 8,
                    baseline,
                    Html.escape(r.name())));
            if (!Double.isFinite(v)) {
                b.append(String.format(
                        Locale.ROOT,
                        "<text class=\"unknown\" x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#777777\">%s</text>%n",
                        LABEL + 6,
                        baseline,
                        Html.escape(UNKNOWN)));
                continue;
            }
            double width = max > 0 && v > 0 ? Math.max(1, BAR * v / max) : 0;
            String text = r.cells(true).get(c.column());
            b.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                            + "<title>%s</title></rect>%n",
                    LABEL,
                    top,
                    width,
                    BAR_HEIGHT,
                    BAR_COLOUR,
                    Html.escape(r.name() + ": " + text + " " + c.unit())));
            b.append(String.format(
                    Locale.ROOT,
                    "<text class=\"value\" x=\"%.1f\" y=\"%d\" font-size=\"13\">%s</text>%n",
                    LABEL + width + 6,
                    baseline,
                    Html.escape(text)));
        }
        return b.append("</svg>\n").toString();
    }

    private static final String CSS =
            """
            body { font-family: sans-serif; margin: 24px; color: #222222; background: #ffffff; }
            h1 { font-size: 22px; margin-bottom: 4px; }
            h2 { font-size: 17px; margin-top: 24px; }
            section { overflow-x: auto; }
            table { border-collapse: collapse; font-size: 13px; }
            th, td { border: 1px solid #cccccc; padding: 3px 6px; text-align: left; }
            th { background: #f0f0f0; }
            td.num, th.num { text-align: right; white-space: nowrap; }
            td:nth-child(-n+2) { white-space: nowrap; }
            tr.pass td:first-child { border-left: 4px solid #2ca02c; }
            tr.fail td:first-child { border-left: 4px solid #d62728; }
            tr.fail { background: #fff3f3; }
            .notes { font-size: 12px; color: #555555; }
            figure { margin: 12px 0 20px 0; }
            figcaption { font-size: 14px; font-weight: bold; margin-bottom: 4px; }
            dl { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; }
            dt { font-weight: bold; }
            dd { margin: 0; }
            code { background: #f6f6f6; padding: 2px; }
            dd code { padding: 4px; display: block; white-space: pre-wrap; word-break: break-all; }
            """;
}
