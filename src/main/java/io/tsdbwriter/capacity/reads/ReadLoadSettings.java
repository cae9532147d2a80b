package io.tsdbwriter.capacity.reads;

import java.time.Duration;
import java.util.List;

/**
 * The read load of a capacity search ({@code --query-rate}, {@code --query-url}, {@code --queries},
 * {@code --query-timeout}, {@code --max-query-p99-latency}). Immutable.
 *
 * @param queries          the range queries, sent round-robin
 * @param queriesPerSecond the rate queries start at, > 0
 * @param queryRangeUrl    the whole {@code …/api/v1/query_range} URL
 * @param timeout          a query without an answer after this is a timeout
 * @param maxP99           a step passes with the answered queries' p99 latency at most this
 */
public record ReadLoadSettings(
        List<RangeQuery> queries, double queriesPerSecond, String queryRangeUrl, Duration timeout, Duration maxP99) {

    /** {@link #maxP99()} in seconds. */
    public double maxP99Seconds() {
        return maxP99.toMillis() / 1000.0;
    }
}
