package io.tsdbwriter.decode;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a {@link RecordDecoder} refused in one record: a count per {@link DecodeError} reason (a whole record counts
 * once; a line-based format counts each broken line) and the first reason with its detail (for the log line and the
 * dead letter's headers). Cleared by every decode.
 *
 * <p>Not thread-safe: one per decoding thread.
 */
public final class Rejections {

    /**
     * Which values that are not finite a decoder passes on: every float64 is a valid sample in the
     * remote write specification, NaN, ±Inf and Prometheus' staleness marker ({@link #STALE_MARKER_BITS}) included;
     * the import API stores ±Inf (written {@code +Inf}/{@code -Inf}, VictoriaMetrics' export form, read back by 1.79.5
     * and v1.150.0) but drops every NaN with a 2xx (VictoriaMetrics keeps NaN only as a staleness marker, which a JSON
     * line cannot express).
     */
    public enum NonFinite {
        /** Skip and count NaN and ±Inf ({@link DecodeError#NON_FINITE_VALUE}): a decoder's default. */
        SKIP,
        /** Pass ±Inf on; skip and count NaN: {@code --output import}. */
        KEEP_INFINITIES,
        /** Pass every value on, the staleness marker's bits kept: {@code --output remote-write}. */
        KEEP
    }

    /** The bits of Prometheus' staleness marker, a NaN ({@code value.StaleNaN} in Prometheus' {@code model/value}). */
    public static final long STALE_MARKER_BITS = 0x7ff0000000000002L;

    private static final DecodeError[] REASONS = DecodeError.values();

    private final NonFinite nonFinite;

    /** Rejections whose decoder skips every value that is not finite ({@link NonFinite#SKIP}). */
    public Rejections() {
        this(NonFinite.SKIP);
    }

    /** @param nonFinite which values that are not finite the decoders pass on */
    public Rejections(NonFinite nonFinite) {
        this.nonFinite = Objects.requireNonNull(nonFinite, "nonFinite");
    }

    /** Which values that are not finite pass. */
    public NonFinite nonFinite() {
        return nonFinite;
    }

    /**
     * True when a sample of value {@code v} is to be skipped (and counted {@link DecodeError#NON_FINITE_VALUE} by the
     * caller): never for a finite value; for NaN and ±Inf as {@link #nonFinite()} says. Allocation-free.
     */
    public boolean skips(double v) {
        if (Double.isFinite(v)) {
            return false;
        }
        return switch (nonFinite) {
            case SKIP -> true;
            case KEEP_INFINITIES -> Double.isNaN(v);
            case KEEP -> false;
        };
    }

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
