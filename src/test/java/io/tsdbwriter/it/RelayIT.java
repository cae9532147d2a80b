package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.LocalStack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plain relay (M = N = P = 1) of records whose values are JSON arrays of points. */
class RelayIT {

    @TempDir
    static Path work;

    static LocalStack stack;

    @BeforeAll
    static void startStack() {
        stack = LocalStack.start(work.resolve("stack"));
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void arrayRecordsRelayedOneToOneReadBackExactly() throws Exception {
        List<SourcePoint> points = Scenario.realPoints();
        String topic = "relay";
        stack.kafka().createTopic(topic, 2);
        int records = Scenario.produce(stack.bootstrapServers(), topic, 2, points, 7);
        assertThat(records).isEqualTo((points.size() + 6) / 7);
        Path summary = work.resolve("relay-summary.json");

        WriterProcess writer = WriterProcess.start(work.resolve("relay-writer.log"), Scenario.runArgs(stack.bootstrapServers(),
                stack.vmUrl(), topic, "relay", 1, 1, 1, "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 1, 1);
        assertThat(expected.sampleCount()).isEqualTo(points.size());
        Scenario.assertExactReadBack(stack.vmUrl(), expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("samples_written").asLong()).isEqualTo(points.size());
        assertThat(Scenario.committedOffsets(stack.bootstrapServers(), "relay", topic))
                .isEqualTo(Scenario.endOffsets(stack.bootstrapServers(), topic));
    }
}
