package io.tsdbwriter.capacity.reads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read load's query set: comments and blank lines skipped, each expression over 1 h and 24 h, placeholders replaced. */
class QuerySetTest {

    @Test
    void eachExpressionRunsOverOneHourThenADayWithItsPlaceholdersReplaced() {
        List<RangeQuery> q = QuerySet.parse(
                """
                # a comment

                sum(rate(node_cpu_seconds_total[$__rate_interval]))
                  increase(node_forks_total[$__range]) / $__interval
                """);
        assertThat(q)
                .containsExactly(
                        new RangeQuery(
                                "sum(rate(node_cpu_seconds_total[240s]))", Duration.ofHours(1), Duration.ofSeconds(60)),
                        new RangeQuery(
                                "sum(rate(node_cpu_seconds_total[360s]))", Duration.ofHours(24), Duration.ofMinutes(5)),
                        new RangeQuery(
                                "increase(node_forks_total[3600s]) / 60s", Duration.ofHours(1), Duration.ofSeconds(60)),
                        new RangeQuery(
                                "increase(node_forks_total[86400s]) / 300s",
                                Duration.ofHours(24),
                                Duration.ofMinutes(5)));
    }

    @Test
    void aFileWithoutQueriesIsRefused() {
        assertThatThrownBy(() -> QuerySet.parse("# only\n\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no query");
    }

    @Test
    void theBundledSetHoldsTheDashboardsQueriesAndTheNodeMixinsAlertRulesWithNoPlaceholderLeft() throws Exception {
        List<RangeQuery> q = QuerySet.bundled();
        assertThat(q).hasSizeGreaterThan(40);
        assertThat(q)
                .extracting(RangeQuery::promql)
                .noneMatch(p -> p.contains("$"))
                .anyMatch(p -> p.contains("predict_linear(node_filesystem_avail_bytes"))
                .anyMatch(p -> p.contains("node_timex_offset_seconds"))
                .anyMatch(p -> p.contains("tsdbwriter_samples_written_total"));
    }
}
