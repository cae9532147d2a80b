package io.tsdbwriter.write;

import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.http.SafeUrl;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration faults of the write endpoints (DESIGN §6): which endpoint has answered with one since its last
 * accepted write, and since when. A fault is said in one clear line per endpoint and status at most once per
 * {@link #LOG_EVERY} (the endpoint without user info, the status, the likely cause), counted in
 * [tsdbwriter_write_faults_total{endpoint,class}], makes {@code /health/ready} false ({@link #any()}), and under
 * {@code --stop-at-end} ends the job once it has lasted {@code --write-fault-timeout} ({@link #longest()}).
 *
 * <p>Thread-safe: called from every write thread.
 */
public final class WriteFaults {

    private static final Logger log = LoggerFactory.getLogger(WriteFaults.class);
    /** How often the line may repeat per endpoint and status. */
    static final Duration LOG_EVERY = Duration.ofMinutes(1);

    private final WriterMeters meters;
    private final LongSupplier nanoClock;
    private final Map<WriteTarget, Long> since = new ConcurrentHashMap<>();
    private final Map<WriteTarget, WriteOutcome> last = new ConcurrentHashMap<>();
    private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

    /** @param meters where faults are counted */
    public WriteFaults(WriterMeters meters) {
        this(meters, System::nanoTime);
    }

    /** As {@link #WriteFaults(WriterMeters)} with the clock ({@link System#nanoTime()} in production) given: tests. */
    WriteFaults(WriterMeters meters, LongSupplier nanoClock) {
        this.meters = meters;
        this.nanoClock = nanoClock;
    }

    /**
     * Notes a configuration fault of {@code endpoint}: counts it and logs the line unless it was logged for this
     * endpoint and status within {@link #LOG_EVERY}.
     *
     * @param probeEvery how often the held batch is tried again (said in the line)
     */
    void fault(WriteTarget endpoint, WriteOutcome outcome, Duration probeEvery) {
        long now = nanoClock.getAsLong();
        since.putIfAbsent(endpoint, now);
        last.put(endpoint, outcome);
        String url = SafeUrl.redact(endpoint.writeUrl());
        meters.writeFault(url, outcome.statusClass());
        String key = url + '|' + (outcome.status() > 0 ? Integer.toString(outcome.status()) : outcome.statusClass());
        Long logged = lastLogged.get(key);
        if (logged != null && now - logged < LOG_EVERY.toNanos()) {
            return;
        }
        lastLogged.put(key, now);
        log.error(
                "write endpoint {} answered {}: a configuration fault, not the data - {}; the data is kept, the partition holds "
                        + "and the write is tried again every {} until the endpoint accepts it (this line repeats at most once a minute)",
                url,
                outcome.status() > 0 ? Integer.toString(outcome.status()) : "without a response",
                outcome.detail(),
                human(probeEvery));
    }

    /** Notes that {@code endpoint} accepted a write: its fault (if any) is over. */
    void ok(WriteTarget endpoint) {
        if (since.remove(endpoint) != null) {
            last.remove(endpoint);
            log.info("write endpoint {} accepts writes again", SafeUrl.redact(endpoint.writeUrl()));
        }
    }

    /** True while some endpoint's last answer was a configuration fault. */
    public boolean any() {
        return !since.isEmpty();
    }

    /** How long the oldest fault still standing has lasted ({@link Duration#ZERO} when none). */
    public Duration longest() {
        long now = nanoClock.getAsLong();
        long oldest = since.values().stream().mapToLong(Long::longValue).min().orElse(now);
        return Duration.ofNanos(now - oldest);
    }

    /** The faults standing now, one per endpoint: {@code url status: cause}; empty when none. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        last.forEach((e, o) -> {
            if (!b.isEmpty()) {
                b.append("; ");
            }
            b.append(SafeUrl.redact(e.writeUrl()))
                    .append(' ')
                    .append(o.status() > 0 ? Integer.toString(o.status()) : o.statusClass())
                    .append(": ")
                    .append(o.detail());
        });
        return b.toString();
    }

    static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
