package io.tsdbwriter.kafka.group;

import io.tsdbwriter.kafka.MissingTopicException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The group-wide view a process needs for {@code --stop-at-end} (DESIGN §5): the end offsets of every partition of
 * every subscribed topic recorded once at start, the group's committed offsets read back from Kafka (whoever
 * committed them), and who holds the partitions still behind. Everything goes through one Kafka {@link Admin}
 * client; no consumer-group membership of its own.
 *
 * <p>Not thread-safe: used by the group-member thread only. Every call may block up to the given timeout.
 */
// java.util.concurrent.TimeoutException (caught) and Kafka's TimeoutException (thrown) share a simple name
@SuppressWarnings("checkstyle:inlineQualifiedName")
final class GroupProgress implements AutoCloseable {

    private final Admin admin;
    private final String groupId;
    private List<String> topics;
    private final Map<TopicPartition, Long> recordedEnd = new HashMap<>();
    private final Map<TopicPartition, Long> recordedBegin = new HashMap<>();

    /**
     * @param consumerProps the member's consumer settings; those an Admin client knows (bootstrap, security, …) are used,
     *                      with Kafka's config providers ({@code config.providers*}) that resolve their placeholders
     * @throws KafkaException when the client cannot be made (e.g. no bootstrap server resolves)
     */
    GroupProgress(Map<String, Object> consumerProps, String groupId, List<String> topics) {
        this(consumerProps, groupId, topics, null);
    }

    /** @param topicPattern {@code --topic-pattern}: the topics are those matching it at start; null = {@code topics} */
    GroupProgress(Map<String, Object> consumerProps, String groupId, List<String> topics, Pattern topicPattern) {
        this.admin = Admin.create(adminProps(consumerProps));
        this.sessionTimeout = sessionTimeout(consumerProps);
        this.groupId = groupId;
        this.topics = new ArrayList<>(topics);
        this.topicPattern = topicPattern;
    }

    private final Pattern topicPattern;
    /** This member's {@code session.timeout.ms}, or null when not known (said in the waiting line). */
    private final Duration sessionTimeout;

    /**
     * The Admin client's settings from the member's consumer settings: the keys an Admin client knows, Kafka's config
     * providers ({@code config.providers*}, which resolve the {@code ${file:…}} / {@code ${env:…}} secrets of the others),
     * this client's id and a 10 s request timeout unless one is given.
     */
    static Map<String, Object> adminProps(Map<String, Object> consumerProps) {
        Map<String, Object> p = new HashMap<>();
        Set<String> known = AdminClientConfig.configNames();
        consumerProps.forEach((k, v) -> {
            // config.providers* are not in configNames() but resolve the ${file:…}/${env:…} secrets of the others
            if (known.contains(k) || k.startsWith(AbstractConfig.CONFIG_PROVIDERS_CONFIG)) {
                p.put(k, v);
            }
        });
        p.remove(AdminClientConfig.CLIENT_ID_CONFIG);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-group-progress");
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return p;
    }

    /**
     * Checks that every topic exists and returns its partitions.
     *
     * @throws MissingTopicException naming the first topic that does not exist
     * @throws KafkaException        (or a timeout) when Kafka cannot be reached within {@code timeout}
     */
    Set<TopicPartition> partitions(Duration timeout) throws InterruptedException {
        if (topicPattern != null) {
            try {
                topics = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).stream()
                        .filter(t -> topicPattern.matcher(t).matches())
                        .sorted()
                        .toList();
            } catch (ExecutionException e) {
                throw unwrap(e);
            } catch (TimeoutException e) {
                throw new org.apache.kafka.common.errors.TimeoutException("listTopics timed out after " + timeout, e);
            }
            if (topics.isEmpty()) {
                throw MissingTopicException.noMatch(topicPattern);
            }
        }
        Map<String, TopicDescription> d;
        try {
            d = admin.describeTopics(topics).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                for (String t : topics) { // which one: ask one by one
                    try {
                        admin.describeTopics(List.of(t)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (ExecutionException e2) {
                        if (e2.getCause() instanceof UnknownTopicOrPartitionException) {
                            throw new MissingTopicException(t);
                        }
                        throw unwrap(e2);
                    } catch (TimeoutException e2) {
                        throw new org.apache.kafka.common.errors.TimeoutException("describeTopics timed out", e2);
                    }
                }
                throw new MissingTopicException(String.join(",", topics));
            }
            throw unwrap(e);
        } catch (TimeoutException e) {
            throw new org.apache.kafka.common.errors.TimeoutException("describeTopics timed out after " + timeout, e);
        }
        return d.values().stream()
                .flatMap(td -> td.partitions().stream().map(pi -> new TopicPartition(td.name(), pi.partition())))
                .collect(Collectors.toSet());
    }

    /**
     * Records the end offset (read_committed: the last stable offset) and the log start offset of every partition of
     * every topic; {@code --stop-at-end} reads every partition up to its recorded end and never beyond, whichever
     * member ends up reading it.
     */
    void recordEnds(Duration timeout) throws InterruptedException {
        Set<TopicPartition> tps = partitions(timeout);
        recordedEnd.putAll(offsets(tps, OffsetSpec.latest(), timeout));
        recordedBegin.putAll(offsets(tps, OffsetSpec.earliest(), timeout));
    }

    private Map<TopicPartition, Long> offsets(Set<TopicPartition> tps, OffsetSpec spec, Duration timeout)
            throws InterruptedException {
        Map<TopicPartition, OffsetSpec> req = new HashMap<>();
        tps.forEach(tp -> req.put(tp, spec));
        try {
            return admin
                    .listOffsets(req, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .entrySet()
                    .stream()
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, e -> e.getValue().offset()));
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (TimeoutException e) {
            throw new org.apache.kafka.common.errors.TimeoutException("listOffsets timed out after " + timeout, e);
        }
    }

