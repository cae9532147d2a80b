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

/**
 * The main job end to end on real input (issue "The main job"): real Kafka broker, real VictoriaMetrics, the writer
 * jar as a child process; exact read-back of every sample and committed offsets equal to the end offsets.
 */
class MainJobIT {

    @TempDir
    static Path work;

    static LocalStack stack;
    static List<SourcePoint> points;

    @BeforeAll
    static void startStack() throws Exception {
        stack = LocalStack.start(work.resolve("stack"));
        points = Scenario.realPoints();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void realScrapesAmplifiedSixByTenWithThreeSegmentConsumersReadBackExactly() throws Exception {
        String topic = "node-metrics";
        stack.kafka().createTopic(topic, 3);
        int records = Scenario.produce(stack.bootstrapServers(), topic, 3, points, 1);
        Path summary = work.resolve("main-summary.json");

        WriterProcess writer = WriterProcess.start(work.resolve("main-writer.log"), Scenario.runArgs(stack.bootstrapServers(),
                stack.vmUrl(), topic, "main-job", 6, 10, 3, "--segment-size", "500", "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 6, 10);
        assertThat(expected.sampleCount()).isEqualTo(points.size() * 60L);
        Scenario.assertExactReadBack(stack.vmUrl(), expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("decode_errors").asLong()).isZero();
        assertThat(s.get("samples_expected").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_failed").asLong()).isZero();
        assertThat(s.get("efficiency").asDouble()).isEqualTo(1.0);

        assertThat(Scenario.committedOffsets(stack.bootstrapServers(), "main-job", topic))
                .isEqualTo(Scenario.endOffsets(stack.bootstrapServers(), topic));
    }
}
