package io.tsdbwriter.write;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Request body arrays kept for reuse: a batch's body array goes back here once the writer is done with the batch
 * ({@link WriteBatch#recycle()}, called by {@link BatchWriter} after a write was decided), and the next batch a poll
 * thread opens ({@link BatchCapacity#open()}) takes it instead of allocating. Why (docs/benchmarks-archive.md §17b): with
 * per-series order each poll thread fills one batch per lane, so a batch takes lanes times longer to fill and waits in
 * its lane; bodies then outlive a young collection, and copying and promoting them cost the ordered writer ~15 % of
 * its CPU. A reused array lives in the old generation once and is never copied again.
 *
 * <p>Bounded: at most {@link #MAX_ARRAYS} arrays and {@link #MAX_BYTES} bytes wait here; an array given beyond either
 * is left to the garbage collector, as is one too small for the capacity asked. An array is given back only when no
 * thread uses it any more: never while its request may still be sent, retried or split.
 *
 * <p>Thread-safe (poll threads take, write threads give).
 */
public final class BodyPool {

    /** Arrays kept at most: 256. */
    public static final int MAX_ARRAYS = 256;
    /** Bytes kept at most: 64 MiB. */
    public static final long MAX_BYTES = 64L << 20;

    private static final BodyPool PROCESS = new BodyPool(MAX_ARRAYS, MAX_BYTES);

    private final ArrayBlockingQueue<byte[]> free;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();

    /**
     * @param maxArrays arrays kept at most (≥ 1)
     * @param maxBytes  bytes kept at most
     */
    public BodyPool(int maxArrays, long maxBytes) {
        this.free = new ArrayBlockingQueue<>(maxArrays);
        this.maxBytes = maxBytes;
    }

    /** The process' pool, which the write path's batches share. */
    public static BodyPool process() {
        return PROCESS;
    }

    /** An array of at least {@code capacity} bytes (its content undefined): a kept one, or a new one. */
    byte[] take(int capacity) {
        byte[] a = free.poll();
        if (a == null) {
            return new byte[capacity];
        }
        bytes.addAndGet(-a.length);
        return a.length >= capacity ? a : new byte[capacity]; // a smaller one is dropped: capacities only grow
    }

    /** Keeps {@code a} for a later {@link #take} when within the bounds; the caller no longer uses it. */
    void give(byte[] a) {
        if (bytes.addAndGet(a.length) > maxBytes || !free.offer(a)) {
            bytes.addAndGet(-a.length);
        }
    }

    /** Bytes kept (tests). */
    long bytes() {
        return bytes.get();
    }

    /** Arrays kept (tests). */
    int arrays() {
        return free.size();
    }
}
