package io.tsdbwriter.kafka.group;

import io.tsdbwriter.metrics.WriterMeters;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where an assigned partition is read from (DESIGN §5: records deleted below the committed offset). Stateless. */
final class StartOffset {

    private static final Logger log = LoggerFactory.getLogger(StartOffset.class);

    private StartOffset() {}

    /**
     * Where a partition is read from: the group's committed offset, unless Kafka no longer has it. Never silent:
     * <ul>
     *   <li>below the log start (records deleted by retention or {@code deleteRecords} before they were written): the
     *       range {@code [committed, logStart)} is skipped, logged as a WARN line with topic, partition, from and to,
     *       and counted ({@code records_skipped_total{reason="deleted"}}, the summary); the member commits the log
     *       start for the group, so {@code --stop-at-end} ends;</li>
     *   <li>beyond the log end (the topic was recreated or truncated): read from the log start, as Kafka's
     *       {@code auto.offset.reset=earliest} would, with a WARN line and {@code offset_resets_total};</li>
     *   <li>nothing committed (a new group): from the log start.</li>
     * </ul>
     */
    static long of(TopicPartition tp, long groupCommitted, long logStart, long logEnd, WriterMeters meters) {
        if (groupCommitted < 0) {
            return logStart;
        }
        if (groupCommitted < logStart) {
            log.warn(
                    "{}: offsets {} to {} were deleted (retention or deleteRecords) before they were written: skipping {} record(s), "
                            + "reading on from the log start {}",
                    tp,
                    groupCommitted,
                    logStart,
                    logStart - groupCommitted,
                    logStart);
            meters.offsetReset("deleted");
            meters.recordsSkipped(
                    new WriterMeters.SkippedRange(tp.topic(), tp.partition(), groupCommitted, logStart, "deleted"));
            return logStart;
        }
        if (groupCommitted > logEnd) {
            log.warn(
                    "{}: the committed offset {} lies beyond the log end {} (topic recreated or truncated?): reading from the log start {}",
                    tp,
                    groupCommitted,
                    logEnd,
                    logStart);
            meters.offsetReset("beyond_end");
            return logStart;
        }
        return groupCommitted;
    }
}
