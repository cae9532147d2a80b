package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FiguresTest {

    @Test
    void numberFormats() {
        assertThat(Figures.count(1234567.4)).isEqualTo("1,234,567");
        assertThat(Figures.count(Double.NaN)).isEqualTo("–");
        assertThat(Figures.percent(0.9876)).isEqualTo("98.8%");
    }

    @Test
    void perMillionIsNaNWithoutSamples() {
        assertThat(Figures.perMillion(1, 0)).isNaN();
        assertThat(Figures.perMillion(3, 12_000_000)).isEqualTo(0.25);
    }
}
