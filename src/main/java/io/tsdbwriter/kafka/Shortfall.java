package io.tsdbwriter.kafka;

import org.apache.kafka.common.TopicPartition;

/**
 * A partition the group had not committed to its recorded end when a {@code --stop-at-end} run stopped (DESIGN §5:
 * the run reports what it left, and exits 4). Immutable.
 *
 * @param partition the partition
 * @param committed the group's committed offset (−1: nothing committed)
 * @param end       the end offset recorded at start
 */
public record Shortfall(TopicPartition partition, long committed, long end) {

    /** Records between the committed offset (or 0) and the recorded end. */
    public long records() {
        return end - Math.max(0, committed);
    }
}
