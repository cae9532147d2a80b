package io.tsdbwriter.lab;

import java.util.Locale;

/**
 * How the lab writes and divides its figures, the same in {@code bench}'s and {@code capacity}'s tables and lines.
 * Stateless; thread-safe.
 */
public final class Figures {

    private Figures() {}

    /** A count with thousands separators ({@code 12,345,678}); {@code –} for NaN. */
    public static String count(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : "–";
    }

    /** {@code 97.5%}; {@code –} for NaN. */
    public static String percent(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.1f%%", ratio * 100) : "–";
    }

    /** {@code cpuSeconds} per million {@code samples}; NaN when no samples. */
    public static double perMillion(double cpuSeconds, long samples) {
        return samples > 0 ? cpuSeconds / (samples / 1e6) : Double.NaN;
    }
}
