package io.tsdbwriter.tsdbmetrics;

import java.util.ArrayList;
import java.util.List;

/**
 * What an {@link Bottleneck.Evidence} lacks to name a resource, and which resource it comes closest to: the words of an
 * {@link Bottleneck.Resource#UNKNOWN} verdict. Pure logic; stateless; thread-safe.
 */
final class EvidenceGaps {

    private static final String TARGET = ": not exposed, or the target's /metrics unreadable)";

    private EvidenceGaps() {}

    /**
     * The figures a rule could need that are unknown (NaN), each with what gives it, in the order of
     * {@link Bottleneck.Evidence#describe()}; empty when every one is known. The new-series figure is left out: it
     * decides only with the target's CPU or slow inserts, listed themselves.
     */
    static List<String> missing(Bottleneck.Evidence e) {
        List<String> m = new ArrayList<>();
        addIf(
                m,
                Double.isNaN(e.lagGrowing()),
                "lag trend (fewer than 3 readings of the writer's tsdbwriter_consumer_lag_records)");
        addIf(m, Double.isNaN(e.writerCpuShare()), "writer CPU (the writer process's CPU time)");
        addIf(
                m,
                Double.isNaN(e.permitShare()),
                "writer permits (tsdbwriter_write_permits_in_use and _capacity on the writer's /metrics)");
        addIf(
                m,
                Double.isNaN(e.insertShare()),
                "target insert concurrency (vm_concurrent_insert_current and _capacity" + TARGET);
        addIf(m, Double.isNaN(e.targetCpuShare()), "target CPU (process_cpu_seconds_total and a core count" + TARGET);
        addIf(
                m,
                Double.isNaN(e.slowInsertRatio()),
                "slow inserts (vm_slow_row_inserts_total and vm_rows_inserted_total" + TARGET);
        addIf(m, Double.isNaN(e.machineCpuShare()), "machine CPU (the writer's machine's /proc/stat)");
        return List.copyOf(m);
    }

    /** The resource closest to saturation, with its share of capacity: {@code target-insert-concurrency at 75.0%}. */
    static String nearest(Bottleneck.Evidence e) {
        Bottleneck.Resource[] rs = {
            Bottleneck.Resource.WRITER_CPU,
            Bottleneck.Resource.WRITER_PERMITS,
            Bottleneck.Resource.TARGET_INSERT_CONCURRENCY,
            Bottleneck.Resource.TARGET_CPU,
            Bottleneck.Resource.MACHINE_CPU
        };
        double[] shares = {e.writerCpuShare(), e.permitShare(), e.insertShare(), e.targetCpuShare(), e.machineCpuShare()
        };
        int best = 0;
        for (int i = 1; i < shares.length; i++) {
            if (shares[i] > shares[best]) {
                best = i;
            }
        }
        return rs[best].label() + " at " + Bottleneck.pct(shares[best]);
    }

    private static void addIf(List<String> l, boolean on, String what) {
        if (on) {
            l.add(what);
        }
    }
}
