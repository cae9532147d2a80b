package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md is what {@code /metrics} serves (issue 56 item 6): the registry a run builds, scraped with every meter
 * registered (those that appear later registered as the service registers them), lists exactly the {@code tsdbwriter_}
 * names the page lists, and the page is the one {@link MetricsReference} generates from that scrape.
 */
class MetricsReferenceTest {

    private static final Pattern ROW = Pattern.compile("^\\| `(tsdbwriter_[a-z0-9_]+)` \\|", Pattern.MULTILINE);

    /** The page as it is, empty when there is none yet. */
    private static String page() throws IOException {
        return Files.exists(MetricsReference.PAGE) ? Files.readString(MetricsReference.PAGE) : "";
    }

    @Test
    void theMetricsPageListsExactlyTheMetricsServed() throws IOException {
        Map<String, MetricsReference.Family> served = MetricsReference.served(true);
        assertThat(served)
                .as("served tsdbwriter_ families")
                .hasSizeGreaterThan(30)
                .containsKeys(
                        "tsdbwriter_records_consumed_total",
                        "tsdbwriter_write_latency_seconds",
                        "tsdbwriter_inflight_bytes",
                        "tsdbwriter_consumer_lag_records",
                        "tsdbwriter_decode_errors_total",
                        "tsdbwriter_limited_by");
        Set<String> documented = new TreeSet<>();
        Matcher m = ROW.matcher(page());
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertThat(new TreeSet<>(served.keySet()))
                .as("served (left) vs documented in %s (right)", MetricsReference.PAGE)
                .isEqualTo(documented);
    }

    @Test
    void theMetricsPageIsTheOneGeneratedFromTheCatalogue() throws IOException {
        String expected = MetricsReference.page();
        String actual = page();
        if (!actual.equals(expected)) {
            System.out.println("---- " + MetricsReference.PAGE + " should read (or run MetricsReference.main):\n"
                    + expected + "----");
        }
        assertThat(actual)
                .as("%s: regenerate it (the expected page is printed above)", MetricsReference.PAGE)
                .isEqualTo(expected);
    }
}