    /** The end offsets recorded at start, by partition (empty before {@link #recordEnds}). */
    Map<TopicPartition, Long> recordedEnds() {
        return Map.copyOf(recordedEnd);
    }

    /** The recorded end of {@code tp}, or null when it was not recorded (a partition added later). */
    Long recordedEnd(TopicPartition tp) {
        return recordedEnd.get(tp);
    }

    /**
     * The partitions whose group-committed offset is still below the recorded end, with that committed offset
     * (−1 = nothing committed). Empty = the whole topic is written.
     *
     * @throws KafkaException (or a timeout) when Kafka cannot be asked
     */
    Map<TopicPartition, Long> behind(Duration timeout) throws InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (TimeoutException e) {
            throw new org.apache.kafka.common.errors.TimeoutException(
                    "listConsumerGroupOffsets timed out after " + timeout, e);
        }
        Map<TopicPartition, Long> out =
                new TreeMap<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        recordedEnd.forEach((tp, end) -> {
            OffsetAndMetadata om = committed.get(tp);
            long c = om == null ? -1 : om.offset();
            boolean done = c >= end || (c < 0 && end <= recordedBegin.getOrDefault(tp, 0L));
            if (!done) {
                out.put(tp, c);
            }
        });
        return out;
    }

    /**
     * One line naming each partition still behind, its committed and recorded end offsets, and the member that
     * holds it (client id, host, instance id) or "unassigned" — from {@code describeConsumerGroups}; while the group
     * rebalances, why its partitions wait ({@link #describe}).
     */
    String describeWaiting(Map<TopicPartition, Long> behind, Duration timeout) {
        Map<TopicPartition, String> holders = new HashMap<>();
        GroupState state = GroupState.UNKNOWN;
        try {
            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(groupId))
                    .describedGroups()
                    .get(groupId)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            state = g.groupState();
            for (MemberDescription m : g.members()) {
                String who = m.clientId() + " on " + m.host()
                        + m.groupInstanceId().map(i -> " instance " + i).orElse("") + " (member " + m.consumerId()
                        + ")";
                for (TopicPartition tp : m.assignment().topicPartitions()) {
                    holders.put(tp, who);
                }
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // the holders are a courtesy: without them the line still names the partitions
        }
        return describe(behind, recordedEnd, holders, state, sessionTimeout);
    }

    /**
     * The partitions still behind as {@link #describeWaiting} says them: {@code tp committed C of E, held by WHO}, joined
     * by {@code "; "}. A partition no member holds is {@code no member (unassigned)}; while a classic group rebalances
     * ({@code PreparingRebalance}, {@code CompletingRebalance}: Kafka then describes no member's assignment) it is {@code
     * no member (the group is rebalancing)}, and one sentence at the end says why it can last: the group waits up to
     * {@code session.timeout.ms} for members that left without a word (e.g. killed) before it gives their partitions out.
     *
     * @param behind         committed offset by partition (−1 = none)
     * @param ends           recorded end offset by partition
     * @param holders        who holds a partition, by partition; a partition without one is held by no member
     * @param state          the group's state; {@link GroupState#UNKNOWN} when it could not be read
     * @param sessionTimeout this member's {@code session.timeout.ms}, or null when not known
     */
    static String describe(
            Map<TopicPartition, Long> behind,
            Map<TopicPartition, Long> ends,
            Map<TopicPartition, String> holders,
            GroupState state,
            Duration sessionTimeout) {
        boolean rebalancing = state == GroupState.PREPARING_REBALANCE || state == GroupState.COMPLETING_REBALANCE;
        String nobody = rebalancing ? "no member (the group is rebalancing)" : "no member (unassigned)";
        List<String> parts = new ArrayList<>();
        boolean unheld = false;
        for (Map.Entry<TopicPartition, Long> e : behind.entrySet()) {
            TopicPartition tp = e.getKey();
            long c = e.getValue();
            String who = holders.get(tp);
            unheld |= who == null;
            parts.add(tp + " committed " + (c < 0 ? "none" : c) + " of " + ends.get(tp) + ", held by "
                    + (who == null ? nobody : who));
        }
        String line = String.join("; ", parts);
        if (rebalancing && unheld) {
            long ms = sessionTimeout == null ? -1 : sessionTimeout.toMillis();
            line += ". The group is rebalancing (" + state + "): it waits up to session.timeout.ms"
                    + (ms < 0 ? "" : " (" + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms") + ")")
                    + " for members that left without a word (killed, or their host lost) before it gives their "
                    + "partitions to the others";
        }
        return line;
    }

    /** Kafka's default {@code session.timeout.ms}: 45 s. */
    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(45);

    /**
     * {@code session.timeout.ms} of {@code consumerProps} (milliseconds, a number or its text); {@link
     * #DEFAULT_SESSION_TIMEOUT} when not given; null when it is not a number (e.g. a config provider's placeholder).
     */
    static Duration sessionTimeout(Map<String, Object> consumerProps) {
        Object v = consumerProps.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        if (v == null) {
            return DEFAULT_SESSION_TIMEOUT;
        }
        if (v instanceof Number n) {
            return Duration.ofMillis(n.longValue());
        }
        if (v instanceof String t) {
            try {
                return Duration.ofMillis(Long.parseLong(t.strip()));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    private static RuntimeException unwrap(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException r) {
            return r;
        }
        return new KafkaException(c);
    }

    /** Partitions of {@code tps} that are recorded (for logs). */
    static String names(Collection<TopicPartition> tps) {
        return tps.stream().map(TopicPartition::toString).sorted().collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
