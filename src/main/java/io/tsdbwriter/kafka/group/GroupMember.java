package io.tsdbwriter.kafka.group;

import io.tsdbwriter.config.GroupMembership;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.WorkShare;
import io.tsdbwriter.kafka.segment.AckSignal;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import io.tsdbwriter.kafka.segment.Watermark;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer-group member of a process (DESIGN §5): it subscribes (cooperative-sticky under the classic
 * protocol, the broker's assignor under KIP-848),
 * keeps every assigned partition paused (it only holds membership), starts a {@link PartitionWorkers} per
 * assigned partition from the committed offset, and commits each partition's durable {@link Watermark} when
 * {@link CommitSchedule} says — at every segment end, at least every commit interval and, with a durability window,
 * within about 0.9 s of the window's end (a probe round, the commit spacing, a member round); never an offset above an
 * unacked or not yet stored one. On revocation it stops the partition's readers, waits up to the drain timeout for its
 * writes, commits, and drops late completions.
 *
 * <p>Before joining it checks that every topic exists (a missing one ends the run: the writer never creates
 * topics) and, with {@code --stop-at-end}, records the end offset of every partition of every topic
 * ({@link GroupProgress}). {@code --stop-at-end} then ends the run only when the <em>group's</em> committed offset
 * of every recorded partition reached its recorded end, whoever committed it; until then the member keeps its
 * membership and takes over what rebalances hand it, reading each partition only to its recorded end. Kafka
 * unreachable: one line naming the bootstrap servers per minute, not ready, and exit after {@code --kafka-timeout}
 * under {@code --stop-at-end}. Group protocol (classic with cooperative-sticky, or KIP-848 {@code consumer}) and
 * static membership ({@code group.instance.id}) come from {@link GroupMembership}. Design notes:
 * {@code docs/group-membership.md}.
 *
 * <p>Its parts: {@link GroupWatch} (the group as the Admin API shows it: topics, recorded ends, stop-at-end progress,
 * shortfall), {@link OffsetCommits} (commits, lag gauges), {@link KafkaReachability} (the one line while Kafka does
 * not answer), {@link HeldPartitions} (a {@link PartitionWorkers} per held partition: started on assignment from
 * where {@link StartOffset} says, rewound on a TSDB restart) and {@link Release} (stop, drain and commit on a
 * revocation or at the stop); this class keeps the membership: subscription, the rebalance listener and the poll loop.
 *
 * <p>Threading as {@code KafkaConsumer}: {@link #run()} owns the consumer on one thread; {@link #stop()} from any
 * thread sets the closed flag and calls {@code wakeup()}.
 */
public final class GroupMember implements Intake {

    private static final Logger log = LoggerFactory.getLogger(GroupMember.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration END_OFFSETS_EVERY = Duration.ofSeconds(5);
    /** How often, with {@code --stop-at-end}, the group's committed offsets are read back (and Kafka's reachability checked). */
    private static final Duration GROUP_CHECK_EVERY = Duration.ofSeconds(2);
    /** How often reachability is checked without {@code --stop-at-end}. */
    private static final Duration REACHABILITY_CHECK_EVERY = Duration.ofSeconds(10);

    /** How this member behaves. */
    public record Settings(
            Map<String, Object> consumerProps,
            List<String> topics,
            Duration commitInterval,
            Duration drainTimeout,
            boolean stopAtEnd,
            GroupMembership membership,
            Pattern topicPattern) {

        /** Settings subscribing to {@code topics} by name. */
        public Settings(
                Map<String, Object> consumerProps,
                List<String> topics,
                Duration commitInterval,
                Duration drainTimeout,
                boolean stopAtEnd,
                GroupMembership membership) {
            this(consumerProps, topics, commitInterval, drainTimeout, stopAtEnd, membership, null);
        }
    }

    private final Settings settings;
    /** Whether Kafka answers, and the one line when it does not (member thread; read from any thread). */
    private final KafkaReachability reachability;

    private final IntakeSettings workerSettings;
    /** The group as the Admin API shows it: topics, recorded ends, stop-at-end progress, shortfall. */
    private final GroupWatch watch;

    private final OffsetCommits commits;
    /** The partitions held, a PartitionWorkers each (member thread). */
    private final HeldPartitions held;
    /** Stop, drain and commit of the partitions let go (member thread). */
    private final Release release;

    private volatile boolean closed;
    private volatile boolean cleanStop = true;
    private volatile boolean startFailed;
    private volatile boolean reachedEnd;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    /** Set by writer threads when an ack moved a watermark; the member loop then commits at once. */
    private final AckSignal ackSignal = new AckSignal();
    /** When an acknowledged write counts as stored, and the TSDB restarts seen. */
    private final DurabilityClock durability;
    /** Told this member's share of the group's partitions on every rebalance (write permits); null = nobody asked. */
    private volatile Consumer<WorkShare> shareListener;
    /** The subscribed topics' partitions at the last rebalance (member thread). */
    private int partitionsTotal;

    /**
     * @param settings       membership and commit settings
     * @param workerSettings what every partition's SegmentConsumers need
     */
    public GroupMember(Settings settings, IntakeSettings workerSettings) {
        this.settings = settings;
        this.workerSettings = workerSettings;
        this.reachability = new KafkaReachability(
                bootstrap(),
                settings.stopAtEnd() ? "a --stop-at-end job" : null,
                settings.membership().kafkaTimeout());
        this.watch = new GroupWatch(
                settings.consumerProps(),
                groupId(),
                settings.topics(),
                settings.topicPattern(),
                settings.stopAtEnd(),
                settings.membership().kafkaTimeout(),
                reachability);
        this.commits = new OffsetCommits(workerSettings.segmentSize(), workerSettings.meters());
        this.durability = workerSettings.durability();
        this.held = new HeldPartitions(workerSettings, commits, settings.stopAtEnd(), ackSignal::signal);
        this.release = new Release(held, commits, durability, settings.drainTimeout());
    }

    static Map<String, Object> memberProps(Map<String, Object> base, GroupMembership membership) {
        Map<String, Object> p = new HashMap<>(base);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the writer never creates topics
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, membership.protocol().name().toLowerCase(Locale.ROOT));
        if (membership.protocol() == GroupProtocol.CLASSIC) {
            // under KIP-848 the broker assigns (group.remote.assignor); the client may not name an assignor
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        if (membership.groupInstanceId() != null) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, membership.groupInstanceId());
        }
        // every process's member has its own client id (Kafka's default, consumer-<group>-1, is the same in every
        // process), so the "waiting for … held by" line and describeConsumerGroups tell the processes apart
        String host = System.getenv("HOSTNAME"); // the pod name on Kubernetes, where every pid is 1
        p.putIfAbsent(
                ConsumerConfig.CLIENT_ID_CONFIG,
                "tsdb-writer-" + (host == null || host.isBlank() ? "" : host + "-")
                        + ProcessHandle.current().pid());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }

    @Override
    public void run() {
        try {
            Map<TopicPartition, Long> recordedEnds = watch.connect(bootstrap());
            if (recordedEnds != null) {
                held.stopOffsets().putAll(recordedEnds);
                runMember();
            }
        } catch (MissingTopicException e) {
            log.error(
                    e.getMessage()); // troubleshooting: does not exist (the writer never creates topics): check --topic
            // | no topic matches --topic-pattern
            fail();
        } catch (KafkaReachability.GaveUp e) {
            log.error(e.getMessage()); // troubleshooting: unreachable for … (--kafka-timeout) in …: giving up | refused
            // this client:
            fail();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanStop = false;
        } finally {
            if (watch.connected() && !reachedEnd) {
                watch.recordShortfall(held.stopOffsets());
            }
            watch.close();
            closed = true;
        }
    }

    private void fail() {
        startFailed = !held.assignedOnce();
        cleanStop = false;
        held.abandonAll();
    }

    private String groupId() {
        return String.valueOf(settings.consumerProps().get(ConsumerConfig.GROUP_ID_CONFIG));
    }

    private String bootstrap() {
        return String.valueOf(settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    }

    private void runMember() {
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(memberProps(settings.consumerProps(), settings.membership()))) {
            consumer = c;
            if (settings.topicPattern() != null) {
                c.subscribe(
                        settings.topicPattern(),
                        new Rebalance(c)); // Kafka's pattern subscription: new matching topics join
            } else {
                c.subscribe(settings.topics(), new Rebalance(c));
            }
            CommitSchedule schedule = new CommitSchedule(settings.commitInterval(), System.nanoTime());
            long lastEndOffsets = 0;
            long lastGroupCheck = System.nanoTime();
            Duration groupCheckEvery = settings.stopAtEnd() ? GROUP_CHECK_EVERY : REACHABILITY_CHECK_EVERY;
            while (!closed) {
                try {
                    if (held.isEmpty()) {
                        c.poll(POLL); // joining or nothing assigned: let the poll wait
                    } else {
                        c.poll(Duration.ZERO); // paused partitions: returns nothing, keeps membership
                        ackSignal.await(POLL); // ... and the wait is for acks, so commits follow them closely
                    }
                } catch (WakeupException e) {
                    break;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                if (System.nanoTime() - lastEndOffsets > END_OFFSETS_EVERY.toNanos()) {
                    commits.refreshLogEnd(c);
                    lastEndOffsets = System.nanoTime();
                }
                CommitSchedule.Round round = schedule.round(System.nanoTime());
                DurabilityClock.State state = durability.state();
                held.rewindOnRestart(state);
                boolean followed = commits.commitAdvanced(c, held.workers(), round, state);
                workerSettings.meters().recordsAwaitingDurability.set(held.awaitingDurability());
                schedule.roundDone(System.nanoTime(), followed);
                if (System.nanoTime() - lastGroupCheck >= groupCheckEvery.toNanos()) {
                    lastGroupCheck = System.nanoTime();
                    try {
                        if (watch.groupDone(held::localState)) {
                            reachedEnd = true;
                            break; // the whole topic is written (DESIGN §5), not merely this process's share
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            // the gauge (and the summary's records_awaiting_durability) as the last commit left it, not as the last
            // round before the stop's wait for the window saw it
            workerSettings.meters().recordsAwaitingDurability.set(release.revokeAll(c, true));
        } catch (WakeupException e) {
            // closed while starting
        } catch (KafkaReachability.GaveUp e) {
            throw e;
        } catch (AuthenticationException | AuthorizationException e) {
            log.error(KafkaReachability.refused(
                    bootstrap(), e)); // troubleshooting: refused this client: … (credentials or ACLs, not an outage
            cleanStop = false;
            held.abandonAll();
        } catch (RuntimeException e) {
            log.error("group member failed", e);
            cleanStop = false;
            held.abandonAll();
        }
    }

    /**
     * The member's rebalance listener: Kafka calls it inside {@code poll}, on the member thread. An assignment starts
     * the partitions ({@link HeldPartitions#assign}); a revocation releases them with a last commit, a loss without.
     */
    private final class Rebalance implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> c;

        Rebalance(KafkaConsumer<byte[], byte[]> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            held.assign(c, partitions);
            tellShare(c);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            release.release(c, partitions, true);
            tellShare(c); // before the partitions go: their next owner's permits come out of ours
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            release.release(c, partitions, false);
            tellShare(c);
        }
    }

    /**
     * Tells the share listener the partitions held now of the subscribed topics' partitions (read from the consumer's
     * metadata; the last count when it cannot be read). Member thread, inside a rebalance callback.
     */
    private void tellShare(KafkaConsumer<byte[], byte[]> c) {
        Consumer<WorkShare> listener = shareListener;
        if (listener == null) {
            return; // permits of a fixed count: no metadata to read
        }
        try {
            int total = 0;
            for (String topic : c.subscription()) {
                List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
                total += infos == null ? 0 : infos.size();
            }
            partitionsTotal = total;
        } catch (RuntimeException e) {
            log.debug(
                    "partitions of the subscribed topics not read ({}): the share keeps {} partitions as the total",
                    e.toString(),
                    partitionsTotal);
        }
        int mine = held.workers().size();
        listener.accept(new WorkShare(mine, Math.max(mine, partitionsTotal), "partitions"));
    }

    /** The share is the partitions held of the subscribed topics' partitions; none until the first assignment. */
    @Override
    public void onWorkShare(Consumer<WorkShare> listener) {
        shareListener = listener;
        listener.accept(new WorkShare(0, 0, "partitions"));
    }

    /** Total log end offset of the assigned partitions, refreshed every few seconds (input rate). */
    @Override
    public long logEndTotal() {
        return commits.logEndTotal();
    }

    /** Offsets committed by this member, by partition. */
    public Map<TopicPartition, Long> committedOffsets() {
        return commits.committedOffsets();
    }

    /** True when shutdown drained everything (no write abandoned, no failure). */
    @Override
    public boolean cleanStop() {
        return cleanStop && release.cleanStop();
    }

    /** False while Kafka cannot be reached (before the first answer, and after a failed check); feeds /health/ready. */
    @Override
    public boolean kafkaReachable() {
        return reachability.reachable() && !closed;
    }

    /** True when the run failed before any partition was assigned (missing topic, Kafka unreachable): nothing to report. */
    @Override
    public boolean startFailed() {
        return startFailed;
    }

    /** True with {@code --stop-at-end}: a signal before the group committed every recorded end stops it short. */
    @Override
    public boolean hasEnd() {
        return settings.stopAtEnd();
    }

    /** With {@code --stop-at-end}: true once the group's committed offset of every recorded partition reached its end. */
    @Override
    public boolean reachedEnd() {
        return reachedEnd;
    }

    /**
     * With {@code --stop-at-end}, after a stop before the end: the partitions the group left short, read back from
     * Kafka at exit; null when not stopped early, or when Kafka could not be asked (or was never reached).
     */
    @Override
    public Map<TopicPartition, Shortfall> shortfall() {
        return watch.shortfall();
    }

    /** Whether the member loop has ended. */
    public boolean closed() {
        return closed;
    }

    /** Asks the member to stop: its loop then stops readers, drains, commits and leaves the group. Idempotent. */
    @Override
    public void stop() {
        closed = true;
        watch.stop();
        ackSignal.signal();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }
}
