package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code tsdb-writer check} against a real broker and VictoriaMetrics: a configuration that would run passes every
 * check (exit 0, one {@code ok} line each); a missing topic and a target nobody listens on each fail their line (exit 2);
 * and none of them wrote a sample nor committed an offset, though the topic holds records.
 */
class CheckCommandIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    @Test
    void checksWithoutWritingOrCommitting() throws Exception {
        String topic = stack.createTopic("check", 3);
        int records = stack.produce(topic, 3, Scenario.realPoints(), 7);
        assertThat(records).isPositive();
        String group = "check-group";
        Path config = stack.path("writer.yaml");
        Files.writeString(
                config,
                "kafka-connection-and-consumption:\n"
                        + "  bootstrap-servers: " + stack.bootstrapServers() + "\n"
                        + "  topic: [" + topic + "]\n"
                        + "  group-id: " + group + "\n"
                        + "vm-url: " + stack.vmUrl() + "\n"
                        + "metrics-port: -1\n");

        WriterProcess ok = stack.writer("check-ok", List.of("check", "--config", config.toString()));
        assertThat(ok.waitFor(Scenario.PROCESS_TIMEOUT)).as(ok.output()).isZero();
        assertThat(ok.output().lines())
                .as(ok.output())
                .anyMatch(l -> l.startsWith("ok   flags: output import to 1 target, topics " + topic))
                .anyMatch(l -> l.startsWith("ok   kafka: 1 broker at "))
                .anyMatch(l -> l.equals("ok   topic " + topic + ": 3 partitions"))
                .anyMatch(l -> l.startsWith("ok   group " + group + ": no committed offset"))
                .anyMatch(
                        l -> l.startsWith("ok   target " + stack.vmUrl() + ": answered 204 to an empty import request"))
                .anyMatch(l -> l.startsWith("ok   write permits: " + stack.vmUrl() + "=")
                        && l.contains("vm_concurrent_insert_capacity"))
                .anyMatch(l -> l.startsWith("ok   durability: window "))
                .anyMatch(l -> l.startsWith("check: ") && l.contains(" ok: run can start"))
                .noneMatch(l -> l.startsWith("FAIL"));

        WriterProcess missing = stack.writer(
                "check-missing-topic", List.of("check", "--config", config.toString(), "--topic", "no-such-topic"));
        assertThat(missing.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(missing.output())
                .isEqualTo(2);
        assertThat(missing.output().lines())
                .as(missing.output())
                .anyMatch(l -> l.startsWith("FAIL topic no-such-topic: topic 'no-such-topic' does not exist"))
                .noneMatch(l -> l.startsWith("ok   group"))
                .anyMatch(l -> l.startsWith("check: ") && l.contains("1 failed"));

        int port = FreePorts.pick();
        String closed = "http://127.0.0.1:" + port;
        WriterProcess target = stack.writer(
                "check-closed-port",
                List.of("check", "--config", config.toString(), "--vm-url", "http://user:s3cret@127.0.0.1:" + port));
        assertThat(target.waitFor(Scenario.PROCESS_TIMEOUT)).as(target.output()).isEqualTo(2);
        assertThat(target.output()).as("the URL's password").doesNotContain("s3cret");
        assertThat(target.output().lines())
                .as(target.output())
                .anyMatch(l ->
                        l.startsWith("FAIL target " + closed + ": no answer to an empty request: connection refused"))
                .anyMatch(l -> l.startsWith("ok   topic " + topic + ": 3 partitions"));

        stack.vm().forceFlush();
        assertThat(stack.vm().export("{__name__=~\".+\"}"))
                .as("series in VictoriaMetrics")
                .isEmpty();
        assertThat(stack.committedOffsets(group, topic))
                .as("offsets committed by " + group)
                .isEmpty();
    }

    /**
     * The demo stack's own file (docker-compose.yml mounts it): its keys are run's, and a flag wins over it, so the same
     * file checks out against this stack once the compose host names are replaced on the command line.
     */
    @Test
    void theDemoStacksOwnFileChecksOutWithItsAddressesGivenAsFlags() throws Exception {
        String topic = stack.createTopic("demo-file", 3);
        String deadLetters = stack.createTopic("demo-file-dlq", 1);
        WriterProcess w = stack.writer(
                "check-demo-file",
                List.of(
                        "check",
                        "--config",
                        Path.of("examples", "writer", "writer.yaml")
                                .toAbsolutePath()
                                .toString(),
                        "--bootstrap-servers",
                        stack.bootstrapServers(),
                        "--topic",
                        topic,
                        "--dead-letter-topic",
                        deadLetters,
                        "--vm-url",
                        stack.vmUrl(),
                        "--metrics-port",
                        "-1"));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        assertThat(w.output().lines())
                .as(w.output())
                .anyMatch(l -> l.equals("ok   topic " + topic + ": 3 partitions"))
                .anyMatch(l -> l.startsWith("ok   group tsdb-writer"))
                .noneMatch(l -> l.startsWith("FAIL"));
    }
}
