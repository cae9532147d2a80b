package io.tsdbwriter.capacity.search;

/**
 * The series limit side of one capacity step whose writer runs with {@code --max-hourly-series} or
 * {@code --max-daily-series} ({@code capacity}'s flags of these names, or the same in {@code --writer-arg}): what the
 * limit dropped, what it let through and what the TSDB registered, over the whole step (warm-up and drain included).
 * Immutable.
 *
 * @param droppedSamples samples the limit dropped (the writer's summary, {@code series_limit_dropped}); their records
 *                       are committed, so they count as handled, never as lost
 * @param admittedSeries series the writer's limiter admitted in its window at the step's end
 *                       ({@code tsdbwriter_daily_series_limit_current_series} with a daily limit, else the hourly
 *                       one's); NaN when the writer's page was not readable
 * @param tsdbNewSeries  new series the targets registered from the step's start to its end (the growth of
 *                       {@code vm_new_timeseries_created_total}, summed over the targets); NaN when no target exposes it
 */
public record StepLimit(long droppedSamples, double admittedSeries, double tsdbNewSeries) {}
