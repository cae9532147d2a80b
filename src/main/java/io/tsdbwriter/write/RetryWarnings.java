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

    /** Each endpoint's retries since it last accepted a write. */
    private final Map<WriteTarget, AtomicLong> retries = new ConcurrentHashMap<>();
    /** The line's pace, per endpoint. */
    private final PacedLines<WriteTarget> lines;

    /** On {@link System#nanoTime()}. */
    RetryWarnings() {
        this(System::nanoTime);
    }

    /** As {@link #RetryWarnings()} with the clock given: tests. */
    RetryWarnings(LongSupplier nanoClock) {
        this.lines = new PacedLines<>(LOG_EVERY, nanoClock);
    }

    /**
     * Notes a retry of a write to {@code endpoint} after {@code outcome}; says the line unless it was said within
     * {@link #LOG_EVERY}.
     */
    void retrying(WriteTarget endpoint, WriteOutcome outcome) {
        long retried = retries.computeIfAbsent(endpoint, e -> new AtomicLong()).incrementAndGet();
        if (lines.note(endpoint, 1) == 0) {
            return; // said within LOG_EVERY, or another write thread says it
        }
        log.warn(
                "write endpoint {} answered {} ({}): retrying with backoff (retries of writes to it since it last accepted "
                        + "one: {}; this line repeats at most once a minute while it fails)",
                SafeUrl.redact(endpoint.writeUrl()),
                outcome.status() > 0 ? Integer.toString(outcome.status()) : "without a response",
                outcome.detail() == null || outcome.detail().isEmpty() ? "no detail" : outcome.detail(),
                retried);
    }

    /** Notes that {@code endpoint} accepted a write: its failures (if any) are over. */
    void ok(WriteTarget endpoint) {
        if (retries.isEmpty()) {
            return; // the write path's common case: no map lookup
        }
        AtomicLong retried = retries.remove(endpoint);
        if (lines.forget(endpoint) && retried != null) {
            log.info(
                    "write endpoint {} accepts writes again (retries of writes to it since it last accepted one: {})",
                    SafeUrl.redact(endpoint.writeUrl()),
                    retried.get());
        }
    }
}
