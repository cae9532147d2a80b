package io.tsdbwriter.kafka.group;

import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link GroupMember} lets partitions go (DESIGN §4, §5) — revoked or lost in a rebalance, or all of them at the
 * member's stop: their readers stop, their writes drain up to the drain timeout, the durable watermark is committed
 * and the partitions are forgotten ({@link HeldPartitions}); late completions are dropped. A rebalance commits what is
 * stored now (the next owner writes the rest again, at once); the member's stop first waits, within the same drain
 * timeout, for the durability window to pass, so its last commit covers what it wrote.
 *
 * <p>Threading: the group-member thread only (the rebalance callbacks run inside its {@code poll}, the stop at the
 * end of its loop); {@link #cleanStop()} may be read from any thread.
 */
final class Release {

    private static final Logger log = LoggerFactory.getLogger(Release.class);

    private final HeldPartitions held;
    private final OffsetCommits commits;
    private final DurabilityClock durability;
    private final Duration drainTimeout;
    private volatile boolean cleanStop = true;

    /**
     * @param held         the partitions the member holds
     * @param commits      where the released partitions' last commits go
     * @param durability   when an acknowledged write counts as stored, and the TSDB restarts seen
     * @param drainTimeout how long a release waits for the partitions' writes, at most
     */
    Release(HeldPartitions held, OffsetCommits commits, DurabilityClock durability, Duration drainTimeout) {
        this.held = held;
        this.commits = commits;
        this.durability = durability;
        this.drainTimeout = drainTimeout;
    }

    /**
     * The member stops: every partition is released, its last commit waiting for the writes to count as stored.
     *
     * @return the records acknowledged but not known stored when released, so left uncommitted (0 when the window
     *     passed within the drain timeout): the final value of {@code tsdbwriter_records_awaiting_durability}
     */
    long revokeAll(KafkaConsumer<byte[], byte[]> c, boolean commit) {
        return release(c, held.partitions(), commit, true);
    }

    /** A rebalance takes {@code partitions}: revoked ({@code commit}) or lost (no commit: another member owns them). */
    void release(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> partitions, boolean commit) {
        release(c, partitions, commit, false);
    }

    /**
     * Stops readers, drains writes up to the drain timeout, commits the durable watermark, forgets the partitions. A
     * rebalance commits what is stored now (the next owner writes the rest again, at once); the member's own stop
     * ({@code awaitStored}) first waits, within the same drain timeout, for the window to pass. Returns the records of
     * the partitions acknowledged but not known stored at their last commit.
     */
    private long release(
            KafkaConsumer<byte[], byte[]> c,
            Collection<TopicPartition> partitions,
            boolean commit,
            boolean awaitStored) {
        List<PartitionWorkers> leaving = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionWorkers w = held.get(tp);
            if (w != null) {
                leaving.add(w);
            }
        }
        if (leaving.isEmpty()) {
            return 0;
        }
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        try {
            // every partition at once: the whole revocation is bounded by --drain-timeout, however many partitions go
            PartitionWorkers.stopReaders(leaving, deadline);
            for (PartitionWorkers w : leaving) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                if (!w.awaitDrained(left)) {
                    cleanStop = false;
                    if (!w.writesHeldAtStop()) { // held at the stop: the exit line says so, once
                        log.warn(
                                "{}: {} batch(es) still unwritten (drain timeout, or given up on a configuration fault); committing only "
                                        + "below them",
                                w.partition(),
                                w.pendingBatches());
                    }
                }
            }
            if (awaitStored && commit && !heldAtStop(leaving)) {
                awaitStored(leaving, deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanStop = false;
        }
        leaving.forEach(PartitionWorkers::abandon);
        if (commit) {
            DurabilityClock.State state = durability.state();
            commits.commitReleased(
                    c, leaving, state.restarts() == held.restartsSeen() ? state : null); // null: restarted meanwhile
        }
        long awaiting = 0;
        for (PartitionWorkers w : leaving) {
            awaiting += w.awaitingDurability(); // after the last commit: what it could not cover
            held.remove(w.partition());
            log.info("released {} at watermark {}", w.partition(), w.watermark());
        }
        return awaiting;
    }

    /**
     * Whether the stop held writes because the TSDB was failing ({@code BatchWriter.stopping}): then it does not wait
     * out the durability window either (the TSDB, failing, may not even answer its probe) but commits what is stored
     * now; what was acknowledged within the window is written again by the next start, as the held writes are.
     */
    private static boolean heldAtStop(Collection<PartitionWorkers> leaving) {
        return leaving.stream().anyMatch(PartitionWorkers::writesHeldAtStop);
    }

    /**
     * Stopping, once the writes are drained: waits until {@code deadlineNanos} at most for what was acknowledged to
     * count as stored (the window passed with no restart), so the last commit covers it; what is not stored by then
     * is read again by the next owner.
     */
    private void awaitStored(Collection<PartitionWorkers> leaving, long deadlineNanos) throws InterruptedException {
        if (durability.off()) {
            return;
        }
        while (System.nanoTime() < deadlineNanos) {
            DurabilityClock.State state = durability.state();
            if (state.restarts() != held.restartsSeen()) {
                return; // not stored: the last commit stays below it, the next owner writes it again
            }
            boolean stored = true;
            for (PartitionWorkers w : leaving) {
                stored &= w.durableWatermark(state) >= w.watermark();
            }
            if (stored) {
                return;
            }
            Thread.sleep(100);
        }
    }

    /** False once a release left a write unwritten (drain timeout, a given-up fault) or was interrupted. */
    boolean cleanStop() {
        return cleanStop;
    }
}
