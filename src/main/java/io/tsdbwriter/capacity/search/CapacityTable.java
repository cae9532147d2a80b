package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.Figures;
import java.util.List;
import java.util.Locale;

/**
 * The steps of a capacity search as a console table and as CSV; every step names the run's placement
 * ({@link io.tsdbwriter.lab.Placement#label()}: {@code shared}, {@code tsdb=0 writer=1}). Stateless; thread-safe.
 */
public final class CapacityTable {

    private CapacityTable() {}

    /**
     * The console table, one line per step, {@code placement} its last column; {@code ack p50/p99 s} and
     * {@code commit p50/p99 s} are the writer's ingest delay over the window ({@link io.tsdbwriter.lab.IngestDelays});
     * a step that measured an earlier one's load again (it missed the minimum efficiency within the noise, {@link EfficiencyNoise}) says
     * {@code (re-measure of <step>)} after its verdict. When a step's writer had a series limit ({@link StepLimit}),
     * three columns follow {@code tsid miss/s}: {@code limit dropped} (samples), {@code admitted} (series) and
     * {@code tsdb new} (the targets' new series over the step); without one the table has none of them.
     */
    public static String format(String placement, List<CapacityStep> steps) {
        boolean limited = limited(steps);
        StringBuilder b = new StringBuilder();
        String head = String.format(
                Locale.ROOT,
                "%-4s %-3s %12s %14s %14s %8s %8s %8s %13s %16s %9s %13s %6s %12s %10s %5s %10s %9s %9s %11s ",
                "step",
                "M",
                "points/s in",
                "expected/min",
                "written/min",
                "eff",
                "p50 s",
                "p99 s",
                "ack p50/p99 s",
                "commit p50/p99 s",
                "permit ms",
                "lag records",
                "cpu W",
                "target cpu",
                "inserts",
                "load",
                "series",
                "new/s",
                "slow/s",
                "tsid miss/s");
        b.append(head);
        if (limited) {
            b.append(String.format(Locale.ROOT, "%14s %10s %10s ", "limit dropped", "admitted", "tsdb new"));
        }
        b.append(String.format(Locale.ROOT, "%-4s %-16s %s%n", "ok", "limited by", "placement"));
        for (CapacityStep s : steps) {
            b.append(String.format(
                    Locale.ROOT,
                    "%-4s %-3d %12.0f %14s %14s %8s %8s %8s %13s %16s %9s %13s %6s %12s %10s %5.2f %10s %9s %9s %11s ",
                    s.index() + (s.refine() ? "r" : ""),
                    s.timeMultiplier(),
                    s.inputPointsPerSecond(),
                    Figures.count(s.expectedPerMinute()),
                    Figures.count(s.writtenPerMinute()),
                    Figures.percent(s.efficiency()),
                    dec(s.p50Seconds(), 3),
                    dec(s.p99Seconds(), 3),
                    s.delays().acknowledged(),
                    s.delays().committed(),
                    dec(s.permitWaitMs(), 1),
                    String.format(Locale.ROOT, "%.0f->%.0f%s", s.lagStart(), s.lagEnd(), s.lagGrowing() ? "^" : ""),
                    dec(s.writerCpuCores(), 2),
                    dec(s.targetCpuCores(), 2) + "/" + dec(s.targetCores(), 0),
                    dec(s.insertsCurrent(), 1) + "/" + dec(s.insertsCapacity(), 0),
                    s.loadAverage(),
                    s.series() == null ? "-" : dec(s.series().activeSeries(), 0),
                    s.series() == null ? "-" : dec(s.series().createdPerSecond(), 1),
                    s.series() == null ? "-" : dec(s.series().slowInsertsPerSecond(), 1),
                    s.series() == null ? "-" : dec(s.series().cacheMissesPerSecond(), 1)));
            if (limited) {
                StepLimit l = s.limit();
                b.append(String.format(
                        Locale.ROOT,
                        "%14s %10s %10s ",
                        l == null ? "-" : Long.toString(l.droppedSamples()),
                        l == null ? "-" : dec(l.admittedSeries(), 0),
                        l == null ? "-" : dec(l.tsdbNewSeries(), 0)));
            }
            b.append(String.format(
                    Locale.ROOT,
                    "%-4s %-16s %s%n",
                    s.passed() ? "yes" : "NO",
                    s.verdict().resource().label()
                            + (s.remeasureOf() > 0 ? " (re-measure of " + s.remeasureOf() + ")" : ""),
                    placement));
        }
        return b.toString();
    }

