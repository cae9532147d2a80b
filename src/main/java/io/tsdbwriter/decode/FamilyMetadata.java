package io.tsdbwriter.decode;

import java.util.Arrays;

/**
 * The metric families one record declares: per family its name and the text of its {@code # TYPE}, {@code # HELP}
 * and {@code # UNIT} lines (Prometheus text exposition 0.0.4, OpenMetrics 1.0 "MetricFamily"), each as a range of the
 * owning {@link DecodedPoints}' arena (length 0: the line was absent). HELP is kept unescaped ({@code \\} and
 * {@code \n} resolved); the type is the token as written ({@code counter}, {@code untyped}, …).
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
    /** A series named family + one of these belongs to the family (OpenMetrics 1.0, "Metric types"). */
    private static final byte[][] SUFFIXES = {bytes("_total"), bytes("_bucket"), bytes("_count"), bytes("_sum"),
            bytes("_created"), bytes("_info")};

    private int[] ranges = new int[STRIDE * 4];
    private int count;

    void clear() {
        count = 0;
    }

    /** Families declared in the record. */
    public int count() {
        return count;
    }

    /**
     * Index of the family named {@code arena[off, off + len)}, adding it (all its lines absent) when it is new.
     *
     * @param arena the owning points' arena, where the name has been copied already
     */
    public int family(byte[] arena, int off, int len) {
        int k = indexOf(arena, arena, off, len);
        if (k >= 0) {
            return k;
        }
        if ((count + 1) * STRIDE > ranges.length) {
            ranges = Arrays.copyOf(ranges, ranges.length * 2);
        }
        int b = count * STRIDE;
        Arrays.fill(ranges, b, b + STRIDE, 0);
        ranges[b + NAME] = off;
        ranges[b + NAME + 1] = len;
        return count++;
    }

    /** Sets family {@code k}'s type token (a range of the arena) unless it has one. */
    public void setType(int k, int off, int len) {
        set(k, TYPE, off, len);
    }

    /** Sets family {@code k}'s help text (unescaped, a range of the arena) unless it has one. */
    public void setHelp(int k, int off, int len) {
        set(k, HELP, off, len);
    }

    /** Sets family {@code k}'s unit (a range of the arena) unless it has one. */
    public void setUnit(int k, int off, int len) {
        set(k, UNIT, off, len);
    }

    private void set(int k, int field, int off, int len) {
        int b = k * STRIDE + field;
        if (ranges[b + 1] == 0) {
            ranges[b] = off;
            ranges[b + 1] = len;
        }
    }

    /**
     * The family of the series named {@code name[off, off + len)}: the family of that name, else of the name without
     * one of OpenMetrics' suffixes ({@code _total}, {@code _bucket}, {@code _count}, {@code _sum}, {@code _created},
     * {@code _info}); -1 when the record declares none. A linear search: called once per series, not per sample.
     */
    public int find(byte[] arena, byte[] name, int off, int len) {
        int k = indexOf(arena, name, off, len);
        for (int i = 0; k < 0 && i < SUFFIXES.length; i++) {
            byte[] x = SUFFIXES[i];
            if (len > x.length && Arrays.equals(name, off + len - x.length, off + len, x, 0, x.length)) {
                k = indexOf(arena, name, off, len - x.length);
            }
        }
        return k;
    }

    private int indexOf(byte[] arena, byte[] name, int off, int len) {
        for (int k = 0; k < count; k++) {
            int b = k * STRIDE;
            int o = ranges[b + NAME];
            if (ranges[b + NAME + 1] == len && Arrays.equals(arena, o, o + len, name, off, off + len)) {
                return k;
            }
        }
        return -1;
    }

    /** The arena offset of family {@code k}'s name; its type, help and unit likewise. */
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
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
