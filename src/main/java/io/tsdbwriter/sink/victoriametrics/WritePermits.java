package io.tsdbwriter.sink.victoriametrics;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Write permits (DESIGN §6): a semaphore matched to the targets' insert concurrency
 * ({@code vm_concurrent_insert_capacity}), plus a byte budget that caps request bytes buffered or in flight
 * ({@code --max-inflight-bytes}). A poll thread acquires before handing a batch to a writer thread and blocks
 * while none is free: that wait IS the backpressure, it keeps the queue on our side instead of inside vminsert.
 * Follows VictoriaMetrics {@code lib/writeconcurrencylimiter}: a try-acquire fast path, then a counted wait.
 *
 * <p>Thread-safe.
 */
public final class WritePermits {

    private final int capacity;
    private final Semaphore permits;
    private final int maxInflightBytes;
    private final Semaphore bytes;
    private final AtomicLong limitReached = new AtomicLong();

    /**
     * @param capacity         concurrent requests allowed (≥ 1)
     * @param maxInflightBytes request bytes allowed buffered or in flight (≥ 1); a single batch larger than this
     *                         takes the whole budget
     */
    public WritePermits(int capacity, int maxInflightBytes) {
        if (capacity < 1) {
            throw new IllegalArgumentException("write permits must be >= 1, got " + capacity);
        }
        if (maxInflightBytes < 1) {
            throw new IllegalArgumentException("max in-flight bytes must be >= 1, got " + maxInflightBytes);
        }
        this.capacity = capacity;
        this.permits = new Semaphore(capacity);
        this.maxInflightBytes = maxInflightBytes;
        this.bytes = new Semaphore(maxInflightBytes);
    }

    /**
     * Takes one permit and {@code min(byteCount, maxInflightBytes)} bytes of budget, waiting as long as needed.
     *
     * @return the byte budget taken, to pass to {@link #release(int)}
     * @throws InterruptedException when the waiting thread is interrupted (nothing is then held)
     */
    public int acquire(int byteCount) throws InterruptedException {
        int b = Math.max(1, Math.min(byteCount, maxInflightBytes));
        if (!bytes.tryAcquire(b)) {
            limitReached.incrementAndGet();
            bytes.acquire(b);
        }
        try {
            if (!permits.tryAcquire()) {
                limitReached.incrementAndGet();
                permits.acquire();
            }
        } catch (InterruptedException e) {
            bytes.release(b);
            throw e;
        }
        return b;
    }

    /** Returns a permit and the byte budget {@link #acquire} took. */
    public void release(int byteBudget) {
        permits.release();
        bytes.release(byteBudget);
    }

    /** Concurrent requests allowed. */
    public int capacity() {
        return capacity;
    }

    /** Permits now held. */
    public int inUse() {
        return capacity - permits.availablePermits();
    }

    /** Bytes of budget now held. */
    public long inflightBytes() {
        return (long) maxInflightBytes - bytes.availablePermits();
    }

    /** Times an acquire could not take its permit or bytes at once and had to wait. */
    public long limitReached() {
        return limitReached.get();
    }
}
