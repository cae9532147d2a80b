package io.tsdbwriter.decode;

/**
 * Strict UTF-8 validation (RFC 3629): rejects overlong forms, encoded surrogates, code points above U+10FFFF and
 * truncated sequences, which Jackson's parser lets through in part. ASCII runs take a fast path. Stateless.
 */
public final class Utf8 {

    private Utf8() {}

    /** True when every byte of {@code b} belongs to a well-formed UTF-8 sequence. */
    public static boolean isValid(byte[] b) {
        int i = 0;
        int n = b.length;
        while (i < n) {
            if (b[i] >= 0) {
                i++;
            } else if ((i = sequenceEnd(b, i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** True when every byte of {@code b[from, to)} belongs to a well-formed UTF-8 sequence ending before {@code to}. */
    public static boolean isValid(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            if (b[i] >= 0) {
                i++;
            } else if ((i = sequenceEnd(b, i)) < 0 || i > to) {
                return false;
            }
        }
        return true;
    }

    /**
     * The index just after the well-formed multi-byte sequence that starts at {@code b[i]} (a byte ≥ 0x80), or -1
     * when it is malformed: a continuation byte first, an overlong form, an encoded surrogate, a code point above
     * U+10FFFF or a sequence cut off by the end of {@code b}.
     */
    public static int sequenceEnd(byte[] b, int i) {
        int n = b.length;
        int c = b[i] & 0xFF;
        if (c >= 0xC2 && c <= 0xDF) {
            return i + 1 < n && cont(b[i + 1]) ? i + 2 : -1;
        }
        if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n || !cont(b[i + 1]) || !cont(b[i + 2])) {
                return -1;
            }
            int c1 = b[i + 1] & 0xFF;
            return (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) ? -1 : i + 3; // overlong, or a UTF-16 surrogate
        }
        if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n || !cont(b[i + 1]) || !cont(b[i + 2]) || !cont(b[i + 3])) {
                return -1;
            }
            int c1 = b[i + 1] & 0xFF;
            return (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F) ? -1 : i + 4; // overlong, or above U+10FFFF
        }
        return -1; // continuation byte first, C0/C1 overlong lead, or F5..FF
    }

    /** True when {@code s} holds a UTF-16 surrogate without its partner (possible through JSON \\u escapes). */
    public static boolean hasUnpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean cont(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
