package io.tsdbwriter.kafka.segment;

import java.util.ArrayDeque;

/**
 * Tracks, for one SegmentConsumer, which offsets are durable in VictoriaMetrics. Batches are registered in
 * offset order by the poll thread and completed in any order by writer threads; the first unacked offset is
 * the lowest of: the first offset of the oldest batch still pending, of the batch still being filled, and the
 * read position. Records that produced no batch (malformed records, handled at read time) are covered by whatever
 * comes after them.
 *
 * <p>Thread-safe (all methods synchronized; calls are per batch, not per sample).
 */
public final class AckTracker {

    /** One batch's claim on an offset range. */
    public static final class Pending {
        private final long firstOffset;
        private boolean done;
        /** Dropped before it was sent (a held batch of a stopping partition): never done, not waited for. */
        private boolean cancelled;

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
        return registerBatch(openFirstOffset, -1);
    }

    /**
     * Registers a batch whose first offset is {@code firstOffset} as pending, with several batches filled at once (one
     * per ordered lane): {@code stillOpenFrom} is the first offset of the oldest batch still being filled, -1 when
     * none. Returns its handle.
     */
    public synchronized Pending registerBatch(long firstOffset, long stillOpenFrom) {
        Pending p = new Pending(firstOffset);
        pending.addLast(p);
        openFirstOffset = stillOpenFrom;
        return p;
    }

    /**
     * A registered batch that will never be sent (held for its turn while its partition stopped): it keeps holding
     * the watermark below it, as an unwritten batch must, but {@link #pendingBatches()} no longer counts it, so a drain
     * does not wait for it.
     */
    public synchronized void cancel(Pending p) {
        if (!p.done) {
            p.cancelled = true;
        }
    }

    /** True once {@link #abandon()} froze the watermark: nothing this tracker holds should be written any more. */
    public synchronized boolean abandoned() {
        return abandoned;
    }

    /** Everything below this offset has been read (and is pending, open or done). */
    public synchronized long readPosition() {
        return readPosition;
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
        p.cancelled = false;
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
     * Registers work on a single record outside any batch (a malformed record on its way to the dead-letter topic).
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
            if (!p.done && !p.cancelled) {
                n++;
            }
        }
        return n;
    }
}
