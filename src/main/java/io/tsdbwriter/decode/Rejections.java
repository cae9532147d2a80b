package io.tsdbwriter.decode;

import java.util.Arrays;


/**
 * What a {@link RecordDecoder} refused in one record: a count per {@link DecodeError} reason (a whole record counts
 * once; a line-based format counts each broken line) and the first reason with its detail (for the log line and the
 * dead letter's headers). Cleared by every decode.
 *
 * <p>Not thread-safe: one per decoding thread.
 */
public final class Rejections {

    private static final DecodeError[] REASONS = DecodeError.values();

    private final int[] counts = new int[REASONS.length];
    private int total;
    private int malformed;
    private DecodeError first;
    private String firstDetail = "";

    /** Forgets the previous record's rejections. */
    public void clear() {
        if (total != 0) {
            Arrays.fill(counts, 0);
        }
        total = 0;
        malformed = 0;
        first = null;
        firstDetail = "";
    }

    /**
     * Counts one refused record or line.
     *
     * @param detail what was wrong (a few words, the line number where there is one)
     */
    public void add(DecodeError reason, String detail) {
        counts[reason.ordinal()]++;
        total++;
        if (reason != DecodeError.NON_FINITE_VALUE) {
            malformed++;
        }
        if (first == null || (first == DecodeError.NON_FINITE_VALUE && reason != DecodeError.NON_FINITE_VALUE)) {
            first = reason;
            firstDetail = detail;
        }
    }

    /**
     * True when a refusal with this reason would become {@link #first()}: callers build the detail text only then
     * (a record of a million broken lines costs no million strings).
     */
    public boolean wantsDetail(DecodeError reason) {
        return first == null || (first == DecodeError.NON_FINITE_VALUE && reason != DecodeError.NON_FINITE_VALUE);
    }

    /** Refusals of the last record, every reason. */
    public int total() {
        return total;
    }

    /**
     * True when something of the record was malformed (any reason but {@link DecodeError#NON_FINITE_VALUE}, a
     * sample that is well-formed but cannot be carried): such a record goes to the dead-letter topic.
     */
    public boolean malformed() {
        return malformed > 0;
    }

    /** Refusals of the last record with this reason. */
    public int count(DecodeError reason) {
        return counts[reason.ordinal()];
    }

    /** The first malformed reason (else the first reason), or null when nothing was refused. */
    public DecodeError first() {
        return first;
    }

    /** Detail of {@link #first()}. */
    public String firstDetail() {
        return firstDetail;
    }

    /** All reasons, in the order {@link #count} indexes them. */
    public static DecodeError[] reasons() {
        return REASONS;
    }
}
