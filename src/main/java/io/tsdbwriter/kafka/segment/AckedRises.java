package io.tsdbwriter.kafka.segment;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One partition's watermark rises as the writer threads see them, each with the instant it was seen: a group member's
 * thread samples the watermark only in its rounds, which a blocking call (an end-offset read, a commit) can delay by
 * seconds, and a rise it sees late waits out the durability window late. Timed here at the acknowledgement that moved
 * it, a rise becomes durable (DESIGN §4) the window after the acknowledgement itself; the member's own sampling stays.
 *
 * <p>Every entry is a true statement: the watermark is computed before its instant is taken, and watermarks only rise,
 * so "at least {@code watermark} at {@code nanos}" holds; an entry older than one already taken only waits behind it.
 * Records nothing until {@link #enable()} (a member's partition; a replay commits nothing and drains nothing).
 *
 * <p>Thread-safe: {@link #ackMoved} on writer threads (per batch, not per sample), {@link #drainTo} on the member's.
 */
final class AckedRises {

    private final LongSupplier watermark;
    private final ConcurrentLinkedQueue<long[]> rises = new ConcurrentLinkedQueue<>();
    private final AtomicLong offered = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean enabled;

    /** @param watermark the partition's watermark now (the lowest offset not yet acknowledged) */
    AckedRises(LongSupplier watermark) {
        this.watermark = watermark;
    }

    /** From now on rises are kept until {@link #drainTo} takes them. */
    void enable() {
        enabled = true;
    }

    /** An acknowledgement moved one of the partition's trackers: a rise of the watermark is kept with its instant. */
    void ackMoved() {
        if (!enabled) {
            return;
        }
        long wm = watermark.getAsLong();
        long nanos = System.nanoTime();
        long before = offered.get();
        while (wm > before) {
            if (offered.compareAndSet(before, wm)) {
                rises.add(new long[] {nanos, wm});
                return;
            }
            before = offered.get();
        }
    }

    /** Hands the rises kept so far to {@code durable}, in the order they were kept. */
    void drainTo(DurableOffsets durable) {
        for (long[] r; (r = rises.poll()) != null; ) {
            durable.acked(r[0], r[1]);
        }
    }
}
