package io.tsdbwriter.capacity.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A search's read-back pass: whether the target holds every sample its writers were fed, read after the search on the
 * target's query API (the VictoriaMetrics and Prometheus HTTP API). Two kinds:
 * <ul>
 *   <li><b>compared</b> ({@link #compared}): sample by sample, as {@code tsdb-writer verify} compares ({@link Exact}):
 *       the samples the search fed (its input's points × M × N, the expected samples) against what the target returns;</li>
 *   <li><b>counted</b> ({@link #counted}), where the comparison cannot run (its reason in {@code source}): per metric
 *       name of the span one instant query {@code sum(count_over_time({__name__="NAME"}[SPAN]))} at a time past the
 *       search's newest sample, {@code SPAN} reaching back before its oldest, summed, against the samples written.</li>
 * </ul>
 * Immutable; thread-safe.
 *
 * @param written  the samples the search's writers wrote (their summaries' {@code samples_written}: 2xx, not dead-lettered)
 * @param readBack the samples read back (compared: every sample the target returned, expected or not; counted: the
 *                 count); -1 when unknown
 * @param source   how it was read ({@code QUERY on URL}, the read API and URL, without userinfo), or why it is unknown
 * @param exact    the sample-by-sample figures; null for a count or when unknown
 */
public record ReadBack(long written, long readBack, String source, Exact exact) {

    /** The column's head in the side-by-side table. */
    public static final String HEAD = "read back";

    /**
     * The figures of a sample-by-sample comparison; all ≥ 0.
     *
     * @param expected   the distinct samples the search fed to the target (its points × M × N, one per series and
     *                   timestamp)
     * @param found      the expected samples read back (value right or not); {@code expected − found} are missing
     * @param extra      samples read back that were not expected or were read back more than once (duplicates)
     * @param mismatched found samples whose value differs from the fed one beyond the comparison's tolerance
     */
    public record Exact(long expected, long found, long extra, long mismatched) {

        public Exact {
            if (expected < 0 || found < 0 || found > expected || extra < 0 || mismatched < 0) {
                throw new IllegalArgumentException("inconsistent figures: expected " + expected + ", found " + found
                        + ", extra " + extra + ", mismatched " + mismatched);
            }
        }

        /** Expected samples not read back. */
        public long missing() {
            return expected - found;
        }
    }

    /** A count read back, or no count: {@code readBack} -1. */
    public ReadBack(long written, long readBack, String source) {
        this(written, readBack, source, null);
    }

    /** A count read back. */
    public static ReadBack counted(long written, long readBack, String source) {
        if (readBack < 0) {
            throw new IllegalArgumentException("readBack must be >= 0, got " + readBack);
        }
        return new ReadBack(written, readBack, source);
    }

    /**
     * A sample-by-sample comparison.
     *
     * @param read the samples read back, expected or not
     * @throws IllegalArgumentException when {@code read} is negative
     */
    public static ReadBack compared(long written, long read, Exact exact, String source) {
        if (read < 0) {
            throw new IllegalArgumentException("read must be >= 0, got " + read);
        }
        return new ReadBack(written, read, source, exact);
    }

    /** No figure: {@code why} says why (no query API, an answer other than 2xx, …). */
    public static ReadBack unknown(long written, String why) {
        return new ReadBack(written, -1, why);
    }

    /**
     * The query counting the samples of the metric {@code name} between {@code fromMs} (exclusive) and {@code atMs}
     * (inclusive) when evaluated at {@code atMs}; the name quoted as a PromQL string (each backslash and double quote escaped).
     */
    public static String query(String name, long fromMs, long atMs) {
        return "sum(count_over_time({__name__=\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}["
                + Math.max(1, atMs - fromMs) + "ms]))";
    }

    /** Whether a figure was read. */
    public boolean known() {
        return readBack >= 0;
    }

    /** Whether the samples were compared one by one ({@link #exact()} is not null). */
    public boolean isExact() {
        return exact != null && known();
    }

    /**
     * Whether the target does not hold every sample: compared, an expected sample not read back or read back with
     * another value; counted, a count below the samples written.
     */
    public boolean missing() {
        if (!known()) {
            return false;
        }
        return exact != null ? exact.missing() > 0 || exact.mismatched() > 0 : readBack < written;
    }

    /**
     * The table cell, {@code –} when unknown. Compared: {@code all 1,234,567} when every expected sample was read back,
     * {@code 1,234,000 of 1,234,567} when some are missing, followed by {@code (+12 more)} for samples read back
     * that were not expected or more than once, and {@code (3 mismatched)} for values that differ (both:
     * {@code (+12 more, 3 mismatched)}). Counted: {@code all 1,234,567} when every sample written was counted,
     * {@code all 1,234,567 (+12 more)} when the target counted more (duplicates of retried writes),
     * {@code 1,234,000 of 1,234,567} when some are missing.
     */
    public String cell() {
        if (!known()) {
            return TargetComparison.NONE;
        }
        if (exact == null) {
            return ratio(readBack, written) + (readBack > written ? more(List.of(plus(readBack - written))) : "");
        }
        List<String> notes = new ArrayList<>();
        if (exact.extra() > 0) {
            notes.add(plus(exact.extra()));
        }
        if (exact.mismatched() > 0) {
            notes.add(String.format(Locale.ROOT, "%,d mismatched", exact.mismatched()));
        }
        return ratio(exact.found(), exact.expected()) + more(notes);
    }

    private static String ratio(long got, long of) {
        return got < of ? String.format(Locale.ROOT, "%,d of %,d", got, of) : String.format(Locale.ROOT, "all %,d", of);
    }

    private static String plus(long n) {
        return String.format(Locale.ROOT, "+%,d more", n);
    }

    private static String more(List<String> notes) {
        return notes.isEmpty() ? "" : " (" + String.join(", ", notes) + ")";
    }

    /**
     * One line for the console: {@code read back: CELL samples fed, compared sample by sample on SOURCE},
     * {@code read back: CELL samples written, counted by SOURCE}, or {@code read back: unknown: WHY}.
     */
    public String line() {
        if (!known()) {
            return "read back: unknown: " + source;
        }
        return exact != null
                ? "read back: " + cell() + " samples fed, compared sample by sample on " + source
                : "read back: " + cell() + " samples written, counted by " + source;
    }
}