    /**
     * The read load's table ({@code --query-rate}), one line per step, or empty when no step ran one: queries/s done of
     * offered, latency p50/p90/p99, errors, timeouts, the target's selects (averaged) of its select capacity.
     */
    public static String formatReads(List<CapacityStep> steps) {
        if (steps.stream().allMatch(s -> s.reads() == null)) {
            return "";
        }
        StringBuilder b = new StringBuilder(String.format(
                Locale.ROOT,
                "%-4s %9s %9s %8s %8s %8s %7s %8s %10s%n",
                "step",
                "queries/s",
                "offered/s",
                "q p50 s",
                "q p90 s",
                "q p99 s",
                "errors",
                "timeouts",
                "selects"));
        for (CapacityStep s : steps) {
            StepReads r = s.reads();
            if (r == null) {
                continue;
            }
            b.append(String.format(
                    Locale.ROOT,
                    "%-4s %9s %9s %8s %8s %8s %7d %8d %10s%n",
                    s.index() + (s.refine() ? "r" : ""),
                    dec(r.donePerSecond(), 2),
                    dec(r.offeredPerSecond(), 2),
                    dec(r.p50Seconds(), 3),
                    dec(r.p90Seconds(), 3),
                    dec(r.p99Seconds(), 3),
                    r.errors(),
                    r.timeouts(),
                    dec(r.selectsCurrent(), 1) + "/" + dec(r.selectsCapacity(), 0)));
        }
        return b.toString();
    }

    /** A step's read load in one phrase, for its progress line. */
    static String reads(StepReads r) {
        return String.format(
                Locale.ROOT,
                "queries %s/s of %s/s, p50/p90/p99 %s/%s/%s s, %d errors, %d timeouts, selects %s of %s",
                dec(r.donePerSecond(), 2),
                dec(r.offeredPerSecond(), 2),
                dec(r.p50Seconds(), 3),
                dec(r.p90Seconds(), 3),
                dec(r.p99Seconds(), 3),
                r.errors(),
                r.timeouts(),
                dec(r.selectsCurrent(), 1),
                dec(r.selectsCapacity(), 0));
    }

