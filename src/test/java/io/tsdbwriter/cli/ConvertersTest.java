package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConvertersTest {

    private final Converters.DurationConverter duration = new Converters.DurationConverter();
    private final Converters.SizeConverter size = new Converters.SizeConverter();

    @Test
    void durationMilliseconds() {
        assertThat(duration.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void durationSeconds() {
        assertThat(duration.convert("60s")).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void durationMinutes() {
        assertThat(duration.convert("5m")).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void durationHours() {
        assertThat(duration.convert("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void durationIso8601() {
        assertThat(duration.convert("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void durationIso8601LowerCase() {
        assertThat(duration.convert("pt2m")).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void durationTrimsWhitespace() {
        assertThat(duration.convert(" 5s ")).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void durationRejectsUnknownUnit() {
        assertThatThrownBy(() -> duration.convert("5x"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'5x' is not a duration (use e.g. 500ms, 60s, 5m, 1h)");
    }

    @Test
    void durationRejectsBareNumber() {
        assertThatThrownBy(() -> duration.convert("60")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void durationRejectsEmpty() {
        assertThatThrownBy(() -> duration.convert("")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void durationRejectsUpperCaseUnit() {
        // "5S" is neither the short form (lower-case units) nor ISO-8601 (needs PT)
        assertThatThrownBy(() -> duration.convert("5S")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void sizeWithoutUnitIsBytes() {
        assertThat(size.convert("1048576")).isEqualTo(1_048_576L);
    }

    @Test
    void sizeBytesUnit() {
        assertThat(size.convert("512B")).isEqualTo(512L);
    }

    @Test
    void sizeKibibytes() {
        assertThat(size.convert("512KiB")).isEqualTo(512L * 1024);
    }

    @Test
    void sizeMebibytes() {
        assertThat(size.convert("256MiB")).isEqualTo(256L * 1024 * 1024);
    }

    @Test
    void sizeGibibytes() {
        assertThat(size.convert("2GiB")).isEqualTo(2L * 1024 * 1024 * 1024);
    }

    @Test
    void sizeDecimalLookingUnitsArePowersOf1024() {
        assertThat(size.convert("1KB")).isEqualTo(1024L);
        assertThat(size.convert("1MB")).isEqualTo(1024L * 1024);
        assertThat(size.convert("1GB")).isEqualTo(1024L * 1024 * 1024);
    }

    @Test
    void sizeUnitIsCaseInsensitive() {
        assertThat(size.convert("4mib")).isEqualTo(4L * 1024 * 1024);
    }

    @Test
    void sizeAllowsSpaceBeforeUnit() {
        assertThat(size.convert(" 10 MiB ")).isEqualTo(10L * 1024 * 1024);
    }

    @Test
    void sizeRejectsFraction() {
        assertThatThrownBy(() -> size.convert("1.5MiB")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void sizeRejectsNegative() {
        assertThatThrownBy(() -> size.convert("-1")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void sizeRejectsUnknownUnit() {
        assertThatThrownBy(() -> size.convert("5TiB"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'5TiB' is not a size (use e.g. 1048576, 512KiB, 256MiB)");
    }

    @Test
    void sizeRejectsOverflow() {
        assertThatThrownBy(() -> size.convert("17179869185GiB"))
                .isInstanceOf(CommandLine.TypeConversionException.class);
    }
}
