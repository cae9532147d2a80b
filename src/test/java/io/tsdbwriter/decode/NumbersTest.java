package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NumbersTest {

    private final Numbers n = new Numbers();

    private Double parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return n.parseDouble(b, 0, b.length) ? n.doubleValue() : null;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "1, 1.0",
        "-1.5e-3, -0.0015",
        "+.5, 0.5",
        "5., 5.0",
        "1E+2, 100.0",
        "-0, -0.0",
        "Inf, Infinity",
        "-infinity, -Infinity"
    })
    void parses(String text, double expected) {
        assertThat(parse(text)).isEqualTo(expected);
    }

    @Test
    void parsesNaN() {
        assertThat(parse("NaN")).isNaN();
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"", "+", ".", "e5", "1e", "1x", "0x10", "1d", " 1", "1 ", "infx", "1_0"})
    void refuses(String bad) {
        assertThat(parse(bad)).as(bad).isNull();
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
