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

/**
 * The main job end to end on real input (issue "The main job"): real Kafka broker, real VictoriaMetrics, the writer
 * jar as a child process; exact read-back of every sample and committed offsets equal to the end offsets.
 */
class MainJobIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    @Test
    void realScrapesAmplifiedSixByTenWithThreeSegmentConsumersReadBackExactly() throws Exception {
        List<SourcePoint> points = Scenario.realPoints();
        String topic = stack.createTopic("node-metrics", 3);
        int records = stack.produce(topic, 3, points, 1);
        Path summary = stack.path("main-summary.json");

        WriterProcess writer = stack.writer("main-writer", stack.runArgs(topic, "main-job", 6, 10, 3,
                "--segment-size", "500", "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 6, 10);
        assertThat(expected.sampleCount()).isEqualTo(points.size() * 60L);
        stack.assertExactReadBack(expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("decode_errors").asLong()).isZero();
        assertThat(s.get("samples_expected").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_failed").asLong()).isZero();
        assertThat(s.get("efficiency").asDouble()).isEqualTo(1.0);

        assertThat(stack.committedOffsets("main-job", topic)).isEqualTo(stack.endOffsets(topic));
    }
}
