package io.tsdbwriter.decode.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

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
    void skipsCommentsAndBlankLines() {
        assertThat(scan("# HELP up whether it is up")).isEqualTo(ExpositionLine.Kind.SKIP);
        assertThat(scan("   ")).isEqualTo(ExpositionLine.Kind.SKIP);
    }

    @Test
    void saysWhyALineIsRefused() {
        assertThat(scan("m")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(ExpositionLine.Problem.NAME_ONLY);
        assertThat(scan("m{a=\"1\"}")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(ExpositionLine.Problem.NO_VALUE);
        assertThat(scan("{a=\"1\"} 1")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(ExpositionLine.Problem.EMPTY_METRIC);
        assertThat(scan("m{a=\"1} 1")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.problem()).isEqualTo(ExpositionLine.Problem.LABELS);
        assertThat(line.detail()).isEqualTo("label value without closing quote");
        assertThat(scan("m{a=1} 1")).isEqualTo(ExpositionLine.Kind.INVALID);
        assertThat(line.detail()).isEqualTo("label value not quoted");
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
