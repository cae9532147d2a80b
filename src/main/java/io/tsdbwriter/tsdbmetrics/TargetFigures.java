package io.tsdbwriter.tsdbmetrics;

import java.util.List;

/**
 * The targets' figures the attribution needs, from their {@code /metrics} (VictoriaMetrics' metric names; vminsert,
 * vmstorage and single-node expose the same process and insert metrics). Lists hold one snapshot per target, null
 * where a page was unreadable; a figure no readable target exports is NaN. Stateless; thread-safe.
 */
public final class TargetFigures {

    /** Concurrent inserts running now. */
    public static final String INSERT_CURRENT = "vm_concurrent_insert_current";
    /** The insert limiter's size ({@code -maxConcurrentInserts}). */
    public static final String INSERT_CAPACITY = "vm_concurrent_insert_capacity";
    /** Insert requests that found every insert slot taken and waited (VictoriaMetrics {@code lib/writeconcurrencylimiter}). */
    public static final String INSERT_LIMIT_REACHED = "vm_concurrent_insert_limit_reached_total";

    /** New series the target registered (VictoriaMetrics' churn counter). */
    public static final String NEW_SERIES = "vm_new_timeseries_created_total";
    /** Rows whose series missed the target's caches and took the slow insert path. */
    public static final String SLOW_INSERTS = "vm_slow_row_inserts_total";
    /** Cache misses, by {@code type}; with {@link #TSID_CACHE} the series (TSID) cache's. */
    public static final String CACHE_MISSES = "vm_cache_misses_total";
    /** The label text of the series cache, {@code type="storage/tsid"} (1.79.5 and v1.150.0 alike). */
    public static final String TSID_CACHE = "type=\"storage/tsid\"";

    private TargetFigures() {}

    /**
     * The growth per second of counter {@code name} (its series whose labels contain {@code labelText}; "" for all)
     * between two scrapes, summed over the targets readable at both ends, each over its own interval; NaN when no such
     * target exports it.
     */
    public static double perSecond(List<PromSnapshot> before, List<PromSnapshot> after, String name, String labelText) {
        double sum = 0;
        boolean any = false;
        for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
            PromSnapshot a = before.get(i);
            PromSnapshot b = after.get(i);
            if (a == null || b == null || b.nanos() <= a.nanos()) {
                continue;
            }
            double grew = b.sum(name, labelText) - a.sum(name, labelText);
            if (Double.isFinite(grew)) {
                sum += grew / ((b.nanos() - a.nanos()) / 1e9);
                any = true;
            }
        }
        return any ? sum : Double.NaN;
    }

    /** Sum over targets of {@code name}; NaN when no readable target exports it. */
    public static double sum(List<PromSnapshot> targets, String name) {
        double sum = 0;
        boolean any = false;
        for (PromSnapshot t : targets) {
            double v = t == null ? Double.NaN : t.sum(name);
            if (!Double.isNaN(v)) {
                sum += v;
                any = true;
            }
        }
        return any ? sum : Double.NaN;
    }

    /**
     * The busiest target's CPU between two scrapes: {@code {cores used, cores available, index}}, all NaN when no target
     * is readable at both ends with {@code process_cpu_seconds_total} and a core count
     * ({@code process_cpu_cores_available}, else {@code vm_available_cpu_cores}).
     */
    public static double[] busiestCpu(List<PromSnapshot> before, List<PromSnapshot> after) {
        return busiestCpu(before, after, 0);
    }

    /**
     * As {@link #busiestCpu(List, List)}, each target's core count at most {@code coresCap} when that is &gt; 0: a TSDB
     * placed on a CPU set (`--tsdb-cpus`) can use no more cores than the set has, whatever it reports — VictoriaMetrics
     * 1.79.5 started under {@code taskset -c 0} on a 2-core machine still reports {@code process_cpu_cores_available 2}
     * (and sizes its insert slots from it), so its busy core read as half busy.
     */
    public static double[] busiestCpu(List<PromSnapshot> before, List<PromSnapshot> after, int coresCap) {
        double[] best = {Double.NaN, Double.NaN, Double.NaN};
        double bestShare = -1;
        for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
            PromSnapshot a = before.get(i);
            PromSnapshot b = after.get(i);
            if (a == null || b == null || b.nanos() <= a.nanos()) {
                continue;
            }
            double used = (b.sum("process_cpu_seconds_total") - a.sum("process_cpu_seconds_total"))
                    / ((b.nanos() - a.nanos()) / 1e9);
            double cores = b.first("process_cpu_cores_available", "vm_available_cpu_cores");
            if (coresCap > 0 && cores > coresCap) {
                cores = coresCap;
            }
            if (!Double.isFinite(used) || !(cores > 0)) {
                continue;
            }
            if (used / cores > bestShare) {
                bestShare = used / cores;
                best = new double[] {used, cores, i};
            }
        }
        return best;
    }

    /**
     * Slow row inserts per row inserted between two scrapes, over every target exporting both
     * ({@code vm_slow_row_inserts_total}, {@code vm_rows_inserted_total}); NaN when none does or nothing was inserted.
     */
    public static double slowInsertRatio(List<PromSnapshot> before, List<PromSnapshot> after) {
        return ratio("vm_slow_row_inserts_total", before, after);
    }

    /**
     * New series per row inserted between two scrapes ({@code vm_new_timeseries_created_total} ÷
     * {@code vm_rows_inserted_total}, VictoriaMetrics' churn rate); NaN when no target exports both or nothing was inserted.
     */
    public static double newSeriesRatio(List<PromSnapshot> before, List<PromSnapshot> after) {
        return ratio("vm_new_timeseries_created_total", before, after);
    }

    /** {@code metric}'s growth ÷ the growth of {@code vm_rows_inserted_total}, over every target exporting both. */
    private static double ratio(String metric, List<PromSnapshot> before, List<PromSnapshot> after) {
        double slow = 0;
        double rows = 0;
        boolean any = false;
        for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
            PromSnapshot a = before.get(i);
            PromSnapshot b = after.get(i);
            if (a == null || b == null) {
                continue;
            }
            double s = b.sum(metric) - a.sum(metric);
            double r = b.sum("vm_rows_inserted_total") - a.sum("vm_rows_inserted_total");
            if (Double.isFinite(s) && Double.isFinite(r)) {
                slow += s;
                rows += r;
                any = true;
            }
        }
        return any && rows > 0 ? slow / rows : Double.NaN;
    }
}
