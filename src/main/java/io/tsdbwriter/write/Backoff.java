package io.tsdbwriter.write;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waits of the write threads — a retry's backoff, the probe interval of a paused write, the poll of an open circuit
 * breaker — which the writer's stop cuts short (issue 41): once {@link #stop()} was called, every wait in progress
 * ends at once and no new one begins, so a stop during a write fault never waits out a backoff of up to
 * {@code --max-backoff}. The wait itself is the {@link RetryPolicy.Sleeper} (tests inject one that never sleeps); a
 * wait is ended by interrupting its thread, and only a thread that is inside {@link #sleep} at that moment. From the stop
 * on, a write that fails twice ({@link Attempts#failedAtStop}) is held: counted here, abandoned by the writer — unless
 * the TSDB answered 429 ({@link #busy}): it is up, and its write waits as told.
 *
 * <p>Thread-safe: {@link #sleep} from the write threads (virtual threads: the lock is a {@link ReentrantLock}, held
 * only to add or remove a thread), {@link #stop()} from any thread.
 */
final class Backoff {

    private final RetryPolicy.Sleeper sleeper;
    private final ReentrantLock lock = new ReentrantLock();
    /** The threads inside {@link #sleep}; guarded by {@link #lock}. */
    private final Set<Thread> waiting = new HashSet<>();
    private volatile boolean stopped;
    private final AtomicInteger batchesHeld = new AtomicInteger();
    private final AtomicLong samplesHeld = new AtomicLong();

    /** Thrown out of a write that failed twice since the stop: it is held (abandoned), not retried. */
    static final class Held extends Exception {
        Held() {
            super(null, null, false, false);
        }
    }

    /** One write's failed attempts since the stop; its thread only. */
    final class Attempts {
        private int failedSinceStop;

        /**
         * Counts a failed attempt ({@code outcome}); true when it is the write's second since the stop: the write is
         * to be held. A 429 is not counted ({@link #busy}).
         */
        boolean failedAtStop(WriteOutcome outcome) {
            return stopped && !busy(outcome) && ++failedSinceStop >= 2;
        }
    }

    /** @param sleeper how a wait is made ({@link Thread#sleep(long)} in production) */
    Backoff(RetryPolicy.Sleeper sleeper) {
        this.sleeper = sleeper;
    }

    /**
     * Waits {@code millis}, or less when the writer stops meanwhile; returns at once once it has stopped.
     *
     * @throws InterruptedException when the thread is interrupted by anything but the stop (the writer's close)
     */
    void sleep(long millis) throws InterruptedException {
        Thread t = Thread.currentThread();
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            waiting.add(t);
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        try {
            sleeper.sleep(millis);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            boolean wokenByStop;
            lock.lock();
            try {
                wokenByStop = !waiting.remove(t); // the stop took it out of the set, then interrupted it
            } finally {
                lock.unlock();
            }
            if (wokenByStop) {
                Thread.interrupted(); // the stop's interrupt, delivered before the lock was ours: spent here
                interrupted = false;
            }
        }
        if (interrupted) {
            throw new InterruptedException("write interrupted while waiting");
        }
    }

    /**
     * A 429: the TSDB is up and says when to come back, so its write is worth the wait even at the stop (within
     * {@code --drain-timeout}): not held, and its wait ({@code Retry-After}, else the backoff) not cut short.
     */
    static boolean busy(WriteOutcome outcome) {
        return outcome.status() == 429;
    }

    /** {@link #sleep(long)}; when {@code evenStopped} (a 429's wait), the full wait whether stopped or not. */
    void sleep(long millis, boolean evenStopped) throws InterruptedException {
        if (evenStopped) {
            sleeper.sleep(millis);
        } else {
            sleep(millis);
        }
    }

    /** Ends every wait in progress and every later one. Idempotent. */
    void stop() {
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            stopped = true;
            waiting.forEach(Thread::interrupt);
            waiting.clear();
        } finally {
            lock.unlock();
        }
    }

    /** True once {@link #stop()} was called. */
    boolean stopped() {
        return stopped;
    }

    /** A new write's attempts. */
    Attempts attempts() {
        return new Attempts();
    }

    /** Counts a batch of {@code samples} held at the stop. */
    void held(long samples) {
        batchesHeld.incrementAndGet();
        samplesHeld.addAndGet(samples);
    }

    /** Batches held at the stop. */
    int batchesHeld() {
        return batchesHeld.get();
    }

    /** Their samples. */
    long samplesHeld() {
        return samplesHeld.get();
    }
}
