package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.config.GroupMembership;
import io.tsdbwriter.config.RunConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
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

    private static String usageError(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(args)).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(1);
        return err.toString();
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
        assertThat(usageError("run", "--topic", "t", "--group-protocol", "eager"))
                .contains("--group-protocol must be classic or consumer");
        assertThat(usageError("run", "--topic", "t", "--group-instance-id", "a b"))
                .contains("--group-instance-id");
        assertThat(usageError("run", "--topic", "t", "--kafka-timeout", "10ms"))
                .contains("--kafka-timeout must be >= 1s");
    }

    @Test
    void consumerProtocolRefusesClientSideAssignorAndSessionSettings() {
        for (String key : GroupMembership.NOT_WITH_CONSUMER_PROTOCOL) {
            assertThat(usageError(
                            "run", "--topic", "t", "--group-protocol", "consumer", "--consumer-property", key + "=1"))
                    .contains("--consumer-property " + key + " is not allowed with --group-protocol consumer");
        }
        assertThat(parse(Map.of(), "--topic", "t", "--consumer-property", "session.timeout.ms=6000")
                        .consumerProperties())
                .containsEntry("session.timeout.ms", "6000");
        assertThat(usageError("run", "--topic", "t", "--consumer-property", "group.remote.assignor=uniform"))
                .contains("not allowed with --group-protocol classic");
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
        assertThat(usageError("run", "--topic", "t", "--consumer-property", "group.instance.id=x"))
                .contains("--group-instance-id");
        assertThat(usageError("run", "--topic", "t", "--consumer-property", "group.protocol=consumer"))
                .contains("--group-protocol");
    }
}
