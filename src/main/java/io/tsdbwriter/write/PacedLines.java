package io.tsdbwriter.write;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The pace of a log line said for repeated events: per key (e.g. a write endpoint), the first event's line is said at
 * once, the next at most once per {@code every}, and each line is told how many events of its key came since the
 * key's last line (those said nothing in between), so a paced line loses no count. One instance per kind of line; the
 * events of every thread of the process that say it go through it.
 *
 * <p>Thread-safe: any thread may note events; of the threads whose events fall due at once, exactly one is told to
 * say the line.
 *
 * @param <K> what a line is said per (equal keys share one pace)
 */
public final class PacedLines<K> {

    private final long everyNanos;
    private final LongSupplier nanoClock;
    private final Map<K, Pace> paces = new ConcurrentHashMap<>();

    /** One key's events not yet said and when its line was last said. */
    private static final class Pace {
        final AtomicLong unsaid = new AtomicLong();
        /** When the line was last said, on the clock; {@link Long#MIN_VALUE} before it was. */
        final AtomicLong saidNanos = new AtomicLong(Long.MIN_VALUE);
    }

    /**
     * On {@link System#nanoTime()}.
     *
     * @param every the least time between two lines of a key; positive
     * @throws IllegalArgumentException when {@code every} is not positive
     */
    public PacedLines(Duration every) {
        this(every, System::nanoTime);
    }

    /**
     * As {@link #PacedLines(Duration)} with the clock given (nanoseconds, as {@link System#nanoTime()}): tests.
     *
     * @throws IllegalArgumentException when {@code every} is not positive
     */
    public PacedLines(Duration every, LongSupplier nanoClock) {
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("a paced line's interval must be positive, got " + every);
        }
        this.everyNanos = every.toNanos();
        this.nanoClock = nanoClock;
    }

    /**
     * Notes {@code events} more events of {@code key}.
     *
     * @param events how many (≥ 1 for a line to fall due)
     * @return when the caller is to say the line now (the key's first events, or {@code every} has passed since its
     *     last line): the events of the key since its last line, these included, ≥ 1; else 0 (the events wait for the
     *     next line)
     */
    public long note(K key, long events) {
        Pace p = paces.computeIfAbsent(key, k -> new Pace());
        p.unsaid.addAndGet(events);
        long now = nanoClock.getAsLong();
        long said = p.saidNanos.get();
        if (said != Long.MIN_VALUE && now - said < everyNanos) {
            return 0;
        }
        if (!p.saidNanos.compareAndSet(said, now)) {
            return 0; // another thread says it, with these events
        }
        return p.unsaid.getAndSet(0);
    }

    /**
     * Forgets {@code key}: its next events are said at once, as its first were; the events it had not said are dropped.
     *
     * @return whether a line was said for the key since it was last forgotten (or since the start)
     */
    public boolean forget(K key) {
        Pace p = paces.remove(key);
        return p != null && p.saidNanos.get() != Long.MIN_VALUE;
    }
}
