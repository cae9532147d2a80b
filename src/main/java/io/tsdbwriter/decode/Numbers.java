package io.tsdbwriter.decode;

import java.nio.charset.StandardCharsets;

/**
 * Number parsing straight from ASCII bytes, without a {@code String} per number on the common path: the syntax of
 * Go's {@code strconv.ParseFloat} / {@code ParseInt} in base 10 as VictoriaMetrics' parsers read it (optional sign,
 * digits with an optional fraction and exponent; {@code inf}, {@code infinity} and {@code nan} in any case; no hex,
 * no underscores, no blanks). Decimals of at most 18 significant digits and a power of ten within ±22 are computed
 * exactly (one correctly rounded multiply or divide, Clinger's fast path); others fall back to
 * {@link Double#parseDouble}, which rounds correctly too.
 *
 * <p>Not thread-safe: the result of the last parse is kept in the instance.
 */
public final class Numbers {

    private static final double[] POW10 = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22
    };

    private double doubleValue;
    private long longValue;

    /** The value of the last successful {@link #parseDouble}. */
    public double doubleValue() {
        return doubleValue;
    }

    /** The value of the last successful {@link #parseLong}. */
    public long longValue() {
        return longValue;
    }

    /** Parses {@code b[from, to)} as a float; false (value unchanged) when it is not one. */
    public boolean parseDouble(byte[] b, int from, int to) {
        int i = from;
        if (i >= to) {
            return false;
        }
        boolean negative = false;
        if (b[i] == '+' || b[i] == '-') {
            negative = b[i] == '-';
            i++;
            if (i >= to) {
                return false;
            }
        }
        int c0 = b[i] | 0x20;
        if (c0 == 'i' || c0 == 'n') {
            return special(b, i, to, negative);
        }
        long mantissa = 0;
        int significant = 0;
        int exp10 = 0;
        boolean digits = false;
        boolean slow = false;
        while (i < to && b[i] >= '0' && b[i] <= '9') {
            digits = true;
            if (significant < 18) {
                mantissa = mantissa * 10 + (b[i] - '0');
                if (mantissa != 0) {
                    significant++;
                }
            } else {
                slow = true;
            }
            i++;
        }
        if (i < to && b[i] == '.') {
            i++;
            while (i < to && b[i] >= '0' && b[i] <= '9') {
                digits = true;
                if (significant < 18) {
                    mantissa = mantissa * 10 + (b[i] - '0');
                    exp10--;
                    if (mantissa != 0) {
                        significant++;
                    }
                } else {
                    slow = true;
                }
                i++;
            }
        }
        if (!digits) {
            return false;
        }
        if (i < to && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            boolean expNegative = false;
            if (i < to && (b[i] == '+' || b[i] == '-')) {
                expNegative = b[i] == '-';
                i++;
            }
            if (i >= to) {
                return false;
            }
            int e = 0;
            while (i < to && b[i] >= '0' && b[i] <= '9') {
                if (e < 100_000) {
                    e = e * 10 + (b[i] - '0');
                }
                i++;
            }
            exp10 += expNegative ? -e : e;
        }
        if (i != to) {
            return false;
        }
        double v;
        if (mantissa == 0) {
            v = 0;
        } else if (!slow && mantissa < (1L << 53) && exp10 >= -22 && exp10 <= 22) {
            v = exp10 >= 0 ? mantissa * POW10[exp10] : mantissa / POW10[-exp10];
        } else {
            // rare: many digits or a large exponent; the syntax was checked above and Java reads it the same way
            v = Math.abs(Double.parseDouble(new String(b, from, to - from, StandardCharsets.ISO_8859_1)));
        }
        doubleValue = negative ? -v : v;
        return true;
    }

    private boolean special(byte[] b, int i, int to, boolean negative) {
        if (matches(b, i, to, "inf") || matches(b, i, to, "infinity")) {
            doubleValue = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            return true;
        }
        if (matches(b, i, to, "nan")) {
            doubleValue = Double.NaN;
            return true;
        }
        return false;
    }

    private static boolean matches(byte[] b, int i, int to, String word) {
        if (to - i != word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            if ((b[i + k] | 0x20) != word.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Parses {@code b[from, to)} as a signed 64-bit decimal integer; false when it is not one or overflows. */
    public boolean parseLong(byte[] b, int from, int to) {
        int i = from;
        if (i >= to) {
            return false;
        }
        boolean negative = false;
        if (b[i] == '+' || b[i] == '-') {
            negative = b[i] == '-';
            i++;
            if (i >= to) {
                return false;
            }
        }
        long v = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (v > (Long.MAX_VALUE - d) / 10) {
                if (negative && v == Long.MAX_VALUE / 10 && d == 8 && i == to - 1) {
                    longValue = Long.MIN_VALUE;
                    return true;
                }
                return false;
            }
            v = v * 10 + d;
        }
        longValue = negative ? -v : v;
        return true;
    }

    /**
     * Parses {@code b[from, to)} as an unsigned 64-bit decimal integer, its value as a double (as Go's
     * {@code float64(uint64)}); false when it is not one or overflows.
     */
    public boolean parseUnsigned(byte[] b, int from, int to) {
        if (from >= to) {
            return false;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                return false;
            }
            v = v * 10 + d;
        }
        doubleValue = v >= 0 ? v : (double) (v >>> 1) * 2 + (v & 1);
        return true;
    }
}
