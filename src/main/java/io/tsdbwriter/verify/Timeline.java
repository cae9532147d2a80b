package io.tsdbwriter.verify;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The samples of one expected series as VictoriaMetrics keeps them: sorted distinct timestamps, the values alongside
 * (one sample per timestamp: samples of equal timestamps collapse, as its deduplication does; where their values
 * differ, every value is acceptable). Immutable once built; thread-safe.
 */
final class Timeline {

    final long[] timestamps;
    final double[] values;
    /** Index → further acceptable values for timestamps where source samples with different values collided; null when none. */
    final Map<Integer, double[]> alternatives;

    Timeline(long[] timestamps, double[] values, Map<Integer, double[]> alternatives) {
        this.timestamps = timestamps;
        this.values = values;
        this.alternatives = alternatives;
    }

    int size() {
        return timestamps.length;
    }

    /** Sorts (timestamp, value) pairs by timestamp (stable) and collapses equal timestamps. */
    static Timeline collapse(long[] ts, double[] vs) {
        if (!isSorted(ts)) {
            Integer[] order = new Integer[ts.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(ts[a], ts[b]));
            long[] sortedTs = new long[ts.length];
            double[] sortedVs = new double[vs.length];
            for (int i = 0; i < order.length; i++) {
                sortedTs[i] = ts[order[i]];
                sortedVs[i] = vs[order[i]];
            }
            return collapseSorted(sortedTs, sortedVs);
        }
        return collapseSorted(ts, vs);
    }

    private static Timeline collapseSorted(long[] ts, double[] vs) {
        Map<Integer, double[]> alternatives = null;
        int w = 0;
        for (int r = 0; r < ts.length; r++) {
            if (w > 0 && ts[r] == ts[w - 1]) {
                if (vs[r] != vs[w - 1]) {
                    if (alternatives == null) {
                        alternatives = new HashMap<>();
                    }
                    double[] alts = alternatives.get(w - 1);
                    if (alts == null) {
                        alternatives.put(w - 1, new double[] {vs[r]});
                    } else if (!contains(alts, vs[r])) {
                        double[] grown = Arrays.copyOf(alts, alts.length + 1);
                        grown[alts.length] = vs[r];
                        alternatives.put(w - 1, grown);
                    }
                }
                continue;
            }
            ts[w] = ts[r];
            vs[w++] = vs[r];
        }
        if (w < ts.length) {
            return new Timeline(Arrays.copyOf(ts, w), Arrays.copyOf(vs, w), alternatives);
        }
        return new Timeline(ts, vs, alternatives);
    }

    private static boolean contains(double[] a, double v) {
        for (double x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSorted(long[] ts) {
        for (int i = 1; i < ts.length; i++) {
            if (ts[i] < ts[i - 1]) {
                return false;
            }
        }
        return true;
    }
}
