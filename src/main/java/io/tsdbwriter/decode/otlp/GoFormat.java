package io.tsdbwriter.decode.otlp;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers as VictoriaMetrics' OpenTelemetry mapping (Go) writes them into labels and values: doubles as
 * {@code strconv.FormatFloat(v, 'f', -1, 64)} (double attributes, {@code le} and {@code quantile}), {@code vmrange}
 * bounds as {@code FormatFloat(v, 'e', 3, 64)}, uint64 counts as {@code float64(uint64)}. Pure functions; the two
 * formatters allocate a string (once per record for an {@code le} bound, see {@link HistogramPoints}). Public for the
 * remote write decoder's {@code vmrange} buckets; thread-safe.
 */
public final class GoFormat {

    /** Four significant digits, a tie to even: what {@code 'e'} with precision 3 keeps. */
    private static final MathContext E3 = new MathContext(4, RoundingMode.HALF_EVEN);

    private GoFormat() {}

    /** A uint64 as the double Go's {@code float64(uint64)} gives. */
    public static double unsigned(long x) {
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
    public static String formatVmrange(double lower, double upper) {
        return formatE3(lower) + "..." + formatE3(upper);
    }

    /**
     * Go's {@code FormatFloat(d, 'e', 3, 64)}: four significant digits of the exact binary value, a tie rounded to even
     * ({@code 0.0078125} is {@code 7.812e-03}, {@code 1.0005} is {@code 1.000e+00}), the exponent signed and at least
     * two digits; {@code NaN}, {@code +Inf}, {@code -Inf}, {@code -0.000e+00}.
     */
    static String formatE3(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        boolean negative = Double.doubleToRawLongBits(d) < 0;
        String digits;
        int exponent;
        if (d == 0) {
            digits = "0000";
            exponent = 0;
        } else {
            BigDecimal b = new BigDecimal(Math.abs(d)).round(E3);
            digits = b.unscaledValue().toString();
            exponent = b.precision() - b.scale() - 1;
            if (digits.length() < 4) {
                digits = (digits + "000").substring(0, 4);
            }
        }
        StringBuilder s = new StringBuilder(12);
        if (negative) {
            s.append('-');
        }
        s.append(digits.charAt(0)).append('.').append(digits, 1, 4).append('e');
        s.append(exponent < 0 ? '-' : '+');
        int e = Math.abs(exponent);
        if (e < 10) {
            s.append('0');
        }
        return s.append(e).toString();
    }
}
