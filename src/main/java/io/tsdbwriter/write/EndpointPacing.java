package io.tsdbwriter.write;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One backoff per write endpoint for every write that waits on it (DESIGN §6; the remote write specification,
 * "Retries &amp; Backoff"): while an endpoint is failing — its last answer was retryable or a held configuration
 * fault — its attempts take turns, and an attempt that follows another write's attempt waits the endpoint's current
 * backoff step since that attempt went out. So the writes held by an open circuit breaker or a pause are released one
 * at a time, each after its own step, never several back to back; after the stop a write whose step has not passed is
 * held, not sent. A write's own retries in a row are
 * spaced by its own backoff ({@link RetryPolicy#delayMs}) and need no further wait here. A healthy endpoint (no failure
 * since its last accepted write or data refusal) is not paced at all.
 *
 * <p>The step is {@link RetryPolicy#delayMs} of the endpoint's failure count (exponential from the initial backoff,
 * ±50 % jitter, capped at {@code --max-backoff}), or its last {@code Retry-After} (also capped). The failure count
 * grows once per round: a failed answer to a request sent before the previous failure was noted (several writes in
 * flight when the endpoint began to fail) does not grow it.
 *
 * <p>Thread-safe: called from every write thread; the turn is a fair {@link ReentrantLock} (virtual threads), held
 * while the attempt waits its step.
 */
final class EndpointPacing {

    /** The failure count stops growing here: the step is at its cap long before. */
    private static final int MAX_FAILURES = 30;

    private final Map<WriteTarget, Pace> paces = new IdentityHashMap<>();
    private final RetryPolicy retry;

    private final LongSupplier nanoClock;

    /** @param retry the backoff's initial step, cap and jitter */
    EndpointPacing(List<WriteTarget> endpoints, RetryPolicy retry) {
        this(endpoints, retry, System::nanoTime);
    }

    /** As {@link #EndpointPacing(List, RetryPolicy)} with the clock ({@link System#nanoTime()} in production) given: tests. */
    EndpointPacing(List<WriteTarget> endpoints, RetryPolicy retry, LongSupplier nanoClock) {
        this.retry = retry;
        this.nanoClock = nanoClock;
        for (WriteTarget e : endpoints) {
            paces.put(e, new Pace());
        }
    }

    /** One endpoint's pace. */
    private static final class Pace {
        /** Taken by a paced attempt while it waits its step. */
        final ReentrantLock turn = new ReentrantLock(true);
        /** Guards the failure count's growth. */
        final ReentrantLock state = new ReentrantLock();
        /** Consecutive failure rounds since the endpoint last accepted a write; 0 while healthy. */
        volatile int failures;
        /** The last failure's {@code Retry-After}, milliseconds; -1 when it gave none. */
        volatile long retryAfterMs = -1;
        /** When the last failure was noted, on the pacing's clock. */
        volatile long lastFailureNanos = Long.MIN_VALUE;
        /** The thread whose attempt went out last. */
        volatile Thread lastSender;
        /** When that attempt went out, on the pacing's clock. */
        volatile long lastSentNanos;
    }

    /**
     * Waits for this attempt's turn at {@code endpoint}: none while it is healthy, else until the attempts before it
     * went out, and then the current step since the last of them unless that was this thread's own. Records the attempt
     * as going out now. After the writer's stop ({@link Backoff#stopped()}) nothing waits for a failing endpoint: an
     * attempt whose step has not passed since the endpoint's last attempt is held instead of sent (its batch is
     * written again by the next start), so the stop releases no attempt sooner than its backoff step — the remote
     * write specification's "Retries &amp; Backoff" — and never waits out a step of up to {@code --max-backoff}.
     *
     * @param evenStopped a 429's wait: not cut short by the stop, nor held by it ({@link Backoff#busy})
     * @return when the attempt goes out, on the pacing's clock (pass it to {@link #answered})
     * @throws Backoff.Held         when the writer stopped while the endpoint fails and this attempt's step has not
     *                              passed
     * @throws InterruptedException when the thread is interrupted (the writer's close)
     */
    long awaitTurn(WriteTarget endpoint, Backoff backoff, boolean evenStopped)
            throws InterruptedException, Backoff.Held {
        Pace p = paces.get(endpoint);
        if (p.failures == 0) {
            return sent(p);
        }
        p.turn.lockInterruptibly();
        try {
            if (p.failures > 0) {
                long stepMs = retry.delayMs(p.failures, p.retryAfterMs);
                long waitMs = stepMs - TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - p.lastSentNanos);
                if (backoff.stopped() && !evenStopped && waitMs > 0) {
                    throw new Backoff.Held();
                }
                if (waitMs > 0 && p.lastSender != Thread.currentThread()) {
                    backoff.sleep(waitMs, evenStopped);
                    if (backoff.stopped() && !evenStopped) {
                        throw new Backoff.Held(); // the stop came during the wait: its step did not pass
                    }
                }
            }
            return sent(p);
        } finally {
            p.turn.unlock();
        }
    }

    private long sent(Pace p) {
        p.lastSender = Thread.currentThread();
        p.lastSentNanos = nanoClock.getAsLong();
        return p.lastSentNanos;
    }

    /**
     * Notes the answer to an attempt that went out at {@code sentNanos}: a failure (retryable, or a configuration fault
     * that is held) makes or keeps the endpoint failing; anything else (written, a data refusal) makes it healthy.
     */
    void answered(WriteTarget endpoint, long sentNanos, WriteOutcome outcome, boolean failure) {
        Pace p = paces.get(endpoint);
        if (!failure) {
            p.failures = 0;
            p.retryAfterMs = -1;
            return;
        }
        p.state.lock();
        try {
            if (p.failures == 0 || sentNanos >= p.lastFailureNanos) {
                p.failures = Math.min(p.failures + 1, MAX_FAILURES);
            }
            p.lastFailureNanos = nanoClock.getAsLong();
            p.retryAfterMs = outcome.retryAfterMs();
        } finally {
            p.state.unlock();
        }
    }
}
