package io.tsdbwriter.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupProgressTest {

    @Test
    void adminSettingsKeepTheConfigProvidersThatResolveTheSecretsOfTheOthers(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("kafka.properties");
        Files.writeString(secret, "password=s3cret\n");
        Map<String, Object> consumer = Map.of(
                "bootstrap.servers", "127.0.0.1:9092",
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"w\" password=\"${file:"
                                + secret + ":password}\";",
                "config.providers", "file",
                "config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider",
                "group.id", "g",
                "enable.auto.commit", false,
                "client.id", "consumer-client");

        Map<String, Object> admin = GroupProgress.adminProps(consumer);

        assertThat(admin)
                .containsKeys(
                        "config.providers", "config.providers.file.class", "security.protocol", "sasl.jaas.config")
                .doesNotContainKeys("group.id", "enable.auto.commit")
                .containsEntry("client.id", "tsdb-writer-group-progress");
        // Kafka resolves the placeholder when it builds the Admin client's config from exactly these settings
        AdminClientConfig resolved = new AdminClientConfig(admin);
        assertThat(resolved.getPassword(SaslConfigs.SASL_JAAS_CONFIG).value())
                .contains("password=\"s3cret\"")
                .doesNotContain("${file:");
    }
}
