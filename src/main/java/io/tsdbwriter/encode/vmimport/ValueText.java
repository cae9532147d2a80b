package io.tsdbwriter.encode.vmimport;

/**
 * A point's value as a JSON number in ASCII, formatted into a reused buffer: the same text as
 * {@link ImportLineEncoder#formatValue(double)} (integral values within ±2^53 without a fraction, others in Java's
 * shortest round-trip form) without allocating per point. Valid from {@link #set} until the next {@code set}.
 *
 * <p>Not thread-safe: one per encoding thread.
 */
public final class ValueText {

    private final byte[] bytes = new byte[32];
    private final StringBuilder text = new StringBuilder(32);
    private int length;

    /**
     * Formats {@code v}.
     *
     * @throws IllegalArgumentException when {@code v} is NaN or infinite (not a JSON number)
     */
    public ValueText set(double v) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("not a JSON number: " + v);
        }
        StringBuilder t = text;
        t.setLength(0);
        if (ImportLineEncoder.isPlainInteger(v)) {
            t.append((long) v);
        } else {
            t.append(v); // Double.toString's digits, appended without a String
        }
        int n = t.length();
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) t.charAt(i);
        }
        length = n;
        return this;
    }

    /** The ASCII bytes, valid in {@code [0, length())}. */
    public byte[] bytes() {
        return bytes;
    }

    /** Number of bytes. */
    public int length() {
        return length;
    }
}
