package io.tsdbwriter.it.support;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The dashboard's figures from a test run as one PNG, drawn with plain Java2D like the bench's chart: one small chart
 * per panel, in the dashboard's order, each series of the panel's queries as a line (a stat panel: its last value), so
 * a reader sees what every panel showed without a Grafana. Headless; stateless.
 */
public final class DashboardFigures {

    /** One series: a legend and its points ({@code times} in epoch seconds). */
    public record Series(String legend, double[] times, double[] values) {}

    /** One panel: its title, its type ({@code timeseries}, {@code stat}) and the series its queries returned. */
    public record Panel(String title, String type, List<Series> series) {}

    static final int COLUMNS = 4;
    static final int CELL_WIDTH = 420;
    static final int CELL_HEIGHT = 230;
    private static final Color[] COLORS = {
        new Color(0x1f77b4),
        new Color(0xff7f0e),
        new Color(0x2ca02c),
        new Color(0xd62728),
        new Color(0x9467bd),
        new Color(0x8c564b)
    };

    private DashboardFigures() {}

    /** Draws {@code panels} under {@code title} into a PNG file. */
    public static void write(Path file, String title, List<Panel> panels) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int rows = (panels.size() + COLUMNS - 1) / COLUMNS;
        BufferedImage image =
                new BufferedImage(COLUMNS * CELL_WIDTH, 50 + rows * CELL_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, 12, 30);
            for (int i = 0; i < panels.size(); i++) {
                draw(g, panels.get(i), (i % COLUMNS) * CELL_WIDTH, 50 + (i / COLUMNS) * CELL_HEIGHT);
            }
        } finally {
            g.dispose();
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }

    private static void draw(Graphics2D g, Panel p, int x0, int y0) {
        int w = CELL_WIDTH - 16;
        int h = CELL_HEIGHT - 16;
        int x = x0 + 8;
        int y = y0 + 8;
        g.setColor(new Color(0xf4f5f7));
        g.fillRect(x, y, w, h);
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
        g.drawString(clip(p.title(), 58), x + 6, y + 16);
        if (p.series().isEmpty()) {
            g.setColor(Color.RED);
            g.drawString("no data", x + w / 2 - 20, y + h / 2);
            return;
        }
        if ("stat".equals(p.type())) {
            Series s = p.series().get(0);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 34));
            g.setColor(COLORS[0]);
            String v = s.values().length == 0 ? "n/a" : number(s.values()[s.values().length - 1]);
            g.drawString(v, x + 20, y + h / 2 + 10);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            g.setColor(Color.DARK_GRAY);
            g.drawString(clip(s.legend(), 64), x + 20, y + h / 2 + 34);
            return;
        }
        int px = x + 48;
        int py = y + 26;
        int pw = w - 58;
        int ph = h - 70;
        double tMin = Double.MAX_VALUE;
        double tMax = -Double.MAX_VALUE;
        double vMin = Double.MAX_VALUE;
        double vMax = -Double.MAX_VALUE;
        List<Series> shown =
                p.series().subList(0, Math.min(COLORS.length, p.series().size()));
        for (Series s : shown) {
            for (int i = 0; i < s.times().length; i++) {
                if (Double.isFinite(s.values()[i])) {
                    tMin = Math.min(tMin, s.times()[i]);
                    tMax = Math.max(tMax, s.times()[i]);
                    vMin = Math.min(vMin, s.values()[i]);
                    vMax = Math.max(vMax, s.values()[i]);
                }
            }
        }
        if (tMin > tMax) {
            return;
        }
        vMin = Math.min(vMin, 0);
        if (vMax <= vMin) {
            vMax = vMin + 1;
        }
        g.setColor(Color.GRAY);
        g.drawRect(px, py, pw, ph);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        g.drawString(number(vMax), x + 2, py + 10);
        g.drawString(number(vMin), x + 2, py + ph);
        g.drawString(String.format(Locale.ROOT, "%.0f s", tMax - tMin), px + pw - 30, py + ph + 12);
        g.setStroke(new BasicStroke(1.5f));
        for (int k = 0; k < shown.size(); k++) {
            Series s = shown.get(k);
            g.setColor(COLORS[k]);
            int prevX = -1;
            int prevY = -1;
            for (int i = 0; i < s.times().length; i++) {
                if (!Double.isFinite(s.values()[i])) {
                    prevX = -1;
                    continue;
                }
                int cx = px + (int) ((s.times()[i] - tMin) / Math.max(1e-9, tMax - tMin) * pw);
                int cy = py + ph - (int) ((s.values()[i] - vMin) / (vMax - vMin) * ph);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, cx, cy);
                }
                prevX = cx;
                prevY = cy;
            }
            g.drawString(clip(s.legend(), 30), px + (k % 2) * (pw / 2), py + ph + 24 + (k / 2) * 12);
        }
        if (p.series().size() > shown.size()) {
            g.setColor(Color.DARK_GRAY);
            g.drawString("+" + (p.series().size() - shown.size()) + " more", px + pw - 50, py + 12);
        }
    }

    private static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (a >= 1e3) {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        return a >= 10 || v == 0 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
