package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser.ParseException;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser.Result;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser.Sample;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PrometheusTextParserTest {

    @Test
    void parsesAllSamplesOfARealNodeExporterScrape() throws Exception {
        Result r = PrometheusTextParser.parse(NodeExporterFiles.first());

        assertThat(r.samples()).hasSize(507);
        assertThat(r.skippedNonFinite()).isZero();
        assertThat(r.samples()).allSatisfy(s -> assertThat(s.timestampMs()).isEmpty());
        assertThat(r.samples().get(0))
                .isEqualTo(new Sample(
                        "go_gc_duration_seconds", Map.of("quantile", "0"), 1.5943e-05, OptionalLong.empty()));
        assertThat(r.samples()).anySatisfy(s -> {
            assertThat(s.metricName()).isEqualTo("node_cpu_seconds_total");
            assertThat(s.labels()).containsKeys("cpu", "mode");
        });
        Set<String> series = new HashSet<>();
        for (Sample s : r.samples()) {
            series.add(SourcePoint.seriesKey(s.metricName(), s.labels()));
        }
        assertThat(series).as("one sample per series in a scrape").hasSize(507);
    }

    @Test
    void dropsEmptyLabelValuesOfARealScrape() throws Exception {
        Result r = PrometheusTextParser.parse(NodeExporterFiles.first());

        assertThat(r.droppedEmptyLabels()).as("24 empty labels on 8 samples").isEqualTo(24);
        Sample osInfo = r.samples().stream()
                .filter(s -> s.metricName().equals("node_os_info"))
                .findFirst()
                .orElseThrow();
        assertThat(osInfo.labels())
                .doesNotContainKeys("build_id", "id_like", "variant")
                .containsEntry("id", "debian");
    }

    @Test
    void skipsHelpTypeCommentsAndBlankLines() throws Exception {
        Result r = PrometheusTextParser.parse(
                """
                # HELP up Whether the target is up.
                # TYPE up gauge
                   # an indented comment

                up 1
                \t
                """);

        assertThat(r.samples()).containsExactly(new Sample("up", Map.of(), 1, OptionalLong.empty()));
    }

    @Test
    void parsesEscapedLabelValues() throws Exception {
        Result r = PrometheusTextParser.parse(
                "msg{path=\"C:\\\\dir\",quote=\"say \\\"hi\\\"\",nl=\"a\\nb\",odd=\"}, =\"} 3\n");

        assertThat(r.samples().get(0).labels())
                .containsExactly(
                        entry("path", "C:\\dir"),
                        entry("quote", "say \"hi\""),
                        entry("nl", "a\nb"),
                        entry("odd", "}, ="));
    }

    @Test
    void keepsLabelsInExpositionOrder() throws Exception {
        Result r = PrometheusTextParser.parse("m{zeta=\"1\",alpha=\"2\",mid=\"3\"} 0\n");

        assertThat(r.samples().get(0).labels().keySet()).containsExactly("zeta", "alpha", "mid");
    }

    @Test
    void acceptsTrailingCommaAndBlanksInsideBraces() throws Exception {
        Result r = PrometheusTextParser.parse("m{ a = \"1\" , b=\"2\", } 5\n");

        assertThat(r.samples().get(0).labels()).containsExactly(entry("a", "1"), entry("b", "2"));
        assertThat(r.samples().get(0).value()).isEqualTo(5);
    }

    @Test
    void readsTheOptionalTimestampColumn() throws Exception {
        Result r = PrometheusTextParser.parse("a 1 1795300857000\nb{x=\"y\"} 2\t-5\nc 3\n");

        assertThat(r.samples())
                .extracting(Sample::timestampMs)
                .containsExactly(OptionalLong.of(1795300857000L), OptionalLong.of(-5), OptionalLong.empty());
    }

    @Test
    void parsesExponentAndSpecialValueForms() throws Exception {
        Result r = PrometheusTextParser.parse(
                """
                a 1.5943e-05
                b 1.047176e+06
                c -2E3
                d .5
                e 7.
                f 1.8446744073709552e+19
                g -0
                h +3
                """);

        assertThat(r.samples())
                .extracting(Sample::value)
                .containsExactly(1.5943e-05, 1047176.0, -2000.0, 0.5, 7.0, 1.8446744073709552e19, -0.0, 3.0);
    }

    @Test
    void skipsNaNSamples() throws Exception {
        Result r = PrometheusTextParser.parse("a NaN\nb nan\nc 1\n");

        assertThat(r.samples()).extracting(Sample::metricName).containsExactly("c");
        assertThat(r.skippedNonFinite()).isEqualTo(2);
    }

    @Test
    void skipsInfiniteSamples() throws Exception {
        Result r = PrometheusTextParser.parse("h_bucket{le=\"+Inf\"} 4\na +Inf\nb -Inf\nc Inf\nd 1e999\n");

        assertThat(r.samples()).hasSize(1);
        assertThat(r.samples().get(0).labels()).containsEntry("le", "+Inf");
        assertThat(r.skippedNonFinite()).isEqualTo(4);
    }

    @Test
    void dropsEmptyLabelValues() throws Exception {
        Result r = PrometheusTextParser.parse("m{a=\"\",b=\"x\",c=\"\"} 1\n");

        assertThat(r.samples().get(0).labels()).containsExactly(entry("b", "x"));
        assertThat(r.droppedEmptyLabels()).isEqualTo(2);
    }

    @Test
    void acceptsWindowsLineEnds() throws Exception {
        Result r = PrometheusTextParser.parse("# TYPE a gauge\r\na 1\r\nb{x=\"1\"} 2\r\n");

        assertThat(r.samples()).extracting(Sample::value).containsExactly(1.0, 2.0);
    }

    @Test
    void rejectsMalformedLinesWithTheirLineNumber() {
        assertThatThrownBy(() -> PrometheusTextParser.parse("ok 1\nbad{a=\"1\" 2\n"))
                .isInstanceOf(ParseException.class)
                .hasMessageStartingWith("line 2: ")
                .satisfies(e -> assertThat(((ParseException) e).line()).isEqualTo(2));
    }

    static Stream<Arguments> rejectsMalformedLines() {
        return Stream.of(
                arguments("m{a=\"x} 1\n", "unterminated"),
                arguments("m{a=\"\\t\"} 1\n", "invalid escape"),
                arguments("m{a=\"1\",a=\"2\"} 1\n", "occurs twice"),
                arguments("m\n", "missing value"),
                arguments("m one\n", "invalid value 'one'"),
                arguments("m 1 soon\n", "invalid timestamp"),
                arguments("m 1 2 3\n", "after the timestamp"),
                arguments("9m 1\n", "expected a metric name"),
                arguments("m-x 1\n", "after metric name"),
                arguments("m{1a=\"x\"} 1\n", "expected a label name"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void rejectsMalformedLines(String text, String message) {
        assertThatThrownBy(() -> PrometheusTextParser.parse(text))
                .isInstanceOf(ParseException.class)
                .hasMessageContaining(message);
    }

    @Test
    void readsTheSampleBeforeAnExemplarNeverTheExemplar() throws Exception {
        // issue 41: the label-less line was refused ("unexpected ' ' after metric name"), the labelled one too
        Result r = PrometheusTextParser.parse(
                """
                # TYPE w_requests counter
                w_requests_total 7 1795300857000 # {trace_id="def"} 2.0 1795300857
                w_requests_total{a="b"} 8 1795300857000 # {trace_id="def"} 2.0 1795300857
                m 9 # {a="b"} 2
                m{} 10 # {} 3
                m{a="x # y"} 11
                """);
        assertThat(r.samples())
                .containsExactly(
                        new Sample("w_requests_total", Map.of(), 7, OptionalLong.of(1_795_300_857_000L)),
                        new Sample("w_requests_total", Map.of("a", "b"), 8, OptionalLong.of(1_795_300_857_000L)),
                        new Sample("m", Map.of(), 9, OptionalLong.empty()),
                        new Sample("m", Map.of(), 10, OptionalLong.empty()),
                        new Sample("m", Map.of("a", "x # y"), 11, OptionalLong.empty()));
    }

    static Stream<Arguments> rejectsAMalformedExemplarWithItsLineNumber() {
        return Stream.of(
                arguments("ok 1\nm 7 # {a=\"b\"}\n", "line 2: invalid exemplar for 'm': exemplar without a value"),
                arguments("m 7 # comment\n", "line 1: invalid exemplar for 'm': exemplar without labels"),
                arguments("m 7 # {a=\"b\"} two\n", "line 1: invalid exemplar value 'two' for 'm'"),
                arguments("m 7 # {a=\"b\"} 2 soon\n", "line 1: invalid exemplar timestamp 'soon' for 'm'"),
                arguments("m 7#x\n", "line 1: invalid value '7#x' for 'm'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void rejectsAMalformedExemplarWithItsLineNumber(String text, String message) {
        assertThatThrownBy(() -> PrometheusTextParser.parse(text))
                .isInstanceOf(ParseException.class)
                .hasMessage(message);
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"1.0d", "2f", "Infinityy", "--1", "+-1", "0x", ""})
    void rejectsJavaOnlyNumberForms(String bad) {
        assertThatThrownBy(() -> PrometheusTextParser.parseValue(bad))
                .as(bad)
                .isInstanceOf(NumberFormatException.class);
    }

    @Test
    void readsInfinitiesAndNaN() {
        assertThat(PrometheusTextParser.parseValue("-inf")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(PrometheusTextParser.parseValue("+Infinity")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(PrometheusTextParser.parseValue("NaN")).isNaN();
    }

    @Test
    void namesTheFileOfAMalformedLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("node-exporter-1.prom");
        Files.writeString(f, "a 1\nb{\n");

        assertThatThrownBy(() -> PrometheusTextParser.parse(f))
                .isInstanceOf(ParseException.class)
                .hasMessageStartingWith(f + ":line 2: ");
    }
}
