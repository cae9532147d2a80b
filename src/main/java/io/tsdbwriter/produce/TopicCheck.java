package io.tsdbwriter.produce;

import io.tsdbwriter.config.KafkaClientConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@code produce}'s look at its topic before the first send: a topic that does not exist on brokers that do not create
 * topics ({@code auto.create.topics.enable=false}) would otherwise hold every send for the producer's
 * {@code max.block.ms} (60 s) and end in Kafka's "not present in metadata" timeout. Stateless; thread-safe.
 */
public final class TopicCheck {

    /** How long each Admin call may take; past it the check says nothing and the producer's own wait applies. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TopicCheck() {}

    /**
     * The one-line problem when {@code topic} does not exist and the brokers will not create it; empty when it exists,
     * when a broker would create it on the first send, or when the brokers did not answer within {@link #TIMEOUT} (the
     * producer's progress lines then say it waits for them) or refused to say (authorization).
     */
    public static Optional<String> missingTopic(KafkaClientConfig kafka, String topic) {
        Map<String, Object> props = new HashMap<>(kafka.clientProperties());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-produce-admin");
        try (Admin admin = Admin.create(props)) {
            try {
                admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                return Optional.empty();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    return Optional.empty();
                }
            }
            Collection<Node> nodes = admin.describeCluster().nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (nodes.isEmpty()) {
                return Optional.empty();
            }
            ConfigResource broker = new ConfigResource(
                    ConfigResource.Type.BROKER, nodes.iterator().next().idString());
            Config config = admin.describeConfigs(List.of(broker))
                    .all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(broker);
            ConfigEntry autoCreate = config == null ? null : config.get("auto.create.topics.enable");
            if (autoCreate == null || !"false".equals(autoCreate.value())) {
                return Optional.empty();
            }
            return Optional.of("topic '" + topic
                    + "' does not exist and the brokers do not create topics (auto.create.topics.enable=false):"
                    + " create it, e.g. kafka-topics.sh --bootstrap-server " + kafka.bootstrapServers()
                    + " --create --topic " + topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
