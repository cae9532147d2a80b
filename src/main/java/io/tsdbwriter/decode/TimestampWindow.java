package io.tsdbwriter.decode;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * The plausible range of a sample's epoch-millisecond timestamp: from {@code earliestMs} to the decoding time plus
 * {@code aheadMs}. A timestamp outside it is malformed input ({@link io.tsdbwriter.decode.DecodeError#IMPLAUSIBLE_TIMESTAMP}):
 * the classic case is microseconds or nanoseconds sent as milliseconds (year 55 000 or later), which
 * VictoriaMetrics answers 204 and drops — samples counted as written and never stored. Applies to every input
 * format after its own unit conversion (influx precision, graphite and exposition seconds).
 *
 * <p>Immutable and thread-safe; a decoder checks its timestamps with a {@link TimestampCheck}, which reads the clock only
 * when a timestamp lies past the bound it last read.
 *
 * @param earliestMs the earliest plausible timestamp in epoch ms, ≥ 0 ({@code --min-timestamp}, default
 *                   2000-01-01T00:00:00Z)
 * @param aheadMs    how far past the decoding time a timestamp may lie, in ms, ≥ 0 ({@code --max-timestamp-ahead},
 *                   default 1 day)
 * @param shiftMs    added to a timestamp before it is checked: the shift of a replay pass ({@code --rebase-time},
 *                   {@code --loop}), so the window applies to the timestamps as they are written; 0 otherwise
 * @param earliestCause why {@code earliestMs} is where it is when it is not {@code --min-timestamp} (the target's
 *                   retention), for the refusal's line; null otherwise
 */
public record TimestampWindow(long earliestMs, long aheadMs, long shiftMs, String earliestCause) {

    /** 2000-01-01T00:00:00Z in epoch ms. */
    public static final long DEFAULT_EARLIEST_MS = 946_684_800_000L;
    /** One day. */
    public static final Duration DEFAULT_AHEAD = Duration.ofDays(1);
    /** 2000-01-01T00:00:00Z … now + 1 day. */
    public static final TimestampWindow DEFAULT = new TimestampWindow(DEFAULT_EARLIEST_MS, DEFAULT_AHEAD.toMillis());

    /** A window of {@code --min-timestamp} and {@code --max-timestamp-ahead}, without shift. */
    public TimestampWindow(long earliestMs, long aheadMs) {
        this(earliestMs, aheadMs, 0, null);
    }

    /** This window for timestamps that are written {@code shiftMs} later than they are decoded. */
    public TimestampWindow shifted(long shiftMs) {
        return new TimestampWindow(earliestMs, aheadMs, shiftMs, earliestCause);
    }

    /**
     * This window with its earliest bound raised to {@code earliestMs} for {@code cause} (the target's retention: samples
     * older than it would be answered 2xx and dropped); a lower bound leaves the window as it is.
     */
    public TimestampWindow atLeast(long earliestMs, String cause) {
        return earliestMs <= this.earliestMs ? this : new TimestampWindow(earliestMs, aheadMs, shiftMs, cause);
    }

    /** @throws IllegalArgumentException when a bound is negative */
    public TimestampWindow {
        if (earliestMs < 0) {
            throw new IllegalArgumentException(
                    "--min-timestamp must not be before 1970-01-01T00:00:00Z, got " + earliestMs + " ms");
        }
        if (aheadMs < 0) {
            throw new IllegalArgumentException("--max-timestamp-ahead must not be negative");
        }
    }

    /** The latest plausible timestamp when decoding at {@code nowMs} (saturating, never overflows). */
    public long latestMs(long nowMs) {
        long t = nowMs + aheadMs;
        return t < nowMs ? Long.MAX_VALUE : t;
    }

    /** True when {@code timestampMs} lies in {@code [earliestMs, latestMs]}. */
    public boolean contains(long timestampMs, long latestMs) {
        long t = shifted(timestampMs, shiftMs);
        return t >= earliestMs && t <= latestMs;
    }

    /** {@code t + shift}, saturating at the ends of {@code long} (a nanosecond timestamp must never wrap into range). */
    private static long shifted(long t, long shift) {
        long r = t + shift;
        return ((t ^ r) & (shift ^ r)) < 0 ? (shift > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }

    /** The detail of a refusal: the timestamp, the window and the likely cause. Built only for a refusal's first line. */
    public String describe(long decodedMs) {
        long timestampMs = shifted(decodedMs, shiftMs);
        if (timestampMs >= 0 && timestampMs < earliestMs && earliestCause != null) {
            return "timestamp " + timestampMs + " ms (" + Instant.ofEpochMilli(timestampMs)
                    + (shiftMs == 0 ? "" : ", shifted by the replay") + ") is before "
                    + Instant.ofEpochMilli(earliestMs) + ": " + earliestCause;
        }
        String cause = timestampMs > 100_000_000_000_000_000L
                ? "nanoseconds sent as milliseconds?" // > 1e17: ns of today's times
                : timestampMs > 100_000_000_000_000L
                        ? "microseconds sent as milliseconds?" // > 1e14: µs of today's times
                        : timestampMs < earliestMs
                                ? "seconds sent as milliseconds, or a clock far behind?"
                                : "a clock far ahead?";
        return "timestamp " + timestampMs + " ms is outside " + Instant.ofEpochMilli(earliestMs) + " … now + "
                + Duration.ofMillis(aheadMs).toString().substring(2).toLowerCase(Locale.ROOT)
                + " (--min-timestamp, --max-timestamp-ahead): " + cause;
    }
}
