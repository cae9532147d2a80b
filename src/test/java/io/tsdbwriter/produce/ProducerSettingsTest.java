package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.config.KafkaClientConfig;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

    @Test
    void defaultsAreDurableWithLargeLz4Batches() {
        Properties p = ProducerSettings.of("localhost:9092");
        assertThat(p)
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", "true")
                .containsEntry("linger.ms", "20")
                .containsEntry("batch.size", "262144")
                .containsEntry("compression.type", "lz4")
                .containsEntry("bootstrap.servers", "localhost:9092");
    }

    @Test
    void theOperatorsBatchShapeWinsButNeverTheDurability() {
        Properties p = ProducerSettings.of(new KafkaClientConfig(
                "localhost:9092",
                Map.of(
                        "batch.size",
                        "16384",
                        "linger.ms",
                        "5",
                        "compression.type",
                        "zstd",
                        "acks",
                        "1",
                        "enable.idempotence",
                        "false")));
        assertThat(p)
                .containsEntry("batch.size", "16384")
                .containsEntry("linger.ms", "5")
                .containsEntry("compression.type", "zstd")
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", "true");
    }
}
