package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ExpositionDecoderTest {

    private final ExpositionDecoder d = new ExpositionDecoder(1 << 20, Decoded.ANY_TIME);

    private static Arguments scrape(String name, String text, long kafkaTs, String... expected) {
        return arguments(name, text, kafkaTs, List.of(expected));
    }

    /** Exposition text and the record's Kafka timestamp → its points (metric{labels} value @ms), none refused. */
    static Stream<Arguments> points() {
        return Stream.of(
                scrape(
                        "samples with and without a timestamp",
                        "# HELP x y\n# TYPE x gauge\nx 1\nx{a=\"b\",c=\"d\",} 2.5e-3 1795300857000\n  y\t7 1795300857\n",
                        42,
                        "x{} 1.0 @42",
                        "x{a=\"b\",c=\"d\"} 0.0025 @1795300857000",
                        "y{} 7.0 @1795300857000"),
                scrape(
                        "escapes in label values, empty values dropped",
                        "m{path=\"C:\\\\x\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\",other=\"\\t\",e=\"\"} 1 5",
                        0,
                        "m{nl=\"a\nb\",other=\"\\t\",path=\"C:\\x\",q=\"say \"hi\"\"} 1.0 @5000"),
                scrape(
                        "label values may hold braces, hashes and commas",
                        "m{a=\"}{#,\"} 3 # {trace_id=\"x\"} 1",
                        9,
                        "m{a=\"}{#,\"} 3.0 @9"),
                // the label-less line was stored as w_requests_total 7 1795300857000 #{trace_id="def"} = 2
                scrape(
                        "an exemplar never gives the sample its value",
                        """
                        # TYPE w_requests counter
                        w_requests_total 7 1795300857000 # {trace_id="def"} 2.0 1795300857
                        w_requests_total{a="b"} 8 1795300917000 # {trace_id="def"} 2.0 1795300857
                        m 7 # {a="b"} 2
                        m{} 9 # {} 3 1795300857.5
                        m{a="x # y"} 10
                          m\t11\t\t#\t\t{a="1"}\t\t4\t
                        """,
                        42,
                        "w_requests_total{} 7.0 @1795300857000",
                        "w_requests_total{a=\"b\"} 8.0 @1795300917000",
                        "m{} 7.0 @42",
                        "m{} 9.0 @42",
                        "m{a=\"x # y\"} 10.0 @42",
                        "m{} 11.0 @42"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void points(String name, String text, long kafkaTs, List<String> expected) {
        Decoded r = Decoded.of(d, text, kafkaTs);
        assertThat(r.points).containsExactlyElementsOf(expected);
        assertThat(r.rejections.total()).isZero();
    }

    @Test
    void aMalformedExemplarIsACountedBrokenLine() {
        Decoded r = Decoded.of(
                d,
                "ok 1\nm 7 # {a=\"b\"}\nm 7 #{a=\"b\"} 2\nm 7 # comment\nm 7 # {a=\"b\"} x\nm 7 # {a=\"b\"} 2 y\nm 7#x\nok 2",
                9);
        assertThat(r.points).containsExactly("ok{} 1.0 @9", "ok{} 2.0 @9");
        assertThat(r.rejections.count(DecodeError.INVALID_LINE)).isEqualTo(5);
        assertThat(r.rejections.count(DecodeError.INVALID_VALUE))
                .isEqualTo(1); // "7#x": the '#' does not follow a blank
        assertThat(r.rejections.total()).isEqualTo(6);
    }

    @Test
    void nanAndInfSkippedAndCounted() {
        Decoded r = Decoded.of(d, "a NaN\nb +Inf\nc -inf\nd 1", 9);
        assertThat(r.points).containsExactly("d{} 1.0 @9");
        assertThat(r.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(3);
        assertThat(r.rejections.malformed()).isFalse();
    }

    @Test
    void brokenLinesCountedOthersKept() {
        Decoded r = Decoded.of(d, "ok 1\nnovalue\nm{a=\"x} 1\nm{a=b} 1\nbad abc\nm 1 xyz\nok 2", 9);
        assertThat(r.points).containsExactly("ok{} 1.0 @9", "ok{} 2.0 @9");
        assertThat(r.rejections.total()).isEqualTo(5);
        assertThat(r.rejections.count(DecodeError.INVALID_LINE)).isEqualTo(3);
    }

    @Test
    void aWholeNodeExporterScrape() throws Exception {
        Path dir = NodeExporterFiles.dir();
        Path file;
        try (var files = Files.list(dir)) {
            file = files.filter(f -> f.toString().endsWith(".prom"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(file);
        long samples = Files.readAllLines(file).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .count();
        Decoded r = Decoded.of(new ExpositionDecoder(8 << 20, Decoded.ANY_TIME), bytes, 1);
        assertThat(r.rejections.total()).isZero();
        assertThat(r.points).hasSize((int) samples);
    }

    private static String text(DecodedPoints out, int off, int len) {
        return new String(out.families().bytes(), off, len, StandardCharsets.UTF_8);
    }

    @Test
    void typeHelpAndUnitAreKeptPerFamilyAndASeriesFindsItsFamilyBySuffix() {
        DecodedPoints out = new DecodedPoints();
        Rejections rej = new Rejections();
        byte[] record =
                """
                # HELP rpc_seconds RPC latency \\\\ per call,\\nin seconds.
                # TYPE rpc_seconds histogram
                # UNIT rpc_seconds seconds
                rpc_seconds_bucket{le="+Inf"} 3
                # just a comment
                #	TYPE  up   gauge
                up 1
                # HELP
                # TYPE rpc_seconds counter
                other 2
                """
                        .getBytes(StandardCharsets.UTF_8);
        d.decode(record, 5, out, rej);
        assertThat(out.count()).isEqualTo(3);
        assertThat(out.jsonSafe())
                .as("the HELP text's backslashes are not the points' bytes")
                .isTrue();
        assertThat(rej.total()).as(rej.first() + " " + rej.firstDetail()).isZero();
        FamilyMetadata f = out.families();
        assertThat(f.count()).isEqualTo(2);
        assertThat(text(out, f.nameOffset(0), f.nameLength(0))).isEqualTo("rpc_seconds");
        assertThat(text(out, f.helpOffset(0), f.helpLength(0))).isEqualTo("RPC latency \\ per call,\nin seconds.");
        assertThat(text(out, f.typeOffset(0), f.typeLength(0)))
                .as("the first TYPE line counts")
                .isEqualTo("histogram");
        assertThat(text(out, f.unitOffset(0), f.unitLength(0))).isEqualTo("seconds");
        assertThat(text(out, f.typeOffset(1), f.typeLength(1))).isEqualTo("gauge");
        assertThat(f.helpLength(1)).isZero();
        assertThat(f.unitLength(1)).isZero();
        assertThat(f.find(out.arena(), out.metricOffset(0), out.metricLength(0)))
                .isZero();
        assertThat(f.find(out.arena(), out.metricOffset(1), out.metricLength(1)))
                .isEqualTo(1);
        assertThat(f.find(out.arena(), out.metricOffset(2), out.metricLength(2)))
                .isEqualTo(-1);
        d.decode("x 1\n".getBytes(StandardCharsets.UTF_8), 5, out, rej);
        assertThat(out.families().count()).as("cleared with the points").isZero();
    }
}
