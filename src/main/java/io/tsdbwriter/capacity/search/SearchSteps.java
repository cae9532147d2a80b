package io.tsdbwriter.capacity.search;

import java.util.ArrayList;
import java.util.List;

/** The steps run so far, the last passing and the first failing one (search thread only). */
final class SearchSteps {
    final long startNanos;
    final List<CapacityStep> all = new ArrayList<>();
    CapacityStep good;
    CapacityStep bad;
    int index;
    /** Why the climb stopped with no failing step before its step budget (the largest M passed), or null. */
    String ceiling;
    /** The noise the search assumes now ({@link EfficiencyNoise#describe()}), or null before any step. */
    String noise;

    SearchSteps(long startNanos) {
        this.startNanos = startNanos;
    }

    /** The capacity (the best passing step's sustained rate) and the verdict at the edge. */
    CapacitySearch.Result result() {
        CapacityStep best = null;
        long lost = 0;
        for (CapacityStep st : all) {
            lost += Math.max(0, st.lost());
            if (st.passed() && (best == null || CapacitySearch.sustained(st) > CapacitySearch.sustained(best))) {
                best = st;
            }
        }
        return new CapacitySearch.Result(
                List.copyOf(all),
                best == null ? Double.NaN : CapacitySearch.sustained(best),
                best,
                bad != null ? bad : (all.isEmpty() ? null : all.get(all.size() - 1)),
                lost,
                bad == null ? ceiling : null,
                noise);
    }
}
