package io.tsdbwriter.cli;

import static io.tsdbwriter.cli.CliRun.assertUsageError;
import static io.tsdbwriter.cli.CliRun.execute;
import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.config.GroupMembership;
import io.tsdbwriter.config.RunConfig;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** --group-instance-id, --group-protocol, --kafka-timeout: defaults, env twins, and the consumer-protocol rules. */
class GroupMembershipFlagsTest {

    private static RunConfig parse(Map<String, String> env, String... args) {
        RunCommand cmd = new RunCommand();
        new CommandLine(cmd)
                .setDefaultValueProvider(new EnvironmentDefaults(env))
                .parseArgs(args);
        return cmd.toConfig();
    }

    @Test
    void defaultsAreADynamicClassicMemberWithATwoMinuteKafkaTimeout() {
        GroupMembership m = parse(Map.of(), "--topic", "t").membership();
        assertThat(m.groupInstanceId()).isNull();
        assertThat(m.protocol()).isEqualTo(GroupProtocol.CLASSIC);
        assertThat(m.kafkaTimeout()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void flagsAndEnvironmentReachTheConfig() {
        GroupMembership m = parse(
                        Map.of(),
                        "--topic",
                        "t",
                        "--group-instance-id",
                        "tsdb-writer-1",
                        "--group-protocol",
                        "consumer",
                        "--kafka-timeout",
                        "30s")
                .membership();
        assertThat(m).isEqualTo(new GroupMembership("tsdb-writer-1", GroupProtocol.CONSUMER, Duration.ofSeconds(30)));
        GroupMembership e = parse(
                        Map.of(
                                "TSDB_WRITER_GROUP_INSTANCE_ID",
                                "tsdb-writer-2",
                                "TSDB_WRITER_GROUP_PROTOCOL",
                                "CONSUMER",
                                "TSDB_WRITER_KAFKA_TIMEOUT",
                                "5m"),
                        "--topic",
                        "t")
                .membership();
        assertThat(e).isEqualTo(new GroupMembership("tsdb-writer-2", GroupProtocol.CONSUMER, Duration.ofMinutes(5)));
    }

    @Test
    void badValuesAreOneLineExitTwo() {
        assertUsageError(
                execute("run", "--topic", "t", "--group-protocol", "eager"),
                "--group-protocol must be classic or consumer");
        assertUsageError(execute("run", "--topic", "t", "--group-instance-id", "a b"), "--group-instance-id");
        assertUsageError(execute("run", "--topic", "t", "--kafka-timeout", "10ms"), "--kafka-timeout must be >= 1s");
    }

    @Test
    void consumerProtocolRefusesClientSideAssignorAndSessionSettings() {
        for (String key : GroupMembership.NOT_WITH_CONSUMER_PROTOCOL) {
            assertUsageError(
                    execute("run", "--topic", "t", "--group-protocol", "consumer", "--consumer-property", key + "=1"),
                    "--consumer-property " + key + " is not allowed with --group-protocol consumer");
        }
        assertThat(parse(Map.of(), "--topic", "t", "--consumer-property", "session.timeout.ms=6000")
                        .consumerProperties())
                .containsEntry("session.timeout.ms", "6000");
        assertUsageError(
                execute("run", "--topic", "t", "--consumer-property", "group.remote.assignor=uniform"),
                "not allowed with --group-protocol classic");
        assertThat(parse(
                                Map.of(),
                                "--topic",
                                "t",
                                "--group-protocol",
                                "consumer",
                                "--consumer-property",
                                "group.remote.assignor=range")
                        .consumerProperties())
                .containsEntry("group.remote.assignor", "range");
        assertUsageError(
                execute("run", "--topic", "t", "--consumer-property", "group.instance.id=x"), "--group-instance-id");
        assertUsageError(
                execute("run", "--topic", "t", "--consumer-property", "group.protocol=consumer"), "--group-protocol");
    }
}
