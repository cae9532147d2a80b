package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@code --rate} on a fake clock: the sleeper advances the clock by what the limiter asks, the simulated reader adds
 * the time it spends elsewhere (a replay pass opening its readers, a wait for a write permit). Nothing sleeps.
 */
class SampleRateTest {

    private static final long SECOND = 1_000_000_000L;

    /** A fake monotonic clock; its sleeper moves it forward. */
    private static final class FakeClock {
        long nanos = 7 * SECOND; // not 0: the limiter must not assume an origin

        SampleRate rate(double samplesPerSecond) {
            return new SampleRate(samplesPerSecond, SampleRate.BURST, () -> nanos, n -> nanos += n);
        }
    }

    /**
     * A reader at the soak's shape (docs/benchmarks-archive.md §9): records of {@code samplesPerRecord}, a pass of
     * {@code samplesPerPass} after which it spends {@code passGapNanos} opening its readers, and a wait of
     * {@code batchWaitNanos} for a write permit after every {@code batchSamples}. Returns the samples taken in each
     * full minute of the run (a record counts in the minute its acquire returned).
     */
    private static long[] perMinute(
            FakeClock clock,
            SampleRate rate,
            int minutes,
            long samplesPerRecord,
            long samplesPerPass,
            long passGapNanos,
            long batchSamples,
            long batchWaitNanos)
            throws InterruptedException {
        long start = clock.nanos;
        long[] counts = new long[minutes];
        long inPass = 0;
        long inBatch = 0;
        while (true) {
            rate.acquire(samplesPerRecord);
            int minute = (int) ((clock.nanos - start) / (60 * SECOND));
            if (minute >= minutes) {
                return counts;
            }
            counts[minute] += samplesPerRecord;
            inPass += samplesPerRecord;
            inBatch += samplesPerRecord;
            if (inBatch >= batchSamples) {
                inBatch = 0;
                clock.nanos += batchWaitNanos;
            }
            if (inPass >= samplesPerPass) {
                inPass = 0;
                clock.nanos += passGapNanos;
            }
        }
    }

    private static List<String> outsideTwoPercent(long[] counts, double samplesPerSecond) {
        List<String> outside = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            double share = counts[i] / (samplesPerSecond * 60);
            if (Math.abs(share - 1) > 0.02) {
                outside.add(String.format(
                        Locale.ROOT, "minute %d: %d samples = %.2f %% of the set rate", i + 1, counts[i], 100 * share));
            }
        }
        return outside;
    }

    @Test
    void aReaderThatWaitsBetweenPassesStillGetsTheSetRateEveryMinute() throws Exception {
        // the soak: ~3 s passes, ~0.1 s without samples between them; 30,000 samples/s, 9 samples a record (M=3, N=3)
        FakeClock clock = new FakeClock();
        SampleRate rate = clock.rate(30_000);
        long[] counts = perMinute(clock, rate, 5, 9, 91_260, 100_000_000L, 10_000, 0);
        assertThat(outsideTwoPercent(counts, 30_000))
                .as("per minute: %s", Arrays.toString(counts))
                .isEmpty();
    }

    @Test
    void aReaderThatWaitsForWritePermitsStillGetsTheSetRateEveryMinute() throws Exception {
        // every batch of 3,000 samples (0.1 s at the rate) the reader waits 20 ms for a write permit
        FakeClock clock = new FakeClock();
        SampleRate rate = clock.rate(30_000);
        long[] counts = perMinute(clock, rate, 5, 9, Long.MAX_VALUE, 0, 3_000, 20_000_000L);
        assertThat(outsideTwoPercent(counts, 30_000))
                .as("per minute: %s", Arrays.toString(counts))
                .isEmpty();
    }

    @Test
    void aLowRateIsHeldExactlyWithoutRoundingAPeriodsCount() throws Exception {
        // 50 samples/s is half a sample per 10 ms: a count per period rounded to 1 wrote 100/s. One sample a record;
        // the
        // bucket starts empty, so the first sample is paid 20 ms in and minute 1's last one at 60.000 s counts in
        // minute 2
        FakeClock clock = new FakeClock();
        SampleRate rate = clock.rate(50);
        long[] counts = perMinute(clock, rate, 3, 1, Long.MAX_VALUE, 0, Long.MAX_VALUE, 0);
        assertThat(counts).containsExactly(2_999, 3_000, 3_000);
    }

    @Test
    void unusedPermitsAreCarriedAtMostOneBurst() throws Exception {
        FakeClock clock = new FakeClock();
        SampleRate rate = clock.rate(1_000);
        clock.nanos += 10 * SECOND; // idle for 10 s: the bucket holds one burst, not 10 s
        long burstSamples = SampleRate.BURST.toMillis(); // 1,000 samples/s × the burst in seconds
        long before = clock.nanos;
        rate.acquire(burstSamples);
        assertThat(clock.nanos).as("a full bucket is taken at once").isEqualTo(before);
        rate.acquire(500);
        assertThat(clock.nanos - before)
                .as("then the rate: 500 samples = 0.5 s")
                .isEqualTo(SECOND / 2);
    }

    @Test
    void aRecordLargerThanTheBucketWaitsAsLongAsItsSamplesTake() throws Exception {
        FakeClock clock = new FakeClock();
        SampleRate rate = clock.rate(1_000);
        long before = clock.nanos;
        rate.acquire(5_000);
        assertThat(clock.nanos - before).isEqualTo(5 * SECOND);
        rate.acquire(0);
        assertThat(clock.nanos - before).isEqualTo(5 * SECOND);
    }

    @Test
    void anInterruptedWaitIsThrown() {
        SampleRate rate = new SampleRate(10, SampleRate.BURST, () -> 0L, n -> {
            throw new InterruptedException("stopping");
        });
        assertThatThrownBy(() -> rate.acquire(1_000)).isInstanceOf(InterruptedException.class);
    }

    @Test
    void aRateThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new SampleRate(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-samples-per-second");
        assertThatThrownBy(() -> new SampleRate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
