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
 * <p>Immutable and thread-safe; a decoder reads the clock once per record ({@link #latestMs(long)}).
 *
 * @param earliestMs the earliest plausible timestamp in epoch ms, ≥ 0 ({@code --min-timestamp}, default
 *                   2000-01-01T00:00:00Z)
 * @param aheadMs    how far past the decoding time a timestamp may lie, in ms, ≥ 0 ({@code --max-timestamp-ahead},
 *                   default 1 day)
 */
public record TimestampWindow(long earliestMs, long aheadMs) {

    /** 2000-01-01T00:00:00Z in epoch ms. */
    public static final long DEFAULT_EARLIEST_MS = 946_684_800_000L;
    /** One day. */
    public static final Duration DEFAULT_AHEAD = Duration.ofDays(1);
    /** 2000-01-01T00:00:00Z … now + 1 day. */
    public static final TimestampWindow DEFAULT = new TimestampWindow(DEFAULT_EARLIEST_MS, DEFAULT_AHEAD.toMillis());

    /** @throws IllegalArgumentException when a bound is negative */
    public TimestampWindow {
        if (earliestMs < 0) {
            throw new IllegalArgumentException("--min-timestamp must not be before 1970-01-01T00:00:00Z, got " + earliestMs + " ms");
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
        return timestampMs >= earliestMs && timestampMs <= latestMs;
    }

    /** The detail of a refusal: the timestamp, the window and the likely cause. Built only for a refusal's first line. */
    public String describe(long timestampMs) {
        String cause = timestampMs > 100_000_000_000_000_000L ? "nanoseconds sent as milliseconds?"       // > 1e17: ns of today's times
                : timestampMs > 100_000_000_000_000L ? "microseconds sent as milliseconds?"               // > 1e14: µs of today's times
                : timestampMs < earliestMs ? "seconds sent as milliseconds, or a clock far behind?" : "a clock far ahead?";
        return "timestamp " + timestampMs + " ms is outside " + Instant.ofEpochMilli(earliestMs) + " … now + "
                + Duration.ofMillis(aheadMs).toString().substring(2).toLowerCase(Locale.ROOT)
                + " (--min-timestamp, --max-timestamp-ahead): " + cause;
    }
}
