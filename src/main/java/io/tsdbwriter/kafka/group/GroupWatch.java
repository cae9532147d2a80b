package io.tsdbwriter.kafka.group;

import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.kafka.Shortfall;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group as the Admin API shows it over a run (DESIGN §5, docs/group-membership.md), beside the member's own
 * consumer: before joining, every topic exists and — with {@code --stop-at-end} — the end offset of every partition
 * is recorded ({@link #connect}); every few seconds Kafka still answers and, with {@code --stop-at-end}, whether the
 * <em>group's</em> committed offset of every recorded partition reached its end, whoever committed it
 * ({@link #groupDone}); at a stop before the end, which partitions the group left short ({@link #shortfall}).
 * Reachability is {@link KafkaReachability}'s: one line per minute while Kafka does not answer.
 *
 * <p>Threading: the group-member thread calls everything but {@link #stop} (any thread) and {@link #shortfall}
 * (any thread, after the member ended).
 */
final class GroupWatch implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GroupWatch.class);
    /** One Admin request's bound (a first request on a busy machine can take several seconds). */
    static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);
    /** The "still waiting for …" line is logged at most this often. */
    private static final Duration WAITING_LOG_EVERY = Duration.ofSeconds(15);
    /** The wait between two attempts to reach Kafka before joining. */
    private static final Duration RETRY_EVERY = Duration.ofSeconds(1);

    private final Map<String, Object> consumerProps;
    private final String groupId;
    private final List<String> topics;
    private final boolean stopAtEnd;
    private final Duration kafkaTimeout;
    private final KafkaReachability reachability;
    private final Object stopSignal = new Object();
    private volatile boolean stopped;
    private GroupProgress progress; // member thread only
    private long lastWaitingLogNanos = System.nanoTime();
    private volatile Map<TopicPartition, Shortfall> shortfall;

    private final Pattern topicPattern;

    GroupWatch(
            Map<String, Object> consumerProps,
            String groupId,
            List<String> topics,
            Pattern topicPattern,
            boolean stopAtEnd,
            Duration kafkaTimeout,
            KafkaReachability reachability) {
        this.consumerProps = consumerProps;
        this.groupId = groupId;
        this.topics = topics;
        this.topicPattern = topicPattern;
        this.stopAtEnd = stopAtEnd;
        this.kafkaTimeout = kafkaTimeout;
        this.reachability = reachability;
    }

    /**
     * Before joining: checks every topic exists and, with {@code --stop-at-end}, records the end offset of every
     * partition. While Kafka cannot be reached it logs one line naming the bootstrap servers at most once a minute
     * and retries — until {@code --kafka-timeout} under {@code --stop-at-end}, for ever otherwise.
     *
     * @param bootstrap the bootstrap servers, for the one line when Kafka refuses this client
     * @return the recorded end offsets (empty without {@code --stop-at-end}), or null when stopped before Kafka answered
     * @throws MissingTopicException a topic does not exist
     * @throws KafkaReachability.GaveUp            Kafka refused this client, or stayed unreachable too long
     */
    Map<TopicPartition, Long> connect(String bootstrap) throws InterruptedException {
        GroupProgress p = null;
        try {
            while (!stopped) {
                try {
                    if (p == null) {
                        p = new GroupProgress(consumerProps, groupId, topics, topicPattern);
                    }
                    if (stopAtEnd) {
                        p.recordEnds(attemptTimeout());
                        log.info(
                                "stop-at-end: recorded the end offsets of {} partition(s) of {}; the run ends once the group "
                                        + "committed every one of them, whichever member writes it",
                                p.recordedEnds().size(),
                                topics);
                    } else {
                        p.partitions(attemptTimeout());
                    }
                    reachability.ok();
                    progress = p;
                    p = null;
                    return progress.recordedEnds();
                } catch (MissingTopicException e) {
                    throw e;
                } catch (AuthenticationException | AuthorizationException e) {
                    throw new KafkaReachability.GaveUp(KafkaReachability.refused(bootstrap, e));
                } catch (KafkaException e) {
                    reachability.unreachable(e);
                    synchronized (stopSignal) {
                        if (!stopped) {
                            stopSignal.wait(RETRY_EVERY.toMillis());
                        }
                    }
                }
            }
            return null;
        } finally {
            if (p != null) {
                p.close();
            }
        }
    }

    /** An Admin attempt's bound: {@link #ADMIN_TIMEOUT}, or less when --kafka-timeout is shorter. */
    private Duration attemptTimeout() {
        return stopAtEnd && kafkaTimeout.compareTo(ADMIN_TIMEOUT) < 0 ? kafkaTimeout : ADMIN_TIMEOUT;
    }

    /**
     * With {@code --stop-at-end}: reads the group's committed offsets back and answers whether every recorded
     * partition reached its recorded end; logs (every 15 s at most) what it still waits for and who holds it.
     * Without: only checks that Kafka answers, and answers false.
     *
     * @param localState what this process is doing with its partitions, for the waiting line
     */
    boolean groupDone(Supplier<String> localState) throws InterruptedException {
        try {
            if (!stopAtEnd) {
                progress.partitions(ADMIN_TIMEOUT);
                reachability.ok();
                return false;
            }
            Map<TopicPartition, Long> behind = progress.behind(ADMIN_TIMEOUT);
            reachability.ok();
            if (behind.isEmpty()) {
                log.info(
                        "stop-at-end: the group's committed offset of every partition ({}) reached its recorded end",
                        progress.recordedEnds().size());
                return true;
            }
            long now = System.nanoTime();
            if (now - lastWaitingLogNanos >= WAITING_LOG_EVERY.toNanos()) {
                lastWaitingLogNanos = now;
                log.info(
                        "stop-at-end: {}; waiting for {} partition(s) of the group: {}",
                        localState.get(),
                        behind.size(),
                        progress.describeWaiting(behind, ADMIN_TIMEOUT));
            }
            return false;
        } catch (MissingTopicException e) {
            throw e;
        } catch (KafkaException e) {
            reachability.unreachable(e);
            return false;
        }
    }

    /**
     * With {@code --stop-at-end}, stopped before the end: reads back which partitions the group left short, measured
     * against {@code stopOffsets} (the recorded ends, and the ends taken for partitions handed over later).
     */
    void recordShortfall(Map<TopicPartition, Long> stopOffsets) {
        if (!stopAtEnd || progress == null) {
            return;
        }
        try {
            Map<TopicPartition, Long> behind = progress.behind(Duration.ofSeconds(5));
            Map<TopicPartition, Shortfall> out = new LinkedHashMap<>();
            behind.forEach((tp, c) -> out.put(tp, new Shortfall(tp, c, stopOffsets.getOrDefault(tp, c))));
            shortfall = Map.copyOf(out);
        } catch (RuntimeException | InterruptedException e) {
            log.warn(
                    "could not read the group's committed offsets back to say which partitions are short: {}",
                    e.toString());
        }
    }

    /** The partitions left short (see {@link #recordShortfall}); null when not recorded. */
    Map<TopicPartition, Shortfall> shortfall() {
        return shortfall;
    }

    /** Whether {@link #connect} succeeded (the Admin client is open). */
    boolean connected() {
        return progress != null;
    }

    /** Ends {@link #connect}'s retries. Any thread; idempotent. */
    void stop() {
        stopped = true;
        synchronized (stopSignal) {
            stopSignal.notifyAll();
        }
    }

    @Override
    public void close() {
        if (progress != null) {
            progress.close();
        }
    }
}
