package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.decode.jsonline.ExportLineDecoder;
import org.junit.jupiter.api.Test;

class ExportLineDecoderTest {

    private final ExportLineDecoder d = new ExportLineDecoder(1 << 20, Decoded.ANY_TIME);

    @Test
    void eachValueIsAPoint() {
        Decoded r = Decoded.of(
                d,
                "{\"metric\":{\"__name__\":\"m\",\"job\":\"x\",\"a\\\"q\":\"v\\n\",\"e\":\"\"},\"values\":[1,2.5,\"NaN\",null],"
                        + "\"timestamps\":[1000,2000,3000,4000]}\n",
                0);
        assertThat(r.points)
                .containsExactly("m{a\"q=\"v\n\",job=\"x\"} 1.0 @1000", "m{a\"q=\"v\n\",job=\"x\"} 2.5 @2000");
        assertThat(r.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(2);
    }

    @Test
    void timestampsBeforeValuesAndUnknownKeysIgnored() {
        Decoded r = Decoded.of(
                d, "{\"timestamps\":[5],\"x\":{\"y\":[1]},\"values\":[7],\"metric\":{\"__name__\":\"n\"}}", 0);
        assertThat(r.points).containsExactly("n{} 7.0 @5");
    }

    @Test
    void brokenLinesCountedOthersKept() {
        Decoded r = Decoded.of(
                d,
                "{\"metric\":{\"__name__\":\"ok\"},\"values\":[1],\"timestamps\":[1]}\n"
                        + "{\"metric\":{\"job\":\"x\"},\"values\":[1],\"timestamps\":[1]}\n"
                        + "{\"metric\":{\"__name__\":\"m\"},\"values\":[1,2],\"timestamps\":[1]}\n"
                        + "{\"metric\":{\"__name__\":\"m\"},\"values\":[1],\"timestamps\":[1.5]}\n"
                        + "not json\n[1]\n"
                        + "{\"metric\":{\"__name__\":\"ok\"},\"values\":[2],\"timestamps\":[2]}",
                0);
        assertThat(r.points).containsExactly("ok{} 1.0 @1", "ok{} 2.0 @2");
        assertThat(r.rejections.total()).isEqualTo(5);
        assertThat(r.rejections.count(DecodeError.MISSING_METRIC)).isEqualTo(1);
    }
}
