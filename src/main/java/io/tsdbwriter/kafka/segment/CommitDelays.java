package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.metrics.IngestDelay;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * One partition's acknowledged batches waiting for the offset commit that covers them, for the ingest delay's
 * {@code committed} stage ({@link IngestDelay.Stage#COMMITTED}): each batch is kept by the offset of its last record
 * with the time its delay is measured from; a commit of offset {@code o} covers every batch whose last record lies
 * below {@code o}, and each such batch's delay is recorded then. Measures nothing until {@link #measure()} (a group
 * member's partition: a replay commits nothing, so it keeps nothing); batches acknowledged and never covered (the
 * partition revoked, rewound) go with it.
 *
 * <p>Thread-safe: batches are acknowledged on the writer's threads, commits happen on the member's thread; per batch,
 * not per sample.
 */
final class CommitDelays {

    private final IngestDelay delay;
    /** {lastOffset, sinceMs} of acknowledged batches, lowest last offset first. */
    private final PriorityQueue<long[]> waiting = new PriorityQueue<>(Comparator.comparingLong(b -> b[0]));

    private volatile boolean measured;

    CommitDelays(IngestDelay delay) {
        this.delay = delay;
    }

    /** From now on acknowledged batches are kept until a commit covers them. */
    void measure() {
        measured = true;
    }

    /**
     * A batch whose last record is at {@code lastOffset} was acknowledged; its delay is measured from {@code sinceMs}
     * (epoch milliseconds; {@link IngestDelay#NONE}: not measured).
     */
    void acknowledged(long lastOffset, long sinceMs) {
        if (!measured || sinceMs == IngestDelay.NONE) {
            return;
        }
        synchronized (waiting) {
            waiting.add(new long[] {lastOffset, sinceMs});
        }
    }

    /** Offset {@code offset} was committed: every batch kept whose last record lies below it reaches the stage now. */
    void committed(long offset) {
        synchronized (waiting) {
            while (!waiting.isEmpty() && waiting.peek()[0] < offset) {
                delay.record(IngestDelay.Stage.COMMITTED, waiting.poll()[1]);
            }
        }
    }

    /** Batches acknowledged and not yet covered by a commit. */
    int waiting() {
        synchronized (waiting) {
            return waiting.size();
        }
    }
}
