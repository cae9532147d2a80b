package io.tsdbwriter.decode.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The record contract of DESIGN §2, rule by rule, accepted and rejected. */
class PointDecoderTest {

    private static final long TS = 1_795_300_857_000L;

    private final PointDecoder decoder = new PointDecoder(1 << 20);
    private final DecodedPoints out = new DecodedPoints();

    private DecodeError decode(String json) {
        return decoder.decode(json.getBytes(StandardCharsets.UTF_8), out);
    }

    /** A point object with the given metric/timestamp/value JSON fragments and extra fields (verbatim). */
    private static String point(String metric, String timestamp, String value, String extra) {
        StringBuilder sb = new StringBuilder("{");
        List<String> parts = new ArrayList<>();
        if (metric != null) {
            parts.add("\"metric\":" + metric);
        }
        if (timestamp != null) {
            parts.add("\"timestamp\":" + timestamp);
        }
        if (value != null) {
            parts.add("\"value\":" + value);
        }
        if (extra != null) {
            parts.add(extra);
        }
        sb.append(String.join(",", parts));
        return sb.append('}').toString();
    }

    private static String valid(String extra) {
        return point("\"m\"", Long.toString(TS), "1", extra);
    }

    private static String withDimensions(String dims) {
        return valid("\"dimensions\":" + dims);
    }

    private List<String> labels(int p) {
        List<String> l = new ArrayList<>();
        for (int i = out.labelStart(p); i < out.labelEnd(p); i++) {
            l.add(out.labelName(i) + "=" + out.labelValue(i));
        }
        return l;
    }

    /** Point p's series key bytes as ISO-8859-1 text (one char per byte). */
    private String seriesKey(int p) {
        int n = out.seriesKey(p);
        return new String(out.seriesKeyBytes(), 0, n, StandardCharsets.ISO_8859_1);
    }

    private void assertRejected(DecodeError actual, DecodeError expected) {
        assertThat(actual).isEqualTo(expected);
        assertThat(out.count()).isZero();
        assertThat(decoder.lastErrorDetail()).isNotEmpty();
    }

    // ---- record shape ----

    @Test
    void decodesSingleObjectRecord() {
        DecodeError e = decode(
                "{\"metric\":\"node_cpu_seconds_total\",\"timestamp\":1795300857000,\"value\":1234.56,"
                        + "\"dimensions\":{\"instanceNo\":\"node-0001\",\"cpu\":\"0\",\"mode\":\"idle\"},\"productKey\":\"node\"}");

        assertThat(e).isNull();
        assertThat(decoder.lastErrorDetail()).isEmpty();
        assertThat(out.count()).isEqualTo(1);
        assertThat(out.metric(0)).isEqualTo("node_cpu_seconds_total");
        assertThat(out.timestampMs(0)).isEqualTo(1_795_300_857_000L);
        assertThat(out.value(0)).isEqualTo(1234.56);
        assertThat(labels(0)).containsExactly("cpu=0", "instanceNo=node-0001", "mode=idle", "productKey=node");
    }

    @Test
    void decodesArrayRecordInOrder() {
        DecodeError e = decode("[" + point("\"a\"", "100000000000", "1", null) + ","
                + point("\"b\"", "100000000001", "2.5", "\"dimensions\":{\"x\":\"1\"}") + ","
                + point("\"c\"", "100000000002", "-3", null) + "]");

        assertThat(e).isNull();
        assertThat(out.count()).isEqualTo(3);
        assertThat(List.of(out.metric(0), out.metric(1), out.metric(2))).containsExactly("a", "b", "c");
        assertThat(List.of(out.timestampMs(0), out.timestampMs(1), out.timestampMs(2)))
                .containsExactly(100_000_000_000L, 100_000_000_001L, 100_000_000_002L);
        assertThat(List.of(out.value(0), out.value(1), out.value(2))).containsExactly(1.0, 2.5, -3.0);
        assertThat(labels(0)).isEmpty();
        assertThat(labels(1)).containsExactly("x=1");
        assertThat(labels(2)).isEmpty();
    }

