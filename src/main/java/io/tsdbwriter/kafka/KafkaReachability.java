package io.tsdbwriter.kafka;

import java.time.Duration;
import java.util.Locale;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Kafka answers the process (DESIGN §5, docs/group-membership.md): while it does not, one line naming the
 * bootstrap servers and the reason at most once a minute, {@code /health/ready} false, and — under
 * {@code --stop-at-end} or a replay (a run with an end) — {@link GaveUp} once it has not answered for {@code --kafka-timeout}.
 *
 * <p>{@link #ok} and {@link #unreachable} are called by the group-member thread only; {@link #reachable} from any.
 */
public final class KafkaReachability {

    private static final Logger log = LoggerFactory.getLogger(KafkaReachability.class);
    /** The "unreachable" line is logged at most this often. */
    static final Duration LOG_EVERY = Duration.ofMinutes(1);

    private final String bootstrap;
    /** What gives this run an end ({@code --stop-at-end}, {@code a replay}), or null for a relay without one. */
    private final String endedBy;

    private final Duration kafkaTimeout;
    private volatile boolean reachable;
    private long lastOkNanos = System.nanoTime();
    private long lastLogNanos;
    private boolean logged;

    /** Kafka stayed unreachable longer than {@code --kafka-timeout} in a run with an end, or refused us. */
    public static final class GaveUp extends RuntimeException {
        public GaveUp(String message) {
            super(message);
        }
    }

    /**
     * @param endedBy what gives the run an end, named in the give-up line ({@code --stop-at-end}, {@code a replay}); null
     *                for a relay, which retries as long as it runs
     */
    public KafkaReachability(String bootstrap, String endedBy, Duration kafkaTimeout) {
        this.bootstrap = bootstrap;
        this.endedBy = endedBy;
        this.kafkaTimeout = kafkaTimeout;
    }

    /** Kafka answered: says so once after an outage. */
    public void ok() {
        if (logged) {
            log.info("Kafka bootstrap servers {} reachable again", bootstrap);
            logged = false;
        }
        reachable = true;
        lastOkNanos = System.nanoTime();
    }

    /**
     * Kafka did not answer: one line naming the servers, at most once a minute.
     *
     * @throws GaveUp in a run with an end once it has not answered for {@code --kafka-timeout}
     */
    public void unreachable(RuntimeException e) {
        reachable = false;
        long now = System.nanoTime();
        long downNanos = now - lastOkNanos;
        if (!logged || now - lastLogNanos >= LOG_EVERY.toNanos()) {
            log.warn(
                    "Kafka bootstrap servers {} unreachable ({}); retrying{}",
                    bootstrap,
                    reason(e),
                    endedBy != null
                            ? ", giving up after --kafka-timeout " + human(kafkaTimeout)
                            : " (this line repeats at most once a minute)");
            logged = true;
            lastLogNanos = now;
        }
        if (endedBy != null && downNanos >= kafkaTimeout.toNanos()) {
            throw new GaveUp("Kafka bootstrap servers " + bootstrap + " unreachable for " + human(kafkaTimeout)
                    + " (--kafka-timeout) in " + endedBy + ": giving up (" + reason(e) + ")");
        }
    }

    /** False before Kafka first answered and after a failed check. */
    public boolean reachable() {
        return reachable;
    }

    /** The one line for a broker that refused this client (authentication or authorization): not an outage. */
    public static String refused(String bootstrap, RuntimeException e) {
        return "Kafka at " + bootstrap + " refused this client: " + e.getMessage()
                + " (credentials or ACLs, not an outage: check the security settings of --kafka-config / --kafka-property)";
    }

    static String human(Duration d) {
        return d.toString().substring(2).toLowerCase(Locale.ROOT); // PT2M -> 2m
    }

    static String reason(Throwable e) {
        if (e instanceof TimeoutException) {
            return "no answer in time";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause(); // e.g. "No resolvable bootstrap urls given in bootstrap.servers"
        }
        String m = root.getMessage();
        return m == null ? root.getClass().getSimpleName() : m;
    }
}
