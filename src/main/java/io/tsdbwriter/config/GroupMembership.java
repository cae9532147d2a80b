package io.tsdbwriter.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * How the process takes part in its consumer group (DESIGN §5, docs/group-membership.md), validated when built.
 *
 * @param groupInstanceId static membership id (KIP-345, {@code group.instance.id}), or null for a dynamic member;
 *                        1..249 characters of {@code [a-zA-Z0-9._-]} (Kafka's rule for group ids and instance ids)
 * @param protocol        {@code group.protocol}: {@link GroupProtocol#CLASSIC} (default) or
 *                        {@link GroupProtocol#CONSUMER} (KIP-848, the broker assigns and times sessions out)
 * @param kafkaTimeout    with {@code --stop-at-end}: how long Kafka may stay unreachable before the run gives up
 *                        with exit 1 (≥ 1 s; default 2 min); without it the writer keeps retrying
 */
public record GroupMembership(String groupInstanceId, GroupProtocol protocol, Duration kafkaTimeout) {

    /**
     * Consumer settings that Kafka 4.3's {@code ConsumerConfig} refuses under {@code group.protocol=consumer}: the
     * broker assigns partitions ({@code group.remote.assignor} picks its assignor) and owns session and heartbeat
     * timing ({@code group.consumer.session.timeout.ms}, {@code group.consumer.heartbeat.interval.ms}).
     */
    public static final List<String> NOT_WITH_CONSUMER_PROTOCOL = List.of(
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);

    /** Refused under {@code group.protocol=classic}. */
    public static final List<String> NOT_WITH_CLASSIC_PROTOCOL = List.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

    /** The default {@code --kafka-timeout}. */
    public static final Duration DEFAULT_KAFKA_TIMEOUT = Duration.ofMinutes(2);

    /** @throws IllegalArgumentException naming the flag whose value is invalid */
    public GroupMembership {
        Objects.requireNonNull(protocol, "--group-protocol");
        if (groupInstanceId != null) {
            if (groupInstanceId.isEmpty()
                    || groupInstanceId.length() > 249
                    || !groupInstanceId.matches("[a-zA-Z0-9._-]+")) {
                throw new IllegalArgumentException(
                        "--group-instance-id must be 1..249 characters of a-z A-Z 0-9 . _ -, got '" + groupInstanceId
                                + "'");
            }
        }
        Objects.requireNonNull(kafkaTimeout, "--kafka-timeout");
        if (kafkaTimeout.toMillis() < 1000) {
            throw new IllegalArgumentException("--kafka-timeout must be >= 1s");
        }
    }

    /** Parses {@code classic} or {@code consumer} (case-insensitive). */
    public static GroupProtocol protocol(String value) {
        return switch (value == null ? "" : value.trim().toLowerCase(Locale.ROOT)) {
            case "classic" -> GroupProtocol.CLASSIC;
            case "consumer" -> GroupProtocol.CONSUMER;
            default ->
                throw new IllegalArgumentException("--group-protocol must be classic or consumer, got '" + value + "'");
        };
    }

    /**
     * Checks {@code --consumer-property} settings against the protocol (Kafka would refuse them later, in a
     * thread, with a stack trace) and against the flags that own {@code group.protocol} and
     * {@code group.instance.id}.
     *
     * @throws IllegalArgumentException naming the setting
     */
    public void checkConsumerProperties(Map<String, String> consumerProperties) {
        for (String key : List.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)) {
            if (consumerProperties.containsKey(key)) {
                throw new IllegalArgumentException("--consumer-property " + key + " is set by --"
                        + key.replace("group.", "group-").replace('.', '-') + ", not by --consumer-property");
            }
        }
        List<String> refused =
                protocol == GroupProtocol.CONSUMER ? NOT_WITH_CONSUMER_PROTOCOL : NOT_WITH_CLASSIC_PROTOCOL;
        for (String key : refused) {
            if (consumerProperties.containsKey(key)) {
                throw new IllegalArgumentException(
                        "--consumer-property " + key + " is not allowed with --group-protocol "
                                + protocol.name().toLowerCase(Locale.ROOT)
                                + (protocol == GroupProtocol.CONSUMER
                                        ? " (the broker owns it: group.consumer.* broker settings; choose the assignor with group.remote.assignor)"
                                        : " (it belongs to --group-protocol consumer)"));
            }
        }
    }
}
