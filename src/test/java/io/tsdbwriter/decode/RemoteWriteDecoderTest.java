package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.github.luben.zstd.Zstd;
import com.google.protobuf.CodedOutputStream;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.Snappy;

public class RemoteWriteDecoderTest {

    static final double STALE = Double.longBitsToDouble(0x7ff0000000000002L);
    private final RemoteWriteDecoder d = new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME);

    /** A WriteRequest with series given as {labels (name, value, …)}, {value, ts, value, ts, …}. */
    public static byte[] writeRequest(Object[][]... series) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        for (Object[][] s : series) {
            ByteArrayOutputStream ts = new ByteArrayOutputStream();
            CodedOutputStream t = CodedOutputStream.newInstance(ts);
            for (int i = 0; i < s[0].length; i += 2) {
                ByteArrayOutputStream l = new ByteArrayOutputStream();
                CodedOutputStream lo = CodedOutputStream.newInstance(l);
                lo.writeString(1, (String) s[0][i]);
                lo.writeString(2, (String) s[0][i + 1]);
                lo.flush();
                t.writeByteArray(1, l.toByteArray());
            }
            for (int i = 0; i < s[1].length; i += 2) {
                ByteArrayOutputStream sm = new ByteArrayOutputStream();
                CodedOutputStream so = CodedOutputStream.newInstance(sm);
                so.writeDouble(1, ((Number) s[1][i]).doubleValue());
                so.writeInt64(2, ((Number) s[1][i + 1]).longValue());
                so.flush();
                t.writeByteArray(2, sm.toByteArray());
            }
            t.flush();
            out.writeByteArray(1, ts.toByteArray());
        }
        out.flush();
        return bytes.toByteArray();
    }

    @Test
    void snappyAndZstdGiveTheSamePoints() throws IOException {
        byte[] req = writeRequest(
                new Object[][] {
                    {"__name__", "up", "job", "node", "instance", "h:9100", "empty", ""}, {1.0, 1000L, 0.0, 2000L}
                },
                new Object[][] {{"zone", "ä", "__name__", "temp"}, {21.5, 3000L}});
        Decoded s = Decoded.of(d, Snappy.compress(req), 0);
        assertThat(s.points)
                .containsExactly(
                        "up{instance=\"h:9100\",job=\"node\"} 1.0 @1000",
                        "up{instance=\"h:9100\",job=\"node\"} 0.0 @2000",
                        "temp{zone=\"ä\"} 21.5 @3000");
        assertThat(s.rejections.total()).isZero();
        Decoded z = Decoded.of(d, Zstd.compress(req), 0);
        assertThat(z.points).isEqualTo(s.points);
    }

    @Test
    void staleMarkersAndNaNSkippedSeriesWithoutNameCounted() throws IOException {
        byte[] req = writeRequest(
                new Object[][] {{"__name__", "up"}, {STALE, 1000L, Double.NaN, 2000L, 1.0, 3000L}},
                new Object[][] {{"job", "x"}, {1.0, 1000L}});
        Decoded r = Decoded.of(d, Snappy.compress(req), 0);
        assertThat(r.points).containsExactly("up{} 1.0 @3000");
        assertThat(r.rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(2);
        assertThat(r.rejections.count(DecodeError.MISSING_METRIC)).isEqualTo(1);
    }

    static Stream<Arguments> badBytesRejectedWhole() throws IOException {
        return Stream.of(
                arguments("plain text", "plain text".getBytes(), DecodeError.INVALID_COMPRESSION),
                arguments(
                        "zstd magic, then garbage",
                        new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 1, 2, 3},
                        DecodeError.INVALID_COMPRESSION),
                arguments(
                        "snappy of no protobuf",
                        Snappy.compress(new byte[] {(byte) 0x0A, (byte) 0xFF, (byte) 0xFF, 0x01}),
                        DecodeError.INVALID_PROTOBUF),
                arguments("snappy of nothing", Snappy.compress(new byte[0]), DecodeError.NO_SAMPLES));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void badBytesRejectedWhole(String name, byte[] record, DecodeError expected) {
        Decoded r = Decoded.of(d, record, 0);
        assertThat(r.rejections.first()).isEqualTo(expected);
        assertThat(r.points).isEmpty();
    }

    @Test
    void hugeRequest() throws IOException {
        Object[][][] series = new Object[20_000][][];
        for (int i = 0; i < series.length; i++) {
            series[i] = new Object[][] {{"__name__", "m", "i", Integer.toString(i)}, {(double) i, 1000L + i}};
        }
        Decoded r =
                Decoded.of(new RemoteWriteDecoder(8 << 20, Decoded.ANY_TIME), Snappy.compress(writeRequest(series)), 0);
        assertThat(r.points).hasSize(20_000);
    }
}
