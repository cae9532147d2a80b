package io.tsdbwriter.kafka.group;

import io.micrometer.core.instrument.Tags;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import io.tsdbwriter.kafka.segment.Watermark;
import io.tsdbwriter.metrics.WriterMeters;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member's offset commits (DESIGN §4): each partition's durable watermark (its {@link Watermark} once the
 * durability window has passed with no TSDB restart, {@link PartitionWorkers#durableWatermark}) is committed when
 * {@link CommitSchedule} says (at every segment end, at least every commit interval and, with a durability window, at
 * most about 0.9 s after the window ended), never an offset above a sample not yet stored; the last commit on release.
 * Keeps the offsets this member committed and the partitions' log end offsets, behind the {@code committed.offset} and
 * {@code consumer.lag.records} gauges and the input rate ({@link #logEndTotal}).
 *
 * <p>Threading: every method but the getters and the gauges runs on the group-member thread, which owns the
 * consumer; {@link #committedOffsets}, {@link #logEndTotal} and the gauges are read from any thread.
 */
final class OffsetCommits {

    private static final Logger log = LoggerFactory.getLogger(OffsetCommits.class);
    /** One commit's bound. */
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);
    /** One end-offsets request's bound. */
    private static final Duration END_OFFSETS_TIMEOUT = Duration.ofSeconds(5);

    private final long segmentSize;
    private final WriterMeters meters;
    private final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> logEnd = new ConcurrentHashMap<>();
    /** Each partition's acknowledged watermark as last sampled: the lag gauge's base (commits lag it by the window). */
    private final Map<TopicPartition, Long> acked = new ConcurrentHashMap<>();

    private final AtomicLong logEndTotal = new AtomicLong();

    /**
     * @param segmentSize records per segment: a watermark crossing a multiple of it is committed at once
     * @param meters      where the per-partition gauges go
     */
    OffsetCommits(long segmentSize, WriterMeters meters) {
        this.segmentSize = segmentSize;
        this.meters = meters;
    }

    /**
     * A partition was assigned: {@code groupCommitted} is the group's own committed offset (−1: none); a start moved
     * past it (deleted records) is committed promptly, as the watermark moves past it. Registers its gauges.
     */
    void assigned(TopicPartition tp, long groupCommitted, long start) {
        committed.put(tp, groupCommitted < 0 ? start : Math.min(groupCommitted, start));
        acked.put(tp, start);
        Tags tags = Tags.of("topic", tp.topic(), "partition", Integer.toString(tp.partition()));
        meters.removeGauge("committed.offset", tags);
        meters.removeGauge("consumer.lag.records", tags);
        meters.gauge(
                "committed.offset",
                "Offset committed for the partition (its watermark)",
                tags,
                tp,
                t -> committed.getOrDefault(t, 0L));
        meters.gauge(
                "consumer.lag.records",
                "Log end offset minus the acknowledged watermark: records not yet written (the "
                        + "committed offset lags the watermark by the durability window: records.awaiting.durability)",
                tags,
                tp,
                t -> Math.max(0, logEnd.getOrDefault(t, 0L) - acked.getOrDefault(t, committed.getOrDefault(t, 0L))));
    }

    /** The commit metadata's key of the acknowledged watermark: {@code acked=<offset>}. */
    static final String ACKED = "acked=";

    /**
     * A commit of the durable watermark {@code wm} whose metadata carries the acknowledged one ({@code acked}, at least
     * {@code wm}): the next reader of the partition (after a rebalance or a restart) knows which records it reads again
     * were done before, so a refusal of their samples as out of order is a repeat's (DESIGN §4).
     */
    static OffsetAndMetadata commit(long wm, long acked) {
        return new OffsetAndMetadata(wm, ACKED + Math.max(wm, acked));
    }

    /** The acknowledged watermark a commit's metadata carries; -1 when none (no commit, or one by another tool). */
    static long ackedOf(OffsetAndMetadata om) {
        if (om == null || om.metadata() == null || !om.metadata().startsWith(ACKED)) {
            return -1;
        }
        try {
            return Long.parseLong(om.metadata().substring(ACKED.length()).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Commits every partition whose durable watermark (as of {@code state}) is due in {@code round}
     * ({@link CommitSchedule#reason}).
     *
     * @return true when a watermark was committed because it advanced within a segment ({@link
     *     CommitSchedule.Reason#ADVANCED}): the schedule's spacing restarts
     */
    boolean commitAdvanced(
            KafkaConsumer<byte[], byte[]> c,
            Collection<PartitionWorkers> workers,
            CommitSchedule.Round round,
            DurabilityClock.State state) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        boolean followed = false;
        for (PartitionWorkers w : workers) {
            long wm = w.durableWatermark(state);
            acked.put(w.partition(), w.ackedSoFar());
            long last = committed.getOrDefault(w.partition(), w.startOffset());
            CommitSchedule.Reason why = CommitSchedule.reason(wm, last, segmentSize, w.stopOffset(), round);
            if (why != CommitSchedule.Reason.NONE) {
                offsets.put(w.partition(), commit(wm, w.ackedSoFar()));
                followed |= why == CommitSchedule.Reason.ADVANCED;
            }
        }
        commitSync(c, offsets, workers);
        return followed;
    }

    /**
     * The last commit of partitions being released (their readers stopped, their writes drained or given up): their
     * durable watermark as of {@code state}; what was acknowledged above it is read again by the next owner. A null
     * {@code state} (a TSDB restart not yet rewound for) commits only what was known stored before it.
     */
    void commitReleased(
            KafkaConsumer<byte[], byte[]> c, Collection<PartitionWorkers> leaving, DurabilityClock.State state) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionWorkers w : leaving) {
            long wm = state == null ? w.durableSoFar() : w.durableWatermark(state);
            if (wm > committed.getOrDefault(w.partition(), w.startOffset())) {
                offsets.put(w.partition(), commit(wm, w.watermark()));
            }
        }
        try {
            commitSync(c, offsets, leaving);
        } catch (WakeupException e) {
            commitSync(c, offsets, leaving); // wakeup consumed; try once more
        }
    }

    /** Commits {@code offsets}; once committed, each of {@code workers} committed is told (its ingest delays). */
    private void commitSync(
            KafkaConsumer<byte[], byte[]> c,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            Collection<PartitionWorkers> workers) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            c.commitSync(offsets, COMMIT_TIMEOUT);
            offsets.forEach((tp, om) -> committed.put(tp, om.offset()));
            for (PartitionWorkers w : workers) {
                OffsetAndMetadata om = offsets.get(w.partition());
                if (om != null) {
                    w.committed(om.offset());
                }
            }
            log.debug("committed {}", offsets);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("commit of {} failed (will retry): {}", offsets, e.toString());
        }
    }

    /** Log end offsets read by the rebalance listener (the lag gauges). */
    void logEnds(Map<TopicPartition, Long> ends) {
        logEnd.putAll(ends);
    }

    /** Reads the log end offsets of the assigned partitions (the lag gauges and the input rate). */
    void refreshLogEnd(KafkaConsumer<byte[], byte[]> c) {
        Set<TopicPartition> assigned = c.assignment();
        if (assigned.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, Long> ends = c.endOffsets(assigned, END_OFFSETS_TIMEOUT);
            logEnd.putAll(ends);
            long total = 0;
            for (Long v : logEnd.values()) {
                total += v;
            }
            logEndTotal.set(total);
        } catch (RuntimeException e) {
            log.debug("end offsets not available now: {}", e.toString());
        }
    }

    /** Total log end offset of the assigned partitions, refreshed every few seconds (input rate). Any thread. */
    long logEndTotal() {
        return logEndTotal.get();
    }

    /** The offset committed for {@code tp} by this member (or the one it started from). Any thread. */
    long committed(TopicPartition tp, long otherwise) {
        return committed.getOrDefault(tp, otherwise);
    }

    /** Offsets committed by this member, by partition: a copy. Any thread. */
    Map<TopicPartition, Long> committedOffsets() {
        return Map.copyOf(committed);
    }
}
