package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code -retentionPeriod} as VictoriaMetrics exports and reads it. */
class RetentionProbeTest {

    @Test
    void readsTheFlagSampleOfVictoriaMetricsMetricsPage() throws Exception {
        String page =
                """
                vm_next_retention_seconds 1640100
                flag{name="denyQueriesOutsideRetention", value="false", is_set="false"} 1
                flag{name="retentionPeriod", value="1", is_set="false"} 1
                flag{name="retentionTimezoneOffset", value="0s", is_set="false"} 1
                """;
        assertThat(RetentionProbe.parse(new BufferedReader(new StringReader(page))))
                .contains(Duration.ofDays(31));
    }

    @Test
    void withoutTheFlagNothingIsKnown() throws Exception {
        assertThat(RetentionProbe.parse(new BufferedReader(new StringReader("prometheus_tsdb_head_series 3\n"))))
                .isEmpty();
    }

    @Test
    void unitsAreThoseOfVictoriaMetrics() {
        assertThat(RetentionProbe.parseRetention("1")).contains(Duration.ofDays(31)); // months by default
        assertThat(RetentionProbe.parseRetention("100y")).contains(Duration.ofDays(36_500));
        assertThat(RetentionProbe.parseRetention("30d")).contains(Duration.ofDays(30));
        assertThat(RetentionProbe.parseRetention("2w")).contains(Duration.ofDays(14));
        assertThat(RetentionProbe.parseRetention("24h")).contains(Duration.ofHours(24));
        assertThat(RetentionProbe.parseRetention("0.5"))
                .contains(Duration.ofMillis(Duration.ofDays(31).toMillis() / 2));
        assertThat(RetentionProbe.parseRetention("forever")).isEmpty();
        assertThat(RetentionProbe.parseRetention("")).isEmpty();
    }
}
