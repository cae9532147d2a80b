package io.tsdbwriter.decode.otlp;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Numbers as VictoriaMetrics' OpenTelemetry mapping (Go) writes them into labels and values: doubles as
 * {@code strconv.FormatFloat(v, 'f', -1, 64)} (double attributes, {@code le} and {@code quantile}), {@code vmrange}
 * bounds as {@code FormatFloat(v, 'e', 3, 64)}, uint64 counts as {@code float64(uint64)}. Pure functions; the two
 * formatters allocate a string (once per record for an {@code le} bound, see {@link HistogramPoints}).
 */
final class GoFormat {

    private GoFormat() {}

    /** A uint64 as the double Go's {@code float64(uint64)} gives. */
    static double unsigned(long x) {
        if (x >= 0) {
            return x;
        }
        double d = (double) ((x >>> 1) | (x & 1));
        return d * 2.0;
    }

    /**
     * Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest decimal that reads back as {@code v}, never in
     * exponent form ({@code 0.005}, {@code 10}, {@code 0.00001}); {@code +Inf}, {@code -Inf}, {@code NaN}.
     */
    static String formatFloat(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == 0) {
            return (Double.doubleToRawLongBits(d) < 0) ? "-0" : "0";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
    }

    /** VictoriaMetrics' {@code vmrange} value: both bounds as Go's {@code FormatFloat(v, 'e', 3, 64)}, joined by {@code ...}. */
    static String formatVmrange(double lower, double upper) {
        return formatE3(lower) + "..." + formatE3(upper);
    }

    private static String formatE3(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        return String.format(Locale.ROOT, "%.3e", d);
    }
}
