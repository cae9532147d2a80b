package io.tsdbwriter.deadletter;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter topic's check (the topic-check half of the dead-letter path; the producer path is
 * {@link DeadLetterQueue}): whether the topic exists — the writer never creates topics — and its
 * {@code max.message.bytes}, with one Admin client kept for the re-checks of a topic that was missing. Thread-safe.
 */
/** The topic check with an Admin client made from the common client settings. */
final class DeadLetterTopicCheck implements Supplier<DeadLetterTopicCheck.TopicState> {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterTopicCheck.class);
    /** Bytes a topic takes per record batch when {@code max.message.bytes} cannot be read: Kafka's broker default. */
    static final int DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    /** What the topic check found: whether the topic exists, its {@code max.message.bytes}, or why it is unknown. */
    record TopicState(boolean exists, int maxMessageBytes, String problem) {}

    private final Map<String, Object> props;
    private final String topic;
    private Admin admin;

    DeadLetterTopicCheck(Map<String, Object> clientProps, String topic) {
        this.props = new HashMap<>(clientProps);
        this.props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-dead-letter-admin");
        this.topic = topic;
    }

    @Override
    public synchronized TopicState get() {
        if (admin == null) {
            admin = Admin.create(props);
        }
        try {
            admin.describeTopics(List.of(topic)).allTopicNames().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof UnknownTopicOrPartitionException) {
                return new TopicState(false, 0, "the topic does not exist");
            }
            return new TopicState(false, 0, "the topic cannot be described (" + c + ")");
        } catch (TimeoutException e) {
            return new TopicState(
                    false, 0, "the topic could not be described within " + ADMIN_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TopicState(false, 0, "interrupted while describing the topic");
        }
        int max = DEFAULT_MAX_MESSAGE_BYTES;
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            Config c = admin.describeConfigs(List.of(r))
                    .all()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(r);
            ConfigEntry e = c == null ? null : c.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            if (e != null && e.value() != null) {
                max = Integer.parseInt(e.value());
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn(
                    "dead-letter topic {}: max.message.bytes not readable ({}); assuming the broker default {}",
                    topic,
                    e instanceof ExecutionException ? e.getCause() : e,
                    max);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new TopicState(true, max, null);
    }

    synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
