package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NumbersTest {

    private final Numbers n = new Numbers();

    private Double parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return n.parseDouble(b, 0, b.length) ? n.doubleValue() : null;
    }

    @Test
    void syntax() {
        assertThat(parse("1")).isEqualTo(1.0);
        assertThat(parse("-1.5e-3")).isEqualTo(-0.0015);
        assertThat(parse("+.5")).isEqualTo(0.5);
        assertThat(parse("5.")).isEqualTo(5.0);
        assertThat(parse("1E+2")).isEqualTo(100.0);
        assertThat(parse("-0")).isEqualTo(-0.0);
        assertThat(parse("Inf")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(parse("-infinity")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(parse("NaN")).isNaN();
        for (String bad : new String[] {"", "+", ".", "e5", "1e", "1x", "0x10", "1d", " 1", "1 ", "infx", "1_0"}) {
            assertThat(parse(bad)).as(bad).isNull();
        }
    }

    @Test
    void roundsLikeJava() {
        Random r = new Random(1);
        for (int i = 0; i < 20_000; i++) {
            double v =
                    switch (i % 4) {
                        case 0 -> r.nextDouble() * Math.pow(10, r.nextInt(40) - 20);
                        case 1 -> Double.longBitsToDouble(r.nextLong());
                        case 2 -> r.nextInt(1_000_000) / 1000.0;
                        default -> r.nextLong() / 7.0;
                    };
            if (!Double.isFinite(v)) {
                continue;
            }
            String s = Double.toString(v);
            assertThat(parse(s)).as(s).isEqualTo(Double.parseDouble(s));
            String g = String.format("%.6e", v);
            assertThat(parse(g)).as(g).isEqualTo(Double.parseDouble(g));
        }
    }
}