    /**
     * CSV with a header row, {@code placement} before the quoted verdict (which stays the last column); the
     * {@code ingest_delay_*} columns are the writer's ingest delay p50/p99 per stage over the window (blank: no batch
     * reached the stage in it); the series and
     * the query_* and selects_* columns are blank for a step without them; {@code halves_spread} is the efficiency of the
     * window's second half minus its first half's, {@code noise} the noise the search assumed when it judged the step,
     * {@code remeasure_of} the step whose load it measured again (empty: none). When a step's writer had a series
     * limit ({@link StepLimit}), {@code series_limit_dropped} (samples), {@code series_limit_admitted} (series) and
     * {@code tsdb_new_series} (the targets' new series over the step) follow {@code tsid_cache_misses_per_second};
     * without one the CSV has none of them.
     */
    public static String csv(String placement, List<CapacityStep> steps) {
        boolean limited = limited(steps);
        StringBuilder b = new StringBuilder(
                "step,refine,time_multiplier,input_points_per_second,expected_samples_per_minute,"
                        + "written_samples_per_minute,efficiency,p50_seconds,p99_seconds,"
                        + "ingest_delay_acknowledged_p50_seconds,ingest_delay_acknowledged_p99_seconds,"
                        + "ingest_delay_committed_p50_seconds,ingest_delay_committed_p99_seconds,"
                        + "permit_wait_ms,lag_start,lag_end,lag_growing,"
                        + "writer_cpu_cores,target_cpu_cores,target_cores,inserts_current,inserts_capacity,load_average,passed,limited_by,lost_samples,produced_points,"
                        + "active_series,new_series_per_second,slow_inserts_per_second,tsid_cache_misses_per_second,"
                        + (limited ? "series_limit_dropped,series_limit_admitted,tsdb_new_series," : "")
                        + "query_offered_per_second,query_done_per_second,query_p50_seconds,query_p90_seconds,query_p99_seconds,query_errors,"
                        + "query_timeouts,selects_current,selects_capacity,halves_spread,noise,remeasure_of,placement,verdict\n");
        for (CapacityStep s : steps) {
            b.append(String.format(
                    Locale.ROOT,
                    "%d,%b,%d,%.1f,%.0f,%.0f,%.4f,%s,%s,%s,%s,%s,%s,%s,%.0f,%.0f,%b,%s,%s,%s,%s,%s,%.2f,%b,%s,%d,%d,%s,%s,%s,%s,%s,%s,\"%s\"%n",
                    s.index(),
                    s.refine(),
                    s.timeMultiplier(),
                    s.inputPointsPerSecond(),
                    s.expectedPerMinute(),
                    s.writtenPerMinute(),
                    s.efficiency(),
                    csvNum(s.p50Seconds()),
                    csvNum(s.p99Seconds()),
                    csvNum(s.delays().acknowledgedP50()),
                    csvNum(s.delays().acknowledgedP99()),
                    csvNum(s.delays().committedP50()),
                    csvNum(s.delays().committedP99()),
                    csvNum(s.permitWaitMs()),
                    s.lagStart(),
                    s.lagEnd(),
                    s.lagGrowing(),
                    csvNum(s.writerCpuCores()),
                    csvNum(s.targetCpuCores()),
                    csvNum(s.targetCores()),
                    csvNum(s.insertsCurrent()),
                    csvNum(s.insertsCapacity()),
                    s.loadAverage(),
                    s.passed(),
                    s.verdict().resource().label(),
                    s.lost(),
                    s.producedPoints(),
                    seriesCsv(s.series()) + (limited ? "," + limitCsv(s.limit()) : ""),
                    readsCsv(s.reads()),
                    csvNum(s.noise() == null ? Double.NaN : s.noise().halvesSpread()),
                    csvNum(s.noise() == null ? Double.NaN : s.noise().assumed()),
                    s.remeasureOf() > 0 ? Integer.toString(s.remeasureOf()) : "",
                    placement,
                    s.verdict().toString().replace("\"", "'")));
        }
        return b.toString();
    }

    /** The series figures' four CSV fields: active series, new series/s, slow inserts/s, tsid cache misses/s (empty: unknown). */
    private static String seriesCsv(StepSeries series) {
        if (series == null) {
            return ",,,";
        }
        return (Double.isFinite(series.activeSeries()) ? String.format(Locale.ROOT, "%.0f", series.activeSeries()) : "")
                + "," + csvNum(series.createdPerSecond()) + "," + csvNum(series.slowInsertsPerSecond()) + ","
                + csvNum(series.cacheMissesPerSecond());
    }

    /** The series limit's three CSV fields: dropped samples, admitted series, the TSDB's new series (empty: unknown). */
    private static String limitCsv(StepLimit limit) {
        if (limit == null) {
            return ",,";
        }
        return limit.droppedSamples() + "," + whole(limit.admittedSeries()) + "," + whole(limit.tsdbNewSeries());
    }

    private static String whole(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.0f", v) : "";
    }

    /** Whether any step's writer had a series limit: the table and the CSV then have its columns. */
    private static boolean limited(List<CapacityStep> steps) {
        return steps.stream().anyMatch(s -> s.limit() != null);
    }

    /** The read load's nine CSV fields (empty: no read load). */
    private static String readsCsv(StepReads r) {
        if (r == null) {
            return ",,,,,,,,";
        }
        return String.join(
                ",",
                csvNum(r.offeredPerSecond()),
                csvNum(r.donePerSecond()),
                csvNum(r.p50Seconds()),
                csvNum(r.p90Seconds()),
                csvNum(r.p99Seconds()),
                Long.toString(r.errors()),
                Long.toString(r.timeouts()),
                csvNum(r.selectsCurrent()),
                csvNum(r.selectsCapacity()));
    }

    private static String dec(double v, int digits) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + digits + "f", v) : "-";
    }

    private static String csvNum(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.4f", v) : "";
    }
}
