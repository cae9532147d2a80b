package io.tsdbwriter.bench;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.imageio.ImageIO;

/**
 * The benchmark chart as a PNG, drawn with plain Java2D (no chart library): one panel per batch shape (M, N); in
 * each, bars of samples/s written grouped by parallelism, one bar per write mode, each labelled with its ratio to
 * the ceiling, and the shape's ceiling as a dashed line. Headless. Stateless; thread-safe.
 */
public final class BenchChart {

    static final int WIDTH = 1400;
    static final int HEIGHT = 640;
    private static final Color[] MODE_COLORS = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x9467bd)
    };
    private static final Color CEILING = new Color(0xd62728);
    /** The plot area. */
    private static final int LEFT = 80;

    private static final int RIGHT = WIDTH - 20;
    private static final int TOP = 90;
    private static final int BOTTOM = HEIGHT - 90;

    /** Created on first use, after {@link #write} made AWT headless. */
    private static final class Fonts {
        static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 18);
        static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    }

    private BenchChart() {}

    /** Draws the chart into a PNG file. @throws IOException when it cannot be written */
    public static void write(
            Path file, String title, String subtitle, List<CeilingResult> ceilings, List<CellResult> cells)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = render(title, subtitle, ceilings, cells);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }

    static BufferedImage render(String title, String subtitle, List<CeilingResult> ceilings, List<CellResult> cells) {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            draw(g, title, subtitle, ceilings, cells);
        } finally {
            g.dispose();
        }
        return image;
    }

    private static void draw(
            Graphics2D g, String title, String subtitle, List<CeilingResult> ceilings, List<CellResult> cells) {
        g.setColor(Color.BLACK);
        g.setFont(Fonts.TITLE);
        g.drawString(title, 20, 28);
        g.setFont(Fonts.TEXT);
        g.drawString(subtitle, 20, 48);

        List<BenchCell.Shape> shapes = new ArrayList<>();
        ceilings.forEach(c -> shapes.add(c.shape()));
        cells.forEach(r -> {
            if (!shapes.contains(r.cell().shape())) {
                shapes.add(r.cell().shape());
            }
        });
        Set<String> modes = new LinkedHashSet<>();
        cells.forEach(r -> modes.add(r.modeLabel()));
        List<String> modeList = new ArrayList<>(modes);
        double max = 0;
        for (CeilingResult c : ceilings) {
            max = Math.max(max, finite(c.samplesPerSecond()));
        }
        for (CellResult r : cells) {
            max = Math.max(max, finite(r.samplesPerSecond()));
        }
        max = niceCeiling(max * 1.12);
        legend(g, modeList);
        axes(g, max);
        if (shapes.isEmpty()) {
            return;
        }
        double panelWidth = (RIGHT - LEFT) / (double) shapes.size();
        for (int si = 0; si < shapes.size(); si++) {
            panel(
                    g,
                    shapes.get(si),
                    LEFT + (int) Math.round(si * panelWidth),
                    (int) Math.round(panelWidth),
                    si > 0,
                    ceilings,
                    cells,
                    modeList,
                    max);
        }
        g.setFont(Fonts.SMALL);
        g.setColor(Color.DARK_GRAY);
        g.drawString(
                "bar labels: throughput as a share of the ceiling of the same shape, measured in the same run",
                LEFT,
                HEIGHT - 20);
    }

    /** One colour per write mode, then the ceiling's dashed line. */
    private static void legend(Graphics2D g, List<String> modeList) {
        int lx = LEFT;
        g.setFont(Fonts.TEXT);
        for (int i = 0; i < modeList.size(); i++) {
            g.setColor(MODE_COLORS[i % MODE_COLORS.length]);
            g.fillRect(lx, 62, 14, 12);
            g.setColor(Color.BLACK);
            String label = "writer, " + modeList.get(i);
            g.drawString(label, lx + 20, 73);
            lx += 40 + g.getFontMetrics().stringWidth(label);
        }
        g.setColor(CEILING);
        g.setStroke(dashed());
        g.drawLine(lx, 68, lx + 30, 68);
        g.setColor(Color.BLACK);
        g.drawString(
                "ceiling: VictoriaMetrics ingesting pre-serialized bodies, same shape and concurrency", lx + 38, 73);
        g.setStroke(new BasicStroke(1f));
    }

    /** The y axis (samples/s up to {@code max}), its grid and title, and the x axis. */
    private static void axes(Graphics2D g, double max) {
        g.setFont(Fonts.SMALL);
        FontMetrics fm = g.getFontMetrics();
        for (int i = 0; i <= 5; i++) {
            double v = max * i / 5;
            int y = BOTTOM - (int) Math.round((BOTTOM - TOP) * (double) i / 5);
            g.setColor(new Color(0xe5e5e5));
            g.drawLine(LEFT, y, RIGHT, y);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, "%.1fM", v / 1e6);
            g.drawString(label, LEFT - 8 - fm.stringWidth(label), y + 4);
        }
        g.setColor(Color.BLACK);
        g.drawLine(LEFT, TOP, LEFT, BOTTOM);
        g.drawLine(LEFT, BOTTOM, RIGHT, BOTTOM);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.setFont(Fonts.TEXT);
        rotated.drawString("samples written per second", -(TOP + BOTTOM) / 2 - 80, 20);
        rotated.dispose();
    }

    /** One batch shape's panel at x {@code px}, {@code pw} wide: a bar group per parallelism, the shape's ceiling. */
    private static void panel(
            Graphics2D g,
            BenchCell.Shape shape,
            int px,
            int pw,
            boolean separator,
            List<CeilingResult> ceilings,
            List<CellResult> cells,
            List<String> modeList,
            double max) {
        if (separator) {
            g.setColor(new Color(0xbbbbbb));
            g.drawLine(px, TOP, px, BOTTOM);
        }
        CeilingResult ceiling = null;
        for (CeilingResult c : ceilings) {
            if (c.shape().equals(shape)) {
                ceiling = c;
            }
        }
        List<Integer> ps = new ArrayList<>();
        for (CellResult r : cells) {
            if (r.cell().shape().equals(shape) && !ps.contains(r.cell().parallelism())) {
                ps.add(r.cell().parallelism());
            }
        }
        double groupWidth = (pw - 20) / (double) Math.max(1, ps.size());
        for (int gi = 0; gi < ps.size(); gi++) {
            barGroup(g, shape, ps.get(gi), px + 10 + gi * groupWidth, groupWidth, ceiling, cells, modeList, max);
        }
        g.setFont(Fonts.TITLE.deriveFont(14f));
        String sl = shape.label();
        g.drawString(sl, px + (pw - g.getFontMetrics().stringWidth(sl)) / 2, BOTTOM + 42);
        if (ceiling != null && Double.isFinite(ceiling.samplesPerSecond())) {
            int y = BOTTOM - (int) Math.round((BOTTOM - TOP) * ceiling.samplesPerSecond() / max);
            g.setColor(CEILING);
            g.setStroke(dashed());
            g.drawLine(px + 4, y, px + pw - 4, y);
            g.setStroke(new BasicStroke(1f));
            g.setFont(Fonts.SMALL);
            g.drawString(
                    String.format(Locale.ROOT, "ceiling %.2fM/s", ceiling.samplesPerSecond() / 1e6), px + 8, y - 5);
        }
    }

    /** The bars of one parallelism P, one per write mode, each labelled with its share of the ceiling. */
    private static void barGroup(
            Graphics2D g,
            BenchCell.Shape shape,
            int p,
            double gx,
            double groupWidth,
            CeilingResult ceiling,
            List<CellResult> cells,
            List<String> modeList,
            double max) {
        double barWidth = Math.min(46, (groupWidth - 14) / Math.max(1, modeList.size()));
        double barsWidth = barWidth * modeList.size();
        double bx0 = gx + (groupWidth - barsWidth) / 2;
        for (int mi = 0; mi < modeList.size(); mi++) {
            CellResult r = find(cells, shape, p, modeList.get(mi));
            if (r == null) {
                continue;
            }
            double v = finite(r.samplesPerSecond());
            int h = (int) Math.round((BOTTOM - TOP) * v / max);
            int bx = (int) Math.round(bx0 + mi * barWidth);
            int bw = (int) Math.max(2, Math.round(barWidth) - 3);
            g.setColor(MODE_COLORS[mi % MODE_COLORS.length]);
            g.fillRect(bx, BOTTOM - h, bw, h);
            double ratio = Ceilings.ratio(r, ceiling);
            String label = Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.0f%%", ratio * 100) : "";
            g.setFont(Fonts.SMALL);
            g.setColor(Color.BLACK);
            g.drawString(label, bx + (bw - g.getFontMetrics().stringWidth(label)) / 2, BOTTOM - h - 4);
        }
        g.setFont(Fonts.TEXT);
        g.setColor(Color.BLACK);
        String pl = "P=" + p;
        g.drawString(pl, (int) Math.round(gx + (groupWidth - g.getFontMetrics().stringWidth(pl)) / 2), BOTTOM + 18);
    }

    private static BasicStroke dashed() {
        return new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
    }

    private static CellResult find(List<CellResult> cells, BenchCell.Shape shape, int p, String mode) {
        for (CellResult r : cells) {
            if (r.cell().shape().equals(shape)
                    && r.cell().parallelism() == p
                    && r.modeLabel().equals(mode)) {
                return r;
            }
        }
        return null;
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : 0;
    }

    /** A round axis maximum ≥ v: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k. */
    static double niceCeiling(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double exp = Math.pow(10, Math.floor(Math.log10(v)));
        for (double f : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (f * exp >= v) {
                return f * exp;
            }
        }
        return 10 * exp;
    }
}
