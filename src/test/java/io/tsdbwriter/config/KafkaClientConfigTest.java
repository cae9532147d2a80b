package io.tsdbwriter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {

    @TempDir
    Path dir;

    @Test
    void fileThenPropertiesThenBootstrapServers() throws Exception {
        Path f = dir.resolve("client.properties");
        Files.writeString(
                f,
                "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nbootstrap.servers=ignored:1\nclient.rack=a\n");
        KafkaClientConfig c = KafkaClientConfig.of("b:9092", f, Map.of("client.rack", "b"));
        Map<String, Object> m = c.clientProperties();
        assertThat(m)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("client.rack", "b")
                .containsEntry("bootstrap.servers", "b:9092");
        m.put("x", "y"); // a fresh mutable map each time
        assertThat(c.clientProperties()).doesNotContainKey("x");
    }

    @Test
    void unreadableFileIsOneLineWithoutContent() {
        assertThatThrownBy(() -> KafkaClientConfig.of("b:9092", dir.resolve("missing.properties"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--kafka-config")
                .hasMessageContaining("missing.properties");
    }

    @Test
    void toStringShowsKeysNotValues() {
        KafkaClientConfig c = KafkaClientConfig.of("b:9092", null, Map.of("sasl.jaas.config", "secret-value-123"));
        assertThat(c.toString()).contains("sasl.jaas.config").doesNotContain("secret-value-123");
    }

    /** Kafka resolves ${file:…} and ${env:…} placeholders itself when the props are passed through unchanged. */
    @Test
    void kafkasConfigProvidersResolvePlaceholders() throws Exception {
        Path secrets = dir.resolve("secrets.properties");
        Files.writeString(secrets, "password=s3cr3t-from-file\n");
        Path f = dir.resolve("client.properties");
        Files.writeString(
                f,
                String.join(
                        "\n",
                        "config.providers=env,file",
                        "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"${env:USER_FOR_TEST_OR_PATH}\" password=\"${file:"
                                + secrets + ":password}\";",
                        "ssl.truststore.location=${env:PATH}",
                        ""));
        KafkaClientConfig c = KafkaClientConfig.of("b:9092", f, Map.of());
        Map<String, Object> p = c.clientProperties();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        ProducerConfig resolved = new ProducerConfig(p);
        assertThat(((Password) resolved.values().get("sasl.jaas.config")).value())
                .contains("password=\"s3cr3t-from-file\"");
        assertThat(resolved.getString("ssl.truststore.location")).isEqualTo(System.getenv("PATH"));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        assertThat(new ConsumerConfig(p).getString("ssl.truststore.location")).isEqualTo(System.getenv("PATH"));
    }
}
