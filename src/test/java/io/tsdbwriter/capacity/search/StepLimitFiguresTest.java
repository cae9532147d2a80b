package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * A step whose writer has a series limit: the dropped samples count as handled in the window's efficiency, the writer's
 * page says whether it has a limit and what it admitted, and the table, the CSV and the progress line show the
 * {@link StepLimit} only when a step has one.
 */
class StepLimitFiguresTest {

    private static final long SECOND = 1_000_000_000L;

    private static PromSnapshot writer(long nanos, double written, double droppedHourly) {
        String page = "tsdbwriter_samples_written_total " + written + "\n"
                + (droppedHourly < 0
                        ? ""
                        : "tsdbwriter_series_limit_dropped_total{reason=\"hourly\"} " + droppedHourly + "\n");
        return PromSnapshot.parse(page, nanos);
    }

    @Test
    void samplesDroppedByTheLimitAreHandledInTheEfficiencyButNotWritten() {
        // 1,000 samples/s expected over 10 s: 600/s written, 400/s dropped by the limit
        StepWindow w = new StepWindow(1, writer(0, 0, 0), List.of(), Double.NaN);
        for (int t = 0; t <= 10; t += 2) {
            w.add(t, t * 1_000L, writer(t * SECOND, t * 600.0, t * 400.0), Double.NaN, List.of());
        }
        assertThat(w.writtenRate()).isCloseTo(600, Offset.offset(1e-9));
        assertThat(w.efficiency()).isCloseTo(1.0, Offset.offset(1e-9));
        assertThat(w.halvesSpread()).isCloseTo(0.0, Offset.offset(1e-9));

        // no limit (no counter on the page): written ÷ expected, as ever
        StepWindow plain = new StepWindow(1, writer(0, 0, -1), List.of(), Double.NaN);
        plain.add(0, 0, writer(0, 0, -1), Double.NaN, List.of());
        plain.add(10, 10_000, writer(10 * SECOND, 6_000, -1), Double.NaN, List.of());
        assertThat(plain.efficiency()).isCloseTo(0.6, Offset.offset(1e-9));
    }

    @Test
    void theWritersPageSaysWhetherItHasALimitAndWhatItAdmitted() {
        PromSnapshot hourly = PromSnapshot.parse(
                """
                tsdbwriter_hourly_series_limit_max_series 2028
                tsdbwriter_hourly_series_limit_current_series 2028
                """,
                0);
        PromSnapshot both = PromSnapshot.parse(
                """
                tsdbwriter_hourly_series_limit_max_series 5000
                tsdbwriter_hourly_series_limit_current_series 1200
                tsdbwriter_daily_series_limit_max_series 9000
                tsdbwriter_daily_series_limit_current_series 3400
                """,
                0);
        PromSnapshot none = PromSnapshot.parse("tsdbwriter_samples_written_total 5\n", 0);
        assertThat(StepRunner.limited(hourly)).isTrue();
        assertThat(StepRunner.limited(both)).isTrue();
        assertThat(StepRunner.limited(none)).isFalse();
        assertThat(StepRunner.limited(null)).isFalse();
        assertThat(StepRunner.admittedSeries(hourly)).isEqualTo(2028);
        assertThat(StepRunner.admittedSeries(both))
                .as("the day's window holds the hour's")
                .isEqualTo(3400);
        assertThat(StepRunner.admittedSeries(null)).isNaN();
    }

