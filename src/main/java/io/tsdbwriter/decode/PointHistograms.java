package io.tsdbwriter.decode;

import java.util.Arrays;

/**
 * The native histograms of one record's points, at most one per point: a point that has one is a histogram point, its
 * value meaningless, its metric name, labels and timestamp those of the histogram's series and sample. Each histogram is
 * held in Prometheus' own wire form, the fields of a {@code prometheus.Histogram} message ({@code prompb/types.proto},
 * the same message in remote write 1.0 and 2.0) without its {@code timestamp} (field 15), which is the point's own, and
 * without its {@code start_timestamp} (field 17, Prometheus remote write 2.0 types.proto), which is the point's
 * {@link DecodedPoints#startTimestampMs start timestamp}:
 * <pre>
 * oneof count { uint64 count_int = 1; double count_float = 2; }   double sum = 3;   sint32 schema = 4;
 * double zero_threshold = 5;   oneof zero_count { uint64 zero_count_int = 6; double zero_count_float = 7; }
 * repeated BucketSpan negative_spans = 8;   repeated sint64 negative_deltas = 9;   repeated double negative_counts = 10;
 * repeated BucketSpan positive_spans = 11;  repeated sint64 positive_deltas = 12;  repeated double positive_counts = 13;
 * ResetHint reset_hint = 14;   repeated double custom_values = 16;      // BucketSpan { sint32 offset = 1; uint32 length = 2; }
 * </pre>
 * so a remote write encoder writes it with the timestamp of each time copy appended (and, for a 2.0 request, the start
 * timestamp), and a histogram read from a remote write record passes through byte for byte but for those two fields.
 *
 * <p>Decoders make histogram points only when the buffer {@link #accepted() accepts} them (the output is remote write);
 * otherwise they keep their other mapping (OTLP exponential histograms as {@code vmrange} buckets) or skip them; OTLP
 * explicit-bucket histograms become histogram points only where {@link #customBuckets()} says so too, classic
 * histograms of the text formats only where {@link #classicCustomBuckets()} does. A
 * decoder calls {@link #begin} for a histogram point it keeps, writes the fields with the {@code put} methods in field
 * order, then {@link #end}; the points it makes otherwise have none. Nothing is allocated once the buffers have grown.
 * Not thread-safe; cleared with its {@link DecodedPoints}, which it belongs to.
 */
public final class PointHistograms {

    /** Field numbers of {@code prometheus.Histogram}. */
    public static final int COUNT_INT = 1;

    public static final int COUNT_FLOAT = 2;
    public static final int SUM = 3;
    public static final int SCHEMA = 4;
    public static final int ZERO_THRESHOLD = 5;
    public static final int ZERO_COUNT_INT = 6;
    public static final int ZERO_COUNT_FLOAT = 7;
    public static final int NEGATIVE_SPANS = 8;
    public static final int NEGATIVE_DELTAS = 9;
    public static final int NEGATIVE_COUNTS = 10;
    public static final int POSITIVE_SPANS = 11;
    public static final int POSITIVE_DELTAS = 12;
    public static final int POSITIVE_COUNTS = 13;
    public static final int RESET_HINT = 14;
    public static final int TIMESTAMP = 15;
    public static final int CUSTOM_VALUES = 16;
    /** {@code int64 start_timestamp = 17}: remote write 2.0 only (Prometheus remote write 2.0 types.proto). */
    public static final int START_TIMESTAMP = 17;

    private boolean accepted;
    private boolean customBuckets;
    private boolean classicCustomBuckets;
    /** Per point index: its histogram's index + 1, 0 for none. */
    private int[] byPoint = new int[64];

    private int points;
    /** Per histogram: offset and length of its fields in {@link #bytes}. */
    private int[] ranges = new int[32];

    private int count;
    /** Per histogram: its buckets, the lengths of its spans on both sides ({@link #buckets}). */
    private int[] buckets = new int[16];

    private byte[] bytes = new byte[1024];
    private int length;
    private int open = -1;
    private int openStart;

    /** Whether decoders may make histogram points (set once by the owner of the buffer; false by default). */
    public void accept(boolean accept) {
        this.accepted = accept;
    }

    /** Whether decoders may make histogram points: the output carries native histograms. */
    public boolean accepted() {
        return accepted;
    }

