package io.tsdbwriter.decode.prometheus;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The one reader of the Prometheus text exposition format 0.0.4 (Prometheus docs, "Exposition formats") and of
 * OpenMetrics 1.0's sample lines: every user of the format — the {@code prometheus} input decoder, the strict file
 * parser of {@code produce} and {@code verify}, the capacity probes and the bench's {@code /metrics} readers — tokenizes
 * a line here and then applies its own strictness to the tokens. One line,
 * {@code name[{label="value",…}] value [timestamp] [# {labels} value [timestamp]]}, is scanned in place: {@link #scan}
 * records where the metric name, each label's name and raw (still escaped) value, the value, the timestamp and the
 * exemplar ({@link ExemplarTokens}) lie in the caller's bytes, and allocates nothing once its label arrays have grown
 * to the widest line.
 * <ul>
 *   <li>a line whose first non-blank byte is {@code #} ({@code HELP}, {@code TYPE}, comments), or that is blank, is
 *       {@link Kind#SKIP};</li>
 *   <li>the metric name runs to the first blank or {@code {}; its characters are not checked here; the label set
 *       is the {@code {…}} that follows it, blanks between allowed;</li>
 *   <li>labels are {@code name="value"} separated by commas, blanks allowed around {@code =} and {@code ,}, a trailing
 *       comma allowed; a value ends at the first {@code "} not escaped by a backslash ({@code #}, {@code {} and
 *       {@code }} inside it are text);</li>
 *   <li>the value is the first token after the labels (or the name); the timestamp is the rest up to an exemplar,
 *       blanks trimmed; neither is parsed here ({@link io.tsdbwriter.decode.Numbers} does);</li>
 *   <li>an exemplar begins at a {@code #} that follows a blank after the value; it must be OpenMetrics'
 *       {@code # {labels} value [timestamp]}, else the line is {@link Problem#EXEMPLAR}. A {@code #} not after a blank
 *       is part of the value's or the timestamp's token.</li>
 * </ul>
 * A line that does not follow this is {@link Kind#INVALID}, with a {@link #problem()} and a {@link #detail()}.
 * VictoriaMetrics (1.79.5 to v1.150.0) reads the same but for exemplars: it takes a line's first {@code {} for the
 * labels ({@code m 7 # {a="b"} 2} is series {@code m 7 #{a="b"}} = 2) and ends the value at any {@code #}.
 *
 * <p>Not thread-safe: one instance per thread; positions are valid until the next {@link #scan}.
 */
public final class ExpositionLine {

    /** What a scanned line is. */
    public enum Kind {
        /** A sample line: the positions are set. */
        SAMPLE,
        /** Blank, or a comment ({@code # HELP}, {@code # TYPE}, …). */
        SKIP,
        /** Not a sample line: {@link #problem()} says why. */
        INVALID
    }

    /** Why a line is {@link Kind#INVALID}. */
    public enum Problem {
        /** The metric name is empty. */
        EMPTY_METRIC,
        /** The label set does not parse (see {@link #detail()}). */
        LABELS,
        /** No value after a metric name without labels (the name is all there is). */
        NAME_ONLY,
        /** No value after the labels. */
        NO_VALUE,
        /** A {@code #} after the value begins something that is not an exemplar (see {@link ExemplarTokens}). */
        EXEMPLAR
    }

    private int metricStart;
    private int metricEnd;
    private int seriesEnd;
    private int labelsOpen = -1;
    private int labelsClose = -1;
    private int labelCount;
    private int[] nameStart = new int[16];
    private int[] nameEnd = new int[16];
    private int[] valueStart = new int[16];
    private int[] valueEnd = new int[16];
    private boolean[] escaped = new boolean[16];
    private int valueFrom;
    private int valueTo;
    private int timestampFrom;
    private int timestampTo;
    private int exemplar;
    private final ExemplarTokens exemplarTokens = new ExemplarTokens();
    private Problem problem;
    private String detail = "";

    /**
     * Scans {@code b[from, to)}, one line without its line break.
     *
     * @return what the line is; for {@link Kind#SAMPLE} the positions below are set
     */
    public Kind scan(byte[] b, int from, int to) {
        int s = blanks(b, from, to);
        if (s == to || b[s] == '#') {
            return Kind.SKIP;
        }
        labelCount = 0;
        labelsOpen = labelsClose = exemplar = -1;
        metricStart = s;
        int e = s;
        while (e < to && b[e] != ' ' && b[e] != '\t' && b[e] != '{') {
            e++;
        }
        metricEnd = e;
        int after = blanks(b, e, to);
        if (after < to && b[after] == '{') {
            labelsOpen = after;
            after = labels(b, after + 1, to, true);
            if (after < 0) {
                return invalid(Problem.LABELS, detail);
            }
            labelsClose = after - 1;
            seriesEnd = after;
        } else if (e == to) {
            return invalid(Problem.NAME_ONLY, "no value");
        } else {
            seriesEnd = after = e;
        }
        if (metricEnd <= metricStart) {
            return invalid(Problem.EMPTY_METRIC, "empty metric name");
        }
        int v = blanks(b, after, to);
        if (v == to || b[v] == '#') {
            return invalid(Problem.NO_VALUE, "no value");
        }
        valueFrom = v;
        valueTo = token(b, v, to);
        int t = blanks(b, valueTo, to);
        int hash = -1;
        for (int i = t; hash < 0 && i < to; i++) { // b[t - 1] is a blank when t < to
            if (b[i] == '#' && (b[i - 1] == ' ' || b[i - 1] == '\t')) {
                hash = i; // an exemplar's '#' follows a blank; elsewhere it is part of a token
            }
        }
        timestampFrom = t;
        timestampTo = trimEnd(b, t, hash < 0 ? to : hash);
        if (hash >= 0) {
            String why = exemplarTokens.scan(this, b, hash, to);
            if (why != null) {
                return invalid(Problem.EXEMPLAR, why);
            }
            exemplar = hash;
        }
        return Kind.SAMPLE;
    }

    /** Reads an exemplar's label set from after its {@code {}, keeping no label; see {@link #labels}. */
    int exemplarLabels(byte[] b, int s, int to) {
        return labels(b, s, to, false);
    }

    /**
     * Reads {@code label="value",…}} from {@code s}, adding each label to the line's when {@code keep}; returns the
     * index after the closing brace, or -1.
     */
    private int labels(byte[] b, int s, int to, boolean keep) {
        while (true) {
            s = blanks(b, s, to);
            if (s < to && b[s] == '}') {
                return s + 1;
            }
            int eq = indexOf(b, s, to, '=');
            if (eq < 0) {
                return fail("label without '='");
            }
            int nameTo = trimEnd(b, s, eq);
            if (nameTo == s) {
                return fail("empty label name");
            }
            int q = blanks(b, eq + 1, to);
            if (q >= to || b[q] != '"') {
                return fail("label value not quoted");
            }
            // closing quote: the first '"' not escaped
            int close = q + 1;
            boolean esc = false;
            while (close < to && b[close] != '"') {
                if (b[close] == '\\') {
                    esc = true;
                    close++;
                }
                close++;
            }
            if (close >= to) {
                return fail("label value without closing quote");
            }
            if (keep) {
                add(s, nameTo, q + 1, close, esc);
            }
            s = blanks(b, close + 1, to);
            if (s < to && b[s] == '}') {
                return s + 1;
            }
            if (s >= to || b[s] != ',') {
                return fail("no ',' or '}' after a label");
            }
            s++;
        }
    }

    private void add(int nameFrom, int nameTo, int valueFromIndex, int valueToIndex, boolean esc) {
        if (labelCount == nameStart.length) {
            int n = labelCount * 2;
            nameStart = Arrays.copyOf(nameStart, n);
            nameEnd = Arrays.copyOf(nameEnd, n);
            valueStart = Arrays.copyOf(valueStart, n);
            valueEnd = Arrays.copyOf(valueEnd, n);
            escaped = Arrays.copyOf(escaped, n);
        }
        nameStart[labelCount] = nameFrom;
        nameEnd[labelCount] = nameTo;
        valueStart[labelCount] = valueFromIndex;
        valueEnd[labelCount] = valueToIndex;
        escaped[labelCount] = esc;
        labelCount++;
    }

    private int fail(String why) {
        detail = why;
        return -1;
    }

    private Kind invalid(Problem p, String why) {
        problem = p;
        detail = why;
        return Kind.INVALID;
    }

    /** Why the last line was {@link Kind#INVALID}. */
    public Problem problem() {
        return problem;
    }

    /** What is wrong with the last {@link Kind#INVALID} line, in a few words. */
    public String detail() {
        return detail;
    }

    /** Start of the metric name. */
    public int metricStart() {
        return metricStart;
    }

    /** End (exclusive) of the metric name. */
    public int metricEnd() {
        return metricEnd;
    }

    /** End (exclusive) of the series as printed: after the closing brace, or the metric name's end. */
    public int seriesEnd() {
        return seriesEnd;
    }

    /** Index of the opening brace, or -1 when the line has no labels. */
    public int labelsOpen() {
        return labelsOpen;
    }

    /** Index of the closing brace, or -1 when the line has no labels. */
    public int labelsClose() {
        return labelsClose;
    }

    /** Labels read, in line order (labels with an empty value included). */
    public int labelCount() {
        return labelCount;
    }

    /** Start of label {@code i}'s name. */
    public int nameStart(int i) {
        return nameStart[i];
    }

    /** End (exclusive) of label {@code i}'s name, blanks before {@code =} trimmed. */
    public int nameEnd(int i) {
        return nameEnd[i];
    }

    /** Start of label {@code i}'s value, inside the quotes, still escaped. */
    public int valueStart(int i) {
        return valueStart[i];
    }

    /** End (exclusive) of label {@code i}'s value: its closing quote. */
    public int valueEnd(int i) {
        return valueEnd[i];
    }

    /** Whether label {@code i}'s value holds a backslash (see {@link #unescape}). */
    public boolean escaped(int i) {
        return escaped[i];
    }

    /** Start of the sample value's token. */
    public int valueFrom() {
        return valueFrom;
    }

    /** End (exclusive) of the sample value's token. */
    public int valueTo() {
        return valueTo;
    }

    /** Start of the timestamp: the rest of the line after the value, up to an exemplar; equal to its end when none. */
    public int timestampFrom() {
        return timestampFrom;
    }

    /** End (exclusive) of the timestamp, blanks trimmed. */
    public int timestampTo() {
        return timestampTo;
    }

    /** Whether the line has a timestamp. */
    public boolean hasTimestamp() {
        return timestampFrom < timestampTo;
    }

    /** Index of the {@code #} that starts an exemplar after the value, or -1. */
    public int exemplar() {
        return exemplar;
    }

    /** Where the exemplar's parts lie, when {@link #exemplar()} is not -1 (one view, reused by every scan). */
    public ExemplarTokens exemplarTokens() {
        return exemplarTokens;
    }

    /**
     * Copies the escaped label value {@code b[from, to)} to {@code dst} at {@code at} with the escapes {@code \\},
     * {@code \"} and {@code \n} resolved; any other backslash is kept as it is (as VictoriaMetrics does).
     * {@code dst} needs {@code to - from} bytes from {@code at}.
     *
     * @return the index in {@code dst} after the last byte written
     */
    public static int unescape(byte[] b, int from, int to, byte[] dst, int at) {
        int w = at;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '\\' && i + 1 < to) {
                byte e = b[++i];
                if (e == 'n') {
                    dst[w++] = '\n';
                } else if (e == '\\' || e == '"') {
                    dst[w++] = e;
                } else {
                    dst[w++] = '\\';
                    dst[w++] = e;
                }
            } else {
                dst[w++] = c;
            }
        }
        return w;
    }

    /** {@code b[from, to)} as UTF-8 text. */
    public static String text(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    /** The end (exclusive, before any {@code \r}) of the line starting at {@code from} in {@code b[0, limit)}. */
    public static int lineEnd(byte[] b, int from, int limit) {
        int end = indexOf(b, from, limit, '\n');
        end = end < 0 ? limit : end;
        return end > from && b[end - 1] == '\r' ? end - 1 : end;
    }

    /** The start of the line after the one starting at {@code from}, or {@code limit}. */
    public static int nextLine(byte[] b, int from, int limit) {
        int end = indexOf(b, from, limit, '\n');
        return end < 0 ? limit : end + 1;
    }

    static int indexOf(byte[] b, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** The end (exclusive) of the token starting at {@code from}: the first blank, or {@code to}. */
    static int token(byte[] b, int from, int to) {
        while (from < to && b[from] != ' ' && b[from] != '\t') {
            from++;
        }
        return from;
    }

    static int blanks(byte[] b, int from, int to) {
        while (from < to && (b[from] == ' ' || b[from] == '\t')) {
            from++;
        }
        return from;
    }

    static int trimEnd(byte[] b, int from, int to) {
        while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) {
            to--;
        }
        return to;
    }
}