    @Test
    void theTableTheCsvAndTheProgressLineShowTheLimitOnlyWithOne() {
        CapacityStep plain = step(null);
        CapacityStep limited = step(new StepLimit(18_252, 2028, 2_051));
        CapacityStep unread = step(new StepLimit(0, Double.NaN, Double.NaN));

        String table = CapacityTable.format("shared", List.of(limited, unread));
        List<String> rows = table.lines().toList();
        assertThat(rows.get(0)).contains(" tsid miss/s  limit dropped   admitted   tsdb new ok ");
        assertThat(rows.get(1)).contains("          18252       2028       2051 yes ");
        assertThat(rows.get(2)).contains("              0          -          - yes ");
        assertThat(CapacityTable.format("shared", List.of(plain)))
                .doesNotContain("limit dropped", "admitted", "tsdb new");

        List<String> csv = CapacityTable.csv("shared", List.of(limited, unread, plain))
                .lines()
                .toList();
        List<String> head = List.of(csv.get(0).split(","));
        assertThat(head)
                .containsSubsequence(
                        "tsid_cache_misses_per_second",
                        "series_limit_dropped",
                        "series_limit_admitted",
                        "tsdb_new_series",
                        "query_offered_per_second");
        assertThat(field(csv, head, 1, "series_limit_dropped")).isEqualTo("18252");
        assertThat(field(csv, head, 1, "series_limit_admitted")).isEqualTo("2028");
        assertThat(field(csv, head, 1, "tsdb_new_series")).isEqualTo("2051");
        assertThat(field(csv, head, 2, "series_limit_dropped")).isEqualTo("0");
        assertThat(field(csv, head, 2, "series_limit_admitted")).isEmpty();
        assertThat(field(csv, head, 3, "series_limit_dropped"))
                .as("a step without a limit")
                .isEmpty();
        assertThat(field(csv, head, 3, "placement")).isEqualTo("shared");
        assertThat(CapacityTable.csv("shared", List.of(plain)))
                .doesNotContain("series_limit_dropped", "series_limit_admitted", "tsdb_new_series");

        assertThat(StepRunner.limitText(limited.limit()))
                .isEqualTo("series limit: 18,252 samples dropped, 2,028 series admitted, 2,051 new series in the TSDB");
        assertThat(StepRunner.limitText(unread.limit()))
                .isEqualTo("series limit: 0 samples dropped, - series admitted, - new series in the TSDB");
    }

    /**
     * A writer that did not catch up within the drain timeout: the samples the limit dropped are said as dropped by the
     * limit (handled), neither as written nor as left over; without any the line is as ever.
     */
    @Test
    void theDrainTimeoutLineCountsTheLimitsDropsAsHandledNeitherWrittenNorLeft() {
        // {written, dropped by the limit, goal, the line's end}
        Object[][] cases = {
            {90_000.0, 0.0, 120_000L, ": 90,000 of 120,000 samples written"},
            {
                90_000.0,
                18_252.0,
                120_000L,
                ": 90,000 of 120,000 samples written, 18,252 dropped by the series limit (handled), 11,748 neither"
            },
            {
                0.0,
                120_000.0,
                120_001L,
                ": 0 of 120,001 samples written, 120,000 dropped by the series limit (handled), 1 neither"
            },
        };
        for (Object[] c : cases) {
            assertThat(StepRunner.notCaughtUp(3, "60 s", (double) c[0], (double) c[1], (long) c[2]))
                    .isEqualTo("[3] the writer did not catch up within 60 s" + c[3]);
        }
    }

    /** Row {@code row}'s field {@code name} (the rows' fields before the quoted verdict). */
    private static String field(List<String> csv, List<String> head, int row, String name) {
        String line = csv.get(row);
        return line.substring(0, line.indexOf(",\"")).split(",", -1)[head.indexOf(name)];
    }

    private static CapacityStep step(StepLimit limit) {
        return CapacityStep.builder()
                .index(1)
                .inputPointsPerSecond(2000)
                .expectedPerMinute(120_000)
                .writtenPerMinute(30_000)
                .efficiency(1)
                .lagStart(0)
                .lagEnd(0)
                .loadAverage(0.3)
                .passed(true)
                .verdict(new Bottleneck.Verdict(Bottleneck.Resource.INPUT, "keeping up", "", List.of(), "-"))
                .producedPoints(32_000)
                .limit(limit)
                .build();
    }
}
