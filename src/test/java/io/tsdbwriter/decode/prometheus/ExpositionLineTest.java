package io.tsdbwriter.decode.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The one exposition tokenizer: where the tokens of a line lie, and why a line is refused. */
class ExpositionLineTest {

    private final ExpositionLine line = new ExpositionLine();
    private byte[] b;

    private ExpositionLine.Kind scan(String text) {
        b = text.getBytes(StandardCharsets.UTF_8);
        return line.scan(b, 0, b.length);
    }

    private String text(int from, int to) {
        return ExpositionLine.text(b, from, to);
    }

    @Test
    void findsMetricLabelsValueAndTimestamp() {
        assertThat(scan("  m{a=\"1\", b = \"x\\\"y\",} 2.5 1700000000000")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.metricStart(), line.metricEnd())).isEqualTo("m");
        assertThat(text(line.metricStart(), line.seriesEnd())).isEqualTo("m{a=\"1\", b = \"x\\\"y\",}");
        assertThat(line.labelCount()).isEqualTo(2);
        assertThat(text(line.nameStart(1), line.nameEnd(1))).isEqualTo("b");
        assertThat(text(line.valueStart(1), line.valueEnd(1))).isEqualTo("x\\\"y");
        assertThat(line.escaped(0)).isFalse();
        assertThat(line.escaped(1)).isTrue();
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("2.5");
        assertThat(text(line.timestampFrom(), line.timestampTo())).isEqualTo("1700000000000");
        assertThat(line.exemplar()).isEqualTo(-1);
    }

    @Test
    void aLineWithoutLabelsOrTimestamp() {
        assertThat(scan("up 1")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(line.labelsOpen()).isEqualTo(-1);
        assertThat(text(line.metricStart(), line.seriesEnd())).isEqualTo("up");
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("1");
        assertThat(line.hasTimestamp()).isFalse();
    }

    @Test
    void anExemplarEndsTheSample() {
        assertThat(scan("m{a=\"1\"} 7 # {trace_id=\"a\"} 1")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(line.hasTimestamp()).isFalse();
        assertThat(line.exemplar()).isEqualTo(11);
    }

    @Test
    void anExemplarAfterALineWithoutLabelsIsNotItsLabels() {
        // issue 41: the exemplar's braces were taken for the series' labels, and its value for the sample's
        String text = "w_requests_total 7 1795300857000 # {trace_id=\"def\"} 2.0 1795300857";
        assertThat(scan(text)).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.metricStart(), line.metricEnd())).isEqualTo("w_requests_total");
        assertThat(text(line.metricStart(), line.seriesEnd())).isEqualTo("w_requests_total");
        assertThat(line.labelsOpen()).isEqualTo(-1);
        assertThat(line.labelCount()).isZero();
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(text(line.timestampFrom(), line.timestampTo())).isEqualTo("1795300857000");
        assertThat(line.exemplar()).isEqualTo(text.indexOf('#'));
        assertThat(text(
                        line.exemplarTokens().labelsOpen(),
                        line.exemplarTokens().labelsClose() + 1))
                .isEqualTo("{trace_id=\"def\"}");
        assertThat(text(line.exemplarTokens().valueFrom(), line.exemplarTokens().valueTo()))
                .isEqualTo("2.0");
        assertThat(text(
                        line.exemplarTokens().timestampFrom(),
                        line.exemplarTokens().timestampTo()))
                .isEqualTo("1795300857");
    }

    @Test
    void anExemplarWithoutTimestampsOrLabelsAndWithOddSpacing() {
        assertThat(scan("m 7 # {a=\"b\"} 2")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.metricStart(), line.seriesEnd())).isEqualTo("m");
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(line.hasTimestamp()).isFalse();
        assertThat(text(line.exemplarTokens().valueFrom(), line.exemplarTokens().valueTo()))
                .isEqualTo("2");
        assertThat(line.exemplarTokens().timestampFrom())
                .isEqualTo(line.exemplarTokens().timestampTo());

        assertThat(scan("m{} 7 # {} 2")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(line.labelsOpen()).isEqualTo(1);
        assertThat(line.labelCount()).isZero();
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(text(line.exemplarTokens().valueFrom(), line.exemplarTokens().valueTo()))
                .isEqualTo("2");

        assertThat(scan(" \tm \t7\t 1795300857000 \t#\t {a=\"} 1 # {\" , } \t-2.5e3 \t 1795300857.123 \t"))
                .isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.metricStart(), line.seriesEnd())).isEqualTo("m");
        assertThat(line.labelCount()).isZero();
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(text(line.timestampFrom(), line.timestampTo())).isEqualTo("1795300857000");
        assertThat(text(line.exemplarTokens().valueFrom(), line.exemplarTokens().valueTo()))
                .isEqualTo("-2.5e3");
        assertThat(text(
                        line.exemplarTokens().timestampFrom(),
                        line.exemplarTokens().timestampTo()))
                .isEqualTo("1795300857.123");
    }

    @Test
    void aHashInsideALabelValueIsNoExemplar() {
        assertThat(scan("m{a=\"x # y\"} 7")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.valueStart(0), line.valueEnd(0))).isEqualTo("x # y");
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(line.exemplar()).isEqualTo(-1);
        assertThat(scan("m {a=\"x\"} 7 # {b=\"# {c=\\\"d\\\"} 9\"} 2")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.metricStart(), line.metricEnd())).isEqualTo("m");
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7");
        assertThat(text(line.exemplarTokens().valueFrom(), line.exemplarTokens().valueTo()))
                .isEqualTo("2");
    }

    @Test
    void aHashNotAfterABlankIsPartOfTheToken() {
        // OpenMetrics: exemplar = SP "#" SP labels SP number [SP timestamp]; "7#x" is one token (not a float)
        assertThat(scan("m 7#x")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.valueFrom(), line.valueTo())).isEqualTo("7#x");
        assertThat(line.exemplar()).isEqualTo(-1);
        assertThat(scan("m 7 1795300857000#x")).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(text(line.timestampFrom(), line.timestampTo())).isEqualTo("1795300857000#x");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "m 7 #",
                "m 7 # ",
                "m 7 #{a=\"b\"} 2",
                "m 7 # 2",
                "m 7 # {a=\"b\"}",
                "m 7 # {a=\"b\"}2",
                "m 7 # {a=\"b} 2",
                "m 7 # {a=\"b\"} 2 3 4",
                "m{a=\"b\"} 7 1 # x",
                "m 7 # comment"
            })
    void aMalformedExemplarRefusesTheLine(String text) {
        assertThat(scan(text)).as(text).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).as(text).isEqualTo(ExpositionLine.Problem.EXEMPLAR);
    }

    @Test
    void anExemplarWithoutAValueSaysSoAndALineWithoutAValueIsNoValue() {
        assertThat(scan("m 7 # {a=\"b\"}")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.detail()).isEqualTo("exemplar without a value");
        assertThat(scan("m # {a=\"b\"} 2")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(ExpositionLine.Problem.NO_VALUE);
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(
            strings = {
                // HELP, TYPE and comment lines, even with braces
                "# TYPE w_requests counter",
                "  # HELP w_requests_total 7 # {a=\"b\"} 2",
                "\t# {a=\"b\"} 2",
                // comments and blank lines
                "# HELP up whether it is up",
                "   "
            })
    void skipsHelpTypeCommentAndBlankLines(String text) {
        assertThat(scan(text)).isEqualTo(ExpositionLine.Kind.SKIP);
    }

    static Stream<Arguments> saysWhyALineIsRefused() {
        return Stream.of(
                arguments("m", ExpositionLine.Problem.NAME_ONLY, null),
                arguments("m{a=\"1\"}", ExpositionLine.Problem.NO_VALUE, null),
                arguments("{a=\"1\"} 1", ExpositionLine.Problem.EMPTY_METRIC, null),
                arguments("m{a=\"1} 1", ExpositionLine.Problem.LABELS, "label value without closing quote"),
                arguments("m{a=1} 1", ExpositionLine.Problem.LABELS, "label value not quoted"));
    }

    /** A line → why it is refused: the problem and, where given, the detail. */
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void saysWhyALineIsRefused(String text, ExpositionLine.Problem problem, String detail) {
        assertThat(scan(text)).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(problem);
        if (detail != null) {
            assertThat(line.detail()).isEqualTo(detail);
        }
    }

    @Test
    void growsItsLabelArraysForAWideLine() {
        StringBuilder s = new StringBuilder("m{");
        for (int i = 0; i < 40; i++) {
            s.append("l").append(i).append("=\"v").append(i).append("\",");
        }
        assertThat(scan(s.append("} 1").toString())).isEqualTo(ExpositionLine.Kind.SAMPLE);
        assertThat(line.labelCount()).isEqualTo(40);
        assertThat(text(line.valueStart(39), line.valueEnd(39))).isEqualTo("v39");
    }

    @Test
    void unescapesTheThreeEscapesAndKeepsOtherBackslashes() {
        byte[] v = "a\\nb\\\\c\\\"d\\te".getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[v.length];
        int n = ExpositionLine.unescape(v, 0, v.length, out, 0);
        assertThat(new String(out, 0, n, StandardCharsets.UTF_8)).isEqualTo("a\nb\\c\"d\\te");
    }

    @Test
    void walksLinesEndingInCrLf() {
        byte[] text = "a 1\r\nb 2\n".getBytes(StandardCharsets.UTF_8);
        assertThat(ExpositionLine.lineEnd(text, 0, text.length)).isEqualTo(3);
        int next = ExpositionLine.nextLine(text, 0, text.length);
        assertThat(next).isEqualTo(5);
        assertThat(ExpositionLine.lineEnd(text, next, text.length)).isEqualTo(8);
        assertThat(ExpositionLine.nextLine(text, next, text.length)).isEqualTo(text.length);
    }
}
