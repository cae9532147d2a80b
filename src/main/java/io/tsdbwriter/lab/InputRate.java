package io.tsdbwriter.lab;

import java.util.Locale;

/**
 * The live-mode input rate of {@code bench --input-rate}: either absolute points per second ({@code 50000}) or a
 * percentage of the capacity the same cell measured on the pre-loaded backlog in the same run ({@code 80%}).
 * Immutable.
 *
 * @param value    points per second, or the fraction of capacity (0.8 for {@code 80%})
 * @param relative whether {@code value} is a fraction of the measured capacity
 */
public record InputRate(double value, boolean relative) {

    /**
     * Parses {@code 50000}, {@code 2.5e4} or {@code 80%}.
     *
     * @throws IllegalArgumentException when it is not a positive number or percentage
     */
    public static InputRate parse(String text) {
        String t = text == null ? "" : text.trim();
        boolean pct = t.endsWith("%");
        String num = pct ? t.substring(0, t.length() - 1).trim() : t;
        double v;
        try {
            v = Double.parseDouble(num);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--input-rate: '" + text
                    + "' is neither points per second (50000) nor a percentage of capacity (80%)");
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("--input-rate must be positive, got '" + text + "'");
        }
        return pct ? new InputRate(v / 100.0, true) : new InputRate(v, false);
    }

    /**
     * Points per second to produce.
     *
     * @param capacityPointsPerSecond the cell's measured backlog throughput in points per second (used when relative)
     */
    public double pointsPerSecond(double capacityPointsPerSecond) {
        return relative ? value * capacityPointsPerSecond : value;
    }

    @Override
    public String toString() {
        return relative
                ? String.format(Locale.ROOT, "%.0f%% of capacity", value * 100)
                : String.format(Locale.ROOT, "%.0f points/s", value);
    }
}
