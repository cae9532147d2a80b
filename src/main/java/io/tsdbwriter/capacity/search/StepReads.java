package io.tsdbwriter.capacity.search;

/**
 * What the read load did during one capacity step's measured window ({@code capacity --query-rate}): PromQL queries
 * offered and answered, their latency and failures, and the target's select concurrency. Immutable.
 *
 * @param offeredPerSecond queries/s the step asked for ({@code --query-rate})
 * @param donePerSecond    queries/s answered with HTTP 200 in the window
 * @param p50Seconds       query latency median, seconds (NaN: no answered query)
 * @param p90Seconds       query latency 90th percentile, seconds
 * @param p99Seconds       query latency 99th percentile, seconds
 * @param errors           queries answered with an error (non-200, or a PromQL error body)
 * @param timeouts         queries that ran past the query timeout
 * @param selectsCurrent   the target's concurrent selects averaged over the window ({@code vm_concurrent_select_current}; NaN: not exposed)
 * @param selectsCapacity  the target's select capacity ({@code vm_concurrent_select_capacity}; NaN: not exposed)
 */
public record StepReads(
        double offeredPerSecond,
        double donePerSecond,
        double p50Seconds,
        double p90Seconds,
        double p99Seconds,
        long errors,
        long timeouts,
        double selectsCurrent,
        double selectsCapacity) {}
