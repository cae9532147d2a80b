package io.tsdbwriter.decode;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One decoder's check of timestamps against a {@link TimestampWindow}, reading the clock only when a timestamp lies
 * past the latest bound it last read, or before the window: a timestamp at or below a bound read earlier is at or below
 * the bound now, so the result is the window's at the decoding time. The clock was read once per record before; at
 * ~24 ns a read it was ~8 % of the JSON relay's hot path (docs/benchmarks-archive.md section 12f).
 *
 * <p>Should the wall clock step backward by s, timestamps up to s past the window's bound are accepted until the
 * clock catches up (with the default {@code --max-timestamp-ahead} of one day, against a bound a day ahead).
 *
 * <p>Not thread-safe: one per decoder (decoders are confined to one thread).
 */
public final class TimestampCheck {

    private final TimestampWindow window;
    private final LongSupplier clockMs;
    private long latestMs = Long.MIN_VALUE;

    /** A check against {@code window} with the system clock ({@link System#currentTimeMillis()}). */
    public TimestampCheck(TimestampWindow window) {
        this(window, System::currentTimeMillis);
    }

    /** A check against {@code window} with {@code clockMs} (epoch ms) as the decoding time; for tests. */
    public TimestampCheck(TimestampWindow window, LongSupplier clockMs) {
        this.window = Objects.requireNonNull(window, "window");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /** True when {@code timestampMs} lies in the window at the decoding time ({@link TimestampWindow#contains}). */
    public boolean contains(long timestampMs) {
        if (window.contains(timestampMs, latestMs)) {
            return true;
        }
        latestMs = window.latestMs(clockMs.getAsLong());
        return window.contains(timestampMs, latestMs);
    }
}
