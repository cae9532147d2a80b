package io.tsdbwriter.decode.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JSON fast path keeps a point's value text when it is a plain decimal of at most 15 significant digits (no
 * exponent, not -0), and the import encoder at N = 1 copies that text instead of formatting the double; every other
 * value is formatted as before.
 */
class RecordValueTextTest {

    private final PointDecoder decoder = new PointDecoder(1 << 20);

    private static String record(String value) {
        return "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":" + value + ",\"dimensions\":{\"a\":\"b\"}}";
    }

    private String text(DecodedPoints out) {
        return new String(out.arena(), out.valueTextOffset(0), out.valueTextLength(0), StandardCharsets.US_ASCII);
    }

    private String importLine(String value) {
        DecodedPoints out = new DecodedPoints();
        assertThat(decoder.decode(record(value).getBytes(StandardCharsets.UTF_8), out))
                .isNull();
        ImportSampleEncoder encoder =
                new ImportSampleEncoder(new ImportLineEncoder(new AmplificationPlan(2, 1, 60_000)));
        assertThat(encoder.canEncodeVerbatim(out)).isTrue();
        ByteBuf body = new ByteBuf(64);
        encoder.encodePointVerbatim(out, 0, body);
        return new String(body.array(), 0, body.length(), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0", "1", "-7", "1.50", "0.1", "12345.678", "-0.000123", "123456789012345", "4.0"})
    void plainDecimalsKeepTheirOwnText(String v) {
        DecodedPoints out = new DecodedPoints();
        assertThat(decoder.decode(record(v).getBytes(StandardCharsets.UTF_8), out))
                .isNull();
        assertThat(text(out)).as(v).isEqualTo(v);
        assertThat(Double.parseDouble(text(out))).as(v).isEqualTo(out.value(0)); // read back as the same double
        assertThat(importLine(v))
                .as(v)
                .isEqualTo("{\"metric\":{\"__name__\":\"m\",\"a\":\"b\"},\"values\":[" + v + "," + v
                        + "],\"timestamps\":[1795300857000,1795300887000]}\n");
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
        "1e3, 1000",
        "1.5E-3, 0.0015",
        "-0, 0",
        "1234567890123456, 1234567890123456",
        "0.12345678901234567, 0.12345678901234566"
    })
    void otherNumbersAreFormattedFromTheDouble(String value, String formatted) {
        DecodedPoints out = new DecodedPoints();
        assertThat(decoder.decode(record(value).getBytes(StandardCharsets.UTF_8), out))
                .isNull();
        assertThat(out.valueTextLength(0)).as(value).isZero();
        assertThat(importLine(value)).as(value).contains("\"values\":[" + formatted + "," + formatted + "]");
    }

    @Test
    void aValueTextDoesNotOutliveItsPoint() {
        DecodedPoints out = new DecodedPoints();
        decoder.decode(record("2.5").getBytes(StandardCharsets.UTF_8), out);
        assertThat(out.valueTextLength(0)).isEqualTo(3);
        decoder.decode(record("2e1").getBytes(StandardCharsets.UTF_8), out);
        assertThat(out.valueTextLength(0)).isZero();
    }
}
