package io.tsdbwriter.kafka.group;

import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions a {@link GroupMember} holds, a {@link PartitionWorkers} each, and the two ways they start: on
 * assignment (DESIGN §5), each from the group's committed offset ({@link StartOffset}) and, with
 * {@code --stop-at-end}, to the end recorded at start; and on a TSDB restart (DESIGN §4), when every partition
 * rewinds to its last commit. {@link Release} takes them back.
 *
 * <p>Threading: the group-member thread only — its poll loop and the rebalance callbacks Kafka runs inside
 * {@code poll}; the partitions' writer threads only call the ack signal given at construction.
 */
final class HeldPartitions {

    private static final Logger log = LoggerFactory.getLogger(HeldPartitions.class);

    private final IntakeSettings workerSettings;
    private final OffsetCommits commits;
    private final boolean stopAtEnd;
    /** Wakes the member loop: every ack that moves a watermark (so a segment end is committed at once). */
    private final Runnable signalAck;
    /** When an acknowledged write counts as stored, and the TSDB restarts seen. */
    private final DurabilityClock durability;

    private final Map<TopicPartition, PartitionWorkers> workers = new ConcurrentHashMap<>();
    /** With {@code --stop-at-end}: the end each partition is read to (member thread only). */
    private final Map<TopicPartition, Long> stopOffsets = new HashMap<>();
    /** The TSDB restarts this member has rewound for (member thread). */
    private long restartsSeen;

    private volatile boolean assignedOnce;

    /**
     * @param workerSettings what every partition's SegmentConsumers need
     * @param commits        the member's commits: told each assigned partition's start, asked for the last commit
     * @param stopAtEnd      {@code --stop-at-end}: each partition is read to its recorded end
     * @param signalAck      run by the writer threads when an ack moved a watermark
     */
    HeldPartitions(IntakeSettings workerSettings, OffsetCommits commits, boolean stopAtEnd, Runnable signalAck) {
        this.workerSettings = workerSettings;
        this.commits = commits;
        this.stopAtEnd = stopAtEnd;
        this.signalAck = signalAck;
        this.durability = workerSettings.durability();
        this.restartsSeen = durability.state().restarts();
    }

    /** With {@code --stop-at-end}: the end offset of every partition, recorded at start (the ends to read to). */
    Map<TopicPartition, Long> stopOffsets() {
        return stopOffsets;
    }

