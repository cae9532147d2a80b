package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.influx.InfluxDecoder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class InfluxDecoderTest {

    private static final long KAFKA_TS = 1_795_300_857_123L;
    private final InfluxDecoder ns = new InfluxDecoder(1 << 20, InfluxDecoder.Precision.NS, Decoded.ANY_TIME);

    private static Arguments line(String name, String text, String... expected) {
        return arguments(name, text, List.of(expected));
    }

    /** Line protocol at ns precision → its points (metric{labels} value @ms), none refused. */
    static Stream<Arguments> points() {
        return Stream.of(
                line(
                        "each field is a measurement_field sample",
                        "cpu,host=a,cpu=cpu0 usage_idle=99.5,usage_user=0.5 1795300857000000000\n",
                        "cpu_usage_idle{cpu=\"cpu0\",host=\"a\"} 99.5 @1795300857000",
                        "cpu_usage_user{cpu=\"cpu0\",host=\"a\"} 0.5 @1795300857000"),
                line(
                        "field types as VictoriaMetrics stores them",
                        "m i=-12i,u=18446744073709551615u,t=t,T=TRUE,f=false,F=F,s=\"3.5\",str=\"hello, world\",e=1e3 5000000",
                        "m_i{} -12.0 @5",
                        "m_u{} 1.8446744073709552E19 @5",
                        "m_t{} 1.0 @5",
                        "m_T{} 1.0 @5",
                        "m_f{} 0.0 @5",
                        "m_F{} 0.0 @5",
                        "m_s{} 3.5 @5",
                        "m_str{} 0.0 @5",
                        "m_e{} 1000.0 @5"),
                line(
                        "escapes in measurement, tags and field keys",
                        "my\\ meas\\,ure,ta\\=g=va\\ l\\,ue,path=C:\\dir f\\ k\\=1=1 1000000",
                        "my meas,ure_f k=1{path=\"C:\\dir\",ta=g=\"va l,ue\"} 1.0 @1"),
                line(
                        "quoted field values may hold spaces, commas and escaped quotes",
                        "m,h=x msg=\"a b, \\\"c\\\" d=e\",v=2 3000000",
                        "m_msg{h=\"x\"} 0.0 @3",
                        "m_v{h=\"x\"} 2.0 @3"),
                line(
                        "no timestamp takes the Kafka timestamp, an empty tag set is fine",
                        "m v=1\nm v=2 0\n",
                        "m_v{} 1.0 @" + KAFKA_TS,
                        "m_v{} 2.0 @" + KAFKA_TS),
                line(
                        "empty tag values dropped, comments and blank lines skipped, CRLF",
                        "# comment\r\n\r\nm,a=,b=x v=1 1000000\r\n",
                        "m_v{b=\"x\"} 1.0 @1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void points(String name, String text, List<String> expected) {
        Decoded d = Decoded.of(ns, text, KAFKA_TS);
        assertThat(d.points).containsExactlyElementsOf(expected);
        assertThat(d.rejections.total()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "S, m v=1 1795300857, m_v{} 1.0 @1795300857000",
        "MS, m v=1 1795300857001, m_v{} 1.0 @1795300857001",
        "US, m v=1 1795300857001999, m_v{} 1.0 @1795300857001"
    })
    void precision(InfluxDecoder.Precision precision, String text, String expected) {
        assertThat(Decoded.of(new InfluxDecoder(1 << 20, precision, Decoded.ANY_TIME), text, 0).points)
                .containsExactly(expected);
    }

    @Test
    void brokenLinesAreCountedAndTheLinesAroundThemKept() {
        Decoded d = Decoded.of(
                ns, "m v=1 1000000\nnospace\nm v=abc 1000000\nm v=2 notatime\nm,tag v=3\nm v=4 2000000", KAFKA_TS);
        assertThat(d.points).containsExactly("m_v{} 1.0 @1", "m_v{} 4.0 @2");
        assertThat(d.rejections.count(DecodeError.INVALID_LINE)).isEqualTo(2);
        assertThat(d.rejections.count(DecodeError.INVALID_VALUE)).isEqualTo(1);
        assertThat(d.rejections.count(DecodeError.INVALID_TIMESTAMP)).isEqualTo(1);
        assertThat(d.rejections.first()).isEqualTo(DecodeError.INVALID_LINE);
        assertThat(d.rejections.firstDetail()).startsWith("line 2:");
        assertThat(d.rejections.malformed()).isTrue();
    }

    @Test
    void aBrokenFieldDropsTheWholeLine() {
        Decoded d = Decoded.of(ns, "m a=1,b=x 1000000", KAFKA_TS);
        assertThat(d.points).isEmpty();
        assertThat(d.rejections.count(DecodeError.INVALID_VALUE)).isEqualTo(1);
    }

    @Test
    void nonFiniteValuesAreSkippedAndCountedNotMalformed() {
        Decoded d = Decoded.of(ns, "m a=NaN,b=+Inf,c=1 1000000", KAFKA_TS);
        assertThat(d.points).containsExactly("m_c{} 1.0 @1");
        assertThat(d.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(2);
        assertThat(d.rejections.malformed()).isFalse();
    }

    @Test
    void emptyTooLargeAndInvalidUtf8() {
        assertThat(Decoded.of(ns, new byte[0], 0).rejections.first()).isEqualTo(DecodeError.EMPTY_RECORD);
        assertThat(Decoded.of(new InfluxDecoder(4, InfluxDecoder.Precision.NS, Decoded.ANY_TIME), "m v=1", 0)
                        .rejections
                        .first())
                .isEqualTo(DecodeError.TOO_LARGE);
        Decoded d = Decoded.of(
                ns, new byte[] {'m', ',', 'a', '=', (byte) 0xC3, ' ', 'v', '=', '1', '\n', 'm', ' ', 'v', '=', '2'}, 7);
        assertThat(d.points).containsExactly("m_v{} 2.0 @7");
        assertThat(d.rejections.count(DecodeError.INVALID_UTF8)).isEqualTo(1);
        assertThat(Decoded.of(ns, "# only a comment\n", 0).rejections.first()).isEqualTo(DecodeError.NO_SAMPLES);
    }

    @Test
    void hugeRecordOfManyLines() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 50_000; i++) {
            sb.append("disk,host=h")
                    .append(i % 7)
                    .append(",dev=sd")
                    .append(i)
                    .append(" used=")
                    .append(i)
                    .append("i,free=1.5 ")
                    .append(1_795_300_857_000_000_000L + i * 1_000_000L)
                    .append('\n');
        }
        Decoded d =
                Decoded.of(new InfluxDecoder(64 << 20, InfluxDecoder.Precision.NS, Decoded.ANY_TIME), sb.toString(), 0);
        assertThat(d.points).hasSize(100_000);
        assertThat(d.points.get(99_999)).isEqualTo("disk_free{dev=\"sd49999\",host=\"h5\"} 1.5 @1795300906999");
    }
}
