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

    private static final byte[] PLUS_INF = {'+', 'I', 'n', 'f'};
    private static final byte[] MINUS_INF = {'-', 'I', 'n', 'f'};

    /**
     * Formats {@code v}; ±Inf as {@code +Inf}/{@code -Inf}, not JSON but what VictoriaMetrics' export writes and its
     * import reads (1.79.5 and v1.150.0; both refuse {@code Infinity} and parse {@code 1e999} as +Inf).
     *
     * @throws IllegalArgumentException when {@code v} is NaN (the import API drops it: the decoders skip it before)
     */
    public ValueText set(double v) {
        if (Double.isInfinite(v)) {
            System.arraycopy(v > 0 ? PLUS_INF : MINUS_INF, 0, bytes, 0, 4);
            length = 4;
            return this;
        }
        if (Double.isNaN(v)) {
            throw new IllegalArgumentException("NaN has no form the import API stores");
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
