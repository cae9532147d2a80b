package io.tsdbwriter.decode.prometheus;

import io.tsdbwriter.decode.Numbers;
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
 * <p>One sample per line: {@code metric_name[{label="value",…}] value [timestamp] [exemplar]}, where
 * <ul>
 *   <li>lines whose first non-blank character is {@code #} ({@code # HELP}, {@code # TYPE}, other comments) and
 *       blank lines are skipped;</li>
 *   <li>the metric name matches {@code [a-zA-Z_:][a-zA-Z0-9_:]*} and label names {@code [a-zA-Z_][a-zA-Z0-9_]*};
 *       a trailing comma inside the braces is allowed; a label name may occur once per sample;</li>
 *   <li>label values are double-quoted with the escapes {@code \\}, {@code \"} and {@code \n} (any other escape is
 *       an error);</li>
 *   <li>the value is a float as Go's {@code strconv.ParseFloat} reads it: decimal or exponent form
 *       ({@code 1.5943e-05}), {@code NaN}, {@code +Inf}, {@code -Inf} (case-insensitive);</li>
 *   <li>the optional timestamp is an integer in epoch milliseconds;</li>
 *   <li>an optional OpenMetrics exemplar, {@code # {labels} value [timestamp]} with the {@code #} after a blank
 *       and two floats, is checked and dropped: the sample is never the exemplar's.</li>
 * </ul>
 *
 * <p>Because the point record contract (DESIGN §2) cannot carry them, samples whose value is NaN or ±Inf are
 * skipped and counted ({@link Result#skippedNonFinite()}), and labels with an empty value are dropped and counted
 * ({@link Result#droppedEmptyLabels()}), as the contract drops empty dimension values.
 *
 * <p>The line is read by the format's one tokenizer, {@link ExpositionLine} (as the {@code prometheus} input decoder
 * reads it), and its tokens are then held to the rules above, stricter than VictoriaMetrics: this parser reads the
 * files the project produces from, where a malformed line is a mistake to report, not a record to count.
 *
 * <p>Stateless; all methods are static and thread-safe. A malformed line makes the whole parse fail with a
 * {@link ParseException} that names the line number.
 */
public final class PrometheusTextParser {

    private PrometheusTextParser() {}

    /**
     * One sample of an exposition.
     *
     * @param metricName  the metric name
     * @param labels      the labels in exposition order, empty values already dropped; unmodifiable
     * @param value       the value, always finite
     * @param timestampMs the sample's own timestamp column in epoch milliseconds, if the line had one
     */
    public record Sample(String metricName, Map<String, String> labels, double value, OptionalLong timestampMs) {}

    /**
     * The outcome of a parse.
     *
     * @param samples            the samples with finite values, in exposition order; unmodifiable
     * @param skippedNonFinite   samples skipped because their value was NaN, +Inf or -Inf
     * @param droppedEmptyLabels labels dropped because their value was empty
     */
    public record Result(List<Sample> samples, int skippedNonFinite, int droppedEmptyLabels) {}

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
            Sample s = p.parseLine(line, lineNo);
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
        byte[] ascii = s.getBytes(StandardCharsets.ISO_8859_1);
        Numbers numbers = new Numbers();
        if (ascii.length != s.length() || !isAscii(ascii) || !numbers.parseDouble(ascii, 0, ascii.length)) {
            throw new NumberFormatException(s.isEmpty() ? "empty value" : "not a float: '" + s + "'");
        }
        return numbers.doubleValue();
    }

    private static boolean isAscii(byte[] b) {
        for (byte x : b) {
            if (x < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads one line through the format's tokenizer ({@link ExpositionLine}) and holds its tokens to this parser's
     * stricter rules: metric and label names by the data model's grammar, only the three escapes, a label once per
     * sample, an integer timestamp and nothing after it but an exemplar. Reused across lines (private to one parse
     * call).
     */
    private static final class LineParser {
        private final ExpositionLine scanner = new ExpositionLine();
        private final Numbers numbers = new Numbers();
        private byte[] b;
        private String line;
        private int lineNo;
        private int skippedNonFinite;
        private int droppedEmptyLabels;

        /** @return the sample, or null for a blank line, a comment or a skipped non-finite sample */
        Sample parseLine(String text, int lineNo) throws ParseException {
            this.line = text;
            this.lineNo = lineNo;
            this.b = text.getBytes(StandardCharsets.UTF_8);
            ExpositionLine l = scanner;
            ExpositionLine.Kind kind = l.scan(b, 0, b.length);
            if (kind == ExpositionLine.Kind.SKIP) {
                return null;
            }
            String metric = metricName(l);
            if (kind == ExpositionLine.Kind.INVALID) {
                throw invalid(l, metric);
            }
            Map<String, String> labels = l.labelsOpen() < 0 ? Map.of() : labels(l);
            String valueText = ExpositionLine.text(b, l.valueFrom(), l.valueTo());
            double value;
            try {
                value = parseValue(valueText);
            } catch (NumberFormatException e) {
                throw error("invalid value '" + valueText + "' for '" + metric + "'");
            }
            OptionalLong timestamp = timestamp(l, metric);
            if (l.exemplar() >= 0) {
                checkExemplar(l.exemplarTokens(), metric);
            }
            if (!Double.isFinite(value)) {
                skippedNonFinite++;
                return null;
            }
            return new Sample(metric, labels, value, timestamp);
        }

        /** The metric name, held to {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
        private String metricName(ExpositionLine l) throws ParseException {
            int start = l.metricStart();
            int end = l.metricEnd();
            for (int i = start; i < end; i++) {
                char c = (char) (b[i] & 0xFF);
                if (!(isLetter(c) || c == '_' || c == ':' || (i > start && isDigit(c)))) {
                    if (i == start) {
                        String rest = ExpositionLine.text(b, start, b.length);
                        throw error("expected a metric name, found '" + rest.substring(0, Math.min(rest.length(), 20))
                                + "'");
                    }
                    throw error("unexpected '" + c + "' after metric name '" + ExpositionLine.text(b, start, i) + "'");
                }
            }
            if (end == start) {
                throw error("expected a metric name, found '"
                        + line.substring(0, Math.min(line.length(), 20)).trim() + "'");
            }
            return ExpositionLine.text(b, start, end);
        }

        /** The one line for a line the tokenizer refused. */
        private ParseException invalid(ExpositionLine l, String metric) {
            return switch (l.problem()) {
                case EXEMPLAR -> error("invalid exemplar for '" + metric + "': " + l.detail());
                case NAME_ONLY, NO_VALUE -> error("missing value for '" + metric + "'");
                case EMPTY_METRIC ->
                    error("expected a metric name, found '"
                            + line.substring(0, Math.min(line.length(), 20)).trim() + "'");
                case LABELS ->
                    error(
                            switch (l.detail()) {
                                case "label value without closing quote" -> "unterminated label value";
                                case "no ',' or '}' after a label" ->
                                    "expected ',' or '}' after a label, or an unterminated label set";
                                case "label without '='" ->
                                    "expected '=' after a label name, or an unterminated label set";
                                case "empty label name" -> "expected a label name";
                                default -> l.detail();
                            });
            };
        }

        private Map<String, String> labels(ExpositionLine l) throws ParseException {
            LinkedHashMap<String, String> labels = new LinkedHashMap<>();
            for (int i = 0; i < l.labelCount(); i++) {
                String name = labelName(l.nameStart(i), l.nameEnd(i));
                String value = labelValue(l.valueStart(i), l.valueEnd(i));
                if (labels.containsKey(name)) {
                    throw error("label '" + name + "' occurs twice");
                }
                if (value.isEmpty()) {
                    droppedEmptyLabels++;
                    labels.put(name, null); // remembered for the duplicate check, removed below
                } else {
                    labels.put(name, value);
                }
            }
            labels.values().removeIf(v -> v == null);
            return labels.isEmpty() ? Map.of() : Collections.unmodifiableMap(labels);
        }

        /** A label name, held to {@code [a-zA-Z_][a-zA-Z0-9_]*}. */
        private String labelName(int start, int end) throws ParseException {
            for (int i = start; i < end; i++) {
                char c = (char) (b[i] & 0xFF);
                if (!(isLetter(c) || c == '_' || (i > start && isDigit(c)))) {
                    throw error(
                            i == start
                                    ? "expected a label name, found '" + c + "'"
                                    : "expected '=', found '" + c + "'");
                }
            }
            return ExpositionLine.text(b, start, end);
        }

        /** A label value with its escapes resolved; only {@code \\}, {@code \"} and {@code \n} are escapes. */
        private String labelValue(int start, int end) throws ParseException {
            for (int i = start; i < end; i++) {
                if (b[i] == '\\') {
                    byte e = b[++i];
                    if (e != '\\' && e != '"' && e != 'n') {
                        throw error("invalid escape '\\" + (char) (e & 0xFF) + "' in a label value");
                    }
                }
            }
            byte[] out = new byte[end - start];
            return new String(out, 0, ExpositionLine.unescape(b, start, end, out, 0), StandardCharsets.UTF_8);
        }

        /** The optional timestamp: one integer (epoch ms), nothing after it. */
        private OptionalLong timestamp(ExpositionLine l, String metric) throws ParseException {
            if (!l.hasTimestamp()) {
                return OptionalLong.empty();
            }
            int from = l.timestampFrom();
            int to = from;
            while (to < l.timestampTo() && b[to] != ' ' && b[to] != '\t') {
                to++;
            }
            String tsText = ExpositionLine.text(b, from, to);
            if (!numbers.parseLong(b, from, to)) {
                throw error("invalid timestamp '" + tsText + "' for '" + metric + "' (expected integer epoch ms)");
            }
            if (to < l.timestampTo()) {
                throw error("unexpected text after the timestamp: '"
                        + ExpositionLine.text(b, to, l.timestampTo()).trim() + "'");
            }
            return OptionalLong.of(numbers.longValue());
        }

        /** An exemplar's value and optional timestamp (OpenMetrics seconds) must be floats; the exemplar is dropped. */
        private void checkExemplar(ExemplarTokens x, String metric) throws ParseException {
            if (!numbers.parseDouble(b, x.valueFrom(), x.valueTo())) {
                String value = ExpositionLine.text(b, x.valueFrom(), x.valueTo());
                throw error("invalid exemplar value '" + value + "' for '" + metric + "'");
            }
            if (x.hasTimestamp() && !numbers.parseDouble(b, x.timestampFrom(), x.timestampTo())) {
                String timestamp = ExpositionLine.text(b, x.timestampFrom(), x.timestampTo());
                throw error("invalid exemplar timestamp '" + timestamp + "' for '" + metric + "'");
            }
        }

        private ParseException error(String message) {
            return new ParseException(lineNo, message);
        }

        private static boolean isLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }
}
