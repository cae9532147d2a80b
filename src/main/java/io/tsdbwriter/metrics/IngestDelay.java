package io.tsdbwriter.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The ingest delay (DESIGN §7): per sample batch, the time from its oldest record's Kafka timestamp to two stages —
 * {@link Stage#ACKNOWLEDGED} (the TSDB answered 2xx: the samples are queryable) and {@link Stage#COMMITTED} (a group
 * member's offset commit covered the batch's records: durable; the durability window and the commit interval lie
 * between the two). The record's timestamp is its {@code CreateTime} or {@code LogAppendTime}, as its topic says; a
 * record without one, and every record of a replay or a rebased run ({@link #measureFromReadTime()}), is measured from
 * the time it was read. A timestamp in the future (a producer's clock ahead) counts as a delay of 0.
 *
 * <p>Exported as the timer [tsdbwriter_ingest_delay_seconds{stage}] with the buckets {@link #BUCKETS} (10 ms to
 * 10 min); the same observations are kept in fixed buckets here for the report's and the summary's p50 and p99
 * ({@link #counts}, {@link #quantile}), interpolated within a bucket as PromQL's {@code histogram_quantile} does.
 *
 * <p>Thread-safe: observations are recorded per batch from the writer's and the group member's threads.
 */
public final class IngestDelay {

    /** The stage a delay is measured to; its {@link #label()} is the {@code stage} tag. */
    public enum Stage {
        /** The TSDB's 2xx for the batch: its samples are queryable. */
        ACKNOWLEDGED,
        /** The offset commit that covered the batch's records (group mode only): durable. */
        COMMITTED;

        /** The {@code stage} tag: {@code acknowledged} or {@code committed}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The histogram's bucket upper bounds in seconds, 10 ms to 10 min; slower batches fall in {@code +Inf}. 15 s and 20 s
     * resolve the committed stage behind a durability window of VictoriaMetrics' default need (16 s).
     */
    public static final double[] BUCKETS = {
        0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 30, 60, 120, 300, 600
    };

    /** The meter catalogue's prefix ({@link WriterMeters#PREFIX}). */
    private static final String PREFIX = WriterMeters.PREFIX;

    /** A batch with no record time (nothing added to it): not measured. */
    public static final long NONE = Long.MAX_VALUE;

    private static final String HELP = "Seconds from a sample batch's oldest Kafka record timestamp (CreateTime or "
            + "LogAppendTime, as the topic says; in a replay or rebased run, and for a record without a timestamp, the "
            + "time it was read) to the stage: acknowledged = the TSDB's 2xx (queryable), committed = the offset commit "
            + "that covered it (durable; group mode only)";

    private final LongSupplier clockMs;
    private final Timer[] timers = new Timer[Stage.values().length];
    /** Per stage, observations per bucket of {@link #BUCKETS}, the last one above 600 s. */
    private final LongAdder[][] counts = new LongAdder[Stage.values().length][BUCKETS.length + 1];

    private volatile boolean fromReadTime;

    /** Registers both stages' timers on {@code registry}, measuring with the wall clock. */
    public IngestDelay(MeterRegistry registry) {
        this(registry, System::currentTimeMillis);
    }

    /**
     * @param clockMs the wall clock in milliseconds since the epoch (a test's: injected)
     */
    public IngestDelay(MeterRegistry registry, LongSupplier clockMs) {
        this.clockMs = clockMs;
        Duration[] slos = new Duration[BUCKETS.length];
        for (int i = 0; i < BUCKETS.length; i++) {
            slos[i] = Duration.ofMillis(Math.round(BUCKETS[i] * 1000));
        }
        for (Stage s : Stage.values()) {
            timers[s.ordinal()] = Timer.builder(PREFIX + "ingest.delay")
                    .description(HELP)
                    .tag("stage", s.label())
                    .serviceLevelObjectives(slos)
                    .register(registry);
            for (int b = 0; b <= BUCKETS.length; b++) {
                counts[s.ordinal()][b] = new LongAdder();
            }
        }
    }

    /** Measures every record from the time it is read (a replay, a rebased run): its Kafka timestamp is the past's. */
    public void measureFromReadTime() {
        fromReadTime = true;
    }

    /** True when every record is measured from the time it is read ({@link #measureFromReadTime()}). */
    public boolean fromReadTime() {
        return fromReadTime;
    }

    /**
     * The instant a record's delay is measured from, in epoch milliseconds: its Kafka timestamp, or the clock's now when
     * it has none ({@code recordTimestampMs < 0}) or {@link #fromReadTime()}. Called once per record, as it is read.
     */
    public long since(long recordTimestampMs) {
        return fromReadTime || recordTimestampMs < 0 ? clockMs.getAsLong() : recordTimestampMs;
    }

    /**
     * Records one batch reaching {@code stage} now: the delay since {@code sinceMs} (epoch milliseconds; a future one
     * counts as 0). Nothing for {@link #NONE}.
     */
    public void record(Stage stage, long sinceMs) {
        if (sinceMs == NONE) {
            return;
        }
        long ms = Math.max(0, clockMs.getAsLong() - sinceMs);
        timers[stage.ordinal()].record(ms, TimeUnit.MILLISECONDS);
        counts[stage.ordinal()][bucket(ms / 1000.0)].increment();
    }

    /** The stage's timer (count, total, max). */
    public Timer timer(Stage stage) {
        return timers[stage.ordinal()];
    }

    /** The stage's observations so far per bucket of {@link #BUCKETS} (not cumulative), the last one above 600 s. */
    public long[] counts(Stage stage) {
        LongAdder[] c = counts[stage.ordinal()];
        long[] out = new long[c.length];
        for (int i = 0; i < c.length; i++) {
            out[i] = c[i].sum();
        }
        return out;
    }

    /**
     * The {@code q} quantile (0..1) in seconds of observations per bucket as {@link #counts} gives them (or the
     * difference of two such): linear within its bucket, the first bucket from 0; {@code 600} when it falls above the
     * last bound (as {@code histogram_quantile} answers); NaN when there is none.
     */
    public static double quantile(long[] counts, double q) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = q * total;
        long below = 0;
        for (int i = 0; i < BUCKETS.length; i++) {
            if (below + counts[i] >= rank && counts[i] > 0) {
                double lower = i == 0 ? 0 : BUCKETS[i - 1];
                return lower + (BUCKETS[i] - lower) * (rank - below) / counts[i];
            }
            below += counts[i];
        }
        return BUCKETS[BUCKETS.length - 1];
    }

    /**
     * The summary's {@code ingest_delay_seconds}: per stage ({@code acknowledged}, {@code committed}) its {@code p50}
     * and {@code p99} over the whole run, in seconds rounded to the millisecond; null when the stage saw no batch.
     */
    public Map<String, Object> summary() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Stage s : Stage.values()) {
            long[] c = counts(s);
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("p50", rounded(quantile(c, 0.5)));
            q.put("p99", rounded(quantile(c, 0.99)));
            m.put(s.label(), q);
        }
        return m;
    }

    private static Double rounded(double v) {
        return Double.isNaN(v) ? null : Math.round(v * 1000.0) / 1000.0;
    }

    private static int bucket(double seconds) {
        for (int i = 0; i < BUCKETS.length; i++) {
            if (seconds <= BUCKETS[i]) {
                return i;
            }
        }
        return BUCKETS.length;
    }
}
