package io.tsdbwriter.kafka.share;

import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.WorkShare;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --consumer-mode share}: the process as P members of a share group (KIP-932; Apache Kafka ≥ 4.2), each a
 * {@link ShareWorker}. Records of one partition go to any member of any process, so the writer scales past the partition
 * count across processes; each record is acknowledged on its own once the TSDB acknowledged its samples. No order, no
 * end ({@link #hasEnd()} is false: the run ends on SIGTERM).
 *
 * <p>Before any member starts, through the Admin API: the cluster must have share groups enabled (the {@code share.version}
 * feature ≥ 1; else one line naming the cluster's {@code metadata.version} and {@code share.version}, exit 1), every topic
 * must exist, and a group whose {@code share.auto.offset.reset} is not set is set to {@code earliest} (a share group starts
 * at the log end by default: without it a new group would skip every record already in the topic), said in the log.
 *
 * <p>Thread-safety: {@link #run()} on one thread; every other method from any thread.
 */
public final class ShareMember implements Intake {

    private static final Logger log = LoggerFactory.getLogger(ShareMember.class);
    /** Consumer settings a share consumer refuses (ShareConsumerConfig): dropped from {@code --consumer-property} with a line. */
    static final List<String> UNSUPPORTED = List.of(
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG,
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
            ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);
    /**
     * {@code max.poll.records} of a share consumer unless {@code --consumer-property} sets it: 2,000, the broker's default
     * {@code group.share.partition.max.record.locks} (the client's 500 made a round of poll, write and acknowledgement
     * per 500 records: bench, 2 M points at M=1, one process: 3.73 M samples/min at 500, 6.85 M at 2,000).
     */
    static final int SHARE_MAX_POLL_RECORDS = 2_000;
    /** How often the log end offsets and the group's members (the work share) are read: 5 s. */
    private static final int CHECK_EVERY_SECONDS = 5;

    private static final Duration CHECK_EVERY = Duration.ofSeconds(CHECK_EVERY_SECONDS);
    /** The first 30 s, when processes started together join the group one after the other: checked every second. */
    private static final Duration STARTING = Duration.ofSeconds(30);

    /**
     * @param consumerProps the Kafka client settings (bootstrap, security, {@code group.id}, {@code --consumer-property})
     * @param topics        the topics to subscribe to
     * @param parallelism   share consumers in this process ({@code --parallelism})
     * @param drainTimeout  how long a stop may wait for held records
     * @param kafkaTimeout  how long an Admin call may take before Kafka is called unreachable
     */
    public record Settings(
            Map<String, Object> consumerProps,
            List<String> topics,
            int parallelism,
            Duration drainTimeout,
            Duration kafkaTimeout) {}

    /** The share group's own dead-letter topic (KIP-1191, group config, Apache Kafka ≥ 4.4). */
    static final String BROKER_DLQ = "errors.deadletterqueue.topic.name";

    private final Settings settings;
    private final IntakeSettings workerSettings;
    private final List<ShareWorker> workers = new ArrayList<>();
    private final Object stopSignal = new Object();
    private volatile boolean stopped;
    private volatile boolean startFailed;
    private volatile boolean cleanStop = true;
    private volatile boolean reachable = true;
    private volatile long logEndTotal;
    /** Told this process's share consumers of the group's members (write permits). */
    private volatile Consumer<WorkShare> shareListener = s -> {};

    private volatile WorkShare share = new WorkShare(0, 0, "share consumers");
    /** The client ids of this process's share consumers, by which the group's description tells them from the others'. */
    private final Set<String> ownClientIds = new HashSet<>();

    public ShareMember(Settings settings, IntakeSettings workerSettings) {
        this.settings = settings;
        this.workerSettings = workerSettings;
    }

    private String groupId() {
        return String.valueOf(settings.consumerProps().get(ConsumerConfig.GROUP_ID_CONFIG));
    }

    @Override
    public void run() {
        Map<String, Object> adminProps = new HashMap<>(settings.consumerProps());
        adminProps.keySet().removeIf(k -> !AdminClientConfig.configNames().contains(k));
        List<Thread> threads = new ArrayList<>();
        try (Admin admin = Admin.create(adminProps)) {
            String problem = check(admin);
            if (problem != null) {
                log.error(problem); // troubleshooting: has share groups disabled | consumer group on this cluster, and
                // Kafka admits no share consumer to it | at least one does not exist | refused the
                // check: | did not answer within
                startFailed = true;
                return;
            }
            Map<String, Object> props = shareConsumerProps();
            for (int i = 0; i < settings.parallelism(); i++) {
                Map<String, Object> own = new HashMap<>(props);
                own.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientIdBase() + "-share-" + i);
                ownClientIds.add(String.valueOf(own.get(ConsumerConfig.CLIENT_ID_CONFIG)));
                ShareWorker w =
                        new ShareWorker("share-" + i, own, settings.topics(), workerSettings, settings.drainTimeout());
                workers.add(w);
                threads.add(Thread.ofPlatform().name("share-" + i).start(w));
            }
            log.info(
                    "share group {}: {} share consumer(s) on {}",
                    groupId(),
                    settings.parallelism(),
                    String.join(",", settings.topics()));
            long started = System.nanoTime();
            while (!stopped) {
                logEndTotal = logEnd(admin);
                tellShare(admin);
                boolean starting = System.nanoTime() - started < STARTING.toNanos();
                synchronized (stopSignal) {
                    if (!stopped) {
                        stopSignal.wait(starting ? 1000 : CHECK_EVERY.toMillis());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            workers.forEach(ShareWorker::stop);
            for (Thread t : threads) {
                try {
                    t.join(settings.drainTimeout().toMillis() + 30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            cleanStop = workers.stream().allMatch(ShareWorker::cleanStop);
        }
    }

    /** Every process's share consumers have client ids of their own (Kafka's default is the same in every process). */
    private static String clientIdBase() {
        String host = System.getenv("HOSTNAME"); // the pod name on Kubernetes, where every pid is 1
        return "tsdb-writer-" + (host == null || host.isBlank() ? "" : host + "-")
                + ProcessHandle.current().pid();
    }

    /**
     * Reads the share group's members and tells the listener this process's share when it changed: its
     * {@code --parallelism} share consumers of theirs plus every other member (a member whose client id is not one of
     * this process's). Not before this process's own consumers are members (until then it keeps the least share: the
     * processes started with it have then joined too, or join within the next checks). A failed read keeps the last
     * share.
     */
    private void tellShare(Admin admin) throws InterruptedException {
        int others;
        try {
            ShareGroupDescription g = admin.describeShareGroups(List.of(groupId()))
                    .describedGroups()
                    .get(groupId())
                    .get(settings.kafkaTimeout().toMillis(), TimeUnit.MILLISECONDS);
            long ours = g.members().stream()
                    .filter(m -> ownClientIds.contains(m.clientId()))
                    .count();
            if (ours < settings.parallelism() && share.total() == 0) {
                return; // this process's consumers have not joined yet
            }
            others = g.members().size() - (int) Math.min(ours, settings.parallelism());
        } catch (ExecutionException | TimeoutException e) {
            return; // a new group is not found before its first member joined
        }
        WorkShare now = new WorkShare(settings.parallelism(), settings.parallelism() + others, "share consumers");
        if (!now.equals(share)) {
            share = now;
            shareListener.accept(now);
        }
    }

    /**
     * The share is this process's share consumers of the share group's members, read every second for the first 30 s,
     * then every {@value #CHECK_EVERY_SECONDS} s; none (the least) until this process's consumers are members.
     */
    @Override
    public void onWorkShare(Consumer<WorkShare> listener) {
        shareListener = listener;
        listener.accept(share);
    }

    /** The one line why share mode cannot start here, or null. */
    private String check(Admin admin) throws InterruptedException {
        long timeoutMs = settings.kafkaTimeout().toMillis();
        try {
            FeatureMetadata features =
                    admin.describeFeatures().featureMetadata().get(timeoutMs, TimeUnit.MILLISECONDS);
            FinalizedVersionRange share = features.finalizedFeatures().get("share.version");
            if (share == null || share.maxVersionLevel() < 1) {
                FinalizedVersionRange metadata = features.finalizedFeatures().get("metadata.version");
                return "--consumer-mode share: the cluster at "
                        + settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)
                        + " has share groups disabled (share.version="
                        + (share == null ? "none" : share.maxVersionLevel())
                        + ", metadata.version level " + (metadata == null ? "unknown" : metadata.maxVersionLevel())
                        + "): share groups need Apache Kafka >= 4.2 with share.version >= 1 (kafka-features.sh upgrade --feature share.version=1)";
            }
            Optional<GroupType> type = admin.listGroups().all().get(timeoutMs, TimeUnit.MILLISECONDS).stream()
                    .filter(g -> g.groupId().equals(groupId()))
                    .findFirst()
                    .flatMap(GroupListing::type);
            if (type.isPresent() && type.get() != GroupType.SHARE) {
                return "--consumer-mode share: --group-id " + groupId() + " is a "
                        + type.get().toString().toLowerCase(Locale.ROOT)
                        + " consumer group on this cluster, and Kafka admits no share consumer to it: give the share group an id of its own";
            }
            Map<String, TopicDescription> topics =
                    admin.describeTopics(settings.topics()).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
            log.debug("share mode: topics {}", topics.keySet());
            setEarliestIfUnset(admin, timeoutMs);
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return "topic(s) " + settings.topics() + ": at least one does not exist ("
                        + e.getCause().getMessage() + ")";
            }
            reachable = false;
            return "--consumer-mode share: Kafka at "
                    + settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) + " refused the check: "
                    + e.getCause();
        } catch (TimeoutException e) {
            reachable = false;
            return "Kafka at " + settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " did not answer within " + settings.kafkaTimeout().toSeconds() + "s";
        }
    }

    /** A share group starts at the log end unless {@code share.auto.offset.reset} says otherwise: set it to earliest when unset. */
    private void setEarliestIfUnset(Admin admin, long timeoutMs)
            throws InterruptedException, ExecutionException, TimeoutException {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, groupId());
        Config config = admin.describeConfigs(List.of(group))
                .all()
                .get(timeoutMs, TimeUnit.MILLISECONDS)
                .get(group);
        ConfigEntry reset = config == null ? null : config.get("share.auto.offset.reset");
        logDeadLetters(config);
        if (reset != null && reset.source() == ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG) {
            log.info("share group {}: share.auto.offset.reset={} (set on the group, kept)", groupId(), reset.value());
            return;
        }
        Map<ConfigResource, Collection<AlterConfigOp>> op = Map.of(
                group,
                List.of(new AlterConfigOp(
                        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(op).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        log.info(
                "share group {}: share.auto.offset.reset was not set: set to earliest (a new group reads each partition from its start)",
                groupId());
    }

    /**
     * Says where refused records go: the group's own dead-letter topic (KIP-1191, Kafka ≥ 4.4, group config
     * {@value #BROKER_DLQ}) takes every REJECTed record and every record archived at {@code share.delivery.count.limit};
     * {@code --dead-letter-topic} takes what the writer refuses (those records are then ACCEPTed, so the broker's topic
     * receives only records archived at the limit).
     */
    private void logDeadLetters(Config config) {
        ConfigEntry dlq = config == null ? null : config.get(BROKER_DLQ);
        String brokerTopic = dlq == null || dlq.value() == null || dlq.value().isBlank() ? null : dlq.value();
        ConfigEntry limit = config == null ? null : config.get("share.delivery.count.limit");
        String limitText = limit == null || limit.value() == null
                ? "the broker's group.share.delivery.count.limit"
                : limit.value();
        boolean ours = workerSettings.deadLetters() != null;
        if (brokerTopic != null && ours) {
            log.info(
                    "share group {}: malformed records go to --dead-letter-topic (then ACCEPTed); the group's own dead-letter "
                            + "topic {} ({}, KIP-1191) receives records archived at the delivery count limit ({})",
                    groupId(),
                    brokerTopic,
                    BROKER_DLQ,
                    limitText);
        } else if (brokerTopic != null) {
            log.info(
                    "share group {}: malformed records are REJECTed: the broker writes them to the group's dead-letter topic {} "
                            + "({}, KIP-1191), as it does records archived at the delivery count limit ({})",
                    groupId(),
                    brokerTopic,
                    BROKER_DLQ,
                    limitText);
        } else if (!ours) {
            log.info(
                    "share group {}: no dead-letter topic (--dead-letter-topic, or {} on Kafka >= 4.4): malformed records are "
                            + "REJECTed and archived by the broker (counted in tsdbwriter_decode_errors_total)",
                    groupId(),
                    BROKER_DLQ);
        }
    }

    private long logEnd(Admin admin) {
        try {
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            for (TopicDescription d : admin.describeTopics(settings.topics())
                    .allTopicNames()
                    .get(10, TimeUnit.SECONDS)
                    .values()) {
                d.partitions().forEach(p -> req.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            long sum = 0;
            for (var r : admin.listOffsets(req).all().get(10, TimeUnit.SECONDS).values()) {
                sum += r.offset();
            }
            reachable = true;
            return sum;
        } catch (ExecutionException | TimeoutException e) {
            reachable = false;
            return logEndTotal;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return logEndTotal;
        }
    }

    /** The share consumers' settings: the client's, explicit acknowledgement, byte deserializers, without what they refuse. */
    Map<String, Object> shareConsumerProps() {
        Map<String, Object> p = new HashMap<>(settings.consumerProps());
        for (String k : UNSUPPORTED) {
            if (p.remove(k) != null) {
                log.warn("--consumer-mode share: {} does not apply to a share consumer: ignored", k);
            }
        }
        p.put("share.acknowledgement.mode", "explicit");
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, SHARE_MAX_POLL_RECORDS);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }

    @Override
    public void stop() {
        stopped = true;
        synchronized (stopSignal) {
            stopSignal.notifyAll();
        }
    }

    @Override
    public boolean hasEnd() {
        return false;
    }

    @Override
    public boolean reachedEnd() {
        return false;
    }

    @Override
    public boolean startFailed() {
        return startFailed;
    }

    @Override
    public boolean cleanStop() {
        return cleanStop;
    }

    @Override
    public boolean kafkaReachable() {
        return reachable;
    }

    @Override
    public long logEndTotal() {
        return logEndTotal;
    }

    @Override
    public Map<TopicPartition, Shortfall> shortfall() {
        return null;
    }

    @Override
    public Map<String, Object> summary() {
        return Map.of(
                "consumer_mode",
                "share",
                "share_redeliveries",
                (long) workerSettings.meters().shareRedeliveries.count(),
                "share_accepted",
                workerSettings.meters().shareAcknowledgements("accept"),
                "share_rejected",
                workerSettings.meters().shareAcknowledgements("reject"),
                "share_renewed",
                workerSettings.meters().shareAcknowledgements("renew"));
    }
}
