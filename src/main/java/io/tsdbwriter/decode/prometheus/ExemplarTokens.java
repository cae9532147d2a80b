package io.tsdbwriter.decode.prometheus;

/**
 * Where the parts of a sample line's exemplar lie, as {@link ExpositionLine#scan} found them: OpenMetrics 1.0's
 * {@code exemplar = SP HASH SP labels SP number [SP timestamp]} after the sample's value and timestamp, where each
 * {@code SP} may be one or more blanks (space or tab) and blanks may end the line. The exemplar's label set is read as
 * the series' is (escapes, a trailing comma); its labels are not kept. Neither number is parsed here: a caller that
 * accepts the line checks them ({@link io.tsdbwriter.decode.Numbers}). An exemplar is never part of the sample: it is
 * read only to be sure where the sample ends.
 *
 * <p>Not thread-safe: owned by one {@link ExpositionLine}; positions are valid for the line last scanned, and only when
 * {@link ExpositionLine#exemplar()} is not -1.
 */
public final class ExemplarTokens {

    private int labelsOpen;
    private int labelsClose;
    private int valueFrom;
    private int valueTo;
    private int timestampFrom;
    private int timestampTo;

    ExemplarTokens() {}

    /**
     * Reads the exemplar whose {@code #} is {@code b[hash]} (preceded by a blank) up to {@code to}.
     *
     * @return null when it follows the grammar, else what is wrong with it in a few words
     */
    String scan(ExpositionLine line, byte[] b, int hash, int to) {
        int open = ExpositionLine.blanks(b, hash + 1, to);
        if (open == to || b[open] != '{') {
            return "exemplar without labels";
        }
        if (open == hash + 1) {
            return "no blank between the exemplar's '#' and its labels";
        }
        int close = line.exemplarLabels(b, open + 1, to);
        if (close < 0) {
            return "exemplar " + line.detail();
        }
        int v = ExpositionLine.blanks(b, close, to);
        if (v == to) {
            return "exemplar without a value";
        }
        if (v == close) {
            return "no blank between the exemplar's labels and its value";
        }
        int vEnd = ExpositionLine.token(b, v, to);
        int t = ExpositionLine.blanks(b, vEnd, to);
        int tEnd = ExpositionLine.token(b, t, to);
        if (ExpositionLine.blanks(b, tEnd, to) != to) {
            return "unexpected text after the exemplar's timestamp";
        }
        labelsOpen = open;
        labelsClose = close - 1;
        valueFrom = v;
        valueTo = vEnd;
        timestampFrom = t;
        timestampTo = tEnd;
        return null;
    }

    /** Index of the exemplar's opening brace. */
    public int labelsOpen() {
        return labelsOpen;
    }

    /** Index of the exemplar's closing brace. */
    public int labelsClose() {
        return labelsClose;
    }

    /** Start of the exemplar's value token. */
    public int valueFrom() {
        return valueFrom;
    }

    /** End (exclusive) of the exemplar's value token. */
    public int valueTo() {
        return valueTo;
    }

    /** Start of the exemplar's timestamp token (OpenMetrics: seconds, a float); equal to its end when none. */
    public int timestampFrom() {
        return timestampFrom;
    }

    /** End (exclusive) of the exemplar's timestamp token. */
    public int timestampTo() {
        return timestampTo;
    }

    /** Whether the exemplar has a timestamp. */
    public boolean hasTimestamp() {
        return timestampFrom < timestampTo;
    }
}