    @Test
    void decodesManyPointsBeyondInitialBufferCapacity() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 50; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(point(
                    "\"m" + i + "\"",
                    Long.toString(TS + i),
                    Integer.toString(i),
                    "\"dimensions\":{\"a\":\"" + i + "\",\"b\":\"x\"}"));
        }
        DecodeError e = decode(sb.append(']').toString());

        assertThat(e).isNull();
        assertThat(out.count()).isEqualTo(50);
        assertThat(out.metric(49)).isEqualTo("m49");
        assertThat(out.timestampMs(49)).isEqualTo(TS + 49);
        assertThat(out.value(49)).isEqualTo(49.0);
        assertThat(labels(49)).containsExactly("a=49", "b=x");
        assertThat(labels(0)).containsExactly("a=0", "b=x");
    }

    @Test
    void rejectionClearsPointsOfPreviousDecode() {
        assertThat(decode(valid(null))).isNull();
        assertThat(out.count()).isEqualTo(1);

        assertRejected(decode("[]"), DecodeError.EMPTY_ARRAY);
    }

    @Test
    void successClearsErrorDetailOfPreviousDecode() {
        assertThat(decode("[]")).isEqualTo(DecodeError.EMPTY_ARRAY);

        assertThat(decode(valid(null))).isNull();
        assertThat(decoder.lastErrorDetail()).isEmpty();
        assertThat(out.count()).isEqualTo(1);
    }

    // ---- rejected records: one line per case (record → the reason) ----

    private static final String T = Long.toString(TS);

    /** A point record with metric {@code "m"} and a valid timestamp whose value is the given JSON fragment. */
    private static String withValue(String value) {
        return point("\"m\"", T, value, null);
    }

    /** A point record with metric {@code "m"} and value 1 whose timestamp is the given JSON fragment. */
    private static String withTimestamp(String timestamp) {
        return point("\"m\"", timestamp, "1", null);
    }

    /** A point record with a valid timestamp and value 1 whose metric is the given JSON fragment. */
    private static String withMetric(String metric) {
        return point(metric, T, "1", null);
    }

    /** {@code prefix}, then the raw bytes (not UTF-8 text), then {@code suffix}. */
    private static byte[] rawBytes(String prefix, String suffix, int... raw) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] s = suffix.getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[p.length + raw.length + s.length];
        System.arraycopy(p, 0, record, 0, p.length);
        for (int i = 0; i < raw.length; i++) {
            record[p.length + i] = (byte) raw[i];
        }
        System.arraycopy(s, 0, record, p.length + raw.length, s.length);
        return record;
    }

    private static final String DIMENSION_A =
            "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":\"";

    private static Arguments rejects(String name, String json, DecodeError expected) {
        return rejects(name, json.getBytes(StandardCharsets.UTF_8), expected);
    }

    private static Arguments rejects(String name, byte[] record, DecodeError expected) {
        return arguments(name, record, expected);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                // record shape
                rejects("empty array", "[]", DecodeError.EMPTY_ARRAY),
                rejects("array with a non-object element", "[" + valid(null) + ",42]", DecodeError.NOT_AN_OBJECT),
                rejects("nested array element", "[[" + valid(null) + "]]", DecodeError.NOT_AN_OBJECT),
                rejects("top-level scalar", "\"hello\"", DecodeError.NOT_AN_OBJECT),
                rejects("top-level null", "null", DecodeError.NOT_AN_OBJECT),
                rejects(
                        "a bad point in an array rejects the whole record",
                        "[" + valid(null) + "," + withTimestamp("1795300857") + "," + valid(null) + "]",
                        DecodeError.TIMESTAMP_IN_SECONDS),
                rejects("null record", (byte[]) null, DecodeError.EMPTY_RECORD),
                rejects("zero-byte record", new byte[0], DecodeError.EMPTY_RECORD),
                // metric
                rejects("metric starting with a digit", withMetric("\"1abc\""), DecodeError.INVALID_METRIC),
                rejects("metric with a dash", withMetric("\"a-b\""), DecodeError.INVALID_METRIC),
                rejects("empty metric", withMetric("\"\""), DecodeError.INVALID_METRIC),
                rejects("numeric metric", withMetric("42"), DecodeError.INVALID_METRIC),
                rejects("object metric", withMetric("{\"a\":\"b\"}"), DecodeError.INVALID_METRIC),
                rejects("missing metric", withMetric(null), DecodeError.MISSING_METRIC),
                // timestamp
                rejects("float timestamp", withTimestamp("1795300857000.5"), DecodeError.INVALID_TIMESTAMP),
                rejects("integral float timestamp", withTimestamp("1.795300857E12"), DecodeError.INVALID_TIMESTAMP),
                rejects("string timestamp", withTimestamp("\"1795300857000\""), DecodeError.INVALID_TIMESTAMP),
                rejects("negative timestamp", withTimestamp("-1795300857000"), DecodeError.INVALID_TIMESTAMP),
                rejects(
                        "timestamp beyond the long range",
                        withTimestamp("99999999999999999999"),
                        DecodeError.INVALID_TIMESTAMP),
                rejects("timestamp in seconds", withTimestamp("1795300857"), DecodeError.TIMESTAMP_IN_SECONDS),
                rejects(
                        "timestamp just below the millisecond range",
                        withTimestamp("99999999999"),
                        DecodeError.TIMESTAMP_IN_SECONDS),
                rejects("missing timestamp", withTimestamp(null), DecodeError.MISSING_TIMESTAMP),
                // value
                rejects("string NaN value", withValue("\"NaN\""), DecodeError.INVALID_VALUE),
                rejects("bare NaN token: invalid JSON", withValue("NaN"), DecodeError.INVALID_JSON),
                rejects("bare Infinity token: invalid JSON", withValue("Infinity"), DecodeError.INVALID_JSON),
                rejects("value overflowing a double", withValue("1e400"), DecodeError.INVALID_VALUE),
                rejects("null value", withValue("null"), DecodeError.INVALID_VALUE),
                rejects("boolean value", withValue("true"), DecodeError.INVALID_VALUE),
                rejects("missing value", withValue(null), DecodeError.MISSING_VALUE),
                // dimensions
                rejects("numeric dimension value", withDimensions("{\"cpu\":0}"), DecodeError.INVALID_DIMENSIONS),
                rejects(
                        "object dimension value",
                        withDimensions("{\"cpu\":{\"a\":\"b\"}}"),
                        DecodeError.INVALID_DIMENSIONS),
                rejects(
                        "dimensions that are not an object",
                        withDimensions("[\"a\",\"b\"]"),
                        DecodeError.INVALID_DIMENSIONS),
                rejects("string dimensions", withDimensions("\"cpu=0\""), DecodeError.INVALID_DIMENSIONS),
                rejects("label name with a dash", withDimensions("{\"a-b\":\"x\"}"), DecodeError.INVALID_LABEL_NAME),
                rejects(
                        "label name starting with a digit",
                        withDimensions("{\"1a\":\"x\"}"),
                        DecodeError.INVALID_LABEL_NAME),
                rejects("label name with a colon", withDimensions("{\"a:b\":\"x\"}"), DecodeError.INVALID_LABEL_NAME),
                rejects("empty label name", withDimensions("{\"\":\"x\"}"), DecodeError.INVALID_LABEL_NAME),
                rejects("reserved label name", withDimensions("{\"__x\":\"y\"}"), DecodeError.RESERVED_LABEL_NAME),
                rejects(
                        "__name__ in dimensions",
                        withDimensions("{\"__name__\":\"other\"}"),
                        DecodeError.RESERVED_LABEL_NAME),
                rejects(
                        "duplicate dimension name",
                        withDimensions("{\"a\":\"1\",\"a\":\"2\"}"),
                        DecodeError.INVALID_JSON),
                // productKey
                rejects("non-string productKey", valid("\"productKey\":7"), DecodeError.INVALID_PRODUCT_KEY),
                // bytes and syntax
                rejects("invalid UTF-8 bytes", rawBytes(DIMENSION_A, "\"}}", 0xFF, 0xFE), DecodeError.INVALID_UTF8),
                rejects(
                        "invalid UTF-8 bytes in an ignored field",
                        // the start of a 2-byte sequence followed by a non-continuation byte
                        rawBytes(
                                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"note\":\"",
                                "\"}",
                                0xC3,
                                0x28),
                        DecodeError.INVALID_UTF8),
                rejects(
                        "overlong UTF-8 sequence (of '/')",
                        rawBytes(DIMENSION_A, "\"}}", 0xC0, 0xAF),
                        DecodeError.INVALID_UTF8),
                rejects(
                        "UTF-8-encoded surrogate (U+D800 as 3 bytes, CESU-8: not UTF-8)",
                        rawBytes(DIMENSION_A, "\"}}", 0xED, 0xA0, 0x80),
                        DecodeError.INVALID_UTF8),
                rejects("trailing garbage", valid(null) + " x", DecodeError.INVALID_JSON),
                rejects("second top-level value", valid(null) + valid(null), DecodeError.INVALID_JSON),
                rejects("truncated JSON", "{\"metric\":\"m\",\"timestamp\":1795300857000", DecodeError.INVALID_JSON),
                rejects("duplicate field", valid("\"metric\":\"other\""), DecodeError.INVALID_JSON));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void rejected(String name, byte[] record, DecodeError expected) {
        assertRejected(decoder.decode(record, out), expected);
    }

    /**
     * A JSON escape of a lone surrogate (backslash, u, d800) is syntactically valid JSON but no Unicode text. It is
     * accepted, and the label value cannot be encoded ({@code ImportLineEncoder.prepare} throws
     * IllegalArgumentException "Unmatched first part of surrogate pair"),
     * which escapes RecordProcessor.process and stops the SegmentConsumer, stalling the partition. The decoder must
     * reject such a record with a counted reason instead.
     */
    static Stream<Arguments> rejectsEscapedLoneSurrogate() {
        return Stream.of(
                arguments("in a dimension value", withDimensions("{\"a\":\"x\\ud800y\"}")),
                arguments("in the productKey", valid("\"productKey\":\"\\udc00\"")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void rejectsEscapedLoneSurrogate(String name, String record) {
        DecodeError e = decode(record);

        assertThat(e).isNotNull();
        assertThat(out.count()).isZero();
    }

    // ---- accepted fields: one line per case (record → what is read) ----

    static Stream<Arguments> acceptedMetric() {
        return Stream.of(
                arguments("colon, underscore and digits", "a:b_c1"), arguments("starting with a colon", ":job:rate5m"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void acceptedMetric(String name, String metric) {
        assertThat(decode(withMetric("\"" + metric + "\""))).isNull();
        assertThat(out.metric(0)).isEqualTo(metric);
    }

    @Test
    void acceptsSmallestMillisecondTimestamp() {
        assertThat(decode(point("\"m\"", "100000000000", "1", null))).isNull();
        assertThat(out.timestampMs(0)).isEqualTo(PointDecoder.MIN_TIMESTAMP_MS);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "integer, 42, 42.0",
        "float, -1.5e-3, -0.0015",
        "integer beyond the long range, 123456789012345678901234567890, 1.2345678901234568E29"
    })
    void acceptedValue(String name, String value, double expected) {
        assertThat(decode(withValue(value))).isNull();
        assertThat(out.value(0)).isEqualTo(expected);
    }

    private static Arguments labels(String name, String record, String... expected) {
        return arguments(name, record, List.of(expected));
    }

    static Stream<Arguments> acceptedLabels() {
        return Stream.of(
                // dimensions
                labels(
                        "dimensions become sorted labels",
                        withDimensions("{\"zone\":\"z1\",\"cpu\":\"0\",\"instanceNo\":\"h\",\"Mode\":\"idle\"}"),
                        "Mode=idle",
                        "cpu=0",
                        "instanceNo=h",
                        "zone=z1"),
                labels("empty dimension values dropped", withDimensions("{\"a\":\"\",\"b\":\"x\"}"), "b=x"),
                labels("null dimension values dropped", withDimensions("{\"a\":null,\"b\":\"x\"}"), "b=x"),
                labels("empty dimensions", withDimensions("{}")),
                labels("null dimensions", withDimensions("null")),
                labels("label name with a single leading underscore", withDimensions("{\"_x\":\"y\"}"), "_x=y"),
                // productKey
                labels(
                        "productKey becomes a label",
                        valid("\"productKey\":\"node\",\"dimensions\":{\"zone\":\"z\",\"a\":\"b\"}"),
                        "a=b",
                        "productKey=node",
                        "zone=z"),
                labels(
                        "productKey wins over the dimension of that name",
                        valid("\"productKey\":\"top\",\"dimensions\":{\"productKey\":\"dim\"}"),
                        "productKey=top"),
                labels(
                        "productKey wins over the dimension of that name whatever the field order",
                        valid("\"dimensions\":{\"productKey\":\"dim\"},\"productKey\":\"top\""),
                        "productKey=top"),
                labels("null productKey ignored", valid("\"productKey\":null")),
                // bytes
                labels("escaped surrogate pair", withDimensions("{\"a\":\"\\ud83d\\ude00\"}"), "a=\uD83D\uDE00"),
                labels(
                        "multi-byte UTF-8 label values",
                        withDimensions("{\"city\":\"Zürich 東京 \uD83D\uDE00\"}"),
                        "city=Zürich 東京 \uD83D\uDE00"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void acceptedLabels(String name, String record, List<String> expected) {
        assertThat(decode(record)).isNull();

        assertThat(labels(0)).containsExactlyElementsOf(expected);
    }

    // ---- other fields, syntax, bytes ----

    @Test
    void ignoresUnknownFields() {
        assertThat(decode(valid("\"unit\":\"seconds\",\"extra\":{\"nested\":[1,2,{\"x\":null}]},\"n\":3")))
                .isNull();

        assertThat(out.count()).isEqualTo(1);
        assertThat(out.metric(0)).isEqualTo("m");
        assertThat(labels(0)).isEmpty();
    }

    @Test
    void acceptsTrailingWhitespace() {
        assertThat(decode(valid(null) + " \n\t")).isNull();
        assertThat(out.count()).isEqualTo(1);
    }

    @Test
    void rejectsOversizeRecord() {
        PointDecoder small = new PointDecoder(32);
        byte[] record = valid(null).getBytes(StandardCharsets.UTF_8);
        assertThat(record.length).isGreaterThan(32);

        DecodeError e = small.decode(record, out);

        assertThat(e).isEqualTo(DecodeError.TOO_LARGE);
        assertThat(out.count()).isZero();
    }

    @Test
    void acceptsRecordOfExactlyMaxBytes() {
        byte[] record = valid(null).getBytes(StandardCharsets.UTF_8);
        PointDecoder exact = new PointDecoder(record.length);

        assertThat(exact.decode(record, out)).isNull();
        assertThat(out.count()).isEqualTo(1);
    }

    @Test
    void rejectsNonPositiveMaxRecordBytes() {
        assertThatThrownBy(() -> new PointDecoder(0)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- series identity ----

    @Test
    void seriesKeyIdenticalForSameLabelsInDifferentJsonOrder() {
        assertThat(decode(
                        "{\"dimensions\":{\"b\":\"2\",\"a\":\"1\"},\"value\":1,\"productKey\":\"p\",\"metric\":\"m\",\"timestamp\":"
                                + TS + "}"))
                .isNull();
        String first = seriesKey(0);
        assertThat(decode("{\"metric\":\"m\",\"productKey\":\"p\",\"timestamp\":" + (TS + 60_000)
                        + ",\"value\":2,\"dimensions\":{\"a\":\"1\",\"b\":\"2\"}}"))
                .isNull();

        assertThat(seriesKey(0)).isEqualTo(first);
    }

    @Test
    void seriesKeyDiffersWhenALabelValueDiffers() {
        assertThat(decode(withDimensions("{\"a\":\"1\"}"))).isNull();
        String first = seriesKey(0);
        assertThat(decode(withDimensions("{\"a\":\"2\"}"))).isNull();

        assertThat(seriesKey(0)).isNotEqualTo(first);
    }

    @Test
    void seriesKeyCannotBeForgedByLengthBytesInValues() {
        assertThat(decode(withDimensions("{\"a\":\"1\\u0001b\\u00012\"}"))).isNull();
        String one = seriesKey(0);
        assertThat(decode(withDimensions("{\"a\":\"1\",\"b\":\"2\"}"))).isNull();

        assertThat(seriesKey(0)).isNotEqualTo(one);
    }

    @Test
    void seriesKeyFormat() {
        assertThat(decode(withDimensions("{\"b\":\"xy\",\"a\":\"1\"}"))).isNull();

        assertThat(seriesKey(0)).isEqualTo("\u0001m\u0001a\u00011\u0001b\u0002xy");
    }

    @Test
    void seriesKeyPrefixesLongComponentsWithMultiByteLengths() {
        String v = "x".repeat(300);
        assertThat(decode(withDimensions("{\"a\":\"" + v + "\"}"))).isNull();

        assertThat(seriesKey(0)).isEqualTo("\u0001m\u0001a\u00ac\u0002" + v); // 300 = 0b10_0101100: 0xAC 0x02
    }

    @Test
    void seriesKeyOfEscapedAndPlainSpellingsOfOneSeriesIsTheSame() {
        assertThat(decode(withDimensions("{\"a\":\"x/\u00e9\"}"))).isNull();
        String plain = seriesKey(0);
        assertThat(decode(withDimensions("{\"a\":\"x\\/\\u00e9\"}"))).isNull(); // Jackson path: escapes

        assertThat(seriesKey(0)).isEqualTo(plain);
    }
}
