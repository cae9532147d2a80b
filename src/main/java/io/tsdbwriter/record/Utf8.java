package io.tsdbwriter.record;

/**
 * Strict UTF-8 validation (RFC 3629): rejects overlong forms, encoded surrogates, code points above U+10FFFF and
 * truncated sequences, which Jackson's parser lets through in part. ASCII runs take a fast path. Stateless.
 */
public final class Utf8 {

    private Utf8() {
    }

    /** True when every byte of {@code b} belongs to a well-formed UTF-8 sequence. */
    public static boolean isValid(byte[] b) {
        int i = 0;
        int n = b.length;
        while (i < n) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xFF;
            if (c >= 0xC2 && c <= 0xDF) {
                if (i + 1 >= n || !cont(b[i + 1])) {
                    return false;
                }
                i += 2;
            } else if (c >= 0xE0 && c <= 0xEF) {
                if (i + 2 >= n || !cont(b[i + 1]) || !cont(b[i + 2])) {
                    return false;
                }
                int c1 = b[i + 1] & 0xFF;
                if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) {
                    return false; // overlong, or a UTF-16 surrogate
                }
                i += 3;
            } else if (c >= 0xF0 && c <= 0xF4) {
                if (i + 3 >= n || !cont(b[i + 1]) || !cont(b[i + 2]) || !cont(b[i + 3])) {
                    return false;
                }
                int c1 = b[i + 1] & 0xFF;
                if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
                    return false; // overlong, or above U+10FFFF
                }
                i += 4;
            } else {
                return false; // continuation byte first, C0/C1 overlong lead, or F5..FF
            }
        }
        return true;
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
