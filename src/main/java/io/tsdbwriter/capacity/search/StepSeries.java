package io.tsdbwriter.capacity.search;

/**
 * The series side of one capacity step's measured window ({@code capacity --series-mode}, {@code --churn-interval}):
 * how many series were active and how fast new ones arrived, and what that cost the target. Immutable.
 *
 * @param activeSeries          series the writer's input held active at the window's end (by the series schedule)
 * @param createdPerSecond      new series/s the target registered in the window (NaN: not exposed)
 * @param slowInsertsPerSecond  the target's slow row inserts/s ({@code vm_slow_row_inserts_total}; NaN: not exposed)
 * @param cacheMissesPerSecond  the target's series cache misses/s ({@code vm_cache_misses_total{type="storage/tsid"}}; NaN: not exposed)
 */
public record StepSeries(
        double activeSeries, double createdPerSecond, double slowInsertsPerSecond, double cacheMissesPerSecond) {}