    /**
     * Kafka assigned {@code partitions}: each is paused (the member only holds membership) and read by a new
     * {@link PartitionWorkers} from where {@link StartOffset} says, to its recorded end under {@code --stop-at-end}.
     */
    void assign(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            assignedOnce = true;
            return;
        }
        c.pause(partitions);
        Set<TopicPartition> set = new HashSet<>(partitions);
        Map<TopicPartition, OffsetAndMetadata> com = c.committed(set, Duration.ofSeconds(30));
        Map<TopicPartition, Long> begin = c.beginningOffsets(set, Duration.ofSeconds(30));
        Map<TopicPartition, Long> ends = c.endOffsets(set, Duration.ofSeconds(30));
        commits.logEnds(ends);
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata om = com.get(tp);
            long logStart = begin.getOrDefault(tp, 0L);
            long start = StartOffset.of(
                    tp,
                    om == null ? -1 : om.offset(),
                    logStart,
                    ends.getOrDefault(tp, logStart),
                    workerSettings.meters());
            long stop = Long.MAX_VALUE;
            if (stopAtEnd) {
                // the end recorded at start, also for a partition handed over later: never read past it
                stop = stopOffsets.computeIfAbsent(tp, t -> ends.get(t));
                stop = Math.max(stop, start);
            }
            // the group's own committed offset: a start moved past it (deleted records) is committed promptly
            commits.assigned(tp, om == null ? -1 : om.offset(), start);
            // every ack that moves a watermark wakes this member's loop, so a segment end is committed at once
            // (a SegmentConsumer waits for segment k-P to be committed before it reads segment k)
            PartitionWorkers w = new PartitionWorkers(tp, start, stop, workerSettings, signalAck);
            w.doneBelow(OffsetCommits.ackedOf(om)); // what the last owner had acknowledged: read again, repeats
            w.rewoundOnRestart();
            w.measureCommits(); // the ingest delay's committed stage
            workers.put(tp, w);
            w.start();
            log.info(
                    "assigned {}: reading from offset {}{} with {} segment consumer(s)",
                    tp,
                    start,
                    stop == Long.MAX_VALUE ? "" : " to " + stop,
                    workerSettings.parallelism());
        }
        assignedOnce = true;
    }

    /** Rewinds every partition when {@code state} shows a TSDB restart not seen yet. */
    void rewindOnRestart(DurabilityClock.State state) {
        if (state.restarts() != restartsSeen) {
            restartsSeen = state.restarts();
            rewind();
        }
    }

    /**
     * A TSDB process restarted (DESIGN §4): what it acknowledged within the window may be lost, so every partition
     * rewinds to its last commit — its readers stop, late acknowledgements are dropped, new readers start from the
     * committed offset and write again (at-least-once; a TSDB deduplicating with {@code -dedup.minScrapeInterval}
     * keeps one sample per timestamp). The old readers' writes went stale when the restart was seen (DESIGN §4): none is
     * sent or retried after it, and their late answers decide nothing.
     */
    private void rewind() {
        if (workers.isEmpty()) {
            return;
        }
        List<PartitionWorkers> old = new ArrayList<>(workers.values());
        try {
            PartitionWorkers.stopReaders(old, Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        long reread = 0;
        List<String> ranges = new ArrayList<>();
        for (PartitionWorkers w : old) {
            w.abandon();
            long from = commits.committed(w.partition(), w.startOffset());
            long to = Math.max(from, w.watermark());
            reread += to - from;
            ranges.add(w.partition() + " [" + from + ", " + to + ")");
            PartitionWorkers fresh = new PartitionWorkers(
                    w.partition(), from, Math.max(from, w.stopOffset()), workerSettings, signalAck);
            fresh.doneBelow(Math.max(to, w.readSoFar())); // sent before, whether acknowledged or still in flight
            fresh.rewoundOnRestart();
            fresh.measureCommits(); // the ingest delay's committed stage
            workers.put(w.partition(), fresh);
            fresh.start();
        }
        workerSettings.meters().recordsReread.increment(reread);
        log.warn(
                "TSDB restart: {}: re-reading from the last commit, {} acknowledged record(s) written again: {}",
                durability.lastRestart(),
                reread,
                String.join(", ", ranges));
    }

    /** The TSDB restarts this member has rewound for: a commit after another restart would not be stored. */
    long restartsSeen() {
        return restartsSeen;
    }

    /** True once Kafka has run the first assignment (an empty one included). */
    boolean assignedOnce() {
        return assignedOnce;
    }

    boolean isEmpty() {
        return workers.isEmpty();
    }

    /** The partition's workers, or null when it is not held. */
    PartitionWorkers get(TopicPartition tp) {
        return workers.get(tp);
    }

    /** Every held partition's workers (a live view). */
    Collection<PartitionWorkers> workers() {
        return workers.values();
    }

    /** The held partitions, copied. */
    List<TopicPartition> partitions() {
        return new ArrayList<>(workers.keySet());
    }

    /** Forgets a released partition. */
    void remove(TopicPartition tp) {
        workers.remove(tp);
    }

    /** Drops every partition's late completions (the member failed). */
    void abandonAll() {
        workers.values().forEach(PartitionWorkers::abandon);
    }

    /** Records acknowledged and not yet stored, over the held partitions. */
    long awaitingDurability() {
        long n = 0;
        for (PartitionWorkers w : workers.values()) {
            n += w.awaitingDurability();
        }
        return n;
    }

    private boolean allFinished() {
        if (workers.isEmpty()) {
            return false;
        }
        for (PartitionWorkers w : workers.values()) {
            if (!w.finished()) {
                return false;
            }
        }
        return true;
    }

    /** What this process is doing with its partitions, for the stop-at-end waiting line. */
    String localState() {
        return workers.isEmpty()
                ? "this process holds no partition now"
                : allFinished()
                        ? (awaitingDurability() > 0
                                ? "this process's partitions are written; waiting "
                                        + durability.window().toSeconds()
                                        + "s after the last write for the TSDB to persist it"
                                : "this process's partitions are written")
                        : "still writing " + GroupProgress.names(workers.keySet());
    }
}
