package io.tsdbwriter.decode.prometheus;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Fuzzes the exemplar grammar of exposition lines (issue 41) with Jazzer: each input is turned into one sample line
 * whose parts are known — a metric name, no label set, an empty one ({@code m{}}) or labels whose values hold
 * {@code #}, braces, quotes and blanks, a value, an optional timestamp — followed by no exemplar, a well-formed
 * OpenMetrics exemplar ({@code # {labels} value [timestamp]}, with or without labels and timestamp, blanks and tabs
 * of any count where the grammar has a space, trailing blanks, a CRLF) or a malformed one (no blank before or after
 * the {@code #}, no labels, no value, an extra token, an unterminated label value, a value that is no number), among
 * {@code HELP}/{@code TYPE} lines that carry braces and a {@code #} of their own. The exemplar's value always differs
 * from the sample's.
 *
 * <p>Oracle, for every reader of exposition text: the tokenizer ({@link ExpositionLine}) finds the sample's value and
 * timestamp tokens and the exemplar's; the {@code prometheus} decoder ({@link ExpositionDecoder}) gives exactly the
 * one point (metric, labels without empty values, the value's bits, the timestamp or the record's) and no rejection,
 * or, for a malformed exemplar, no point and one counted rejection; the strict parser of {@code produce} and
 * {@code verify} ({@link PrometheusTextParser}) gives exactly the sample, or, for a malformed exemplar, a
 * {@link PrometheusTextParser.ParseException}. In short: a sample value is never the exemplar's, and no line is
 * silently dropped.
 *
 * <p>Without {@code JAZZER_FUZZ} (plain {@code -Dtest=ExemplarLinesFuzzTest}) Jazzer only replays committed findings;
 * {@link ExemplarLinesTest} runs the same generator and oracle on 10 000 seeded pseudo-random lines in every
 * {@code mvn test}. Fuzz it with {@code mvn -Pfuzz test -Dfuzz.test='ExemplarLinesFuzzTest#exemplars'} (30 s;
 * {@code docs/fuzzing.md}).
 */
class ExemplarLinesFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void exemplars(FuzzedDataProvider data) {
        check(generate(new Choices() {
            @Override
            public int pick(int bound) {
                return data.consumeInt(0, bound - 1);
            }

            @Override
            public String text(int maxLength) {
                return data.consumeString(maxLength);
            }

            @Override
            public double number() {
                return data.consumeRegularDouble();
            }
        }));
    }

    /** Where the generator's choices come from: the fuzzer's bytes, or a seeded {@link java.util.Random}. */
    interface Choices {
        /** A number in {@code [0, bound)}. */
        int pick(int bound);

        /** Any text of at most {@code maxLength} characters. */
        String text(int maxLength);

        /** Any finite double. */
        double number();
    }

    /** The kinds of malformed exemplar the generator writes. */
    static final int MALFORMED_KINDS = 9;

    /**
     * One generated record and what it holds.
     *
     * @param record        the exposition text: comment lines, then the sample line
     * @param lineFrom      where the sample line starts in the record's UTF-8 bytes
     * @param metric        the sample's metric name
     * @param labels        its labels in line order, empty values included
     * @param value         its value
     * @param timestampMs   its timestamp column, if any
     * @param exemplarValue the exemplar's value token, or null when the line has no exemplar
     * @param malformed     the malformed kind written (0 ≤ kind < {@link #MALFORMED_KINDS}), or -1
     */
    record Generated(
            String record,
            int lineFrom,
            String metric,
            Map<String, String> labels,
            double value,
            OptionalLong timestampMs,
            String exemplarValue,
            int malformed) {}

    private static final String NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
    private static final String NAME_REST = NAME_START + "0123456789";
    private static final long KAFKA_TIMESTAMP_MS = 1_795_300_857_000L;

    static Generated generate(Choices c) {
        StringBuilder line = new StringBuilder(blanks(c, 0));
        String metric = name(c, NAME_START + ":", NAME_REST + ":");
        line.append(metric);
        Map<String, String> labels = new LinkedHashMap<>();
        int labelMode = c.pick(3); // none, {}, labels
        if (labelMode > 0) {
            line.append(blanks(c, 0)).append('{').append(blanks(c, 0));
            for (int i = 0, n = labelMode == 1 ? 0 : 1 + c.pick(3); i < n; i++) {
                String name = "l" + i + name(c, NAME_REST, NAME_REST);
                String value = labelValue(c);
                labels.put(name, value);
                line.append(name)
                        .append(blanks(c, 0))
                        .append('=')
                        .append(blanks(c, 0))
                        .append('"')
                        .append(escape(value))
                        .append('"')
                        .append(blanks(c, 0))
                        .append(i + 1 < n || c.pick(4) == 0 ? "," : "")
                        .append(blanks(c, 0));
            }
            line.append('}');
        }
        double value = c.number();
        String valueText = numberText(c, value);
        line.append(blanks(c, labelMode == 0 ? 1 : 0)).append(valueText);
        OptionalLong ts = c.pick(2) == 0
                ? OptionalLong.empty()
                : OptionalLong.of((1L << 31) + c.pick(Integer.MAX_VALUE) * 1000L + c.pick(1000));
        if (ts.isPresent()) {
            line.append(blanks(c, 1)).append(ts.getAsLong());
        }
        String exemplarValue = null;
        int malformed = -1;
        if (c.pick(4) > 0) {
            double ev = c.number();
            if (ev == value) {
                ev = value == 1 ? 2 : 1;
            }
            exemplarValue = c.pick(8) == 0 ? List.of("NaN", "+Inf", "-Inf").get(c.pick(3)) : numberText(c, ev);
            malformed = c.pick(3) == 0 ? c.pick(MALFORMED_KINDS) : -1;
            line.append(exemplar(c, exemplarValue, malformed));
        }
        line.append(blanks(c, 0));
        String comments = c.pick(2) == 0
                ? ""
                : "# HELP " + metric + " a {b=\"c\"} 1 # {d=\"e\"} 2\n  # TYPE " + metric + " counter\n";
        String end = List.of("", "\n", "\r\n").get(c.pick(3));
        return new Generated(
                comments + line + end,
                comments.length(),
                metric,
                labels,
                Double.parseDouble(valueText),
                ts,
                exemplarValue,
                malformed);
    }

    /** {@code SP # SP {labels} SP value [SP timestamp]}, or the malformed kind {@code malformed} of it. */
    private static String exemplar(Choices c, String value, int malformed) {
        StringBuilder x = new StringBuilder();
        x.append(malformed == 0 ? "" : blanks(c, 1)).append('#').append(malformed == 1 ? "" : blanks(c, 1));
        if (malformed == 2) {
            return x.append(value).toString(); // no labels
        }
        if (malformed == 3) {
            return x.toString(); // nothing after the '#'
        }
        x.append('{');
        if (malformed == 4) {
            x.append("trace_id=\"").append(escape(labelValue(c))); // unterminated: no unescaped '"' follows on the line
        }
        for (int i = 0, n = malformed == 4 ? 0 : c.pick(3); i < n; i++) {
            x.append(i > 0 ? "," : "")
                    .append("trace_id")
                    .append(i)
                    .append("=\"")
                    .append(escape(labelValue(c)))
                    .append('"');
        }
        x.append('}');
        if (malformed == 5) {
            return x.toString(); // no value
        }
        x.append(malformed == 6 ? "" : blanks(c, 1)).append(malformed == 7 ? "x" + value : value);
        boolean timestamp = c.pick(2) == 0;
        if (timestamp) {
            x.append(blanks(c, 1))
                    .append(1_795_300_857L + c.pick(1000))
                    .append(c.pick(2) == 0 ? "" : "." + c.pick(1000));
        }
        if (malformed == 8) {
            x.append(blanks(c, 1)).append("1").append(timestamp ? "" : blanks(c, 1) + "2"); // a token too many
        }
        return x.toString();
    }

    static void check(Generated g) {
        byte[] bytes = g.record().getBytes(StandardCharsets.UTF_8);
        String show = g.record().replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n");
        // the tokenizer: the sample's tokens are the sample's, the exemplar's the exemplar's
        ExpositionLine line = new ExpositionLine();
        int from = g.lineFrom(); // the comment lines are ASCII
        ExpositionLine.Kind kind = line.scan(bytes, from, ExpositionLine.lineEnd(bytes, from, bytes.length));
        if (g.malformed() < 0) {
            require(kind == ExpositionLine.Kind.SAMPLE, "tokenizer refused (" + line.detail() + "): " + show);
            require(
                    ExpositionLine.text(bytes, line.metricStart(), line.metricEnd())
                            .equals(g.metric()),
                    "metric token: " + show);
            require(
                    Double.parseDouble(ExpositionLine.text(bytes, line.valueFrom(), line.valueTo())) == g.value(),
                    "value token: " + show);
            require(line.hasTimestamp() == g.timestampMs().isPresent(), "timestamp token: " + show);
            require((line.exemplar() >= 0) == (g.exemplarValue() != null), "exemplar found or not: " + show);
            if (g.exemplarValue() != null) {
                ExemplarTokens x = line.exemplarTokens();
                require(
                        ExpositionLine.text(bytes, x.valueFrom(), x.valueTo()).equals(g.exemplarValue()),
                        "exemplar value token: " + show);
            }
        }
        // the prometheus decoder
        ExpositionDecoder decoder = new ExpositionDecoder(1 << 20, Decoded.ANY_TIME);
        DecodedPoints out = new DecodedPoints();
        Rejections rejections = new Rejections();
        decoder.decode(bytes, KAFKA_TIMESTAMP_MS, out, rejections);
        if (g.malformed() >= 0) {
            require(
                    out.count() == 0 && rejections.total() == 1,
                    "decoder kept a malformed exemplar's line (" + out.count() + " points, " + rejections.total()
                            + " rejections): " + show);
        } else {
            require(
                    rejections.total() == 0,
                    "decoder refused (" + rejections.first() + ": " + rejections.firstDetail() + "): " + show);
            require(out.count() == 1, "decoder gave " + out.count() + " points: " + show);
            require(out.metric(0).equals(g.metric()), "decoder metric '" + out.metric(0) + "': " + show);
            require(
                    out.value(0) == g.value(),
                    "decoder value " + out.value(0) + " (exemplar's " + g.exemplarValue() + "): " + show);
            require(
                    out.timestampMs(0) == g.timestampMs().orElse(KAFKA_TIMESTAMP_MS),
                    "decoder timestamp " + out.timestampMs(0) + ": " + show);
            Map<String, String> labels = new TreeMap<>();
            for (int i = out.labelStart(0); i < out.labelEnd(0); i++) {
                labels.put(out.labelName(i), out.labelValue(i));
            }
            require(labels.equals(nonEmpty(g.labels())), "decoder labels " + labels + ": " + show);
        }
        // the strict parser of produce and verify
        try {
            PrometheusTextParser.Result r = PrometheusTextParser.parse(g.record());
            require(g.malformed() < 0, "strict parser accepted a malformed exemplar: " + show);
            PrometheusTextParser.Sample expected =
                    new PrometheusTextParser.Sample(g.metric(), nonEmpty(g.labels()), g.value(), g.timestampMs());
            require(r.samples().equals(List.of(expected)), "strict parser gave " + r.samples() + ": " + show);
        } catch (PrometheusTextParser.ParseException e) {
            require(g.malformed() >= 0, "strict parser refused (" + e.getMessage() + "): " + show);
        }
    }

    private static Map<String, String> nonEmpty(Map<String, String> labels) {
        Map<String, String> m = new TreeMap<>(labels);
        m.values().removeIf(String::isEmpty);
        return m;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** {@code min} or more blanks, spaces and tabs mixed (up to {@code min + 2}). */
    private static String blanks(Choices c, int min) {
        StringBuilder s = new StringBuilder();
        for (int i = 0, n = min + c.pick(3); i < n; i++) {
            s.append(c.pick(3) == 0 ? '\t' : ' ');
        }
        return s.toString();
    }

    private static String name(Choices c, String first, String rest) {
        StringBuilder s = new StringBuilder().append(first.charAt(c.pick(first.length())));
        for (int i = 0, n = c.pick(8); i < n; i++) {
            s.append(rest.charAt(c.pick(rest.length())));
        }
        return s.toString();
    }

    /** Any text (valid UTF-16, no CR: a reader of lines ends a line there), often with the bytes of the grammar. */
    private static String labelValue(Choices c) {
        String tricky = List.of("", "#", " # ", "{", "}", "} 2 # {", "\"", "\\", "\n", ",", "=", " ", "\t")
                .get(c.pick(13));
        String any = new String(c.text(6).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).replace('\r', ' ');
        return c.pick(2) == 0 ? tricky + any : any + tricky;
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** The double as Prometheus writes it (Java's shortest form, an integer, or an exponent form). */
    private static String numberText(Choices c, double v) {
        return switch (c.pick(3)) {
            case 0 -> Double.toString(v);
            case 1 -> v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
            default -> String.format(Locale.ROOT, "%.17e", v);
        };
    }
}
