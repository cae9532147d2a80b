package io.tsdbwriter.write;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * Bounded retries with exponential backoff and jitter for retryable import outcomes (DESIGN §6), built on
 * resilience4j's {@link IntervalFunction#ofExponentialRandomBackoff}; a {@code Retry-After} from the server
 * replaces the computed delay. The sleep is injectable so tests never sleep.
 *
 * @param maxRetries     retries after the first attempt before the failure policy applies (default 5, 0..100)
 * @param initialBackoff delay before the first retry (default 200 ms)
 * @param maxBackoff     cap of any delay, also the probe interval while paused (default 30 s)
 * @param sleeper        how to wait (default {@link Thread#sleep})
 */
public record RetryPolicy(int maxRetries, Duration initialBackoff, Duration maxBackoff, Sleeper sleeper) {

    /** Default retries. */
    public static final int DEFAULT_MAX_RETRIES = 5;
    /** Default first delay. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(200);
    /** Default delay cap. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);

    /** Waits; {@link Thread#sleep(long)} in production. */
    @FunctionalInterface
    public interface Sleeper {
        /** @throws InterruptedException when the writer is being stopped */
        void sleep(long millis) throws InterruptedException;
    }

    /** @throws IllegalArgumentException when a value is out of range */
    public RetryPolicy {
        if (maxRetries < 0 || maxRetries > 100) {
            throw new IllegalArgumentException("max retries must be in 0..100, got " + maxRetries);
        }
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("initial backoff must be positive");
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("max backoff must be >= initial backoff");
        }
    }

    /** Defaults with {@code maxRetries}. */
    public static RetryPolicy of(int maxRetries) {
        return new RetryPolicy(maxRetries, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, Thread::sleep);
    }

    /**
     * Delay before retry number {@code retry} (1-based): exponential (×2) from the initial backoff with ±50% jitter,
     * capped at the max; or the server's Retry-After when it gave one (also capped).
     */
    public long delayMs(int retry, long retryAfterMs) {
        if (retryAfterMs >= 0) {
            return Math.min(retryAfterMs, maxBackoff.toMillis());
        }
        return backoff().apply(retry);
    }

    private IntervalFunction backoff() {
        return IntervalFunction.ofExponentialRandomBackoff(initialBackoff, 2.0, 0.5, maxBackoff);
    }
}
