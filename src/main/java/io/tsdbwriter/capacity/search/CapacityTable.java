package io.tsdbwriter.capacity.search;

import io.tsdbwriter.bench.BenchTable;
import java.util.List;
import java.util.Locale;

/** The steps of a capacity search as a console table and as CSV. Stateless; thread-safe. */
public final class CapacityTable {

    private CapacityTable() {
    }

    /**
     * The console table, one line per step; a step that measured an earlier one's load again (it missed the minimum
     * efficiency within the noise, {@link EfficiencyNoise}) ends with {@code (re-measure of <step>)}.
     */
    public static String format(List<CapacityStep> steps) {
        StringBuilder b = new StringBuilder();
        String head = String.format(Locale.ROOT, "%-4s %-3s %12s %14s %14s %8s %8s %8s %9s %13s %6s %12s %10s %5s %-4s %s%n",
                "step", "M", "points/s in", "expected/min", "written/min", "eff", "p50 s", "p99 s", "permit ms", "lag records",
                "cpu W", "target cpu", "inserts", "load", "ok", "limited by");
        b.append(head);
        for (CapacityStep s : steps) {
            b.append(String.format(Locale.ROOT, "%-4s %-3d %12.0f %14s %14s %8s %8s %8s %9s %13s %6s %12s %10s %5.2f %-4s %s%n",
                    s.index() + (s.refine() ? "r" : ""), s.timeMultiplier(), s.inputPointsPerSecond(), BenchTable.count(s.expectedPerMinute()),
                    BenchTable.count(s.writtenPerMinute()), BenchTable.percent(s.efficiency()), dec(s.p50Seconds(), 3), dec(s.p99Seconds(), 3),
                    dec(s.permitWaitMs(), 1), String.format(Locale.ROOT, "%.0f->%.0f%s", s.lagStart(), s.lagEnd(), s.lagGrowing() ? "^" : ""),
                    dec(s.writerCpuCores(), 2), dec(s.targetCpuCores(), 2) + "/" + dec(s.targetCores(), 0),
                    dec(s.insertsCurrent(), 1) + "/" + dec(s.insertsCapacity(), 0), s.loadAverage(), s.passed() ? "yes" : "NO",
                    s.verdict().resource().label() + (s.remeasureOf() > 0 ? " (re-measure of " + s.remeasureOf() + ")" : "")));
        }
        return b.toString();
    }

    /**
     * CSV with a header row; {@code halves_spread} is the efficiency of the window's second half minus its first half's,
     * {@code noise} the noise the search assumed when it judged the step, {@code remeasure_of} the step whose load it
     * measured again (empty: none).
     */
    public static String csv(List<CapacityStep> steps) {
        StringBuilder b = new StringBuilder("step,refine,time_multiplier,input_points_per_second,expected_samples_per_minute,"
                + "written_samples_per_minute,efficiency,p50_seconds,p99_seconds,permit_wait_ms,lag_start,lag_end,lag_growing,"
                + "writer_cpu_cores,target_cpu_cores,target_cores,inserts_current,inserts_capacity,load_average,passed,limited_by,lost_samples,produced_points,"
                + "halves_spread,noise,remeasure_of,verdict\n");
        for (CapacityStep s : steps) {
            b.append(String.format(Locale.ROOT, "%d,%b,%d,%.1f,%.0f,%.0f,%.4f,%s,%s,%s,%.0f,%.0f,%b,%s,%s,%s,%s,%s,%.2f,%b,%s,%d,%d,%s,%s,%s,\"%s\"%n",
                    s.index(), s.refine(), s.timeMultiplier(), s.inputPointsPerSecond(), s.expectedPerMinute(), s.writtenPerMinute(),
                    s.efficiency(), csvNum(s.p50Seconds()), csvNum(s.p99Seconds()), csvNum(s.permitWaitMs()), s.lagStart(), s.lagEnd(),
                    s.lagGrowing(), csvNum(s.writerCpuCores()), csvNum(s.targetCpuCores()), csvNum(s.targetCores()),
                    csvNum(s.insertsCurrent()), csvNum(s.insertsCapacity()), s.loadAverage(), s.passed(), s.verdict().resource().label(),
                    s.lost(), s.producedPoints(), csvNum(s.noise() == null ? Double.NaN : s.noise().halvesSpread()),
                    csvNum(s.noise() == null ? Double.NaN : s.noise().assumed()), s.remeasureOf() > 0 ? Integer.toString(s.remeasureOf()) : "",
                    s.verdict().toString().replace("\"", "'")));
        }
        return b.toString();
    }

    private static String dec(double v, int digits) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + digits + "f", v) : "-";
    }

    private static String csvNum(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.4f", v) : "";
    }
}