    /**
     * Whether OTLP explicit-bucket histograms become native histograms with custom buckets where histogram points are
     * {@link #accepted() accepted} ({@code --convert-histograms-to-nhcb}; set once by the owner of the buffer, false by
     * default: they stay classic {@code _bucket{le}} series).
     */
    public void acceptCustomBuckets(boolean accept) {
        this.customBuckets = accept;
    }

    /** Whether decoders make OTLP explicit-bucket histograms native histograms with custom buckets: both settings on. */
    public boolean customBuckets() {
        return accepted && customBuckets;
    }

    /**
     * Whether classic histograms of Prometheus text and OpenMetrics ({@code _bucket{le}}, {@code _sum}, {@code _count} of
     * a family typed {@code histogram}) become native histograms with custom buckets where histogram points are
     * {@link #accepted() accepted} ({@code --convert-classic-histograms-to-nhcb}; set once by the owner of the buffer,
     * false by default: they stay classic series).
     */
    public void acceptClassicCustomBuckets(boolean accept) {
        this.classicCustomBuckets = accept;
    }

    /** Whether the exposition decoder makes classic histograms native histograms with custom buckets: both settings on. */
    public boolean classicCustomBuckets() {
        return accepted && classicCustomBuckets;
    }

    void clear() {
        if (points > 0) {
            Arrays.fill(byPoint, 0, points, 0);
        }
        points = 0;
        count = 0;
        length = 0;
        open = -1;
    }

    /** Histograms kept in the record. */
    public int count() {
        return count;
    }

    /** Starts point {@code p}'s histogram; its fields follow, then {@link #end}. */
    public void begin(int p) {
        if (p >= byPoint.length) {
            byPoint = Arrays.copyOf(byPoint, Math.max(byPoint.length * 2, p + 1));
        }
        points = Math.max(points, p + 1);
        byPoint[p] = 0;
        open = p;
        openStart = length;
    }

    /** Ends the open histogram. */
    public void end() {
        if ((count + 1) * 2 > ranges.length) {
            ranges = Arrays.copyOf(ranges, ranges.length * 2);
        }
        if (count == buckets.length) {
            buckets = Arrays.copyOf(buckets, count * 2);
        }
        ranges[count * 2] = openStart;
        ranges[count * 2 + 1] = length - openStart;
        buckets[count] = spanLengths(bytes, openStart, length);
        byPoint[open] = ++count;
        open = -1;
    }

    /** The histogram of point {@code p}, or -1 when it has none. */
    public int of(int p) {
        return count == 0 || p >= points ? -1 : byPoint[p] - 1;
    }

    /**
     * Buckets of histogram {@code h}: the lengths of its positive and negative spans added up (empty buckets within a
     * span included, the zero bucket not), as many as its counts or deltas; what {@code --summary-json}'s
     * {@code histogram_buckets_written} counts per histogram written.
     */
    public int buckets(int h) {
        return buckets[h];
    }

    /** The buffer the histograms' fields are in. */
    public byte[] bytes() {
        return bytes;
    }

    /** Offset of histogram {@code h}'s fields in {@link #bytes}. */
    public int offset(int h) {
        return ranges[h * 2];
    }

    /** Byte length of histogram {@code h}'s fields. */
    public int length(int h) {
        return ranges[h * 2 + 1];
    }

    // ------------------------------------------------------------------ writing the open histogram's fields

