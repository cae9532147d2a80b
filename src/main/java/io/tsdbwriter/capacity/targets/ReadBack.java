package io.tsdbwriter.capacity.targets;

import java.util.Locale;

/**
 * A search's read-back pass: whether the target holds every sample its writers wrote, counted after the search on the
 * target's query API (the VictoriaMetrics and Prometheus HTTP API): per metric name of the span one instant query
 * {@code sum(count_over_time({__name__="NAME"}[SPAN]))} at a time past the search's newest sample, {@code SPAN}
 * reaching back before its oldest (a search's input is its own: a week back, on an empty store), summed.
 * A count, not a sample-by-sample comparison ({@code tsdb-writer verify} does that against VictoriaMetrics).
 * Immutable; thread-safe.
 *
 * @param written  the samples the search's writers wrote (their summaries' {@code samples_written}: 2xx, not dead-lettered)
 * @param readBack the samples the query counted; -1 when unknown
 * @param source   how the count was read ({@code QUERY on URL}, without userinfo), or why it is unknown
 */
public record ReadBack(long written, long readBack, String source) {

    /** The column's head in the side-by-side table. */
    public static final String HEAD = "read back";

    /** A count read back. */
    public static ReadBack counted(long written, long readBack, String source) {
        if (readBack < 0) {
            throw new IllegalArgumentException("readBack must be >= 0, got " + readBack);
        }
        return new ReadBack(written, readBack, source);
    }

    /** No count: {@code why} says why (no query API, an answer other than 2xx, …). */
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

    /** Whether a count was read. */
    public boolean known() {
        return readBack >= 0;
    }

    /** Whether the count was read and is less than the samples written: samples are missing. */
    public boolean missing() {
        return known() && readBack < written;
    }

    /**
     * The table cell: {@code all 1,234,567} when every sample written was counted, {@code all 1,234,567 (+12 more)}
     * when the target counted more (duplicates of retried writes), {@code 1,234,000 of 1,234,567} when some are
     * missing, {@code –} when unknown.
     */
    public String cell() {
        if (!known()) {
            return TargetComparison.NONE;
        }
        if (readBack < written) {
            return String.format(Locale.ROOT, "%,d of %,d", readBack, written);
        }
        return String.format(Locale.ROOT, "all %,d", written)
                + (readBack > written ? String.format(Locale.ROOT, " (+%,d more)", readBack - written) : "");
    }

    /** One line for the console: {@code read back: CELL samples written, counted by SOURCE}, or {@code read back: unknown: WHY}. */
    public String line() {
        return known()
                ? "read back: " + cell() + " samples written, counted by " + source
                : "read back: unknown: " + source;
    }
}
