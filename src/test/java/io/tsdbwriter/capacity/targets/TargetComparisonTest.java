package io.tsdbwriter.capacity.targets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The targets side by side: a plain-text table and a Markdown section, in the order the targets were given. */
class TargetComparisonTest {

    private static final List<TargetComparison.Row> ROWS = List.of(
            TargetComparison.Row.of("vm", "import", 12_345_678, 0.995, 0.123, "failing step 4: limited by tsdb-cpu: 2.0 of 2 cores"),
            TargetComparison.Row.failed("prom", "remote write 2.0", "ConnectException: Failed to connect to /127.0.0.1:9090"),
            TargetComparison.Row.of("thanos", "remote write 1.0", Double.NaN, Double.NaN, Double.NaN, "failing step 1: limited by a|b"));

    @Test
    void theTableListsEveryTargetInTheOrderGiven() {
        List<String> lines = TargetComparison.table(ROWS).lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("target  protocol").contains("capacity samples/min", "efficiency", "write p99 s").endsWith("verdict");
        assertThat(lines.get(1)).startsWith("vm ").contains("import", "12,345,678", "99.5%", "0.123", "failing step 4: limited by tsdb-cpu");
        assertThat(lines.get(2)).startsWith("prom ");
        assertThat(lines.get(3)).startsWith("thanos ");
    }

    @Test
    void theColumnsLineUp() {
        List<String> lines = TargetComparison.table(ROWS).lines().toList();
        int verdict = lines.get(0).indexOf("verdict");
        assertThat(lines.subList(1, 4)).allSatisfy(l -> assertThat(l.substring(verdict - 2, verdict)).isEqualTo("  "));
        assertThat(lines.get(1).indexOf("12,345,678") + "12,345,678".length())
                .isEqualTo(lines.get(0).indexOf("capacity samples/min") + "capacity samples/min".length());
    }

    @Test
    void aFailedTargetShowsItsFailureLineAndNoFigures() {
        String prom = TargetComparison.table(ROWS).lines().toList().get(2);
        assertThat(prom).contains("remote write 2.0", "search failed: ConnectException: Failed to connect to /127.0.0.1:9090");
        assertThat(prom.replaceAll("\\s+", " ")).contains("remote write 2.0 – – – search failed");
        assertThat(ROWS.get(1).isFailed()).isTrue();
        assertThat(ROWS.get(0).isFailed()).isFalse();
    }

    @Test
    void theMarkdownSectionHasOneRowPerTargetAndLinksEachReport() {
        String md = TargetComparison.markdown(ROWS, "capacity-report.md");
        assertThat(md).startsWith("## Targets side by side\n\n");
        List<String> rows = md.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| target") && !l.startsWith("| ---")).toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).startsWith("| vm | import | 12,345,678 | 99.5% | 0.123 |").endsWith("| [vm](vm/capacity-report.md) |");
        assertThat(rows.get(1)).startsWith("| prom |").endsWith("| – |");
        assertThat(rows.get(2)).contains("limited by a\\|b").endsWith("| [thanos](thanos/capacity-report.md) |");
        assertThat(md).contains("| --- | --- | ---: | ---: | ---: | --- | --- |");
    }

    @Test
    void withoutReportsTheMarkdownHasNoLinkColumn() {
        String md = TargetComparison.markdown(List.of(ROWS.get(0)), null);
        assertThat(md).doesNotContain("report |").doesNotContain("](");
    }
}