    /** Copies encoded fields {@code src[off, off + len)} as they are. */
    public void putRaw(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, bytes, length, len);
        length += len;
    }

    /** A varint field (uint64, int64, enum), written even when 0 (a {@code oneof} member is). */
    public void putVarint(int field, long v) {
        ensure(20);
        tag(field, 0);
        varint(v);
    }

    /** A {@code sint32}/{@code sint64} field, left out when 0. */
    public void putSint(int field, long v) {
        if (v != 0) {
            ensure(20);
            tag(field, 0);
            varint((v << 1) ^ (v >> 63));
        }
    }

    /** A {@code double} field; when {@code always} is false left out at +0.0 (proto3's default). */
    public void putDouble(int field, double v, boolean always) {
        long bits = Double.doubleToRawLongBits(v);
        if (always || bits != 0) {
            ensure(20);
            tag(field, 1);
            fixed64(bits);
        }
    }

    /** A {@code BucketSpan} entry of field {@code field}: {@code sint32 offset = 1; uint32 length = 2}. */
    public void putSpan(int field, int offset, int spanLength) {
        ensure(32);
        tag(field, 2);
        long zig = ((long) offset << 1) ^ ((long) offset >> 63);
        int inner = (offset == 0 ? 0 : 1 + varintSize(zig)) + (spanLength == 0 ? 0 : 1 + varintSize(spanLength));
        varint(inner);
        if (offset != 0) {
            bytes[length++] = 1 << 3;
            varint(zig);
        }
        if (spanLength != 0) {
            bytes[length++] = 2 << 3;
            varint(spanLength);
        }
    }

    /** A packed {@code repeated sint64} field of {@code v[0, n)}; left out when n is 0. */
    public void putPackedSint64(int field, long[] v, int n) {
        if (n == 0) {
            return;
        }
        int size = 0;
        for (int i = 0; i < n; i++) {
            size += varintSize((v[i] << 1) ^ (v[i] >> 63));
        }
        ensure(size + 16);
        tag(field, 2);
        varint(size);
        for (int i = 0; i < n; i++) {
            varint((v[i] << 1) ^ (v[i] >> 63));
        }
    }

    /** A packed {@code repeated double} field of {@code v[0, n)}; left out when n is 0. */
    public void putPackedDouble(int field, double[] v, int n) {
        if (n == 0) {
            return;
        }
        ensure(n * 8 + 16);
        tag(field, 2);
        varint(n * 8L);
        for (int i = 0; i < n; i++) {
            fixed64(Double.doubleToRawLongBits(v[i]));
        }
    }

    /** Adds up the {@code length} of every {@code BucketSpan} in the fields {@code b[s, e)}; stops at a malformed field. */
    private static int spanLengths(byte[] b, int s, int e) {
        long total = 0;
        int p = s;
        while (p < e) {
            long tag = 0;
            int shift = 0;
            while (p < e && shift < 64) {
                byte x = b[p++];
                tag |= (long) (x & 0x7F) << shift;
                shift += 7;
                if (x >= 0) {
                    break;
                }
            }
            int wire = (int) (tag & 7);
            int field = (int) (tag >>> 3);
            if (wire == 0) {
                while (p < e && b[p++] < 0) {
                    // a varint's continuation bytes
                }
            } else if (wire == 1) {
                p += 8;
            } else if (wire == 5) {
                p += 4;
            } else if (wire == 2) {
                long len = 0;
                shift = 0;
                while (p < e && shift < 64) {
                    byte x = b[p++];
                    len |= (long) (x & 0x7F) << shift;
                    shift += 7;
                    if (x >= 0) {
                        break;
                    }
                }
                if (len < 0 || len > e - p) {
                    return (int) Math.min(total, Integer.MAX_VALUE);
                }
                int end = p + (int) len;
                if (field == NEGATIVE_SPANS || field == POSITIVE_SPANS) {
                    total += spanLength(b, p, end);
                }
                p = end;
            } else {
                return (int) Math.min(total, Integer.MAX_VALUE);
            }
        }
        return (int) Math.min(total, Integer.MAX_VALUE);
    }

    /** The {@code uint32 length = 2} of the {@code BucketSpan} {@code b[s, e)} (0 when absent). */
    private static int spanLength(byte[] b, int s, int e) {
        int p = s;
        int length = 0;
        while (p < e) {
            int tag = b[p++];
            long v = 0;
            int shift = 0;
            while (p < e && shift < 64) {
                byte x = b[p++];
                v |= (long) (x & 0x7F) << shift;
                shift += 7;
                if (x >= 0) {
                    break;
                }
            }
            if (tag == (2 << 3)) {
                length = (int) Math.min(v, Integer.MAX_VALUE);
            } else if (tag != (1 << 3)) {
                return length;
            }
        }
        return length;
    }

    private void tag(int field, int wireType) {
        varint((long) field << 3 | wireType);
    }

    private void varint(long v) {
        byte[] b = bytes;
        int w = length;
        while ((v & ~0x7FL) != 0) {
            b[w++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[w++] = (byte) v;
        length = w;
    }

    private void fixed64(long bits) {
        byte[] b = bytes;
        for (int i = 0; i < 8; i++) {
            b[length++] = (byte) (bits >>> (8 * i));
        }
    }

    private static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
