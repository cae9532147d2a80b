package io.tsdbwriter.decode.json;

import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Utf8;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fast path of {@link PointDecoder}: decodes the common, valid record of the DESIGN §2 contract straight from its
 * UTF-8 bytes — one point object or an array of them, with only the fields {@code metric}, {@code timestamp},
 * {@code value}, {@code dimensions}, {@code productKey}, and strings without escapes or control characters — into
 * {@link DecodedPoints}' arena, allocating nothing for a number of at most 15 significant digits.
 *
 * <p>It is conservative by construction: it answers only "decoded, valid" ({@code true}) or "not mine"
 * ({@code false}), never "invalid". On anything it does not take on — an escape, an unknown field, a duplicate key,
 * a name that breaks a rule, a timestamp below {@link PointDecoder#MIN_TIMESTAMP_MS}, a number that is not finite or
 * longer than {@value #MAX_NUMBER_CHARS} characters, trailing content, a byte order mark, malformed UTF-8 — it returns {@code false}
 * and the record goes to Jackson, which decodes it or names the rejection. Numbers follow Jackson's reading: an
 * integer token becomes the {@code double} of its {@code long} (so {@code -0} is {@code +0.0}); a fraction or
 * exponent of at most 15 significant digits and a power of ten up to 10^22 is one exact IEEE multiplication or
 * division (Clinger's fast path, correctly rounded like {@link Double#parseDouble}); longer ones go through
 * {@link Double#parseDouble}. It checks UTF-8 itself, as strictly as {@link Utf8#isValid}: every byte of an accepted
 * record is read once, and a byte ≥ 0x80 is accepted only inside a string, as part of a well-formed sequence.
 *
 * <p>Not thread-safe: one per {@link PointDecoder}.
 *
 * <p>Over ~400 lines on purpose: one scanner of one grammar (the point object, its dimensions, strings, numbers and
 * UTF-8), whose methods share the cursor and scratch state; split, the parts would only make sense together.
 */
final class FastPointScanner {

    /** Numbers longer than this go to Jackson (which bounds number length too). */
    static final int MAX_NUMBER_CHARS = 64;
    /** Dimension objects with more names than this go to Jackson (duplicate check here is quadratic). */
    static final int MAX_DIMENSIONS = 64;

    private static final int METRIC = 1;
    private static final int TIMESTAMP = 2;
    private static final int VALUE = 4;
    private static final int DIMENSIONS = 8;
    private static final int PRODUCT_KEY = 16;
    private static final int REQUIRED = METRIC | TIMESTAMP | VALUE;

    /** Eight bytes of a {@code byte[]} as one little-endian {@code long}: byte {@code i} is the lowest. */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    // the first eight bytes of each field name, as WORDS reads them (names shorter than eight: the rest masked off)
    private static final long W_METRIC = prefix("metric");
    private static final long W_TIMESTAMP = prefix("timestamp");
    private static final long W_VALUE = prefix("value");
    private static final long W_DIMENSIONS = prefix("dimensions");
    private static final long W_PRODUCT_KEY = prefix("productKey");
    private static final long MASK_5 = 0xFF_FFFF_FFFFL;
    private static final long MASK_6 = 0xFFFF_FFFF_FFFFL;
    private static final byte[] PRODUCT_KEY_LABEL = ascii(PointDecoder.PRODUCT_KEY_LABEL);

    private static final double[] POW10 = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22
    };

    /** Name bytes: 1 = may start a metric name, 2 = may continue one, 4 = may start a label name, 8 = continue one. */
    private static final byte[] NAME_CLASS = new byte[256];

    static {
        for (int c = 0; c < 128; c++) {
            boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
            boolean digit = c >= '0' && c <= '9';
            int k = 0;
            if (letter || c == ':') {
                k |= 1 | 2;
            }
            if (digit) {
                k |= 2 | 8;
            }
            if (letter) {
                k |= 4 | 8;
            }
            NAME_CLASS[c] = (byte) k;
        }
    }

    /** Arena offset of the record's first byte during {@link #decode}. */
    private int base;

    private final int[] dimNameOff = new int[MAX_DIMENSIONS];
    private final int[] dimNameLen = new int[MAX_DIMENSIONS];
    private int pos;

    /**
     * Decodes {@code b} into {@code out} (cleared first).
     *
     * @return true when decoded and valid ({@code out.count() ≥ 1}); false when Jackson must decide ({@code out}
     *     then holds garbage and must be cleared)
     */
    boolean decode(byte[] b, DecodedPoints out) {
        out.clear();
        int n = b.length;
        // the record once into the arena: its names and values are then ranges of that copy (byte i of the record at
        // arena offset base + i), one bulk copy instead of one per string (the copies were ~4 % of the relay's CPU)
        base = out.copy(b, 0, n);
        int i = ws(b, 0);
        if (i >= n) {
            return false;
        }
        if (b[i] == '{') {
            if (!point(b, i, out)) {
                return false;
            }
            i = pos;
        } else if (b[i] == '[') {
            i = ws(b, i + 1);
            if (i >= n || b[i] != '{') {
                return false; // empty array or not an object: Jackson names it
            }
            while (true) {
                if (!point(b, i, out)) {
                    return false;
                }
                i = ws(b, pos);
                if (i >= n) {
                    return false;
                }
                if (b[i] == ']') {
                    i++;
                    break;
                }
                if (b[i] != ',') {
                    return false;
                }
                i = ws(b, i + 1);
                if (i >= n || b[i] != '{') {
                    return false;
                }
            }
        } else {
            return false;
        }
        if (ws(b, i) != n) {
            return false;
        }
        out.jsonSafe(true); // no escapes and no control bytes were let through
        return true;
    }

    // Longer than ~60 lines: one pass over the record's bytes, kept in one method on purpose (hot path): the cursor
    // and the parse state stay in locals, which the JIT keeps in registers; split into helpers they would go through
    // fields or return values per label. DecoderBenchmark guards its speed.
    /** One point object at b[i] == '{'; on success pos is just after its '}'. */
    private boolean point(byte[] b, int i, DecodedPoints out) {
        int n = b.length;
        int base = this.base;
        int p = out.begin();
        int seen = 0;
        int pkStart = -1;
        int pkLen = 0;
        long ts = 0;
        double v = 0;
        int vText = -1;
        int vTextLen = 0;
        i = ws(b, i + 1);
        while (true) {
            if (i >= n || b[i] != '"') {
                return false;
            }
            int s = i + 1;
            int e = stringEnd(b, s);
            if (e < 0) {
                return false;
            }
            int field = field(b, s, e - s);
            if (field == 0 || (seen & field) != 0) {
                return false; // unknown field or duplicate key
            }
            seen |= field;
            i = ws(b, e + 1);
            if (i >= n || b[i] != ':') {
                return false;
            }
            i = ws(b, i + 1);
            if (i >= n) {
                return false;
            }
            switch (field) {
                case METRIC -> {
                    if (b[i] != '"') {
                        return false;
                    }
                    s = i + 1;
                    e = nameEnd(b, s, 1, 2);
                    if (e < 0) {
                        return false;
                    }
                    out.setMetric(p, base + s, e - s);
                    i = e + 1;
                }
                case TIMESTAMP -> {
                    int d = i;
                    long t = 0;
                    while (d < n && b[d] >= '0' && b[d] <= '9') {
                        t = t * 10 + (b[d] - '0');
                        d++;
                    }
                    int digits = d - i;
                    if (digits == 0
                            || digits > 18
                            || b[i] == '0'
                            || (d < n && (b[d] == '.' || b[d] == 'e' || b[d] == 'E'))) {
                        return false; // negative, leading zero, too long, not an integer: Jackson names it
                    }
                    if (t < PointDecoder.MIN_TIMESTAMP_MS) {
                        return false;
                    }
                    ts = t;
                    i = d;
                }
                case VALUE -> {
                    if (!number(b, i)) {
                        return false;
                    }
                    v = number;
                    if (numberPlain) {
                        vText = i;
                        vTextLen = pos - i;
                    }
                    i = pos;
                }
                case DIMENSIONS -> {
                    if (b[i] == 'n') {
                        if (!literalNull(b, i)) {
                            return false;
                        }
                        i += 4;
                    } else if (b[i] == '{') {
                        if (!dimensions(b, i, out, p)) {
                            return false;
                        }
                        i = pos;
                    } else {
                        return false;
                    }
                }
                case PRODUCT_KEY -> {
                    if (b[i] == 'n') {
                        if (!literalNull(b, i)) {
                            return false;
                        }
                        i += 4;
                    } else if (b[i] == '"') {
                        s = i + 1;
                        e = stringEnd(b, s);
                        if (e < 0) {
                            return false;
                        }
                        pkStart = s;
                        pkLen = e - s;
                        i = e + 1;
                    } else {
                        return false;
                    }
                }
                default -> {
                    return false;
                }
            }
            i = ws(b, i);
            if (i >= n) {
                return false;
            }
            if (b[i] == '}') {
                i++;
                break;
            }
            if (b[i] != ',') {
                return false;
            }
            i = ws(b, i + 1);
        }
        if ((seen & REQUIRED) != REQUIRED) {
            return false;
        }
        if (pkLen > 0) {
            int nameAt = out.copy(PRODUCT_KEY_LABEL, 0, PRODUCT_KEY_LABEL.length);
            int valueAt = base + pkStart;
            boolean alsoADimension = hasLabel(out, p, PRODUCT_KEY_LABEL);
            out.addLabel(p, nameAt, PRODUCT_KEY_LABEL.length, valueAt, pkLen); // added last: wins over a dimension
            if (alsoADimension) {
                out.canonicalize(p); // sorts (stable) and keeps the last of equal names
            } else {
                out.deferSort(p); // no duplicate name: the dimensions have none either (dimensions() refuses them)
            }
        } else {
            out.deferSort(p);
        }
        out.set(p, ts, v);
        if (vText >= 0) {
            out.setValueText(p, base + vText, vTextLen);
        }
        pos = i;
        return true;
    }

    /** Whether point p already has a label named {@code name}. */
    private static boolean hasLabel(DecodedPoints out, int p, byte[] name) {
        for (int i = out.labelStartAsRead(p), e = out.labelEndAsRead(p); i < e; i++) {
            if (out.nameLength(i) == name.length && out.compareName(i, name) == 0) {
                return true;
            }
        }
        return false;
    }

    // Longer than ~60 lines for the reason given at point().
    /** A dimensions object at b[i] == '{'; on success pos is just after its '}'. */
    private boolean dimensions(byte[] b, int i, DecodedPoints out, int p) {
        int n = b.length;
        int base = this.base;
        int names = 0;
        i = ws(b, i + 1);
        if (i < n && b[i] == '}') {
            pos = i + 1;
            return true;
        }
        while (true) {
            if (i >= n || b[i] != '"') {
                return false;
            }
            int s = i + 1;
            int e = nameEnd(b, s, 4, 8);
            if (e < 0 || (e - s >= 2 && b[s] == '_' && b[s + 1] == '_')) {
                return false; // invalid or reserved label name: Jackson names it
            }
            if (names == MAX_DIMENSIONS) {
                return false;
            }
            for (int k = 0; k < names; k++) {
                if (dimNameLen[k] == e - s && Arrays.equals(b, dimNameOff[k], dimNameOff[k] + dimNameLen[k], b, s, e)) {
                    return false; // duplicate key (even when a value is null or empty): Jackson rejects it
                }
            }
            dimNameOff[names] = s;
            dimNameLen[names] = e - s;
            names++;
            i = ws(b, e + 1);
            if (i >= n || b[i] != ':') {
                return false;
            }
            i = ws(b, i + 1);
            if (i >= n) {
                return false;
            }
            if (b[i] == '"') {
                int vs = i + 1;
                int ve = stringEnd(b, vs);
                if (ve < 0) {
                    return false;
                }
                if (ve > vs) { // empty values are dropped
                    out.addLabel(p, base + s, e - s, base + vs, ve - vs);
                }
                i = ve + 1;
            } else if (b[i] == 'n' && literalNull(b, i)) {
                i += 4;
            } else {
                return false;
            }
            i = ws(b, i);
            if (i >= n) {
                return false;
            }
            if (b[i] == '}') {
                pos = i + 1;
                return true;
            }
            if (b[i] != ',') {
                return false;
            }
            i = ws(b, i + 1);
        }
    }

    private double number;
    /**
     * Whether the last {@link #number} is a plain decimal (no exponent) of at most 15 significant digits and not -0:
     * read exactly by the fast path, and read back as the same double by any correctly rounding parser (VictoriaMetrics'
     * {@code fastfloat} divides the whole mantissa by one power of ten for these), so its text can be written as it is.
     */
    private boolean numberPlain;

    // Longer than ~60 lines: the RFC 8259 number grammar and Clinger's fast path in one pass over the digits, for the
    // reason given at point().
    /** A JSON number at b[i] (RFC 8259 grammar); on success {@link #number} holds it and pos is just after it. */
    private boolean number(byte[] b, int i) {
        int n = b.length;
        int start = i;
        boolean negative = false;
        if (i < n && b[i] == '-') {
            negative = true;
            i++;
        }
        if (i >= n) {
            return false;
        }
        long mantissa = 0;
        int significant = 0; // digits counted from the first non-zero one
        if (b[i] == '0') {
            i++;
            if (i < n && b[i] >= '0' && b[i] <= '9') {
                return false; // leading zero
            }
        } else if (b[i] >= '1' && b[i] <= '9') {
            while (i < n && b[i] >= '0' && b[i] <= '9') {
                if (significant < 18) {
                    mantissa = mantissa * 10 + (b[i] - '0');
                }
                significant++;
                i++;
            }
        } else {
            return false;
        }
        boolean integer = true;
        int exponent = 0;
        if (i < n && b[i] == '.') {
            integer = false;
            i++;
            int f = i;
            while (i < n && b[i] >= '0' && b[i] <= '9') {
                if (significant > 0 || b[i] != '0') {
                    if (significant < 18) {
                        mantissa = mantissa * 10 + (b[i] - '0');
                        exponent--;
                    }
                    significant++;
                } else {
                    exponent--; // a leading zero of the fraction
                }
                i++;
            }
            if (i == f) {
                return false;
            }
        }
        boolean exponentPart = false;
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
            integer = false;
            exponentPart = true;
            i++;
            boolean negExp = false;
            if (i < n && (b[i] == '+' || b[i] == '-')) {
                negExp = b[i] == '-';
                i++;
            }
            int f = i;
            int exp = 0;
            while (i < n && b[i] >= '0' && b[i] <= '9') {
                if (exp < 100_000) {
                    exp = exp * 10 + (b[i] - '0');
                }
                i++;
            }
            if (i == f) {
                return false;
            }
            exponent += negExp ? -exp : exp;
        }
        if (i - start > MAX_NUMBER_CHARS) {
            return false;
        }
        double v;
        if (integer) {
            if (significant > 18) {
                return false; // beyond a long: Jackson reads it as a BigInteger
            }
            v = (double) (negative ? -mantissa : mantissa); // as Jackson: the double of the long, so -0 is +0.0
        } else if (significant <= 15 && exponent >= -22 && exponent <= 22) {
            v = exponent >= 0 ? mantissa * POW10[exponent] : mantissa / POW10[-exponent];
            if (negative) {
                v = -v;
            }
        } else {
            v = Double.parseDouble(new String(b, start, i - start, StandardCharsets.ISO_8859_1));
        }
        if (!Double.isFinite(v)) {
            return false;
        }
        number = v;
        numberPlain = !exponentPart && significant <= 15 && !(negative && mantissa == 0);
        pos = i;
        return true;
    }

    private static boolean literalNull(byte[] b, int i) {
        return i + 3 < b.length && b[i + 1] == 'u' && b[i + 2] == 'l' && b[i + 3] == 'l';
    }

    /**
     * Index of the closing quote of a string whose content starts at s; -1 on an escape, a control byte, malformed
     * UTF-8 or the end. Strings are the only place a byte ≥ 0x80 is accepted, so this is where the fast path checks
     * UTF-8 ({@link Utf8#sequenceEnd}) — in the same pass, instead of a second one over the whole record. Eight bytes
     * at a time while none of them is special ({@link #special}); the special one is then looked at alone.
     */
    private static int stringEnd(byte[] b, int s) {
        int n = b.length;
        int i = s;
        while (true) {
            while (i + Long.BYTES <= n) {
                long m = special((long) WORDS.get(b, i));
                if (m != 0) {
                    i += Long.numberOfTrailingZeros(m) >>> 3;
                    break;
                }
                i += Long.BYTES;
            }
            if (i >= n) {
                return -1;
            }
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            if (c < 0) {
                i = Utf8.sequenceEnd(b, i);
                if (i < 0) {
                    return -1;
                }
                continue;
            }
            if (c == '\\' || c < 0x20) {
                return -1;
            }
            i++;
        }
    }

    /**
     * The bytes of {@code w} that end a plain run of string content — a quote, a backslash, a control byte (below
     * 0x20) or a byte ≥ 0x80 — each flagged by its high bit; 0 when there is none. The lowest flagged byte is always
     * one of them (the zero-byte tests of Hacker's Delight 6-1 may flag a byte above a true one by a borrow, never
     * below), which is the only one {@link #stringEnd} uses.
     */
    static long special(long w) {
        long quote = w ^ 0x2222222222222222L;
        long backslash = w ^ 0x5C5C5C5C5C5C5C5CL;
        long quoteZero = (quote - ONES) & ~quote;
        long backslashZero = (backslash - ONES) & ~backslash;
        long control = (w - 0x2020202020202020L) & ~w;
        return (quoteZero | backslashZero | control | w) & HIGHS;
    }

    /**
     * Index of the quote that closes a metric or label name starting at s, in one pass that also checks its bytes:
     * the first of class {@code first}, the others of class {@code rest} ({@link #NAME_CLASS}); -1 when the name is
     * empty, breaks the rule, or is not closed by a quote right after its last name byte (an escape, a byte ≥ 0x80).
     */
    private static int nameEnd(byte[] b, int s, int first, int rest) {
        int n = b.length;
        if (s >= n || (NAME_CLASS[b[s] & 0xFF] & first) == 0) {
            return -1;
        }
        int i = s + 1;
        while (i < n && (NAME_CLASS[b[i] & 0xFF] & rest) != 0) {
            i++;
        }
        return i < n && b[i] == '"' ? i : -1;
    }

    /**
     * The field named by the {@code len} bytes at s, or 0 for none of the five. A valid record has at least
     * {@code ":0}} after a field name, so eight bytes from s are there whenever the record can be valid; when they
     * are not, 0 sends the record to Jackson.
     */
    private static int field(byte[] b, int s, int len) {
        if (s + Long.BYTES > b.length) {
            return 0;
        }
        long w = (long) WORDS.get(b, s);
        return switch (len) {
            case 5 -> (w & MASK_5) == W_VALUE ? VALUE : 0;
            case 6 -> (w & MASK_6) == W_METRIC ? METRIC : 0;
            case 9 -> w == W_TIMESTAMP && b[s + 8] == 'p' ? TIMESTAMP : 0;
            case 10 ->
                w == W_DIMENSIONS && b[s + 8] == 'n' && b[s + 9] == 's'
                        ? DIMENSIONS
                        : w == W_PRODUCT_KEY && b[s + 8] == 'e' && b[s + 9] == 'y' ? PRODUCT_KEY : 0;
            default -> 0;
        };
    }

    /** The first (up to) eight bytes of an ASCII field name as {@link #WORDS} reads them. */
    private static long prefix(String name) {
        byte[] padded = new byte[Long.BYTES];
        byte[] a = ascii(name);
        System.arraycopy(a, 0, padded, 0, Math.min(a.length, Long.BYTES));
        return (long) WORDS.get(padded, 0);
    }

    private static int ws(byte[] b, int i) {
        while (i < b.length) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                break;
            }
            i++;
        }
        return i;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
