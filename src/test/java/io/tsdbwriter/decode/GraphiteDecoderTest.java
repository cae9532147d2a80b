package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.graphite.GraphiteDecoder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GraphiteDecoderTest {

    private final GraphiteDecoder d = new GraphiteDecoder(1 << 20, Decoded.ANY_TIME);

    private static Arguments lines(String name, String text, long kafkaTs, String... expected) {
        return arguments(name, text, kafkaTs, List.of(expected));
    }

    /** Plaintext lines and the record's Kafka timestamp → its points (metric{labels} value @ms). */
    static Stream<Arguments> points() {
        return Stream.of(
                lines(
                        "path, value, timestamp and tags",
                        "foo.bar.baz 1.5 1795300857\nfoo.bar;host=a;dc=x;empty=;=v;novalue 2 1795300858\r\n",
                        0,
                        "foo.bar.baz{} 1.5 @1795300857000",
                        "foo.bar{dc=\"x\",host=\"a\"} 2.0 @1795300858000"),
                lines(
                        "a missing or -1 timestamp takes the Kafka seconds; tabs work",
                        "a 1\nb\t2\t-1\nc 3 0\n",
                        1_795_300_857_999L,
                        "a{} 1.0 @1795300857000",
                        "b{} 2.0 @1795300857000",
                        "c{} 3.0 @1795300857000"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void points(String name, String text, long kafkaTs, List<String> expected) {
        assertThat(Decoded.of(d, text, kafkaTs).points).containsExactlyElementsOf(expected);
    }

    @Test
    void brokenLines() {
        Decoded r = Decoded.of(d, "lonely\na x 1\na 1 y\n;t=1 1 1\nok 1 1\nnan NaN 1", 0);
        assertThat(r.points).containsExactly("ok{} 1.0 @1000");
        assertThat(r.rejections.count(DecodeError.INVALID_LINE)).isEqualTo(1);
        assertThat(r.rejections.count(DecodeError.INVALID_VALUE)).isEqualTo(1);
        assertThat(r.rejections.count(DecodeError.INVALID_TIMESTAMP)).isEqualTo(1);
        assertThat(r.rejections.count(DecodeError.INVALID_METRIC)).isEqualTo(1);
        assertThat(r.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(1);
    }
}
