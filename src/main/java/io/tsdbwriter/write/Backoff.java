package io.tsdbwriter.write;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The waits of the write threads — a retry's backoff, the probe interval of a paused or faulted write, the poll of an
 * open circuit breaker — which the writer's stop cuts short: once {@link #stop()} was called, every wait in
 * progress ends and every later one lasts at most {@link #spacingMs the spacing} (the initial backoff with ±50 % jitter,
 * 100–300 ms by default), so a stop during a write fault never waits out a backoff of up to {@code --max-backoff}, and
 * the writes it wakes do not all go out in the same millisecond (the remote write specification, "Retries &amp;
 * Backoff": senders MUST use a backoff). The wait itself is the {@link RetryPolicy.Sleeper} (tests inject one
 * that never sleeps); a wait is ended by interrupting its thread, and only a thread that is inside {@link #sleep} at
 * that moment. From the stop on, a write whose attempt begun after the stop fails ({@link #failedAtStop}) is held:
 * counted here, abandoned by the writer — unless the TSDB answered 429 ({@link #busy}): it is up, and its write waits as
 * told. A write woken by the stop while its endpoint fails is held before it sends anything when its backoff step has
 * not passed ({@link EndpointPacing#awaitTurn}): the stop sends no failing write again sooner than its step, and waits
 * out no step.
 *
 * <p>Thread-safe: {@link #sleep} from the write threads (virtual threads: the lock is a {@link ReentrantLock}, held
 * only to add or remove a thread), {@link #stop()} from any thread.
 */
final class Backoff {

    private final RetryPolicy.Sleeper sleeper;
    private final long initialBackoffMs;
    private final ReentrantLock lock = new ReentrantLock();
    /** The threads inside {@link #sleep}; guarded by {@link #lock}. */
    private final Set<Thread> waiting = new HashSet<>();

    private volatile boolean stopped;
    private final AtomicInteger batchesHeld = new AtomicInteger();
    private final AtomicLong samplesHeld = new AtomicLong();

    /** Thrown out of a write that failed twice since the stop: it is held (abandoned), not retried. */
    static class Held extends Exception {
        Held() {
            super(null, null, false, false);
        }
    }

    /**
     * Thrown out of a write whose batch its creator no longer wants ({@link WriteListener#stale}: its partition was
     * rewound after a TSDB restart, or revoked) before an attempt: abandoned without that attempt, not counted as held.
     */
    static final class Stale extends Held {}

    /** One write's attempts; its thread only. */
    static final class Attempts {
        /** Asked before every attempt: true once the batch is stale ({@link WriteListener#stale}). */
        final BooleanSupplier stale;
        /** Whether the breaker permitted the attempt whose refusal waits for its empty probe's verdict. */
        boolean refusalPermitted;
        /** That attempt's duration, nanoseconds. */
        long refusalTookNanos;
        /** When that attempt went out, {@link System#nanoTime()}. */
        long refusalSentNanos;
        /** Whether that attempt began after the stop. */
        boolean refusalAfterStop;
        /** Whether an attempt went out and got no answer (I/O error, timeout): {@link WriteBatch#sentUnanswered()}. */
        boolean unanswered;

        Attempts(BooleanSupplier stale) {
            this.stale = stale;
        }
    }

    /**
     * True when a write whose attempt failed with {@code outcome} is to be held: the stop came before the attempt
     * began ({@code stoppedBefore}) and the answer is not a 429 ({@link #busy}). An attempt under way at the stop earns
     * its write one more, spaced.
     */
    boolean failedAtStop(WriteOutcome outcome, boolean stoppedBefore) {
        return stoppedBefore && !busy(outcome);
    }

    /**
     * @param sleeper          how a wait is made ({@link Thread#sleep(long)} in production)
     * @param initialBackoffMs the retry policy's first delay: the spacing after the stop is drawn around it
     */
    Backoff(RetryPolicy.Sleeper sleeper, long initialBackoffMs) {
        this.sleeper = sleeper;
        this.initialBackoffMs = initialBackoffMs;
    }

    /** A wait after the stop: {@code initialBackoffMs} × [0.5, 1.5), at most {@code millis}. */
    long spacingMs(long millis) {
        long jittered =
                (long) (initialBackoffMs * (0.5 + ThreadLocalRandom.current().nextDouble()));
        return Math.max(0, Math.min(millis, jittered));
    }

    /**
     * Waits {@code millis}; when the writer stops meanwhile, or has stopped, the wait ends after {@link #spacingMs}
     * instead (the stop does not cut that one short).
     *
     * @throws InterruptedException when the thread is interrupted by anything but the stop (the writer's close)
     */
    void sleep(long millis) throws InterruptedException {
        Thread t = Thread.currentThread();
        boolean alreadyStopped;
        lock.lock();
        try {
            alreadyStopped = stopped;
            if (!alreadyStopped) {
                waiting.add(t);
            }
        } finally {
            lock.unlock();
        }
        if (alreadyStopped) {
            sleeper.sleep(spacingMs(millis));
            return;
        }
        boolean interrupted = false;
        boolean wokenByStop;
        try {
            sleeper.sleep(millis);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
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
        if (wokenByStop) {
            sleeper.sleep(spacingMs(millis)); // woken by the stop: spaced from the others it woke
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

    /** A new write's attempts; {@code stale} is asked before each. */
    Attempts attempts(BooleanSupplier stale) {
        return new Attempts(stale);
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
