package io.tsdbwriter.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte array for request bodies: appends bytes and ASCII-formatted longs without allocating per call.
 * Not thread-safe; handed from the poll thread to one writer thread, never shared.
 */
public final class ByteBuf {

    private byte[] bytes;
    private int length;

    /** @param initialCapacity initial size in bytes */
    public ByteBuf(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** An empty buffer writing into {@code reuse} (its content undefined), grown as any other. */
    public ByteBuf(byte[] reuse) {
        this.bytes = reuse;
    }

    /**
     * Gives up the backing array (for the write path's pool of request bodies): the buffer is empty afterwards, with no capacity, and must
     * not be read again; an append would allocate a new array.
     */
    public byte[] detach() {
        byte[] a = bytes;
        bytes = EMPTY;
        length = 0;
        return a;
    }

    private static final byte[] EMPTY = new byte[0];

    /** The backing array; valid content is {@code [0, length())}. */
    public byte[] array() {
        return bytes;
    }

    /** Bytes written. */
    public int length() {
        return length;
    }

    /** Forgets the content, keeps the capacity. */
    public void reset() {
        length = 0;
    }

    private void ensure(int extra) {
        int need = length + extra;
        if (need > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(need, bytes.length * 2));
        }
    }

    /**
     * Makes room for {@code extra} more bytes and returns the backing array, to be written from {@link #length()} on
     * and then committed with {@link #advance}: one capacity check for a run of small writes (a line's M values).
     */
    public byte[] reserve(int extra) {
        ensure(extra);
        return bytes;
    }

    /**
     * Counts {@code n} bytes written into the array {@link #reserve} returned as appended.
     *
     * @throws IndexOutOfBoundsException when they would pass the array's end
     */
    public void advance(int n) {
        if (n < 0 || length + n > bytes.length) {
            throw new IndexOutOfBoundsException("advance " + n + " at " + length + " of " + bytes.length);
        }
        length += n;
    }

    /** Appends one byte. */
    public ByteBuf put(byte b) {
        ensure(1);
        bytes[length++] = b;
        return this;
    }

    /** Appends all of {@code src}. */
    public ByteBuf put(byte[] src) {
        ensure(src.length);
        System.arraycopy(src, 0, bytes, length, src.length);
        length += src.length;
        return this;
    }

    /** Appends {@code src[off, off+len)}. */
    public ByteBuf put(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, bytes, length, len);
        length += len;
        return this;
    }

    /** "00".."99": tens digit of {@code i} at {@code 2i}, ones digit at {@code 2i+1}. */
    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    /**
     * Appends the decimal ASCII form of {@code v} (as {@link Long#toString(long)} would, without the String).
     * Hot: called for every sample's timestamp, so it counts digits by multiplication and writes two digits per
     * division by the constant 100 (which the JIT turns into a multiplication).
     */
    public ByteBuf putLong(long v) {
        ensure(20);
        if (v == Long.MIN_VALUE) {
            return put("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
        }
        if (v < 0) {
            bytes[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long p = 10; digits < 19 && v >= p; p *= 10) {
            digits++;
        }
        int pos = length + digits;
        length = pos;
        byte[] b = bytes;
        while (v >= 100) {
            long q = v / 100;
            int r = (int) (v - q * 100) << 1;
            b[--pos] = DIGIT_PAIRS[r + 1];
            b[--pos] = DIGIT_PAIRS[r];
            v = q;
        }
        if (v >= 10) {
            int r = (int) v << 1;
            b[--pos] = DIGIT_PAIRS[r + 1];
            b[--pos] = DIGIT_PAIRS[r];
        } else {
            b[--pos] = (byte) ('0' + v);
        }
        return this;
    }

    private final byte[] high = new byte[20];

    /**
     * Appends {@code base + offsets[i]} for every i, comma-separated: the M timestamps of one line. Hot (every
     * sample's timestamp): values that share their digits above the low six with {@code base} — all of a line's but
     * those that cross a multiple of 10^6 — are written as those digits, formatted once per call, and three digit
     * pairs. Same text as {@link #putLong} per value.
     */
    public ByteBuf putLongs(long base, long[] offsets) {
        int m = offsets.length;
        if (base < 1_000_000L || base > Long.MAX_VALUE / 2) {
            for (int i = 0; i < m; i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                putLong(base + offsets[i]);
            }
            return this;
        }
        long hi = base / 1_000_000L;
        int lo = (int) (base - hi * 1_000_000L);
        int highLength = digits(hi, high);
        ensure(m * 21);
        for (int i = 0; i < m; i++) {
            if (i > 0) {
                bytes[length++] = ',';
            }
            long off = offsets[i];
            if (off < 0 || off >= 1_000_000L - lo) {
                putLong(base + off);
                continue;
            }
            int v = lo + (int) off;
            byte[] b = bytes;
            int pos = length;
            System.arraycopy(high, 0, b, pos, highLength);
            pos += highLength;
            int p1 = v / 10_000;
            int rest = v - p1 * 10_000;
            int p2 = rest / 100;
            int p3 = rest - p2 * 100;
            b[pos] = DIGIT_PAIRS[2 * p1];
            b[pos + 1] = DIGIT_PAIRS[2 * p1 + 1];
            b[pos + 2] = DIGIT_PAIRS[2 * p2];
            b[pos + 3] = DIGIT_PAIRS[2 * p2 + 1];
            b[pos + 4] = DIGIT_PAIRS[2 * p3];
            b[pos + 5] = DIGIT_PAIRS[2 * p3 + 1];
            length = pos + 6;
        }
        return this;
    }

    /** Writes the decimal digits of {@code v} (≥ 0) to {@code dst}; returns how many. */
    private static int digits(long v, byte[] dst) {
        int n = 1;
        for (long p = 10; n < 19 && v >= p; p *= 10) {
            n++;
        }
        for (int i = n - 1; i >= 0; i--) {
            long q = v / 10;
            dst[i] = (byte) ('0' + (v - q * 10));
            v = q;
        }
        return n;
    }
}
