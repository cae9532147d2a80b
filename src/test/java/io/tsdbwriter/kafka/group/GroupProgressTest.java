package io.tsdbwriter.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
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

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final Map<TopicPartition, Long> ENDS = Map.of(P0, 100L, P1, 200L);

    private static String waiting(Map<TopicPartition, String> holders, GroupState state, Duration session) {
        Map<TopicPartition, Long> behind = new LinkedHashMap<>();
        behind.put(P0, 40L);
        behind.put(P1, -1L);
        return GroupProgress.describe(behind, ENDS, holders, state, session);
    }

    /** While a classic group rebalances, an unassigned partition is said to wait for the dead members' sessions. */
    @Test
    void anUnassignedPartitionSaysWhyItWaitsWhileTheGroupRebalances() {
        String why = ". The group is rebalancing (PreparingRebalance): it waits up to session.timeout.ms (45 s) for "
                + "members that left without a word (killed, or their host lost) before it gives their partitions to "
                + "the others";
        assertThat(waiting(Map.of(), GroupState.PREPARING_REBALANCE, Duration.ofSeconds(45)))
                .isEqualTo("t-0 committed 40 of 100, held by no member (the group is rebalancing); "
                        + "t-1 committed none of 200, held by no member (the group is rebalancing)" + why);
        assertThat(waiting(Map.of(P0, "w on h (member m)"), GroupState.COMPLETING_REBALANCE, Duration.ofMillis(10_500)))
                .isEqualTo("t-0 committed 40 of 100, held by w on h (member m); "
                        + "t-1 committed none of 200, held by no member (the group is rebalancing). The group is "
                        + "rebalancing (CompletingRebalance): it waits up to session.timeout.ms (10500 ms) for members "
                        + "that left without a word (killed, or their host lost) before it gives their partitions to "
                        + "the others");
        assertThat(waiting(Map.of(), GroupState.PREPARING_REBALANCE, null))
                .endsWith("it waits up to session.timeout.ms for members that left without a word (killed, or their "
                        + "host lost) before it gives their partitions to the others");
    }

    @Test
    void outsideARebalanceAnUnassignedPartitionIsUnassignedAndAHeldOneNeedsNoReason() {
        for (GroupState state : new GroupState[] {GroupState.STABLE, GroupState.EMPTY, GroupState.UNKNOWN}) {
            assertThat(waiting(Map.of(P1, "w on h (member m)"), state, Duration.ofSeconds(45)))
                    .as("%s", state)
                    .isEqualTo("t-0 committed 40 of 100, held by no member (unassigned); "
                            + "t-1 committed none of 200, held by w on h (member m)");
        }
        assertThat(waiting(Map.of(P0, "a", P1, "b"), GroupState.PREPARING_REBALANCE, Duration.ofSeconds(45)))
                .as("every partition held: nothing waits for a session")
                .isEqualTo("t-0 committed 40 of 100, held by a; t-1 committed none of 200, held by b");
    }

    @Test
    void theSessionTimeoutIsTheConsumersOrKafkasDefault() {
        assertThat(GroupProgress.sessionTimeout(Map.of())).isEqualTo(Duration.ofSeconds(45));
        assertThat(GroupProgress.sessionTimeout(Map.of("session.timeout.ms", "10000")))
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(GroupProgress.sessionTimeout(Map.of("session.timeout.ms", 6000)))
                .isEqualTo(Duration.ofSeconds(6));
        assertThat(GroupProgress.sessionTimeout(Map.of("session.timeout.ms", "${env:SESSION}")))
                .isNull();
    }
}
