package io.tsdbwriter.produce;

import io.tsdbwriter.config.KafkaClientConfig;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The producer settings of everything that writes point records into Kafka ({@code produce}, the bench's and the
 * capacity search's feeders): acks=all with idempotence, and — unless the shared client settings
 * ({@code --kafka-property}, {@code --kafka-config}) name them — 20 ms linger, 256 KiB batches and lz4, on top of
 * those shared settings (security, config providers). Stateless.
 */
public final class ProducerSettings {

    private ProducerSettings() {}

    /** The settings for {@code bootstrapServers} without any other client setting. */
    public static Properties of(String bootstrapServers) {
        return of(KafkaClientConfig.of(bootstrapServers));
    }

    /** The settings on top of {@code kafka}'s shared client settings. */
    public static Properties of(KafkaClientConfig kafka) {
        Properties p = kafka.clientPropertiesAsProperties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // the operator's batch shape wins: e.g. Kafka's own 16 KiB batches to see what segment readers fetch twice
        // at P > 1 (a batch across a segment boundary is fetched by both readers; docs/benchmarks-archive.md section
        // 12c)
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "tsdb-writer-produce");
        return p;
    }
}
