package io.tsdbwriter.capacity.search;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * The capacity search as a PNG, plain Java2D as {@code bench.BenchChart} draws the bench: three panels over the steps in
 * order of expected samples/min — expected and written samples/min (passing steps green, failing red), efficiency,
 * and p99 write latency with the writer's and the busiest target's CPU. When a step's writer had a series limit
 * ({@link StepLimit}) a fourth panel below them, the image {@link #LIMIT_PANEL} pixels taller: the series the limiter
 * admitted and the targets' new series over the step, each step's samples dropped by the limit written below its name; a
 * run without a limit draws the three panels only ({@value #WIDTH} × {@value #HEIGHT}). Headless. Stateless;
 * thread-safe.
 */
public final class CapacityChart {

    static final int WIDTH = 1200;
    static final int HEIGHT = 900;
    private static final int TOP = 70;
    /** One panel's height, and what the series limit's panel adds to {@link #HEIGHT}. */
    static final int LIMIT_PANEL = (HEIGHT - TOP - 40) / 3;
    /** Where the series limit's panel begins: below the three others. */
    static final int LIMIT_PANEL_TOP = TOP + 3 * LIMIT_PANEL;

    private static final Color EXPECTED = new Color(0x7f7f7f);
    private static final Color WRITTEN = new Color(0x1f77b4);
    private static final Color PASS = new Color(0x2ca02c);
    private static final Color FAIL = new Color(0xd62728);
    private static final Color CPU_W = new Color(0xff7f0e);
    private static final Color CPU_T = new Color(0x9467bd);

    private CapacityChart() {}

    /** Draws the chart into a PNG file. @throws IOException when it cannot be written */
    public static void write(Path file, String title, String subtitle, List<CapacityStep> steps) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = render(title, subtitle, steps);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }

    static BufferedImage render(String title, String subtitle, List<CapacityStep> steps) {
        boolean limited = CapacityPage.limited(steps);
        int height = HEIGHT + (limited ? LIMIT_PANEL : 0);
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, 20, 28);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.drawString(subtitle, 20, 48);
            List<CapacityStep> sorted = new ArrayList<>(steps);
            sorted.sort(Comparator.comparingDouble(CapacityStep::expectedPerMinute));
            int top = TOP;
            int h = LIMIT_PANEL;
            panel(
                    g,
                    sorted,
                    top,
                    h - 30,
                    "samples/min: expected (grey) and written (dots: green pass, red fail)",
                    List.of(
                            new Series(EXPECTED, CapacityStep::expectedPerMinute, false),
                            new Series(WRITTEN, CapacityStep::writtenPerMinute, true)),
                    0);
            panel(
                    g,
                    sorted,
                    top + h,
                    h - 30,
                    "efficiency (written / expected)",
                    List.of(new Series(WRITTEN, CapacityStep::efficiency, true)),
                    1);
            panel(
                    g,
                    sorted,
                    top + 2 * h,
                    h - 30,
                    "p99 write latency s (blue), writer CPU cores (orange), target CPU cores (purple)",
                    List.of(
                            new Series(WRITTEN, CapacityStep::p99Seconds, true),
                            new Series(CPU_W, CapacityStep::writerCpuCores, false),
                            new Series(CPU_T, CapacityStep::targetCpuCores, false)),
                    0);
            if (limited) {
                panel(
                        g,
                        sorted,
                        LIMIT_PANEL_TOP,
                        h - 30,
                        "series limit: series admitted (blue), TSDB new series over the step (purple); "
                                + "samples dropped by the limit over the step (red figures)",
                        List.of(
                                new Series(WRITTEN, CapacityChart::admittedSeries, false),
                                new Series(CPU_T, CapacityChart::tsdbNewSeries, false)),
                        0);
                dropped(g, sorted, LIMIT_PANEL_TOP + h - 2);
            }
        } finally {
            g.dispose();
        }
        return image;
    }

    private record Series(Color color, ToDoubleFunction<CapacityStep> value, boolean passColors) {}

    private static void panel(
            Graphics2D g,
            List<CapacityStep> steps,
            int y0,
            int height,
            String title,
            List<Series> series,
            double minMax) {
        int x0 = 110;
        int width = WIDTH - x0 - 40;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(title, x0, y0 + 14);
        int py = y0 + 24;
        int ph = height - 24;
        double max = minMax;
        for (Series s : series) {
            for (CapacityStep st : steps) {
                double v = s.value().applyAsDouble(st);
                if (Double.isFinite(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        if (!(max > 0)) {
            max = 1;
        }
        max *= 1.1;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.setColor(new Color(0xdddddd));
        for (int k = 0; k <= 4; k++) {
            int y = py + ph - ph * k / 4;
            g.drawLine(x0, y, x0 + width, y);
            g.setColor(Color.DARK_GRAY);
            g.drawString(label(max * k / 4), 10, y + 4);
            g.setColor(new Color(0xdddddd));
        }
        g.setColor(Color.BLACK);
        g.drawRect(x0, py, width, ph);
        int n = steps.size();
        for (int i = 0; i < n; i++) {
            int x = x(x0, width, n, i);
            CapacityStep st = steps.get(i);
            g.setColor(Color.DARK_GRAY);
            g.drawString(st.index() + (st.refine() ? "r" : ""), x - 6, py + ph + 14);
        }
        for (Series s : series) {
            g.setStroke(new BasicStroke(2f));
            int lx = -1;
            int ly = -1;
            for (int i = 0; i < n; i++) {
                double v = s.value().applyAsDouble(steps.get(i));
                if (!Double.isFinite(v)) {
                    lx = -1;
                    continue;
                }
                int x = x(x0, width, n, i);
                int y = py + ph - (int) Math.round(ph * v / max);
                g.setColor(s.color());
                if (lx >= 0) {
                    g.drawLine(lx, ly, x, y);
                }
                g.setColor(s.passColors() ? (steps.get(i).passed() ? PASS : FAIL) : s.color());
                g.fillOval(x - 5, y - 5, 10, 10);
                lx = x;
                ly = y;
            }
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static double admittedSeries(CapacityStep s) {
        return s.limit() == null ? Double.NaN : s.limit().admittedSeries();
    }

    private static double tsdbNewSeries(CapacityStep s) {
        return s.limit() == null ? Double.NaN : s.limit().tsdbNewSeries();
    }

    /** Each limited step's samples dropped by the limit, at its x, on the line {@code y} (below the step names). */
    private static void dropped(Graphics2D g, List<CapacityStep> steps, int y) {
        int x0 = 110;
        int width = WIDTH - x0 - 40;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.setColor(FAIL);
        for (int i = 0; i < steps.size(); i++) {
            StepLimit l = steps.get(i).limit();
            if (l != null) {
                String text = dropped(l);
                int x = x(x0, width, steps.size(), i);
                g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, y);
            }
        }
    }

    /** A step's samples dropped by the limit as its panel writes them: {@code dropped 18,252}. */
    static String dropped(StepLimit l) {
        return String.format(Locale.ROOT, "dropped %,d", l.droppedSamples());
    }

    private static int x(int x0, int width, int n, int i) {
        return n <= 1 ? x0 + width / 2 : x0 + 30 + (width - 60) * i / (n - 1);
    }

    private static String label(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
