package io.tsdbwriter.pipeline;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * {@code --max-samples-per-second}: a steady write rate in samples per second, shared by every reader of the process — a token bucket
 * before the encoders. A record's samples (points × M × N) are taken before it is amplified; when the bucket holds
 * fewer, the reader waits until the set rate has earned them (a record larger than the bucket waits as long as its
 * samples take at the set rate).
 *
 * <p>The bucket fills continuously at the set rate and holds at most {@link #BURST} of it: permits that go unused while
 * every reader waits elsewhere (a fetch, a write permit, a replay pass opening its readers) are taken later at once, up
 * to that bound, so the rate holds over any window longer than the burst. It is kept as a schedule in nanoseconds
 * (the time up to which the set rate has paid for what was taken), so no rounding of a per-period count enters.
 *
 * <p>Thread-safe: one lock held for the arithmetic only, never while a reader waits.
 */
public final class SampleRate {

    /**
     * The most the bucket holds, in time at the set rate: the longest burst, and the longest wait of every reader at
     * once that is made up (a replay pass opening its readers takes ~0.1 s). Made-up permits move at most this much
     * from one minute into the next: 1.7 % of a minute.
     */
    public static final Duration BURST = Duration.ofSeconds(1);

    /** Waits a number of nanoseconds; {@link Thread#sleep} in production, a fake clock's step in tests. */
    @FunctionalInterface
    interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private final double samplesPerSecond;
    private final double nanosPerSample;
    private final double burstNanos;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private final long originNanos;
    /** Nanoseconds after {@code originNanos} up to which the set rate has paid for the samples taken; guarded by this. */
    private double paidUntilNanos;

    /**
     * @param samplesPerSecond the rate, > 0
     * @throws IllegalArgumentException when the rate is not positive
     */
    public SampleRate(double samplesPerSecond) {
        this(samplesPerSecond, BURST, System::nanoTime, SampleRate::sleep);
    }

    /**
     * @param samplesPerSecond the rate, > 0
     * @param burst            the most the bucket holds, in time at the rate; ≥ 0
     * @param nanoClock        a monotonic clock in nanoseconds ({@link System#nanoTime()})
     * @param sleeper          how a reader waits
     */
    SampleRate(double samplesPerSecond, Duration burst, LongSupplier nanoClock, Sleeper sleeper) {
        if (!(samplesPerSecond > 0) || Double.isInfinite(samplesPerSecond)) {
            throw new IllegalArgumentException("--max-samples-per-second must be positive, got " + samplesPerSecond);
        }
        this.samplesPerSecond = samplesPerSecond;
        this.nanosPerSample = 1e9 / samplesPerSecond;
        this.burstNanos = burst.toNanos();
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.originNanos = nanoClock.getAsLong();
        this.paidUntilNanos = 0; // an empty bucket: the first samples are paid for from now on
    }

    /** The set rate, samples per second. */
    public double samplesPerSecond() {
        return samplesPerSecond;
    }

    /**
     * Takes {@code samples} from the bucket, waiting until the set rate has earned them.
     *
     * @param samples ≥ 0
     * @throws InterruptedException when interrupted while waiting (the reader is stopping); the samples stay taken
     */
    public void acquire(long samples) throws InterruptedException {
        long waitNanos = reserve(samples);
        if (waitNanos > 0) {
            sleeper.sleepNanos(waitNanos);
        }
    }

    /** Takes {@code samples} and returns how long the caller waits for them, in nanoseconds (≤ 0: none). */
    private synchronized long reserve(long samples) {
        double now = nanoClock.getAsLong() - originNanos;
        // what went unused stays in the bucket, up to the burst
        paidUntilNanos = Math.max(paidUntilNanos, now - burstNanos) + samples * nanosPerSample;
        return (long) Math.ceil(paidUntilNanos - now);
    }

    private static void sleep(long nanos) throws InterruptedException {
        Thread.sleep(Duration.ofNanos(nanos));
    }
}
