package io.tsdbwriter.pipeline;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;

/**
 * {@code --rate}: a steady write rate in samples per second, shared by every SegmentConsumer of the process — a token
 * bucket before the encoders (resilience4j's {@link RateLimiter}: {@code rate × 10 ms} permits refreshed every 10 ms,
 * so a burst is at most one refresh period's worth). A record's samples (points × M × N) are taken before it is
 * amplified; a record larger than one period waits for as many periods as it needs.
 *
 * <p>Thread-safe.
 */
public final class SampleRate {

    /** The bucket's refresh period: the longest burst at the set rate. */
    public static final Duration REFRESH = Duration.ofMillis(10);

    private final RateLimiter limiter;
    private final double samplesPerSecond;

    /** @param samplesPerSecond the rate, > 0 */
    public SampleRate(double samplesPerSecond) {
        if (!(samplesPerSecond > 0)) {
            throw new IllegalArgumentException("--rate must be positive, got " + samplesPerSecond);
        }
        this.samplesPerSecond = samplesPerSecond;
        int perPeriod = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(samplesPerSecond * REFRESH.toNanos() / 1e9)));
        limiter = RateLimiter.of("tsdb-writer-rate", RateLimiterConfig.custom()
                .limitRefreshPeriod(REFRESH)
                .limitForPeriod(perPeriod)
                .timeoutDuration(Duration.ofDays(1)) // a record waits as long as the rate says, never refused
                .build());
    }

    /** The set rate, samples per second. */
    public double samplesPerSecond() {
        return samplesPerSecond;
    }

    /**
     * Waits until {@code samples} may be written at the set rate.
     *
     * @throws InterruptedException when interrupted while waiting (the reader is stopping)
     */
    public void acquire(long samples) throws InterruptedException {
        long left = samples;
        while (left > 0) {
            int n = (int) Math.min(left, Integer.MAX_VALUE);
            long waitNanos = limiter.reservePermission(n);
            if (waitNanos > 0) {
                Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
            }
            left -= n;
        }
    }
}
