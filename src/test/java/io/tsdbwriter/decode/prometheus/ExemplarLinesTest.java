package io.tsdbwriter.decode.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ExemplarLinesFuzzTest}'s generator and oracle on seeded pseudo-random choices, in every {@code mvn test}: the
 * same lines each run, every kind of exemplar and of malformed exemplar among them.
 */
class ExemplarLinesTest {

    @Test
    void aSampleValueIsNeverTheExemplarsOnTenThousandLines() {
        Random random = new Random(41);
        int[] malformed = new int[ExemplarLinesFuzzTest.MALFORMED_KINDS];
        int withExemplar = 0;
        for (int i = 0; i < 10_000; i++) {
            ExemplarLinesFuzzTest.Generated g = ExemplarLinesFuzzTest.generate(new ExemplarLinesFuzzTest.Choices() {
                @Override
                public int pick(int bound) {
                    return random.nextInt(bound);
                }

                @Override
                public String text(int maxLength) {
                    StringBuilder s = new StringBuilder();
                    for (int n = random.nextInt(maxLength + 1); s.length() < n; ) {
                        s.appendCodePoint(
                                random.nextInt(4) == 0 ? 0x20 + random.nextInt(0x5F) : random.nextInt(0x3000));
                    }
                    return s.toString();
                }

                @Override
                public double number() {
                    return switch (random.nextInt(3)) {
                        case 0 -> random.nextInt(100);
                        case 1 -> random.nextGaussian() * 1e6;
                        default ->
                            Double.longBitsToDouble(random.nextLong() & 0x7FEF_FFFF_FFFF_FFFFL)
                                    * (random.nextBoolean() ? 1 : -1);
                    };
                }
            });
            ExemplarLinesFuzzTest.check(g);
            if (g.malformed() >= 0) {
                malformed[g.malformed()]++;
            } else if (g.exemplarValue() != null) {
                withExemplar++;
            }
        }
        assertThat(withExemplar).isGreaterThan(4_000);
        assertThat(Arrays.stream(malformed).min().orElseThrow())
                .as(Arrays.toString(malformed))
                .isGreaterThan(100);
    }
}
