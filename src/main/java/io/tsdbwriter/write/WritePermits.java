package io.tsdbwriter.write;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Write permits (DESIGN §6): one limiter per VictoriaMetrics endpoint, each matched to that endpoint's insert
 * concurrency ({@code vm_concurrent_insert_capacity}, re-read every minute and applied with
 * {@link #capacity(WriteTarget, int)}), plus one byte budget that caps request bytes buffered or in flight
 * ({@code --max-inflight-bytes}). A poll thread acquires before handing a batch to a writer thread and blocks while
 * no endpoint has a free permit: that wait IS the backpressure, it keeps the queue on our side instead of inside
 * vminsert. With several endpoints the batch goes to the one with the most free permits (the least loaded),
 * preferring healthy ones. Follows VictoriaMetrics {@code lib/writeconcurrencylimiter}: a fast path when a permit
 * is free, then a counted wait.
 *
 * <p>Thread-safe.
 */
public final class WritePermits {

    /** A held permit: the endpoint to write to and the byte budget taken. */
    public record Permit(WriteTarget endpoint, int bytes) {}

    private static final class Limiter {
        int capacity;
        int inUse;

        Limiter(int capacity) {
            this.capacity = capacity;
        }
    }

    private final int defaultCapacity;
    private final int maxInflightBytes;
    private final Semaphore bytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final Map<WriteTarget, Limiter> limiters = new IdentityHashMap<>();
    private final AtomicLong limitReached = new AtomicLong();

    /**
     * @param defaultCapacity  concurrent requests per endpoint until {@link #capacity(WriteTarget, int)} says otherwise (≥ 1)
     * @param maxInflightBytes request bytes allowed buffered or in flight (≥ 1); a single batch larger than this
     *                         takes the whole budget
     */
    public WritePermits(int defaultCapacity, int maxInflightBytes) {
        if (defaultCapacity < 1) {
            throw new IllegalArgumentException("write permits must be >= 1, got " + defaultCapacity);
        }
        if (maxInflightBytes < 1) {
            throw new IllegalArgumentException("max in-flight bytes must be >= 1, got " + maxInflightBytes);
        }
        this.defaultCapacity = defaultCapacity;
        this.maxInflightBytes = maxInflightBytes;
        this.bytes = new Semaphore(maxInflightBytes);
    }

    private Limiter limiter(WriteTarget e) {
        return limiters.computeIfAbsent(e, k -> new Limiter(defaultCapacity));
    }

    /** Sets an endpoint's concurrency (≥ 1); held permits above a lowered capacity drain as they are released. */
    public void capacity(WriteTarget endpoint, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        lock.lock();
        try {
            limiter(endpoint).capacity = capacity;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes {@code min(byteCount, maxInflightBytes)} bytes of budget and a permit of the endpoint with the most free
     * permits — among those {@code preferred} accepts, if any has one free — waiting as long as needed.
     *
     * @throws InterruptedException when the waiting thread is interrupted (nothing is then held)
     */
    public Permit acquire(List<WriteTarget> endpoints, int byteCount, Predicate<WriteTarget> preferred)
            throws InterruptedException {
        int b = Math.max(1, Math.min(byteCount, maxInflightBytes));
        boolean waited = false;
        if (!bytes.tryAcquire(b)) {
            waited = true;
            limitReached.incrementAndGet();
            bytes.acquire(b);
        }
        lock.lock();
        try {
            while (true) {
                WriteTarget best = pick(endpoints, preferred);
                if (best == null) {
                    best = pick(endpoints, e -> true);
                }
                if (best != null) {
                    limiter(best).inUse++;
                    return new Permit(best, b);
                }
                if (!waited) {
                    waited = true;
                    limitReached.incrementAndGet();
                }
                released.await();
            }
        } catch (InterruptedException e) {
            bytes.release(b);
            throw e;
        } finally {
            lock.unlock();
        }
    }

    /** Single-endpoint convenience: {@code acquire(List.of(endpoint), byteCount, any)}. */
    public Permit acquire(WriteTarget endpoint, int byteCount) throws InterruptedException {
        return acquire(List.of(endpoint), byteCount, e -> true);
    }

    private WriteTarget pick(List<WriteTarget> endpoints, Predicate<WriteTarget> ok) {
        WriteTarget best = null;
        int bestFree = 0;
        for (WriteTarget e : endpoints) {
            Limiter l = limiter(e);
            int free = l.capacity - l.inUse;
            if (free > bestFree && ok.test(e)) {
                best = e;
                bestFree = free;
            }
        }
        return best;
    }

    /** Returns a permit taken by {@link #acquire}. */
    public void release(Permit permit) {
        lock.lock();
        try {
            limiter(permit.endpoint()).inUse--;
            released.signalAll();
        } finally {
            lock.unlock();
        }
        bytes.release(permit.bytes());
    }

    /** Concurrent requests allowed, all endpoints. */
    public int capacity() {
        lock.lock();
        try {
            return limiters.values().stream().mapToInt(l -> l.capacity).sum();
        } finally {
            lock.unlock();
        }
    }

    /** Concurrent requests allowed to {@code endpoint}. */
    public int capacity(WriteTarget endpoint) {
        lock.lock();
        try {
            return limiter(endpoint).capacity;
        } finally {
            lock.unlock();
        }
    }

    /** Permits now held, all endpoints. */
    public int inUse() {
        lock.lock();
        try {
            return limiters.values().stream().mapToInt(l -> l.inUse).sum();
        } finally {
            lock.unlock();
        }
    }

    /** Permits now held for {@code endpoint}. */
    public int inUse(WriteTarget endpoint) {
        lock.lock();
        try {
            return limiter(endpoint).inUse;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until no endpoint holds more permits than its capacity — after {@link #capacity(WriteTarget, int)} lowered
     * one, the requests in flight above it finish — or until {@code timeout} passed.
     *
     * @return true when every endpoint is within its capacity
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitWithinCapacity(Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (limiters.values().stream().anyMatch(l -> l.inUse > l.capacity)) {
                if (left <= 0) {
                    return false;
                }
                left = released.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of budget now held. */
    public long inflightBytes() {
        return (long) maxInflightBytes - bytes.availablePermits();
    }

    /** Acquires that could not take their permit or bytes at once and had to wait. */
    public long limitReached() {
        return limitReached.get();
    }
}
