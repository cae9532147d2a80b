package io.tsdbwriter.write;

import io.tsdbwriter.write.http.SafeUrl;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retries of writes to the write endpoints (after a 429, a 5xx, a timeout or another I/O error; DESIGN §6) said
 * while they go on, not only once a write's retries are spent: the first retry of a write to an endpoint since it last
 * accepted one is one WARN line at once, repeated at most once per {@link #LOG_EVERY} per endpoint while it keeps
 * failing — the endpoint without user info, the status (or that there was no response) and its detail, and how many
 * retries writes to it have had since it last accepted one. The endpoint's next accepted write ends it (one INFO line
 * when a WARN was said).
 *
 * <p>Thread-safe: called from every write thread.
 */
final class RetryWarnings {

    private static final Logger log = LoggerFactory.getLogger(RetryWarnings.class);
    /** How often the line may repeat per endpoint. */
    static final Duration LOG_EVERY = Duration.ofMinutes(1);

    private final LongSupplier nanoClock;
    private final Map<WriteTarget, Failing> failing = new ConcurrentHashMap<>();

    /** One endpoint's retries since it last accepted a write. */
    private static final class Failing {
        final AtomicLong retries = new AtomicLong();
        /** When the line was last said, on the clock; {@link Long#MIN_VALUE} before it was. */
        final AtomicLong loggedNanos = new AtomicLong(Long.MIN_VALUE);
    }

    /** On {@link System#nanoTime()}. */
    RetryWarnings() {
        this(System::nanoTime);
    }

    /** As {@link #RetryWarnings()} with the clock given: tests. */
    RetryWarnings(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * Notes a retry of a write to {@code endpoint} after {@code outcome}; says the line unless it was said within
     * {@link #LOG_EVERY}.
     */
    void retrying(WriteTarget endpoint, WriteOutcome outcome) {
        Failing f = failing.computeIfAbsent(endpoint, e -> new Failing());
        long retries = f.retries.incrementAndGet();
        long now = nanoClock.getAsLong();
        long logged = f.loggedNanos.get();
        if (logged != Long.MIN_VALUE && now - logged < LOG_EVERY.toNanos()) {
            return;
        }
        if (!f.loggedNanos.compareAndSet(logged, now)) {
            return; // another write thread says it
        }
        log.warn(
                "write endpoint {} answered {} ({}): retrying with backoff (retries of writes to it since it last accepted "
                        + "one: {}; this line repeats at most once a minute while it fails)",
                SafeUrl.redact(endpoint.writeUrl()),
                outcome.status() > 0 ? Integer.toString(outcome.status()) : "without a response",
                outcome.detail() == null || outcome.detail().isEmpty() ? "no detail" : outcome.detail(),
                retries);
    }

    /** Notes that {@code endpoint} accepted a write: its failures (if any) are over. */
    void ok(WriteTarget endpoint) {
        if (failing.isEmpty()) {
            return; // the write path's common case: no map lookup
        }
        Failing f = failing.remove(endpoint);
        if (f != null && f.loggedNanos.get() != Long.MIN_VALUE) {
            log.info(
                    "write endpoint {} accepts writes again (retries of writes to it since it last accepted one: {})",
                    SafeUrl.redact(endpoint.writeUrl()),
                    f.retries.get());
        }
    }
}
