package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.targets.Html;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The capacity search as one inline SVG chart for {@link CapacityPage}: the steps in order of offered samples/min on
 * the x axis; on the left y axis (samples/min) the offered rate (grey, dashed), the written rate (blue; its dots green
 * for a passing step, red for a failing one) and the capacity (a dashed green line); on the right y axis (seconds) the
 * query latency p99 (orange), drawn only when a step carries {@link StepReads}. Every point has a native tooltip
 * ({@code <title>}); a written point's also says the step's series limit figures when it carries a {@link StepLimit}
 * ({@code ; series limit: 18,252 samples dropped, 2,028 series admitted, 2,051 new series in the TSDB}); no script.
 * Every text is escaped ({@link Html#escape}). Stateless; thread-safe.
 */
final class CapacitySvg {

    static final int WIDTH = 960;
    static final int HEIGHT = 400;
    private static final int LEFT = 90;
    private static final int RIGHT = 80;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;
    static final String OFFERED = "#7f7f7f";
    static final String WRITTEN = "#1f77b4";
    static final String PASS = "#2ca02c";
    static final String FAIL = "#d62728";
    static final String QUERY = "#ff7f0e";

    private CapacitySvg() {}

    /**
     * The chart's {@code <svg>} element.
     *
     * @param steps             the search's steps, any order (sorted here by offered samples/min)
     * @param capacityPerMinute the capacity line, samples/min; NaN draws none
     */
    static String svg(List<CapacityStep> steps, double capacityPerMinute) {
        List<CapacityStep> sorted = new ArrayList<>(steps);
        sorted.sort(Comparator.comparingDouble(CapacityStep::expectedPerMinute));
        boolean reads = sorted.stream().anyMatch(s -> s.reads() != null);
        double leftMax = niceMax(Math.max(
                max(sorted, CapacityStep::expectedPerMinute),
                Math.max(
                        max(sorted, CapacityStep::writtenPerMinute),
                        Double.isFinite(capacityPerMinute) ? capacityPerMinute : 0)));
        double rightMax = reads ? niceMax(max(sorted, CapacitySvg::queryP99Seconds)) : 1;
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-svg\" viewBox=\"0 0 %d %d\" "
                        + "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"samples/min per step%s\">%n",
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT,
                reads ? " and query latency p99" : ""));
        b.append(String.format(
                Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, HEIGHT));
        axes(b, leftMax, rightMax, reads);
        xLabels(b, sorted);
        legend(b, reads);
        if (Double.isFinite(capacityPerMinute) && capacityPerMinute > 0) {
            double y = y(capacityPerMinute, leftMax);
            b.append(String.format(
                    Locale.ROOT,
                    "<line class=\"capacity\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
                            + "stroke-width=\"2\" stroke-dasharray=\"8 4\"/>%n",
                    LEFT,
                    y,
                    WIDTH - RIGHT,
                    y,
                    PASS));
            b.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">capacity %s samples/min</text>%n",
                    LEFT + 6,
                    y - 5,
                    PASS,
                    Html.escape(CapacityPage.count(capacityPerMinute))));
        }
        series(b, sorted, CapacityStep::expectedPerMinute, leftMax, OFFERED, "offered", "samples/min", true, false);
        series(b, sorted, CapacityStep::writtenPerMinute, leftMax, WRITTEN, "written", "samples/min", false, true);
        if (reads) {
            series(b, sorted, CapacitySvg::queryP99Seconds, rightMax, QUERY, "query p99", "s", false, false);
        }
        return b.append("</svg>\n").toString();
    }

    /** The query latency p99 of a step in seconds; NaN when it ran no read load. */
    static double queryP99Seconds(CapacityStep s) {
        return s.reads() == null ? Double.NaN : s.reads().p99Seconds();
    }

    private static void axes(StringBuilder b, double leftMax, double rightMax, boolean reads) {
        int x1 = WIDTH - RIGHT;
        int bottom = HEIGHT - BOTTOM;
        for (int k = 0; k <= 4; k++) {
            double y = bottom - (bottom - TOP) * k / 4.0;
            b.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>%n",
                    LEFT,
                    y,
                    x1,
                    y));
            b.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#333333\">%s</text>%n",
                    LEFT - 6,
                    y + 4,
                    Html.escape(shortCount(leftMax * k / 4))));
            if (reads) {
                b.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s</text>%n",
                        x1 + 6,
                        y + 4,
                        QUERY,
                        Html.escape(seconds(rightMax * k / 4))));
            }
        }
        b.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000000\"/>%n",
                LEFT,
                TOP,
                x1 - LEFT,
                bottom - TOP));
        b.append(String.format(
                Locale.ROOT,
                "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" "
                        + "text-anchor=\"middle\">samples/min</text>%n",
                (TOP + bottom) / 2,
                (TOP + bottom) / 2));
        if (reads) {
            int x = WIDTH - 14;
            b.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\" transform=\"rotate(90 %d %d)\" "
                            + "text-anchor=\"middle\">query latency p99, s</text>%n",
                    x,
                    (TOP + bottom) / 2,
                    QUERY,
                    x,
                    (TOP + bottom) / 2));
        }
        b.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">step (in order of "
                        + "offered samples/min; r = refinement)</text>%n",
                (LEFT + x1) / 2,
                HEIGHT - 8));
    }

    private static void xLabels(StringBuilder b, List<CapacityStep> steps) {
        for (int i = 0; i < steps.size(); i++) {
            b.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>%n",
                    x(i, steps.size()),
                    HEIGHT - BOTTOM + 16,
                    Html.escape(CapacityPage.stepName(steps.get(i)))));
        }
    }

    private static void legend(StringBuilder b, boolean reads) {
        String[][] items = reads
                ? new String[][] {
                    {OFFERED, "offered samples/min"},
                    {WRITTEN, "written samples/min (dot: green pass, red fail)"},
                    {QUERY, "query latency p99 (right axis)"}
                }
                : new String[][] {
                    {OFFERED, "offered samples/min"}, {WRITTEN, "written samples/min (dot: green pass, red fail)"}
                };
        int x = LEFT;
        for (String[] item : items) {
            b.append(String.format(
                    Locale.ROOT, "<rect x=\"%d\" y=\"14\" width=\"14\" height=\"4\" fill=\"%s\"/>%n", x, item[0]));
            b.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"12\">%s</text>%n", x + 18, Html.escape(item[1])));
            x += 40 + (int) Math.round(item[1].length() * 6.2);
        }
    }

    private static void series(
            StringBuilder b,
            List<CapacityStep> steps,
            ToDoubleFunction<CapacityStep> value,
            double max,
            String color,
            String name,
            String unit,
            boolean dashed,
            boolean passColors) {
        StringBuilder line = new StringBuilder();
        StringBuilder dots = new StringBuilder();
        for (int i = 0; i < steps.size(); i++) {
            CapacityStep s = steps.get(i);
            double v = value.applyAsDouble(s);
            if (!Double.isFinite(v)) {
                continue; // the line joins the known points
            }
            double x = x(i, steps.size());
            double y = y(v, max);
            line.append(line.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
            String fill = passColors ? (s.passed() ? PASS : FAIL) : color;
            String tip = "step " + CapacityPage.stepName(s) + ": " + name + " "
                    + ("s".equals(unit) ? seconds(v) : CapacityPage.count(v)) + " " + unit
                    + (passColors && s.limit() != null ? "; " + StepRunner.limitText(s.limit()) : "");
            dots.append(String.format(
                    Locale.ROOT,
                    "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>%s</title></circle>%n",
                    name.replace(' ', '-'),
                    x,
                    y,
                    fill,
                    Html.escape(tip)));
        }
        if (!line.isEmpty()) {
            b.append(String.format(
                    Locale.ROOT,
                    "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>%n",
                    name.replace(' ', '-'),
                    color,
                    dashed ? " stroke-dasharray=\"6 4\"" : "",
                    line));
        }
        b.append(dots);
    }

    private static double x(int i, int n) {
        int width = WIDTH - LEFT - RIGHT;
        return n <= 1 ? LEFT + width / 2.0 : LEFT + 30 + (width - 60.0) * i / (n - 1);
    }

    private static double y(double v, double max) {
        int bottom = HEIGHT - BOTTOM;
        return bottom - (bottom - TOP) * Math.max(0, Math.min(v, max)) / max;
    }

    private static double max(List<CapacityStep> steps, ToDoubleFunction<CapacityStep> value) {
        double m = 0;
        for (CapacityStep s : steps) {
            double v = value.applyAsDouble(s);
            if (Double.isFinite(v)) {
                m = Math.max(m, v);
            }
        }
        return m;
    }

    /** The axis top: 1, 2 or 5 × a power of ten at or above 1.1 × {@code v}; 1 when nothing is positive. */
    static double niceMax(double v) {
        if (!(v > 0) || !Double.isFinite(v)) {
            return 1;
        }
        double target = v * 1.1;
        double p = Math.pow(10, Math.floor(Math.log10(target)));
        for (double f : new double[] {1, 2, 2.5, 5, 10}) {
            if (f * p >= target) {
                return f * p;
            }
        }
        return 10 * p;
    }

    private static String shortCount(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String seconds(double v) {
        return String.format(Locale.ROOT, v >= 10 ? "%.1f" : "%.3f", v);
    }
}
