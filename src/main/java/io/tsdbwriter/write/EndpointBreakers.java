package io.tsdbwriter.write;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One resilience4j {@link CircuitBreaker} per write endpoint (DESIGN §6): while an endpoint keeps failing — retryable
 * answers, configuration faults that are held, and refusals whose empty probe is refused too — its breaker opens, the
 * writes to it wait instead of sending, and one request per open interval ({@code --max-backoff}) decides when writing
 * resumes. A confirmed data refusal is a success here: the endpoint works; so is every 4xx but 429 under
 * {@code --on-configuration-fault refuse}, which refuses its batch and never holds one ({@link #recordRefusal}). The
 * writes it releases go one at a time ({@link EndpointPacing}).
 *
 * <p>Thread-safe: called from every write thread.
 */
final class EndpointBreakers {

    /** How often a write waiting on an open breaker checks it again, milliseconds. */
    static final long PERMISSION_POLL_MS = 250;

    private final Map<WriteTarget, CircuitBreaker> breakers = new IdentityHashMap<>();

    /** @param openWait how long a breaker stays open before it lets one request through (the retry cap) */
    EndpointBreakers(List<WriteTarget> endpoints, Duration openWait) {
        CircuitBreakerConfig cb = CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(openWait)
                .permittedNumberOfCallsInHalfOpenState(1)
                .maxWaitDurationInHalfOpenState(Duration.ZERO)
                .build();
        for (WriteTarget e : endpoints) {
            breakers.put(e, CircuitBreaker.of("vm-import " + e.baseUrl(), cb));
        }
    }

    /** True unless {@code endpoint}'s breaker is open (the permit chooser skips it then). */
    boolean notOpen(WriteTarget endpoint) {
        return breakers.get(endpoint).getState() != CircuitBreaker.State.OPEN;
    }

    /**
     * Waits while {@code endpoint}'s breaker is open; it lets one request through per open interval.
     *
     * @param giveUp  true when the write is to end (the writer closed, or its fault given up on)
     * @param backoff its waits; once stopped, the attempt goes at once, breaker or not
     * @return true when the breaker permitted the attempt (record its outcome with {@link #record}); false when the
     *         writer is stopping
     * @throws InterruptedException when {@code giveUp} turns true or the thread is interrupted
     */
    boolean await(WriteTarget endpoint, BooleanSupplier giveUp, Backoff backoff) throws InterruptedException {
        CircuitBreaker breaker = breakers.get(endpoint);
        while (!breaker.tryAcquirePermission()) {
            if (giveUp.getAsBoolean()) {
                throw new InterruptedException("writer closed");
            }
            if (backoff.stopped()) {
                return false;
            }
            backoff.sleep(PERMISSION_POLL_MS);
        }
        if (giveUp.getAsBoolean()) {
            breaker.releasePermission();
            throw new InterruptedException("writer closed");
        }
        return true;
    }

    /** Gives back a permission {@link #await} granted ({@code permitted}) to an attempt that is not made. */
    void release(WriteTarget endpoint, boolean permitted) {
        if (permitted) {
            breakers.get(endpoint).releasePermission();
        }
    }

    /**
     * Records a permitted attempt refused under {@code --on-configuration-fault refuse} (a 4xx but 429, not retried):
     * the endpoint's success, as a confirmed data refusal is — a refusal never opens the breaker.
     */
    void recordRefusal(WriteTarget endpoint, long tookNanos) {
        breakers.get(endpoint).onSuccess(tookNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Records a permitted attempt's outcome: a retryable answer or a configuration fault counts as the endpoint's
     * failure, anything else as its success.
     */
    void record(WriteTarget endpoint, long tookNanos, WriteOutcome outcome) {
        CircuitBreaker breaker = breakers.get(endpoint);
        if (outcome.kind() == WriteOutcome.Kind.RETRYABLE || outcome.kind() == WriteOutcome.Kind.FAULT) {
            breaker.onError(
                    tookNanos, TimeUnit.NANOSECONDS, new IOException(outcome.statusTag() + " " + outcome.detail()));
        } else {
            breaker.onSuccess(tookNanos, TimeUnit.NANOSECONDS);
        }
    }
}
