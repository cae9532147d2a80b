package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.config.RunConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** --max-hourly-series, --max-daily-series: off by default, reach the config, refused out of range or below N. */
class SeriesLimitFlagsTest {

    private static RunConfig parse(String... args) {
        RunCommand cmd = new RunCommand();
        new CommandLine(cmd)
                .setDefaultValueProvider(new EnvironmentDefaults(Map.of()))
                .parseArgs(args);
        return cmd.toConfig();
    }

    @Test
    void noLimitByDefault() {
        RunConfig c = parse("--topic", "t");
        assertThat(c.maxHourlySeries()).isZero();
        assertThat(c.maxDailySeries()).isZero();
        assertThat(c.limitsSeries()).isFalse();
    }

    @Test
    void theLimitsReachTheConfig() {
        RunConfig c = parse("--topic", "t", "--max-hourly-series", "50000", "--max-daily-series", "200000");
        assertThat(c.maxHourlySeries()).isEqualTo(50_000);
        assertThat(c.maxDailySeries()).isEqualTo(200_000);
        assertThat(c.limitsSeries()).isTrue();
    }

    @Test
    void aLimitOutOfRangeOrBelowTheInstanceMultiplierIsRefused() {
        assertThatThrownBy(() -> parse("--topic", "t", "--max-hourly-series", "-1"))
                .hasMessageContaining("--max-hourly-series must be in 0..");
        assertThatThrownBy(() -> parse("--topic", "t", "--max-daily-series", "2000000000"))
                .hasMessageContaining("--max-daily-series must be in 0..");
        assertThatThrownBy(() -> parse("--topic", "t", "--instance-multiplier", "10", "--max-hourly-series", "5"))
                .hasMessageContaining("--max-hourly-series 5 is below --instance-multiplier 10");
    }
}
