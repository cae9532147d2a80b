package io.tsdbwriter.amplify;

import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --max-hourly-series} and {@code --max-daily-series}, as vmagent's {@code -remoteWrite.maxHourlySeries} and
 * {@code -remoteWrite.maxDailySeries}: at most {@code max} distinct series per UTC hour (per UTC day) are admitted;
 * a new series beyond the limit is dropped until the window ends, when its count starts again from 0. A series is a
 * 64-bit hash of its labels as the TSDB receives them (the caller's, e.g. per instance variant and tenant).
 *
 * <p>Memory is bounded as vmagent's limiter bounds it: per window a Bloom filter of {@value #BITS_PER_SERIES} bits per
 * series of the limit ({@code 2 × max} bytes), at least {@value #MIN_BITS} bits (128 KiB, so that a small limit is
 * nearly exact), probed at {@value #PROBES} positions, and a count of the series added. Its error: a series the filter
 * wrongly holds for one seen (a false positive, at most {@code (1 − e^(−PROBES/BITS_PER_SERIES))^PROBES} ≈ 0.24 % with
 * a filter of 16 bits per series full; far less for limits below {@code MIN_BITS / 16} = 65,536) is admitted without
 * being counted — below the limit the window then admits about 0.08 % more series than {@code max}, beyond it about
 * 0.24 % of the new series still pass. A series is never dropped wrongly while its window has room, and an admitted series is never
 * dropped later in its window. Two series whose 64-bit hashes collide count as one.
 *
 * <p>{@link #admit} takes a series' N hashes (its instance variants) together: they are admitted when all the new
 * ones fit both limits, else none is, so a source series' variants are written or dropped together. The first drop of
 * each limit is logged at WARN, then at most one WARN per minute per limit.
 *
 * <p>Thread-safe: {@link #admit} is synchronized (called once per series and window, not per sample); {@link #hour}
 * only reads the clock.
 */
public final class SeriesLimiter {

    /** Why a series was not admitted, or that it was. */
    public enum Verdict {
        ADMITTED,
        /** The hourly limit is reached. */
        HOURLY,
        /** The daily limit is reached. */
        DAILY
    }

    /** Bloom filter bits per series of a limit. */
    public static final int BITS_PER_SERIES = 16;
    /** Bits set and tested per series. */
    public static final int PROBES = 4;
    /** Smallest Bloom filter: 2^20 bits. */
    public static final long MIN_BITS = 1L << 20;
    /** Largest limit: 1e9 series (a filter of 2 GB). */
    public static final long MAX_LIMIT = 1_000_000_000L;

    static final long HOUR_MS = 3_600_000L;
    static final long DAY_MS = 24 * HOUR_MS;
    private static final long WARN_EVERY_MS = 60_000L;
    private static final Logger log = LoggerFactory.getLogger(SeriesLimiter.class);

    private final Window hourly;
    private final Window daily;
    private final LongSupplier clockMs;

    /**
     * @param maxHourly series per UTC hour, 0 = no limit
     * @param maxDaily  series per UTC day, 0 = no limit
     * @param clockMs   the wall clock, epoch milliseconds
     * @throws IllegalArgumentException a limit below 0 or above {@value #MAX_LIMIT}, or both 0
     */
    public SeriesLimiter(long maxHourly, long maxDaily, LongSupplier clockMs) {
        if (maxHourly < 0 || maxHourly > MAX_LIMIT || maxDaily < 0 || maxDaily > MAX_LIMIT) {
            throw new IllegalArgumentException("series limits must be in 0.." + MAX_LIMIT);
        }
        if (maxHourly == 0 && maxDaily == 0) {
            throw new IllegalArgumentException("a series limiter needs a limit");
        }
        this.hourly = maxHourly > 0 ? new Window("hourly", "hour", maxHourly, HOUR_MS) : null;
        this.daily = maxDaily > 0 ? new Window("daily", "day", maxDaily, DAY_MS) : null;
        this.clockMs = clockMs;
    }

    /** {@link #SeriesLimiter(long, long, LongSupplier)} on the system clock. */
    public SeriesLimiter(long maxHourly, long maxDaily) {
        this(maxHourly, maxDaily, System::currentTimeMillis);
    }

    /**
     * The current UTC hour (hours since the epoch), read from the clock: a series checked in an earlier hour is checked
     * again (the hourly window starts anew each hour, the daily one each day, at an hour's start). Called once per record.
     */
    public long hour() {
        return Math.floorDiv(clockMs.getAsLong(), HOUR_MS);
    }

    /**
     * Admits a series of {@code count} hashes ({@code hashes[0, count)}) in the current windows: those already seen in
     * a window need no room there, the others are added when all of them fit every limit; else nothing is added.
     *
     * @param series what the series is, for the WARN line of a drop (called only when one is logged)
     * @return {@link Verdict#ADMITTED}, or the limit that dropped it (hourly before daily)
     */
    public synchronized Verdict admit(long[] hashes, int count, Supplier<String> series) {
        long now = clockMs.getAsLong();
        Verdict v = Verdict.ADMITTED;
        if (hourly != null && !hourly.fits(now, hashes, count)) {
            v = Verdict.HOURLY;
        } else if (daily != null && !daily.fits(now, hashes, count)) {
            v = Verdict.DAILY;
        }
        if (v == Verdict.ADMITTED) {
            if (hourly != null) {
                hourly.add(hashes, count);
            }
            if (daily != null) {
                daily.add(hashes, count);
            }
            return v;
        }
        Window w = v == Verdict.HOURLY ? hourly : daily;
        if (now - w.lastWarnMs >= WARN_EVERY_MS) {
            w.lastWarnMs = now;
            log.warn(
                    "series limit: the {} limit of {} series is reached ({}): new series are not written "
                            + "until the next {}, their samples counted in series_limit_dropped (records committed), e.g. {}",
                    w.name,
                    w.max,
                    "--max-" + w.name + "-series",
                    w.unit,
                    series.get());
        }
        return v;
    }

    /** The hourly limit, 0 = none. */
    public long hourlyLimit() {
        return hourly == null ? 0 : hourly.max;
    }

    /** The daily limit, 0 = none. */
    public long dailyLimit() {
        return daily == null ? 0 : daily.max;
    }

    /** Series admitted in the current hour (0 without an hourly limit). */
    public synchronized long hourlySeries() {
        return hourly == null ? 0 : hourly.current(clockMs.getAsLong());
    }

    /** Series admitted in the current day (0 without a daily limit). */
    public synchronized long dailySeries() {
        return daily == null ? 0 : daily.current(clockMs.getAsLong());
    }

    /** One limit's window: its Bloom filter and count, cleared when the clock enters the next window. */
    private static final class Window {
        final String name;
        final String unit;
        final long max;
        final long lengthMs;
        final long[] bits;
        final long bitCount;
        long window = Long.MIN_VALUE;
        long count;
        long lastWarnMs = Long.MIN_VALUE / 2;

        Window(String name, String unit, long max, long lengthMs) {
            this.name = name;
            this.unit = unit;
            this.max = max;
            this.lengthMs = lengthMs;
            this.bits = new long[(int) ((Math.max(max * BITS_PER_SERIES, MIN_BITS) + 63) / 64)];
            this.bitCount = (long) bits.length * 64;
        }

        private void roll(long nowMs) {
            long w = Math.floorDiv(nowMs, lengthMs);
            if (w != window) {
                window = w;
                count = 0;
                Arrays.fill(bits, 0L);
            }
        }

        long current(long nowMs) {
            roll(nowMs);
            return count;
        }

        /** Whether the hashes not yet in this window fit its limit (rolls the window first). */
        boolean fits(long nowMs, long[] hashes, int n) {
            roll(nowMs);
            long missing = 0;
            for (int i = 0; i < n; i++) {
                if (!has(hashes[i])) {
                    missing++;
                }
            }
            return count + missing <= max;
        }

        void add(long[] hashes, int n) {
            for (int i = 0; i < n; i++) {
                if (set(hashes[i])) {
                    count++;
                }
            }
        }

        boolean has(long h) {
            for (int i = 0; i < PROBES; i++) {
                long b = position(h, i);
                if ((bits[(int) (b >>> 6)] & (1L << b)) == 0) {
                    return false;
                }
            }
            return true;
        }

        /** Sets the hash's bits; true when one of them was clear (a series new to the window). */
        boolean set(long h) {
            boolean added = false;
            for (int i = 0; i < PROBES; i++) {
                long b = position(h, i);
                int word = (int) (b >>> 6);
                long mask = 1L << b;
                if ((bits[word] & mask) == 0) {
                    bits[word] |= mask;
                    added = true;
                }
            }
            return added;
        }

        /** Probe {@code i}'s bit: the hash remixed with the probe's number (MurmurHash3's finalizer), over the filter. */
        private long position(long h, int i) {
            long x = h + (i + 1) * 0x9E3779B97F4A7C15L;
            x ^= x >>> 33;
            x *= 0xFF51AFD7ED558CCDL;
            x ^= x >>> 33;
            x *= 0xC4CEB9FE1A85EC53L;
            x ^= x >>> 33;
            return Long.remainderUnsigned(x, bitCount);
        }
    }
}
