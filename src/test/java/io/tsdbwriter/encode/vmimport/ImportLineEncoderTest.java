package io.tsdbwriter.encode.vmimport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.json.PointDecoder;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** JSON lines for /api/v1/import (DESIGN §3, §6). */
class ImportLineEncoderTest {

    private static final long T = 1_795_300_800_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ImportLineEncoder m3n2 = new ImportLineEncoder(AmplificationPlan.of(3, 2, Duration.ofSeconds(60)));

    private static SeriesLines prepare(ImportLineEncoder encoder, String metric, String... nameValuePairs) {
        String[] names = new String[nameValuePairs.length / 2];
        String[] values = new String[nameValuePairs.length / 2];
        for (int i = 0; i < names.length; i++) {
            names[i] = nameValuePairs[2 * i];
            values[i] = nameValuePairs[2 * i + 1];
        }
        return encoder.prepare(metric, names, values, 0, names.length);
    }

    private static String encode(ImportLineEncoder encoder, SeriesLines lines, long t, double v) {
        ByteBuf buf = new ByteBuf(16);
        encoder.encodePoint(lines, t, ImportLineEncoder.formatValue(v), buf);
        return new String(buf.array(), 0, buf.length(), StandardCharsets.UTF_8);
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    @Test
    void encodesOneLinePerInstanceVariantWithSteppedTimestamps() {
        SeriesLines lines =
                prepare(m3n2, "node_cpu_seconds_total", "cpu", "0", "instanceNo", "node-0001", "mode", "idle");

        String body = encode(m3n2, lines, T, 1234.5);

        assertThat(body)
                .isEqualTo(
                        "{\"metric\":{\"__name__\":\"node_cpu_seconds_total\",\"cpu\":\"0\",\"instanceNo\":\"node-0001\",\"mode\":\"idle\"},"
                                + "\"values\":[1234.5,1234.5,1234.5],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n"
                                + "{\"metric\":{\"__name__\":\"node_cpu_seconds_total\",\"cpu\":\"0\",\"instanceNo\":\"node-0001-1\",\"mode\":\"idle\"},"
                                + "\"values\":[1234.5,1234.5,1234.5],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n");
    }

    @Test
    void linesOfOneTimestampShareItsTextAndANewTimestampIsWrittenAfresh() {
        SeriesLines a = prepare(m3n2, "a", "instanceNo", "h");
        SeriesLines b = prepare(m3n2, "b", "instanceNo", "h");

        String first = encode(m3n2, a, T, 1) + encode(m3n2, b, T, 2);
        String later = encode(m3n2, a, T + 60_000, 3);
        String again = encode(m3n2, b, T, 4);

        assertThat(first)
                .contains(
                        "\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n{\"metric\":{\"__name__\":\"b\"");
        assertThat(first.split("1795300800000,1795300820000,1795300840000", -1)).hasSize(5); // 2 series x N=2 lines
        assertThat(later)
                .contains("\"timestamps\":[1795300860000,1795300880000,1795300900000]}")
                .doesNotContain("1795300800000");
        assertThat(again).contains("\"timestamps\":[1795300800000,1795300820000,1795300840000]}");
    }

    @Test
    void encodePointReturnsMTimesNSamples() {
        SeriesLines lines = prepare(m3n2, "m", "instanceNo", "h");

        int samples = m3n2.encodePoint(lines, T, ImportLineEncoder.formatValue(1), new ByteBuf(16));

        assertThat(samples).isEqualTo(6);
        assertThat(lines.variants()).isEqualTo(2);
    }

    @Test
    void addsUnknownInstanceInSortedPositionWhenAbsent() {
        SeriesLines lines = prepare(m3n2, "m", "a", "x", "zone", "z1");

        assertThat(encode(m3n2, lines, T, 7))
                .isEqualTo("{\"metric\":{\"__name__\":\"m\",\"a\":\"x\",\"instanceNo\":\"unknown\",\"zone\":\"z1\"},"
                        + "\"values\":[7,7,7],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n"
                        + "{\"metric\":{\"__name__\":\"m\",\"a\":\"x\",\"instanceNo\":\"unknown-1\",\"zone\":\"z1\"},"
                        + "\"values\":[7,7,7],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n");
    }

    @Test
    void addsInstanceLastWhenEveryLabelSortsBeforeIt() {
        SeriesLines lines = prepare(m3n2, "m", "Zone", "z", "cpu", "0");

        assertThat(encode(m3n2, lines, T, 1))
                .startsWith(
                        "{\"metric\":{\"__name__\":\"m\",\"Zone\":\"z\",\"cpu\":\"0\",\"instanceNo\":\"unknown\"},\"values\":[");
    }

    @Test
    void addsInstanceFirstWhenEveryLabelSortsAfterIt() {
        SeriesLines lines = prepare(m3n2, "m", "job", "j", "mode", "idle");

        assertThat(encode(m3n2, lines, T, 1))
                .startsWith(
                        "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"unknown\",\"job\":\"j\",\"mode\":\"idle\"},\"values\":[");
    }

    @Test
    void addsInstanceAsOnlyLabelWhenThereAreNoLabels() {
        SeriesLines lines = prepare(m3n2, "up");

        assertThat(encode(m3n2, lines, T, 1))
                .isEqualTo(
                        "{\"metric\":{\"__name__\":\"up\",\"instanceNo\":\"unknown\"},\"values\":[1,1,1],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n"
                                + "{\"metric\":{\"__name__\":\"up\",\"instanceNo\":\"unknown-1\"},\"values\":[1,1,1],\"timestamps\":[1795300800000,1795300820000,1795300840000]}\n");
    }

    @Test
    void usesOnlyTheGivenLabelRange() {
        String[] names = {"skip", "a", "instanceNo", "skip2"};
        String[] values = {"s", "x", "h", "s2"};

        SeriesLines lines = m3n2.prepare("m", names, values, 1, 3);

        assertThat(encode(m3n2, lines, T, 1))
                .startsWith("{\"metric\":{\"__name__\":\"m\",\"a\":\"x\",\"instanceNo\":\"h\"},\"values\":[");
    }

    @Test
    void escapesQuoteAndBackslashInLabelValues() {
        SeriesLines lines = prepare(m3n2, "m", "instanceNo", "h", "path", "C:\\dir \"x\"");

        assertThat(encode(m3n2, lines, T, 1))
                .startsWith(
                        "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\",\"path\":\"C:\\\\dir \\\"x\\\"\"},\"values\":[");
    }

    @Test
    void escapesControlCharactersInLabelValues() {
        SeriesLines lines = prepare(m3n2, "m", "a", "l1\nl2\t\u0001", "instanceNo", "h");

        assertThat(encode(m3n2, lines, T, 1))
                .startsWith(
                        "{\"metric\":{\"__name__\":\"m\",\"a\":\"l1\\nl2\\t\\u0001\",\"instanceNo\":\"h\"},\"values\":[");
    }

    @Test
    void writesNonAsciiLabelValuesAsUtf8() {
        SeriesLines lines = prepare(m3n2, "m", "city", "Zürich 東京 \uD83D\uDE00", "instanceNo", "h");

        String body = encode(m3n2, lines, T, 1);

        assertThat(body)
                .startsWith(
                        "{\"metric\":{\"__name__\":\"m\",\"city\":\"Zürich 東京 \uD83D\uDE00\",\"instanceNo\":\"h\"},\"values\":[");
    }

    @Test
    void escapesSpecialCharactersInInstanceVariants() {
        SeriesLines lines = prepare(m3n2, "m", "instanceNo", "a\"b");

        String body = encode(m3n2, lines, T, 1);

        assertThat(body).contains("\"instanceNo\":\"a\\\"b\"}", "\"instanceNo\":\"a\\\"b-1\"}");
    }

    @Test
    void everyLineParsesAsJsonWithTheSameLabelsAndSamples() throws Exception {
        SeriesLines lines = prepare(m3n2, "m", "a", "q\"uo\\te", "b", "Zürich\n", "instanceNo", "h");

        String body = encode(m3n2, lines, T, -0.25);

        String[] split = body.split("\n");
        assertThat(split).hasSize(2);
        List<String> instances = new ArrayList<>();
        for (String line : split) {
            JsonNode node = JSON.readTree(line);
            JsonNode metric = node.get("metric");
            assertThat(metric.get("__name__").asText()).isEqualTo("m");
            assertThat(metric.get("a").asText()).isEqualTo("q\"uo\\te");
            assertThat(metric.get("b").asText()).isEqualTo("Zürich\n");
            assertThat(metric.size()).isEqualTo(4);
            instances.add(metric.get("instanceNo").asText());
            assertThat(node.get("values").toString()).isEqualTo("[-0.25,-0.25,-0.25]");
            assertThat(node.get("timestamps").toString()).isEqualTo("[1795300800000,1795300820000,1795300840000]");
        }
        assertThat(instances).containsExactly("h", "h-1");
    }

    @Test
    void appendsToExistingBufferContent() {
        ImportLineEncoder relay = new ImportLineEncoder(AmplificationPlan.relay());
        SeriesLines lines = prepare(relay, "m", "instanceNo", "h");
        ByteBuf buf = new ByteBuf(16);

        relay.encodePoint(lines, T, ImportLineEncoder.formatValue(1), buf);
        relay.encodePoint(lines, T + 60_000, ImportLineEncoder.formatValue(2), buf);

        assertThat(new String(buf.array(), 0, buf.length(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\"},\"values\":[1],\"timestamps\":[1795300800000]}\n"
                                + "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\"},\"values\":[2],\"timestamps\":[1795300860000]}\n");
    }

    @Test
    void relayKeepsOriginalInstance() {
        ImportLineEncoder relay = new ImportLineEncoder(AmplificationPlan.relay());
        SeriesLines lines = prepare(relay, "m", "cpu", "1", "instanceNo", "node-3");

        assertThat(encode(relay, lines, T, 0.5))
                .isEqualTo(
                        "{\"metric\":{\"__name__\":\"m\",\"cpu\":\"1\",\"instanceNo\":\"node-3\"},\"values\":[0.5],\"timestamps\":[1795300800000]}\n");
    }

    @Test
    void seriesLinesSizeCountsAllPrefixBytes() {
        SeriesLines lines = prepare(m3n2, "m", "instanceNo", "h");

        String p0 = "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\"},\"values\":[";
        String p1 = "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h-1\"},\"values\":[";
        assertThat(lines.variants()).isEqualTo(2);
        assertThat(lines.sizeBytes()).isEqualTo(4 + 4 + p0.length() + 4 + p1.length()); // N, then each length + prefix
    }

    @Test
    void planIsExposed() {
        AmplificationPlan plan = AmplificationPlan.of(2, 2, Duration.ofSeconds(30));

        assertThat(new ImportLineEncoder(plan).plan()).isSameAs(plan);
    }

    // ---- formatValue ----

    @Test
    void formatsIntegralValueWithoutFraction() {
        assertThat(ascii(ImportLineEncoder.formatValue(42.0))).isEqualTo("42");
        assertThat(ascii(ImportLineEncoder.formatValue(-7.0))).isEqualTo("-7");
        assertThat(ascii(ImportLineEncoder.formatValue(0.0))).isEqualTo("0");
    }

    @Test
    void formatsLargestExactIntegerBelowTwoToThe53WithoutFraction() {
        assertThat(ascii(ImportLineEncoder.formatValue(9_007_199_254_740_991.0)))
                .isEqualTo("9007199254740991");
    }

    @Test
    void formatsFraction() {
        assertThat(ascii(ImportLineEncoder.formatValue(1.5))).isEqualTo("1.5");
    }

    @Test
    void formatsTinyValueInExponentForm() {
        assertThat(ascii(ImportLineEncoder.formatValue(1e-9))).isEqualTo("1.0E-9");
    }

    @Test
    void formatsNegativeZeroKeepingTheSign() {
        String s = ascii(ImportLineEncoder.formatValue(-0.0));

        assertThat(s).isEqualTo("-0.0");
        assertThat(Double.doubleToRawLongBits(Double.parseDouble(s))).isEqualTo(Double.doubleToRawLongBits(-0.0));
    }

    @Test
    void hugeValuesRoundTrip() {
        for (double v : new double[] {
            Double.MAX_VALUE,
            -Double.MAX_VALUE,
            1e300,
            9.007199254740992E15,
            1e20,
            -1e16,
            Double.MIN_VALUE,
            123456789.123456789,
            0.1 + 0.2
        }) {
            String s = ascii(ImportLineEncoder.formatValue(v));
            assertThat(Double.parseDouble(s)).as(s).isEqualTo(v);
        }
    }

    @Test
    void formattedValuesAreJsonNumbers() throws Exception {
        for (double v : new double[] {Double.MAX_VALUE, 1e-9, -0.0, 42, 1.5, 1e20, Double.MIN_VALUE}) {
            String s = ascii(ImportLineEncoder.formatValue(v));
            JsonNode n = JSON.readTree(s);
            assertThat(n.isNumber()).as(s).isTrue();
            assertThat(n.asDouble()).as(s).isEqualTo(v);
        }
    }

    @Test
    void formatValueRejectsNaN() {
        assertThatThrownBy(() -> ImportLineEncoder.formatValue(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void infinityIsWrittenAsVictoriaMetricsExportsAndImportsIt() {
        assertThat(new String(ImportLineEncoder.formatValue(Double.POSITIVE_INFINITY), StandardCharsets.US_ASCII))
                .isEqualTo("+Inf");
        assertThat(new String(ImportLineEncoder.formatValue(Double.NEGATIVE_INFINITY), StandardCharsets.US_ASCII))
                .isEqualTo("-Inf");
        ValueText v = new ValueText();
        assertThat(new String(v.set(Double.POSITIVE_INFINITY).bytes(), 0, v.length(), StandardCharsets.US_ASCII))
                .isEqualTo("+Inf");
        assertThat(new String(v.set(Double.NEGATIVE_INFINITY).bytes(), 0, v.length(), StandardCharsets.US_ASCII))
                .isEqualTo("-Inf");
        assertThat(new String(v.set(2.5).bytes(), 0, v.length(), StandardCharsets.US_ASCII))
                .isEqualTo("2.5");
        assertThatThrownBy(() -> v.set(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyLineOfManyVariantsIsWellFormed() throws Exception {
        ImportLineEncoder enc = new ImportLineEncoder(AmplificationPlan.of(12, 10, Duration.ofSeconds(60)));
        SeriesLines lines = prepare(enc, "m", "instanceNo", "h");

        String body = encode(enc, lines, T, 3.25);

        String[] split = body.split("\n");
        assertThat(split).hasSize(10);
        for (String line : split) {
            JsonNode node = JSON.readTree(line);
            assertThat(node.get("values")).hasSize(12);
            assertThat(node.get("timestamps").get(11).asLong()).isEqualTo(T + 55_000);
        }
        assertThat(Arrays.stream(split)
                        .map(l -> l.substring(0, l.indexOf("},\"values\"")))
                        .distinct())
                .hasSize(10);
    }

    // ---- verbatim (N = 1, JSON-safe records) ----

    /** Every point of the record, encoded verbatim and from prepared lines: the same bytes. */
    private static void assertVerbatimEqualsPrepared(ImportLineEncoder encoder, String record) {
        DecodedPoints points = new DecodedPoints();
        assertThat(new PointDecoder(1 << 20).decode(record.getBytes(StandardCharsets.UTF_8), points))
                .as(record)
                .isNull();
        assertThat(points.jsonSafe()).as("fast path took %s", record).isTrue();
        for (int p = 0; p < points.count(); p++) {
            int from = points.labelStart(p);
            int n = points.labelEnd(p) - from;
            String[] names = new String[n];
            String[] values = new String[n];
            for (int i = 0; i < n; i++) {
                names[i] = points.labelName(from + i);
                values[i] = points.labelValue(from + i);
            }
            byte[] value = ImportLineEncoder.formatValue(points.value(p));
            ByteBuf prepared = new ByteBuf(16);
            int samples = encoder.encodePoint(
                    encoder.prepare(points.metric(p), names, values, 0, n), points.timestampMs(p), value, prepared);
            ByteBuf verbatim = new ByteBuf(16);

            assertThat(encoder.encodePointVerbatim(points, p, value, 0, value.length, verbatim))
                    .isEqualTo(samples);
            assertThat(new String(verbatim.array(), 0, verbatim.length(), StandardCharsets.UTF_8))
                    .isEqualTo(new String(prepared.array(), 0, prepared.length(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aPlainRelayIsAPlainCopyWithoutAnInstanceLabelAddedAtAnyM() {
        for (ImportLineEncoder e : new ImportLineEncoder[] {
            new ImportLineEncoder(AmplificationPlan.relay()),
            new ImportLineEncoder(AmplificationPlan.of(3, 1, Duration.ofSeconds(60)))
        }) {
            SeriesLines lines = prepare(e, "m", "cpu", "0", "mode", "idle");

            assertThat(encode(e, lines, T, 1))
                    .startsWith("{\"metric\":{\"__name__\":\"m\",\"cpu\":\"0\",\"mode\":\"idle\"},\"values\":[");
        }
    }

    @Test
    void verbatimLineEqualsPreparedLine() {
        ImportLineEncoder relay = new ImportLineEncoder(AmplificationPlan.relay());
        ImportLineEncoder m12 = new ImportLineEncoder(AmplificationPlan.of(12, 1, Duration.ofSeconds(60)));
        String head = "\"metric\":\"node_cpu_seconds_total\",\"timestamp\":" + T + ",\"value\":1234.5";
        String[] records = {
            "{" + head + "}",
            "{" + head
                    + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"cpu\":\"0\",\"mode\":\"idle\"},\"productKey\":\"node\"}",
            "{" + head + ",\"dimensions\":{\"cpu\":\"0\",\"mode\":\"idle\"}}", // no instanceNo: none added at N = 1
            "{" + head + ",\"dimensions\":{\"a\":\"0\"}}",
            "{" + head + ",\"dimensions\":{\"z\":\"0\"}}",
            "{" + head + ",\"dimensions\":{\"instanceNo\":\"\",\"job\":\"j\"}}", // empty instanceNo: dropped
            "{" + head + ",\"dimensions\":{\"instanceNoX\":\"x\",\"instance\":\"y\",\"Z\":\"z\"}}",
            // names that share the first byte with instanceNo or not, on either side of it
            "{" + head
                    + ",\"dimensions\":{\"j_\":\"1\",\"i\":\"2\",\"inst\":\"3\",\"hx\":\"4\",\"_x\":\"5\",\"Instance\":\"6\",\"io\":\"7\"}}",
            "{" + head + ",\"dimensions\":{\"city\":\"Z\u00fcrich \u6771\u4eac \uD83D\uDE00\",\"path\":\"/a b/c\"}}",
            "[{" + head + ",\"dimensions\":{\"a\":\"1\"}},{\"metric\":\"up\",\"timestamp\":" + T + ",\"value\":0}]",
        };
        for (String r : records) {
            assertVerbatimEqualsPrepared(relay, r);
            assertVerbatimEqualsPrepared(m12, r);
        }
    }

    @Test
    void verbatimRefusesInstanceVariantsAndEscapedRecords() {
        DecodedPoints points = new DecodedPoints();
        new PointDecoder(1 << 20)
                .decode(
                        ("{\"metric\":\"m\",\"timestamp\":" + T + ",\"value\":1,\"dimensions\":{\"a\":\"x\\ty\"}}")
                                .getBytes(StandardCharsets.UTF_8),
                        points);

        assertThat(points.jsonSafe()).isFalse();
        assertThatThrownBy(() -> new ImportLineEncoder(AmplificationPlan.relay())
                        .encodePointVerbatim(points, 0, new byte[] {'1'}, 0, 1, new ByteBuf(16)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> m3n2.encodePointVerbatim(points, 0, new byte[] {'1'}, 0, 1, new ByteBuf(16)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void valueTextIsFormatValueWithoutAllocation() {
        ValueText text = new ValueText();
        double[] values = {
            0,
            -0.0,
            1,
            -7,
            42.5,
            1e-9,
            1e21,
            -1.7976931348623157E308,
            4.9E-324,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            0.1 + 0.2,
            1234.56,
            123456789.125
        };
        Random random = new Random(5);
        List<Double> all = new ArrayList<>();
        for (double v : values) {
            all.add(v);
        }
        for (int i = 0; i < 10_000; i++) {
            double v = Double.longBitsToDouble(random.nextLong());
            all.add(Double.isFinite(v) ? v : i);
            all.add((double) random.nextInt());
        }
        for (double v : all) {
            text.set(v);
            assertThat(ascii(Arrays.copyOf(text.bytes(), text.length())))
                    .as("%s", v)
                    .isEqualTo(ascii(ImportLineEncoder.formatValue(v)));
        }
        assertThatThrownBy(() -> text.set(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
