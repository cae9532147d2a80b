package io.tsdbwriter.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The metric families one record declares: per family its name and the text of its {@code # TYPE}, {@code # HELP}
 * and {@code # UNIT} lines (Prometheus text exposition 0.0.4, OpenMetrics 1.0 "MetricFamily"; an OTLP metric's kind,
 * description and unit likewise), each as a range of
 * {@link #bytes()} (length 0: the line was absent), a buffer of its own: not the points' arena, whose bytes decide
 * {@link DecodedPoints#jsonSafe()} (a HELP text with a quote must not take a record off the verbatim path). HELP is
 * kept unescaped ({@code \\} and {@code \n} resolved); the type is the token as written ({@code counter},
 * {@code untyped}, …).
 *
 * <p>Filled by the decoders, read by the remote write encoders on a series-cache miss ({@link #find}), never per
 * sample. A family declared twice in one record keeps its first name entry; later lines fill what is still absent.
 * Not thread-safe; cleared with its {@link DecodedPoints}.
 */
public final class FamilyMetadata {

    /** Per family 7 ints: name offset, name length, type offset, type length, help offset, help length, unit offset/length. */
    private static final int NAME = 0;

    private static final int TYPE = 2;
    private static final int HELP = 4;
    private static final int UNIT = 6;
    private static final int STRIDE = 8;
    /**
     * A series named family + one of these belongs to the family (OpenMetrics 1.0, "Metric types": a gauge histogram's
     * {@code _gcount} and {@code _gsum} included).
     */
    private static final byte[][] SUFFIXES = {
        bytes("_total"),
        bytes("_bucket"),
        bytes("_count"),
        bytes("_sum"),
        bytes("_created"),
        bytes("_info"),
        bytes("_gcount"),
        bytes("_gsum")
    };

    private int[] ranges = new int[STRIDE * 4];
    private int count;
    private byte[] bytes = new byte[256];
    private int length;

    void clear() {
        count = 0;
        length = 0;
    }

    /** The buffer every range of this table points into (valid until the next decode). */
    public byte[] bytes() {
        return bytes;
    }

    /** Copies {@code src[off, off + len)} into {@link #bytes}; returns its offset there. */
    private int copy(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, bytes, length, len);
        int at = length;
        length += len;
        return at;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    /** Families declared in the record. */
    public int count() {
        return count;
    }

    /** Index of the family named {@code src[off, off + len)}, adding it (all its lines absent) when it is new. */
    public int family(byte[] src, int off, int len) {
        int k = indexOf(src, off, len);
        if (k >= 0) {
            return k;
        }
        if ((count + 1) * STRIDE > ranges.length) {
            ranges = Arrays.copyOf(ranges, ranges.length * 2);
        }
        int b = count * STRIDE;
        Arrays.fill(ranges, b, b + STRIDE, 0);
        ranges[b + NAME] = copy(src, off, len);
        ranges[b + NAME + 1] = len;
        return count++;
    }

    /** Sets family {@code k}'s type token {@code src[off, off + len)} unless it has one. */
    public void setType(int k, byte[] src, int off, int len) {
        if (ranges[k * STRIDE + TYPE + 1] == 0) {
            set(k, TYPE, copy(src, off, len), len);
        }
    }

    /** Sets family {@code k}'s unit {@code src[off, off + len)} unless it has one. */
    public void setUnit(int k, byte[] src, int off, int len) {
        if (ranges[k * STRIDE + UNIT + 1] == 0) {
            set(k, UNIT, copy(src, off, len), len);
        }
    }

    /** Sets family {@code k}'s help text {@code src[off, off + len)} as it is (no escapes: OTLP's description) unless it has one. */
    public void setHelpText(int k, byte[] src, int off, int len) {
        if (ranges[k * STRIDE + HELP + 1] == 0) {
            set(k, HELP, copy(src, off, len), len);
        }
    }

    /**
     * Sets family {@code k}'s help text from the escaped {@code src[off, off + len)} unless it has one: {@code \\}
     * becomes a backslash, {@code \n} a line feed, any other backslash stays (Prometheus text 0.0.4, "HELP lines").
     */
    public void setHelp(int k, byte[] src, int off, int len) {
        if (ranges[k * STRIDE + HELP + 1] != 0) {
            return;
        }
        ensure(len);
        byte[] a = bytes;
        int w = length;
        for (int j = off, end = off + len; j < end; j++) {
            if (src[j] == '\\' && j + 1 < end && (src[j + 1] == '\\' || src[j + 1] == 'n')) {
                a[w++] = src[++j] == 'n' ? (byte) '\n' : (byte) '\\';
            } else {
                a[w++] = src[j];
            }
        }
        set(k, HELP, length, w - length);
        length = w;
    }

    private void set(int k, int field, int off, int len) {
        ranges[k * STRIDE + field] = off;
        ranges[k * STRIDE + field + 1] = len;
    }

    /**
     * The family of the series named {@code name[off, off + len)}: the family of that name, else of the name without
     * one of OpenMetrics' suffixes ({@code _total}, {@code _bucket}, {@code _count}, {@code _sum}, {@code _created},
     * {@code _info}, {@code _gcount}, {@code _gsum}); -1 when the record declares none. A linear search: called once per
     * series, not per sample.
     */
    public int find(byte[] name, int off, int len) {
        int k = indexOf(name, off, len);
        for (int i = 0; k < 0 && i < SUFFIXES.length; i++) {
            if (endsWithSuffix(i, name, off, len)) {
                k = indexOf(name, off, len - SUFFIXES[i].length);
            }
        }
        return k;
    }

    /** How many family-name suffixes there are ({@code _total}, {@code _bucket}, … of {@link #find}), indexed from 0. */
    public static int suffixCount() {
        return SUFFIXES.length;
    }

    /** Byte length of family-name suffix {@code i} (0 ≤ i < {@link #suffixCount()}). */
    public static int suffixLength(int i) {
        return SUFFIXES[i].length;
    }

    /**
     * Whether the name {@code name[off, off + len)} is longer than family-name suffix {@code i} and ends with it: then
     * its first {@code len - }{@link #suffixLength suffixLength(i)} bytes may name its family. Allocates nothing.
     */
    public static boolean endsWithSuffix(int i, byte[] name, int off, int len) {
        byte[] x = SUFFIXES[i];
        return len > x.length && Arrays.equals(name, off + len - x.length, off + len, x, 0, x.length);
    }

    private int indexOf(byte[] name, int off, int len) {
        for (int k = 0; k < count; k++) {
            int b = k * STRIDE;
            int o = ranges[b + NAME];
            if (ranges[b + NAME + 1] == len && Arrays.equals(bytes, o, o + len, name, off, off + len)) {
                return k;
            }
        }
        return -1;
    }

    /** The offset in {@link #bytes} of family {@code k}'s name; its type, help and unit likewise. */
    public int nameOffset(int k) {
        return ranges[k * STRIDE + NAME];
    }

    public int nameLength(int k) {
        return ranges[k * STRIDE + NAME + 1];
    }

    public int typeOffset(int k) {
        return ranges[k * STRIDE + TYPE];
    }

    /** 0 when the family had no {@code # TYPE} line. */
    public int typeLength(int k) {
        return ranges[k * STRIDE + TYPE + 1];
    }

    public int helpOffset(int k) {
        return ranges[k * STRIDE + HELP];
    }

    /** 0 when the family had no {@code # HELP} line (or an empty one). */
    public int helpLength(int k) {
        return ranges[k * STRIDE + HELP + 1];
    }

    public int unitOffset(int k) {
        return ranges[k * STRIDE + UNIT];
    }

    /** 0 when the family had no {@code # UNIT} line. */
    public int unitLength(int k) {
        return ranges[k * STRIDE + UNIT + 1];
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
