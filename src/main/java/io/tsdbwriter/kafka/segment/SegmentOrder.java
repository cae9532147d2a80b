package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.write.OrderedLanes;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The reorder step of one partition under per-series order (DESIGN §4, §6 "Per-series order"): its P readers fill
 * batches of segments k, k+1, … side by side, and this hands them to the writer's ordered lanes
 * ({@link OrderedLanes}) in segment order — every batch of segment k before any of segment k + 1, and
 * within a segment in the order its reader made them. A lane writes what it was handed in that order, one request
 * at a time, so a series (always in one lane) reaches the receiver in offset order, which is timestamp order for a
 * topic keyed by series or host.
 *
 * <p>The batches of the lowest unfinished segment go to the lanes at once (their reader waits only for a lane's
 * room, the backpressure). Later segments' batches are held here until every segment before theirs was read and
 * handed on ({@link #segmentRead}); whichever reader finishes the lowest segment hands the held batches on, segment
 * after segment. Held request bytes are bounded: past {@link #HELD_BYTES} a reader of a later segment waits until its
 * segment is the lowest. The lowest segment's reader never waits here, so the partition always moves. How far the
 * readers run ahead is bounded as before by the watermark gate (segment k waits for k − P to be acknowledged).
 *
 * <p>{@link #stop()} (the partition's readers are stopping) drops what is held: never sent, never acknowledged, so
 * never committed past; the next reader of the partition reads it again. A batch submitted after the stop is dropped
 * too, except one of the lowest segment while nothing of that segment was dropped and no hand-on runs: it is next in
 * line, so it goes to its lane (a stopping reader hands its open batch over, {@link SegmentConsumer}); a batch after a
 * dropped one never goes, which would put its samples before the dropped ones' when the next reader writes them.
 *
 * <p>Thread-safe: called by the partition's reader threads and its member thread.
 */
final class SegmentOrder {

    /**
     * Request bytes a partition holds for later segments before their readers wait: 8 MiB. A held batch waits for a
     * whole segment to be read, so it and the records it keeps for dead-lettering outlive young collections and reach
     * the old generation; a reader ahead waits rather than hold more.
     */
    static final long HELD_BYTES = 8L << 20;

    /** Who made a batch: the listener of its write, told too when the batch is dropped unsent. */
    interface Maker extends WriteListener<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> {
        /** The batch was held for its turn and dropped (the partition stopping): never sent, never acknowledged. */
        void dropped(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch);
    }

    /** What a held batch came with: its lane and its maker. */
    record Held(int lane, WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch, Maker from) {}

    private final OrderedLanes lanes;
    private final long heldLimit;
    /** Segments below it were read and handed on; its own batches go to the lanes at once unless a hand-on runs. */
    private long lowest;

    private final TreeMap<Long, ArrayDeque<Held>> held = new TreeMap<>();
    private final Set<Long> read = new HashSet<>();
    private long heldBytes;
    /** A reader is handing held batches on (outside the lock): new batches of {@link #lowest} queue behind them. */
    private boolean handingOn;

    private boolean stopped;
    /** After the stop: the lowest segment a batch of which was dropped ({@link Long#MAX_VALUE}: none). */
    private long lowestDropped = Long.MAX_VALUE;

    /** @param firstSegment the partition's first segment (the one holding the committed offset) */
    SegmentOrder(OrderedLanes lanes, long firstSegment) {
        this(lanes, firstSegment, HELD_BYTES);
    }

    /** As above, with {@code heldLimit} bytes held before later segments' readers wait (tests). */
    SegmentOrder(OrderedLanes lanes, long firstSegment, long heldLimit) {
        this.lanes = lanes;
        this.lowest = firstSegment;
        this.heldLimit = heldLimit;
    }

    /**
     * Hands a batch of segment {@code k} on in order: to its lane now when k is the lowest unfinished segment, else
     * held for its turn; after {@link #stop()} to its lane when it is next in line, else dropped. May wait for a lane's
     * room, or (k not the lowest, {@link #HELD_BYTES} held) for k's turn.
     *
     * @throws InterruptedException when interrupted while waiting (the batch was neither sent nor held)
     */
    void submit(long k, Held h) throws InterruptedException {
        synchronized (this) {
            while (!stopped && k > lowest && heldBytes >= heldLimit) {
                wait();
            }
            if (stopped && (k > lowest || handingOn || k >= lowestDropped)) {
                lowestDropped = Math.min(lowestDropped, k);
                h.from().dropped(h.batch());
                return;
            }
            if (!stopped && (k > lowest || handingOn)) {
                held.computeIfAbsent(k, x -> new ArrayDeque<>()).addLast(h);
                heldBytes += h.batch().body().length();
                return;
            }
        }
        lanes.submit(h.lane(), h.batch(), h.from()); // k is the lowest, nothing of it held: no one else hands k on
    }

    /**
     * Segment {@code k} was read and every batch of it submitted: when it is the lowest, the held batches of the next
     * segments are handed on, as far as they are read, by this thread (others' calls meanwhile only record theirs).
     *
     * @throws InterruptedException when interrupted handing on (what was not handed on is dropped)
     */
    void segmentRead(long k) throws InterruptedException {
        synchronized (this) {
            read.add(k);
            if (handingOn || stopped) {
                return; // the thread handing on sees k when it gets there
            }
            handingOn = true;
        }
        List<Held> out = List.of();
        int next = 0;
        try {
            while (true) {
                synchronized (this) {
                    ArrayDeque<Held> q = stopped ? null : held.remove(lowest); // the lowest's held batches first
                    while (q == null && !stopped && read.remove(lowest)) {
                        lowest++;
                        notifyAll(); // a reader waiting for its turn may now be the lowest
                        q = held.remove(lowest);
                    }
                    if (q == null || stopped) {
                        handingOn = false;
                        notifyAll();
                        return;
                    }
                    out = new ArrayList<>(q);
                    next = 0;
                    for (Held h : q) {
                        heldBytes -= h.batch().body().length();
                    }
                    notifyAll();
                }
                for (; next < out.size(); next++) {
                    if (isStopped()) {
                        break;
                    }
                    Held h = out.get(next);
                    lanes.submit(h.lane(), h.batch(), h.from());
                }
                for (; next < out.size(); next++) {
                    out.get(next).from().dropped(out.get(next).batch()); // stopped while handing on
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            for (; next < out.size(); next++) {
                out.get(next).from().dropped(out.get(next).batch());
            }
            synchronized (this) {
                handingOn = false;
                notifyAll();
            }
            throw e;
        }
    }

    private synchronized boolean isStopped() {
        return stopped;
    }

    /** The partition's readers are stopping: what is held is dropped (never sent, never acknowledged). Idempotent. */
    void stop() {
        List<Held> dropped = new ArrayList<>();
        synchronized (this) {
            stopped = true;
            if (handingOn) {
                lowestDropped = lowest; // the hand-on drops what it has not handed on yet
            }
            if (!held.isEmpty()) {
                lowestDropped = Math.min(lowestDropped, held.firstKey());
            }
            held.values().forEach(dropped::addAll);
            held.clear();
            heldBytes = 0;
            notifyAll();
        }
        dropped.forEach(h -> h.from().dropped(h.batch()));
    }

    /** Request bytes held for later segments (tests, meters). */
    synchronized long heldBytes() {
        return heldBytes;
    }

    /** The lowest segment not yet read and handed on (tests). */
    synchronized long lowest() {
        return lowest;
    }
}
