package io.tsdbwriter.kafka.segment;

import java.util.ArrayDeque;

/**
 * Tracks, for one SegmentConsumer, which offsets are durable in VictoriaMetrics. Batches are registered in
 * offset order by the poll thread and completed in any order by writer threads; the first unacked offset is
 * the lowest of: the first offset of the oldest batch still pending, of the batch still being filled, and the
 * read position. Records that produced no batch (rejected records, handled at read time) are covered by whatever
 * comes after them.
 *
 * <p>Thread-safe (all methods synchronized; calls are per batch, not per sample).
 */
public final class AckTracker {

    /** One batch's claim on an offset range. */
    public static final class Pending {
        private final long firstOffset;
        private boolean done;

        private Pending(long firstOffset) {
            this.firstOffset = firstOffset;
        }

        /** First offset with points in the batch. */
        public long firstOffset() {
            return firstOffset;
        }
    }

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private long readPosition;
    private long openFirstOffset = -1;
    private boolean abandoned;
    private long frozen;

    /** @param startOffset where this consumer starts (its first segment's start) */
    public AckTracker(long startOffset) {
        this.readPosition = startOffset;
    }

    /** Marks {@code offset} as the first offset of the batch now being filled (-1: none). */
    public synchronized void openBatchAt(long offset) {
        openFirstOffset = offset;
    }

    /** Closes the open batch and registers it as pending; returns its handle. */
    public synchronized Pending registerOpenBatch() {
        if (openFirstOffset < 0) {
            throw new IllegalStateException("no open batch");
        }
        Pending p = new Pending(openFirstOffset);
        pending.addLast(p);
        openFirstOffset = -1;
        return p;
    }

    /** Records that everything below {@code position} has been read (and is pending, open or done). */
    public synchronized void readTo(long position) {
        readPosition = position;
    }

    /**
     * Marks a batch done (written with a 2xx, or dead-lettered / rejected with a counted reason).
     *
     * @return true if this moved the first unacked offset
     */
    public synchronized boolean complete(Pending p) {
        p.done = true;
        boolean moved = false;
        while (!pending.isEmpty() && pending.peekFirst().done) {
            pending.pollFirst();
            moved = true;
        }
        return moved;
    }

    /**
     * Stops accounting (the partition was revoked or the process is stopping without its writes): from now on
     * {@link #firstUnacked()} stays where it is, whatever completes later.
     */
    public synchronized void abandon() {
        abandoned = true;
        frozen = firstUnackedLocked();
    }

    /** The lowest offset not yet durable (everything below it is written, dead-lettered or rejected). */
    public synchronized long firstUnacked() {
        return abandoned ? frozen : firstUnackedLocked();
    }

    private long firstUnackedLocked() {
        long min = readPosition;
        for (Pending p : pending) { // a record registered while a batch was open sits before that batch
            if (!p.done) {
                min = Math.min(min, p.firstOffset);
            }
        }
        if (openFirstOffset >= 0) {
            min = Math.min(min, openFirstOffset);
        }
        return min;
    }

    /**
     * Registers work on a single record outside any batch (a rejected record on its way to the dead-letter topic).
     * Its offset may lie after the first offset of the batch still being filled; the watermark takes the minimum.
     */
    public synchronized Pending registerRecord(long offset) {
        Pending p = new Pending(offset);
        pending.addLast(p);
        return p;
    }

    /** Batches registered and not yet done. */
    public synchronized int pendingBatches() {
        int n = 0;
        for (Pending p : pending) {
            if (!p.done) {
                n++;
            }
        }
        return n;
    }
}
