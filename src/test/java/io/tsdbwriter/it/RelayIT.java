package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Plain relay (M = N = P = 1) of records whose values are JSON arrays of points. */
class RelayIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    @Test
    void arrayRecordsRelayedOneToOneReadBackExactly() throws Exception {
        List<SourcePoint> points = Scenario.realPoints();
        String topic = stack.createTopic("relay", 2);
        int records = stack.produce(topic, 2, points, 7);
        assertThat(records).isEqualTo((points.size() + 6) / 7);
        Path summary = stack.path("relay-summary.json");

        WriterProcess writer = stack.writer(
                "relay-writer",
                stack.runArgs(topic, "relay", 1, 1, 1, "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 1, 1);
        assertThat(expected.sampleCount()).isEqualTo(points.size());
        stack.assertExactReadBack(expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("samples_written").asLong()).isEqualTo(points.size());
        assertThat(stack.committedOffsets("relay", topic)).isEqualTo(stack.endOffsets(topic));
    }
}
