package io.tsdbwriter.produce;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Parses the Prometheus text exposition format 0.0.4, as served by node_exporter on {@code /metrics}.
 *
 * <p>One sample per line: {@code metric_name[{label="value",…}] value [timestamp]}, where
 * <ul>
 *   <li>lines whose first non-blank character is {@code #} ({@code # HELP}, {@code # TYPE}, other comments) and
 *       blank lines are skipped;</li>
 *   <li>the metric name matches {@code [a-zA-Z_:][a-zA-Z0-9_:]*} and label names {@code [a-zA-Z_][a-zA-Z0-9_]*};
 *       a trailing comma inside the braces is allowed; a label name may occur once per sample;</li>
 *   <li>label values are double-quoted with the escapes {@code \\}, {@code \"} and {@code \n} (any other escape is
 *       an error);</li>
 *   <li>the value is a float as Go's {@code strconv.ParseFloat} reads it: decimal or exponent form
 *       ({@code 1.5943e-05}), {@code NaN}, {@code +Inf}, {@code -Inf} (case-insensitive);</li>
 *   <li>the optional timestamp is an integer in epoch milliseconds.</li>
 * </ul>
 *
 * <p>Because the point record contract (DESIGN §2) cannot carry them, samples whose value is NaN or ±Inf are
 * skipped and counted ({@link Result#skippedNonFinite()}), and labels with an empty value are dropped and counted
 * ({@link Result#droppedEmptyLabels()}), as the contract drops empty dimension values.
 *
 * <p>Stateless; all methods are static and thread-safe. A malformed line makes the whole parse fail with a
 * {@link ParseException} that names the line number.
 */
public final class PrometheusTextParser {

    private PrometheusTextParser() {
    }

    /**
     * One sample of an exposition.
     *
     * @param metricName  the metric name
     * @param labels      the labels in exposition order, empty values already dropped; unmodifiable
     * @param value       the value, always finite
     * @param timestampMs the sample's own timestamp column in epoch milliseconds, if the line had one
     */
    public record Sample(String metricName, Map<String, String> labels, double value, OptionalLong timestampMs) {
    }

    /**
     * The outcome of a parse.
     *
     * @param samples            the samples with finite values, in exposition order; unmodifiable
     * @param skippedNonFinite   samples skipped because their value was NaN, +Inf or -Inf
     * @param droppedEmptyLabels labels dropped because their value was empty
     */
    public record Result(List<Sample> samples, int skippedNonFinite, int droppedEmptyLabels) {
    }

    /** A line that does not follow the exposition format; {@link #line()} is 1-based. */
    public static final class ParseException extends IOException {
        private final int line;
        private final String detail;

        /** @param line 1-based line number; @param detail what is wrong with it */
        public ParseException(int line, String detail) {
            this(null, line, detail);
        }

        private ParseException(String source, int line, String detail) {
            super((source == null ? "" : source + ":") + "line " + line + ": " + detail);
            this.line = line;
            this.detail = detail;
        }

        /** The 1-based number of the offending line. */
        public int line() {
            return line;
        }

        /** What is wrong with the line, without its location. */
        public String detail() {
            return detail;
        }

        ParseException in(Path file) {
            ParseException e = new ParseException(file.toString(), line, detail);
            e.initCause(this);
            return e;
        }
    }

    /**
     * Parses a UTF-8 exposition file.
     *
     * @throws ParseException when a line is malformed (the message starts with the file name and line number)
     * @throws IOException    when the file cannot be read
     */
    public static Result parse(Path file) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(in);
        } catch (ParseException e) {
            throw e.in(file);
        }
    }

    /** Parses exposition text held in a string. @throws ParseException when a line is malformed */
    public static Result parse(String text) throws ParseException {
        try {
            return parse(new StringReader(text));
        } catch (ParseException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        }
    }

    /**
     * Parses exposition text from a reader (not closed here). Lines may end in {@code \n} or {@code \r\n}.
     *
     * @throws ParseException when a line is malformed
     * @throws IOException    when reading fails
     */
    public static Result parse(Reader reader) throws IOException {
        BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<Sample> samples = new ArrayList<>();
        LineParser p = new LineParser();
        String line;
        int lineNo = 0;
        while ((line = in.readLine()) != null) {
            lineNo++;
            p.reset(line, lineNo);
            Sample s = p.parseLine();
            if (s != null) {
                samples.add(s);
            }
        }
        return new Result(Collections.unmodifiableList(samples), p.skippedNonFinite, p.droppedEmptyLabels);
    }

    /**
     * Parses a sample value as Go's {@code strconv.ParseFloat} would (what Prometheus uses): decimal and exponent
     * forms, {@code NaN}, {@code Inf}, {@code +Inf}, {@code -Inf}, {@code Infinity} in any case.
     *
     * @throws NumberFormatException when {@code s} is not a float
     */
    public static double parseValue(String s) {
        String body = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
        boolean negative = s.startsWith("-");
        if (body.equalsIgnoreCase("inf") || body.equalsIgnoreCase("infinity")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (body.equalsIgnoreCase("nan")) {
            return Double.NaN;
        }
        // Double.parseDouble also takes Java-only forms: a type suffix (1.0d, 2f), "Infinity" spelled
        // differently, surrounding blanks. Refuse what Go would refuse.
        if (body.isEmpty()) {
            throw new NumberFormatException("empty value");
        }
        char last = body.charAt(body.length() - 1);
        if (last == 'd' || last == 'D' || last == 'f' || last == 'F' || Character.isWhitespace(last)
                || Character.isWhitespace(body.charAt(0)) || body.charAt(0) == '+' || body.charAt(0) == '-') {
            throw new NumberFormatException("not a float: '" + s + "'");
        }
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == 'N' || c == 'I' || c == 'n' || c == 'i') {
                throw new NumberFormatException("not a float: '" + s + "'");
            }
        }
        return Double.parseDouble(s);
    }

    /** Parses one line; reused across lines (not thread-safe, private to one parse call). */
    private static final class LineParser {
        private String s;
        private int pos;
        private int lineNo;
        private int skippedNonFinite;
        private int droppedEmptyLabels;
        private final StringBuilder buf = new StringBuilder();

        void reset(String line, int lineNo) {
            this.s = line;
            this.pos = 0;
            this.lineNo = lineNo;
        }

        /** @return the sample, or null for a blank line, a comment or a skipped non-finite sample */
        Sample parseLine() throws ParseException {
            skipBlanks();
            if (pos == s.length() || s.charAt(pos) == '#') {
                return null;
            }
            String metric = metricName();
            Map<String, String> labels = Map.of();
            skipBlanks();
            if (pos < s.length() && s.charAt(pos) == '{') {
                pos++;
                labels = labels();
                skipBlanks();
            } else if (pos < s.length() && pos > 0 && !isBlank(s.charAt(pos - 1))) {
                throw error("unexpected '" + s.charAt(pos) + "' after metric name '" + metric + "'");
            }
            String valueText = token();
            if (valueText.isEmpty()) {
                throw error("missing value for '" + metric + "'");
            }
            double value;
            try {
                value = parseValue(valueText);
            } catch (NumberFormatException e) {
                throw error("invalid value '" + valueText + "' for '" + metric + "'");
            }
            skipBlanks();
            OptionalLong timestamp = OptionalLong.empty();
            if (pos < s.length()) {
                String tsText = token();
                try {
                    timestamp = OptionalLong.of(Long.parseLong(tsText));
                } catch (NumberFormatException e) {
                    throw error("invalid timestamp '" + tsText + "' for '" + metric + "' (expected integer epoch ms)");
                }
                skipBlanks();
                if (pos < s.length()) {
                    throw error("unexpected text after the timestamp: '" + s.substring(pos) + "'");
                }
            }
            if (!Double.isFinite(value)) {
                skippedNonFinite++;
                return null;
            }
            return new Sample(metric, labels, value, timestamp);
        }

        private String metricName() throws ParseException {
            int start = pos;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                boolean ok = isLetter(c) || c == '_' || c == ':' || (pos > start && isDigit(c));
                if (!ok) {
                    break;
                }
                pos++;
            }
            if (pos == start) {
                throw error("expected a metric name, found '" + s.substring(start, Math.min(s.length(), start + 20)) + "'");
            }
            return s.substring(start, pos);
        }

        private Map<String, String> labels() throws ParseException {
            LinkedHashMap<String, String> labels = new LinkedHashMap<>();
            while (true) {
                skipBlanks();
                if (pos < s.length() && s.charAt(pos) == '}') {
                    pos++;
                    break;
                }
                String name = labelName();
                skipBlanks();
                expect('=');
                skipBlanks();
                expect('"');
                String value = labelValue();
                if (labels.containsKey(name)) {
                    throw error("label '" + name + "' occurs twice");
                }
                if (value.isEmpty()) {
                    droppedEmptyLabels++;
                    labels.put(name, null); // remembered for the duplicate check, removed below
                } else {
                    labels.put(name, value);
                }
                skipBlanks();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                } else if (pos < s.length() && s.charAt(pos) == '}') {
                    pos++;
                    break;
                } else {
                    throw error(pos < s.length() ? "expected ',' or '}' after a label, found '" + s.charAt(pos) + "'"
                            : "unterminated label set");
                }
            }
            labels.values().removeIf(v -> v == null);
            return labels.isEmpty() ? Map.of() : Collections.unmodifiableMap(labels);
        }

        private String labelName() throws ParseException {
            int start = pos;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                boolean ok = isLetter(c) || c == '_' || (pos > start && isDigit(c));
                if (!ok) {
                    break;
                }
                pos++;
            }
            if (pos == start) {
                throw error(pos < s.length() ? "expected a label name, found '" + s.charAt(pos) + "'" : "unterminated label set");
            }
            return s.substring(start, pos);
        }

        private String labelValue() throws ParseException {
            buf.setLength(0);
            while (pos < s.length()) {
                char c = s.charAt(pos++);
                if (c == '"') {
                    return buf.toString();
                }
                if (c == '\\') {
                    if (pos == s.length()) {
                        break;
                    }
                    char e = s.charAt(pos++);
                    switch (e) {
                        case '\\' -> buf.append('\\');
                        case '"' -> buf.append('"');
                        case 'n' -> buf.append('\n');
                        default -> throw error("invalid escape '\\" + e + "' in a label value");
                    }
                } else {
                    buf.append(c);
                }
            }
            throw error("unterminated label value");
        }

        private String token() {
            int start = pos;
            while (pos < s.length() && !isBlank(s.charAt(pos))) {
                pos++;
            }
            return s.substring(start, pos);
        }

        private void expect(char c) throws ParseException {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw error("expected '" + c + "'" + (pos < s.length() ? ", found '" + s.charAt(pos) + "'" : " at end of line"));
            }
            pos++;
        }

        private void skipBlanks() {
            while (pos < s.length() && isBlank(s.charAt(pos))) {
                pos++;
            }
        }

        private ParseException error(String message) {
            return new ParseException(lineNo, message);
        }

        private static boolean isBlank(char c) {
            return c == ' ' || c == '\t';
        }

        private static boolean isLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }
}
