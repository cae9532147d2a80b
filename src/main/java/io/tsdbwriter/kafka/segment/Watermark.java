package io.tsdbwriter.kafka.segment;

import java.util.List;

/**
 * The commit watermark of one partition (DESIGN §4): the lowest offset not yet acked, i.e. the minimum over the
 * partition's SegmentConsumers of their first unacked offset, capped at the stop offset when reading stops
 * there. Everything below it is durable in VictoriaMetrics, so it is the only offset ever committed.
 */
public final class Watermark {

    private Watermark() {}

    /**
     * @param trackers   the partition's per-SegmentConsumer trackers (non-empty)
     * @param stopOffset the end offset reading stops at ({@code --stop-at-end}), or {@link Long#MAX_VALUE}
     */
    public static long of(List<AckTracker> trackers, long stopOffset) {
        long min = stopOffset;
        for (AckTracker t : trackers) {
            min = Math.min(min, t.firstUnacked());
        }
        return min;
    }
}
