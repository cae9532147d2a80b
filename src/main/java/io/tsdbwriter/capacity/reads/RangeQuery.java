package io.tsdbwriter.capacity.reads;

import java.time.Duration;

/**
 * One range query of the read load: the PromQL with its placeholders replaced, the range it covers (ending at the
 * newest sample time the step has fed) and its resolution step. Immutable.
 *
 * @param promql the expression sent as {@code query}
 * @param range  how far back from the range's end, e.g. 1 h or 24 h
 * @param step   the {@code step} parameter (the resolution), e.g. 60 s or 5 min
 */
public record RangeQuery(String promql, Duration range, Duration step) {}
