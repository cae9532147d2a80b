package io.tsdbwriter.decode.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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
    void rejectsEmptyArray() {
        assertRejected(decode("[]"), DecodeError.EMPTY_ARRAY);
    }

    @Test
    void rejectsArrayWithNonObjectElement() {
        assertRejected(decode("[" + valid(null) + ",42]"), DecodeError.NOT_AN_OBJECT);
    }

    @Test
    void rejectsNestedArrayElement() {
        assertRejected(decode("[[" + valid(null) + "]]"), DecodeError.NOT_AN_OBJECT);
    }

    @Test
    void rejectsTopLevelScalar() {
        assertRejected(decode("\"hello\""), DecodeError.NOT_AN_OBJECT);
    }

    @Test
    void rejectsTopLevelNull() {
        assertRejected(decode("null"), DecodeError.NOT_AN_OBJECT);
    }

    @Test
    void badPointInArrayRejectsWholeRecord() {
        DecodeError e =
                decode("[" + valid(null) + "," + point("\"m\"", "1795300857", "1", null) + "," + valid(null) + "]");

        assertRejected(e, DecodeError.TIMESTAMP_IN_SECONDS);
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

    // ---- metric ----

    @Test
    void acceptsMetricWithColonUnderscoreAndDigits() {
        assertThat(decode(point("\"a:b_c1\"", Long.toString(TS), "1", null))).isNull();
        assertThat(out.metric(0)).isEqualTo("a:b_c1");
    }

    @Test
    void acceptsMetricStartingWithColon() {
        assertThat(decode(point("\":job:rate5m\"", Long.toString(TS), "1", null)))
                .isNull();
        assertThat(out.metric(0)).isEqualTo(":job:rate5m");
    }

    @Test
    void rejectsMetricStartingWithDigit() {
        assertRejected(decode(point("\"1abc\"", Long.toString(TS), "1", null)), DecodeError.INVALID_METRIC);
    }

    @Test
    void rejectsMetricWithDash() {
        assertRejected(decode(point("\"a-b\"", Long.toString(TS), "1", null)), DecodeError.INVALID_METRIC);
    }

    @Test
    void rejectsEmptyMetric() {
        assertRejected(decode(point("\"\"", Long.toString(TS), "1", null)), DecodeError.INVALID_METRIC);
    }

    @Test
    void rejectsNumericMetric() {
        assertRejected(decode(point("42", Long.toString(TS), "1", null)), DecodeError.INVALID_METRIC);
    }

    @Test
    void rejectsObjectMetric() {
        assertRejected(decode(point("{\"a\":\"b\"}", Long.toString(TS), "1", null)), DecodeError.INVALID_METRIC);
    }

    @Test
    void rejectsMissingMetric() {
        assertRejected(decode(point(null, Long.toString(TS), "1", null)), DecodeError.MISSING_METRIC);
    }

    // ---- timestamp ----

    @Test
    void acceptsSmallestMillisecondTimestamp() {
        assertThat(decode(point("\"m\"", "100000000000", "1", null))).isNull();
        assertThat(out.timestampMs(0)).isEqualTo(PointDecoder.MIN_TIMESTAMP_MS);
    }

    @Test
    void rejectsFloatTimestamp() {
        assertRejected(decode(point("\"m\"", "1795300857000.5", "1", null)), DecodeError.INVALID_TIMESTAMP);
    }

    @Test
    void rejectsIntegralFloatTimestamp() {
        assertRejected(decode(point("\"m\"", "1.795300857E12", "1", null)), DecodeError.INVALID_TIMESTAMP);
    }

    @Test
    void rejectsStringTimestamp() {
        assertRejected(decode(point("\"m\"", "\"1795300857000\"", "1", null)), DecodeError.INVALID_TIMESTAMP);
    }

    @Test
    void rejectsNegativeTimestamp() {
        assertRejected(decode(point("\"m\"", "-1795300857000", "1", null)), DecodeError.INVALID_TIMESTAMP);
    }

    @Test
    void rejectsTimestampBeyondLongRange() {
        assertRejected(decode(point("\"m\"", "99999999999999999999", "1", null)), DecodeError.INVALID_TIMESTAMP);
    }

    @Test
    void rejectsTimestampInSeconds() {
        assertRejected(decode(point("\"m\"", "1795300857", "1", null)), DecodeError.TIMESTAMP_IN_SECONDS);
    }

    @Test
    void rejectsTimestampJustBelowMillisecondRange() {
        assertRejected(decode(point("\"m\"", "99999999999", "1", null)), DecodeError.TIMESTAMP_IN_SECONDS);
    }

    @Test
    void rejectsMissingTimestamp() {
        assertRejected(decode(point("\"m\"", null, "1", null)), DecodeError.MISSING_TIMESTAMP);
    }

    // ---- value ----

    @Test
    void acceptsIntegerValue() {
        assertThat(decode(point("\"m\"", Long.toString(TS), "42", null))).isNull();
        assertThat(out.value(0)).isEqualTo(42.0);
    }

    @Test
    void acceptsFloatValue() {
        assertThat(decode(point("\"m\"", Long.toString(TS), "-1.5e-3", null))).isNull();
        assertThat(out.value(0)).isEqualTo(-0.0015);
    }

    @Test
    void acceptsIntegerValueBeyondLongRange() {
        assertThat(decode(point("\"m\"", Long.toString(TS), "123456789012345678901234567890", null)))
                .isNull();
        assertThat(out.value(0)).isEqualTo(1.2345678901234568E29);
    }

    @Test
    void rejectsStringNaNValue() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "\"NaN\"", null)), DecodeError.INVALID_VALUE);
    }

    @Test
    void rejectsBareNaNTokenAsInvalidJson() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "NaN", null)), DecodeError.INVALID_JSON);
    }

    @Test
    void rejectsBareInfinityTokenAsInvalidJson() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "Infinity", null)), DecodeError.INVALID_JSON);
    }

    @Test
    void rejectsValueOverflowingDouble() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "1e400", null)), DecodeError.INVALID_VALUE);
    }

    @Test
    void rejectsNullValue() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "null", null)), DecodeError.INVALID_VALUE);
    }

    @Test
    void rejectsBooleanValue() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), "true", null)), DecodeError.INVALID_VALUE);
    }

    @Test
    void rejectsMissingValue() {
        assertRejected(decode(point("\"m\"", Long.toString(TS), null, null)), DecodeError.MISSING_VALUE);
    }

    // ---- dimensions ----

    @Test
    void dimensionsBecomeSortedLabels() {
        assertThat(decode(withDimensions("{\"zone\":\"z1\",\"cpu\":\"0\",\"instanceNo\":\"h\",\"Mode\":\"idle\"}")))
                .isNull();

        assertThat(labels(0)).containsExactly("Mode=idle", "cpu=0", "instanceNo=h", "zone=z1");
    }

    @Test
    void dropsEmptyDimensionValues() {
        assertThat(decode(withDimensions("{\"a\":\"\",\"b\":\"x\"}"))).isNull();

        assertThat(labels(0)).containsExactly("b=x");
    }

    @Test
    void dropsNullDimensionValues() {
        assertThat(decode(withDimensions("{\"a\":null,\"b\":\"x\"}"))).isNull();

        assertThat(labels(0)).containsExactly("b=x");
    }

    @Test
    void acceptsEmptyDimensions() {
        assertThat(decode(withDimensions("{}"))).isNull();

        assertThat(labels(0)).isEmpty();
    }

    @Test
    void acceptsNullDimensions() {
        assertThat(decode(withDimensions("null"))).isNull();

        assertThat(labels(0)).isEmpty();
    }

    @Test
    void rejectsNumericDimensionValue() {
        assertRejected(decode(withDimensions("{\"cpu\":0}")), DecodeError.INVALID_DIMENSIONS);
    }

    @Test
    void rejectsObjectDimensionValue() {
        assertRejected(decode(withDimensions("{\"cpu\":{\"a\":\"b\"}}")), DecodeError.INVALID_DIMENSIONS);
    }

    @Test
    void rejectsDimensionsThatAreNotAnObject() {
        assertRejected(decode(withDimensions("[\"a\",\"b\"]")), DecodeError.INVALID_DIMENSIONS);
    }

    @Test
    void rejectsStringDimensions() {
        assertRejected(decode(withDimensions("\"cpu=0\"")), DecodeError.INVALID_DIMENSIONS);
    }

    @Test
    void rejectsLabelNameWithDash() {
        assertRejected(decode(withDimensions("{\"a-b\":\"x\"}")), DecodeError.INVALID_LABEL_NAME);
    }

    @Test
    void rejectsLabelNameStartingWithDigit() {
        assertRejected(decode(withDimensions("{\"1a\":\"x\"}")), DecodeError.INVALID_LABEL_NAME);
    }

    @Test
    void rejectsLabelNameWithColon() {
        assertRejected(decode(withDimensions("{\"a:b\":\"x\"}")), DecodeError.INVALID_LABEL_NAME);
    }

    @Test
    void rejectsEmptyLabelName() {
        assertRejected(decode(withDimensions("{\"\":\"x\"}")), DecodeError.INVALID_LABEL_NAME);
    }

    @Test
    void rejectsReservedLabelName() {
        assertRejected(decode(withDimensions("{\"__x\":\"y\"}")), DecodeError.RESERVED_LABEL_NAME);
    }

    @Test
    void rejectsNameLabelInDimensions() {
        assertRejected(decode(withDimensions("{\"__name__\":\"other\"}")), DecodeError.RESERVED_LABEL_NAME);
    }

    @Test
    void acceptsLabelNameWithSingleLeadingUnderscore() {
        assertThat(decode(withDimensions("{\"_x\":\"y\"}"))).isNull();

        assertThat(labels(0)).containsExactly("_x=y");
    }

    @Test
    void rejectsDuplicateDimensionName() {
        assertRejected(decode(withDimensions("{\"a\":\"1\",\"a\":\"2\"}")), DecodeError.INVALID_JSON);
    }

    // ---- productKey ----

    @Test
    void productKeyBecomesLabel() {
        assertThat(decode(valid("\"productKey\":\"node\",\"dimensions\":{\"zone\":\"z\",\"a\":\"b\"}")))
                .isNull();

        assertThat(labels(0)).containsExactly("a=b", "productKey=node", "zone=z");
    }

    @Test
    void productKeyWinsOverDimensionOfThatName() {
        assertThat(decode(valid("\"productKey\":\"top\",\"dimensions\":{\"productKey\":\"dim\"}")))
                .isNull();

        assertThat(labels(0)).containsExactly("productKey=top");
    }

    @Test
    void productKeyWinsOverDimensionOfThatNameWhateverTheFieldOrder() {
        assertThat(decode(valid("\"dimensions\":{\"productKey\":\"dim\"},\"productKey\":\"top\"")))
                .isNull();

        assertThat(labels(0)).containsExactly("productKey=top");
    }

    @Test
    void rejectsNonStringProductKey() {
        assertRejected(decode(valid("\"productKey\":7")), DecodeError.INVALID_PRODUCT_KEY);
    }

    @Test
    void ignoresNullProductKey() {
        assertThat(decode(valid("\"productKey\":null"))).isNull();

        assertThat(labels(0)).isEmpty();
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
    void rejectsInvalidUtf8Bytes() {
        byte[] prefix = "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":\""
                .getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "\"}}".getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[prefix.length + 2 + suffix.length];
        System.arraycopy(prefix, 0, record, 0, prefix.length);
        record[prefix.length] = (byte) 0xFF;
        record[prefix.length + 1] = (byte) 0xFE;
        System.arraycopy(suffix, 0, record, prefix.length + 2, suffix.length);

        assertRejected(decoder.decode(record, out), DecodeError.INVALID_UTF8);
    }

    @Test
    void rejectsInvalidUtf8BytesInIgnoredField() {
        byte[] prefix = "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"note\":\""
                .getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "\"}".getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[prefix.length + 2 + suffix.length];
        System.arraycopy(prefix, 0, record, 0, prefix.length);
        record[prefix.length] = (byte) 0xC3; // start of a 2-byte sequence …
        record[prefix.length + 1] = (byte) 0x28; // … followed by a non-continuation byte
        System.arraycopy(suffix, 0, record, prefix.length + 2, suffix.length);

        assertRejected(decoder.decode(record, out), DecodeError.INVALID_UTF8);
    }

    @Test
    void rejectsOverlongUtf8Sequence() {
        byte[] prefix = "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":\""
                .getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "\"}}".getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[prefix.length + 2 + suffix.length];
        System.arraycopy(prefix, 0, record, 0, prefix.length);
        record[prefix.length] = (byte) 0xC0; // overlong encoding of '/'
        record[prefix.length + 1] = (byte) 0xAF;
        System.arraycopy(suffix, 0, record, prefix.length + 2, suffix.length);

        assertRejected(decoder.decode(record, out), DecodeError.INVALID_UTF8);
    }

    @Test
    void rejectsUtf8EncodedSurrogate() {
        byte[] prefix = "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"a\":\""
                .getBytes(StandardCharsets.US_ASCII);
        byte[] suffix = "\"}}".getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[prefix.length + 3 + suffix.length];
        System.arraycopy(prefix, 0, record, 0, prefix.length);
        record[prefix.length] = (byte) 0xED; // U+D800 encoded as 3 bytes (CESU-8): not UTF-8
        record[prefix.length + 1] = (byte) 0xA0;
        record[prefix.length + 2] = (byte) 0x80;
        System.arraycopy(suffix, 0, record, prefix.length + 3, suffix.length);

        assertRejected(decoder.decode(record, out), DecodeError.INVALID_UTF8);
    }

    /**
     * A JSON escape of a lone surrogate (backslash, u, d800) is syntactically valid JSON but no Unicode text. It is
     * accepted, and the label value cannot be encoded ({@code ImportLineEncoder.prepare} throws
     * IllegalArgumentException "Unmatched first part of surrogate pair"),
     * which escapes RecordProcessor.process and stops the SegmentConsumer, stalling the partition. The decoder must
     * reject such a record with a counted reason instead.
     */
    @Test
    void rejectsEscapedLoneSurrogateInDimensionValue() {
        DecodeError e = decode(withDimensions("{\"a\":\"x\\ud800y\"}"));

        assertThat(e).isNotNull();
        assertThat(out.count()).isZero();
    }

    @Test
    void rejectsEscapedLoneSurrogateInProductKey() {
        DecodeError e = decode(valid("\"productKey\":\"\\udc00\""));

        assertThat(e).isNotNull();
        assertThat(out.count()).isZero();
    }

    @Test
    void acceptsEscapedSurrogatePair() {
        assertThat(decode(withDimensions("{\"a\":\"\\ud83d\\ude00\"}"))).isNull();

        assertThat(labels(0)).containsExactly("a=\uD83D\uDE00");
    }

    @Test
    void acceptsMultiByteUtf8LabelValues() {
        assertThat(decode(withDimensions("{\"city\":\"Zürich 東京 \uD83D\uDE00\"}")))
                .isNull();

        assertThat(labels(0)).containsExactly("city=Zürich 東京 \uD83D\uDE00");
    }

    @Test
    void rejectsTrailingGarbage() {
        assertRejected(decode(valid(null) + " x"), DecodeError.INVALID_JSON);
    }

    @Test
    void rejectsSecondTopLevelValue() {
        assertRejected(decode(valid(null) + valid(null)), DecodeError.INVALID_JSON);
    }

    @Test
    void acceptsTrailingWhitespace() {
        assertThat(decode(valid(null) + " \n\t")).isNull();
        assertThat(out.count()).isEqualTo(1);
    }

    @Test
    void rejectsTruncatedJson() {
        assertRejected(decode("{\"metric\":\"m\",\"timestamp\":1795300857000"), DecodeError.INVALID_JSON);
    }

    @Test
    void rejectsDuplicateField() {
        assertRejected(decode(valid("\"metric\":\"other\"")), DecodeError.INVALID_JSON);
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
    void rejectsNullRecord() {
        assertRejected(decoder.decode(null, out), DecodeError.EMPTY_RECORD);
    }

    @Test
    void rejectsZeroByteRecord() {
        assertRejected(decoder.decode(new byte[0], out), DecodeError.EMPTY_RECORD);
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
