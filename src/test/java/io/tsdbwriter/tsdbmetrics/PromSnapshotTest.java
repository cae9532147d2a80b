package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading /metrics pages: sums, labels, histogram quantiles over a window, and the targets' figures. */
class PromSnapshotTest {

    private static final String VM_1 =
            """
            # HELP x
            process_cpu_seconds_total 10
            process_cpu_cores_available 2
            vm_concurrent_insert_capacity 16
            vm_concurrent_insert_current 4
            vm_rows_inserted_total{type="promremotewrite"} 0
            vm_rows_inserted_total{type="vmimport"} 1000
            vm_slow_row_inserts_total 10
            vm_pending_rows{type="storage"} 7
            vm_pending_rows{type="indexdb"} 1
            """;
    private static final String VM_2 = VM_1.replace("process_cpu_seconds_total 10", "process_cpu_seconds_total 11.5")
            .replace("type=\"vmimport\"} 1000", "type=\"vmimport\"} 2000")
            .replace("vm_slow_row_inserts_total 10", "vm_slow_row_inserts_total 110");

    @Test
    void sumsAndLabels() {
        PromSnapshot s = PromSnapshot.parse(VM_1, 0);
        assertThat(s.sum("vm_rows_inserted_total")).isEqualTo(1000);
        assertThat(s.sum("vm_pending_rows", "type=\"storage\"")).isEqualTo(7);
        assertThat(s.sum("missing")).isNaN();
        assertThat(s.first("missing", "process_cpu_cores_available")).isEqualTo(2);
        assertThat(s.has("vm_concurrent_insert_current")).isTrue();
    }

    @Test
    void anExemplarIsNotASeriesNorAValue() {
        // issue 41: the label-less line became series 'http_requests_total 7 #' with the exemplar's value 2
        PromSnapshot s = PromSnapshot.parse(
                """
                # TYPE http_requests counter
                http_requests_total 7 # {trace_id="x"} 2 1795300857.1
                http_requests_total{code="500"} 1 # {trace_id="y"} 3
                """,
                0);
        assertThat(s.sum("http_requests_total")).isEqualTo(8);
        assertThat(s.sum("http_requests_total", "code=\"500\"")).isEqualTo(1);
    }

    @Test
    void targetFiguresOverAWindow() {
        PromSnapshot a = PromSnapshot.parse(VM_1, 0);
        PromSnapshot b = PromSnapshot.parse(VM_2, 3_000_000_000L);
        double[] cpu = TargetFigures.busiestCpu(List.of(a), List.of(b));
        assertThat(cpu[0]).isCloseTo(0.5, within(1e-9));
        assertThat(cpu[1]).isEqualTo(2);
        assertThat(TargetFigures.slowInsertRatio(List.of(a), List.of(b))).isCloseTo(0.1, within(1e-9));
        assertThat(TargetFigures.sum(Arrays.asList(a, null, b), TargetFigures.INSERT_CURRENT))
                .isEqualTo(8);
        // an unreadable target: unknown, never zero
        assertThat(TargetFigures.sum(Arrays.asList((PromSnapshot) null), TargetFigures.INSERT_CURRENT))
                .isNaN();
        assertThat(TargetFigures.busiestCpu(Arrays.asList((PromSnapshot) null), List.of(b))[0])
                .isNaN();
    }

    @Test
    void histogramQuantileOverTheWindow() {
        String before =
                """
                lat_seconds_bucket{le="0.1"} 10
                lat_seconds_bucket{le="1.0"} 10
                lat_seconds_bucket{le="+Inf"} 10
                """;
        String after =
                """
                lat_seconds_bucket{le="0.1"} 60
                lat_seconds_bucket{le="1.0"} 110
                lat_seconds_bucket{le="+Inf"} 110
                """;
        PromSnapshot a = PromSnapshot.parse(before, 0);
        PromSnapshot b = PromSnapshot.parse(after, 1);
        // 100 observations in the window: 50 <= 0.1 s, 50 in (0.1, 1]
        assertThat(PromSnapshot.quantile(0.5, "lat_seconds", a, b)).isCloseTo(0.1, within(1e-9));
        assertThat(PromSnapshot.quantile(0.99, "lat_seconds", a, b)).isCloseTo(0.1 + 0.9 * 49 / 50.0, within(1e-9));
        assertThat(PromSnapshot.quantile(0.5, "lat_seconds", b, b)).isNaN();
        assertThat(PromSnapshot.quantile(0.5, "other", a, b)).isNaN();
    }

    @Test
    void anObservationInItsBucketButNotYetInTheCountIsCountedOnce() {
        // the page before the window was read between Timer.record's histogram update and its count update: the
        // observation shows in le="0.1" and le="120.0" (11) and not in +Inf (10); 20 observations in the window, all
        // <= 0.1 s. Without evening out the page, +Inf's 20 against 0.1's 19 put the p99 into +Inf: 120 s.
        String before =
                """
                lat_seconds_bucket{le="0.1"} 11
                lat_seconds_bucket{le="120.0"} 11
                lat_seconds_bucket{le="+Inf"} 10
                """;
        String after =
                """
                lat_seconds_bucket{le="0.1"} 30
                lat_seconds_bucket{le="120.0"} 30
                lat_seconds_bucket{le="+Inf"} 30
                """;
        double p99 =
                PromSnapshot.quantile(0.99, "lat_seconds", PromSnapshot.parse(before, 0), PromSnapshot.parse(after, 1));
        assertThat(p99).isLessThanOrEqualTo(0.1);
    }
}
