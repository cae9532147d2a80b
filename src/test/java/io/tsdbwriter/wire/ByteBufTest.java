package io.tsdbwriter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class ByteBufTest {

    private static String text(ByteBuf b) {
        return new String(b.array(), 0, b.length(), StandardCharsets.US_ASCII);
    }

    private static String putLong(long v) {
        return text(new ByteBuf(1).putLong(v));
    }

    @Test
    void putLongMatchesLongToStringAtEveryDigitCountBoundaryAndRandomly() {
        List<Long> values = new ArrayList<>();
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
            values.addAll(List.of(p - 1, p, p + 1, -p, -(p - 1), -(p + 1)));
            if (p > Long.MAX_VALUE / 10) {
                break;
            }
        }
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            values.add(random.nextLong());
            values.add(random.nextLong(1_000_000_000_000L, 10_000_000_000_000L));
        }
        ByteBuf buf = new ByteBuf(1);
        StringBuilder expected = new StringBuilder();
        for (long v : values) {
            buf.putLong(v).put((byte) ',');
            expected.append(v).append(',');
        }
        assertThat(text(buf)).isEqualTo(expected.toString());
    }

    @Test
    void putLongZero() {
        assertThat(putLong(0)).isEqualTo("0");
    }

    @Test
    void putLongPositive() {
        assertThat(putLong(7)).isEqualTo("7");
        assertThat(putLong(10)).isEqualTo("10");
        assertThat(putLong(1_795_300_857_000L)).isEqualTo("1795300857000");
    }

    @Test
    void putLongNegative() {
        assertThat(putLong(-1)).isEqualTo("-1");
        assertThat(putLong(-10)).isEqualTo("-10");
        assertThat(putLong(-1_234_567_890_123L)).isEqualTo("-1234567890123");
    }

    @Test
    void putLongMaxValue() {
        assertThat(putLong(Long.MAX_VALUE)).isEqualTo("9223372036854775807");
    }

    @Test
    void putLongMinValue() {
        assertThat(putLong(Long.MIN_VALUE)).isEqualTo("-9223372036854775808");
    }

    @Test
    void putLongMatchesLongToStringAtPowersOfTen() {
        long v = 1;
        for (int i = 0; i < 19; i++) {
            assertThat(putLong(v)).isEqualTo(Long.toString(v));
            assertThat(putLong(v - 1)).isEqualTo(Long.toString(v - 1));
            assertThat(putLong(-v)).isEqualTo(Long.toString(-v));
            v *= 10;
        }
    }

    @Test
    void putLongAppendsAfterExistingContent() {
        ByteBuf b = new ByteBuf(16);
        b.put((byte) '[')
                .putLong(-5)
                .put((byte) ',')
                .putLong(Long.MIN_VALUE)
                .put((byte) ',')
                .putLong(Long.MAX_VALUE)
                .put((byte) ']');

        assertThat(text(b)).isEqualTo("[-5,-9223372036854775808,9223372036854775807]");
    }

    @Test
    void growsBeyondInitialCapacity() {
        ByteBuf b = new ByteBuf(16);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            b.putLong(i).put((byte) ' ');
            expected.append(i).append(' ');
        }

        assertThat(text(b)).isEqualTo(expected.toString());
    }

    @Test
    void putsArraySlice() {
        ByteBuf b = new ByteBuf(16);
        b.put("abcdef".getBytes(StandardCharsets.US_ASCII), 1, 3).put("XY".getBytes(StandardCharsets.US_ASCII));

        assertThat(text(b)).isEqualTo("bcdXY");
    }

    @Test
    void resetForgetsContentAndKeepsCapacity() {
        ByteBuf b = new ByteBuf(16);
        b.putLong(123456);
        byte[] before = b.array();
        b.reset();

        assertThat(b.length()).isZero();
        assertThat(b.array()).isSameAs(before);
        assertThat(text(b.putLong(9))).isEqualTo("9");
    }

    private static String joined(long base, long[] offsets) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < offsets.length; i++) {
            sb.append(i > 0 ? "," : "").append(base + offsets[i]);
        }
        return sb.toString();
    }

    private static String putLongs(long base, long[] offsets) {
        ByteBuf b = new ByteBuf(4);
        b.put((byte) '[').putLongs(base, offsets);
        return new String(b.array(), 1, b.length() - 1, StandardCharsets.US_ASCII);
    }

    @Test
    void putLongsWritesEachSumLikeLongToStringIncludingAcrossCarries() {
        long[] m12 = new long[12];
        for (int i = 0; i < 12; i++) {
            m12[i] = i * 5_000L;
        }
        long[][] offsetSets = {m12, {0}, {0, 1}, {0, 999_999, 1_000_000, 1_000_001, 5_000_000}, {-1, 0, 7}, {0, 30_000}
        };
        long[] bases = {
            1_795_300_857_000L,
            1_795_300_999_999L,
            1_795_300_945_000L,
            1_999_999_999_000L,
            9_999_999_990_000L,
            99_999_999_999L,
            100_000_000_000L,
            1_000_000L,
            999_999L,
            0L,
            5L,
            1_000_000_000_000_000_000L
        };
        for (long[] offsets : offsetSets) {
            for (long base : bases) {
                assertThat(putLongs(base, offsets))
                        .as("%d + %s", base, Arrays.toString(offsets))
                        .isEqualTo(joined(base, offsets));
            }
        }
        Random random = new Random(3);
        for (int i = 0; i < 20_000; i++) {
            long base = 100_000_000_000L + (random.nextLong() & Long.MAX_VALUE) % 9_900_000_000_000L;
            assertThat(putLongs(base, m12)).isEqualTo(joined(base, m12));
        }
    }

    @Test
    void reserveGrowsOnceAndAdvanceCommitsWhatWasWritten() {
        ByteBuf b = new ByteBuf(16).put("ab".getBytes(StandardCharsets.US_ASCII));
        byte[] a = b.reserve(40);
        assertThat(a.length).isGreaterThanOrEqualTo(42);
        for (int i = 0; i < 40; i++) {
            a[b.length() + i] = (byte) ('0' + i % 10);
        }
        b.advance(40);
        assertThat(text(b)).isEqualTo("ab" + "0123456789".repeat(4));
        Assertions.assertThatThrownBy(() -> b.advance(b.array().length)).isInstanceOf(IndexOutOfBoundsException.class);
        Assertions.assertThatThrownBy(() -> b.advance(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(b.length()).isEqualTo(42);
    }
}
