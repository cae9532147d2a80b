package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Components;
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

        WriterProcess writer = stack.writer(
                "main-writer",
                stack.runArgs(
                        topic,
                        "main-job",
                        6,
                        10,
                        3,
                        "--segment-size",
                        "500",
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
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
        assertThat(s.get("samples_refused").asLong()).isZero();
        assertThat(s.get("efficiency").asDouble()).isEqualTo(1.0);
        JsonNode delay = s.get("ingest_delay_seconds"); // per batch, from its records' Kafka timestamps
        assertThat(delay).as("ingest_delay_seconds in " + s).isNotNull();
        double acknowledged = delay.get("acknowledged").get("p99").asDouble();
        assertThat(acknowledged).as("p99 to the 2xx").isPositive();
        assertThat(delay.get("committed").get("p99").asDouble())
                .as("p99 to the commit that covered the batch: after its 2xx")
                .isGreaterThanOrEqualTo(acknowledged);
        assertThat(delay.get("acknowledged").get("p50").isNumber()).isTrue();
        assertThat(delay.get("committed").get("p50").isNumber()).isTrue();

        assertThat(stack.committedOffsets("main-job", topic)).isEqualTo(stack.endOffsets(topic));
    }

    /**
     * Several TSDBs are several consumer groups (docs/design.md §5, the owners' decision): one writer group per target,
     * each with its own commits. Group "a" writes into a VictoriaMetrics; group "b" into a TSDB that is down (nothing
     * listens). "a" reads every sample back exactly and commits to the end while "b" holds: it commits nothing, and
     * its stop says what it held.
     */
    @Test
    void severalTsdbsAreSeveralGroupsAndADeadOneHoldsOnlyItsOwn() throws Exception {
        List<SourcePoint> points = Scenario.realPoints().subList(0, 3_000);
        String topic = stack.createTopic("several-tsdbs", 3);
        stack.produce(topic, 3, points, 1);
        Components.VmEndpoint a = stack.startVm("vm-several-a");
        try (a;
                WriterProcess b = stack.writer(
                        "several-b",
                        stack.runArgs("http://127.0.0.1:1", topic, "several-b", 2, 1, 3, "--segment-size", "500"))) {
            WriterProcess wa = stack.writer(
                    "several-a",
                    stack.runArgs(a.url(), topic, "several-a", 2, 1, 3, "--segment-size", "500", "--stop-at-end"));
            assertThat(wa.waitFor(Scenario.PROCESS_TIMEOUT)).as(wa.output()).isZero();
            Scenario.assertExactReadBack(a.url(), Scenario.expected(points, 2, 1));
            assertThat(stack.committedOffsets("several-a", topic)).isEqualTo(stack.endOffsets(topic));

            assertThat(b.isAlive())
                    .as("b holds its data while its TSDB is down")
                    .isTrue();
            assertThat(stack.committedOffsets("several-b", topic).values())
                    .as("b commits nothing it did not write")
                    .allSatisfy(o -> assertThat(o).isZero());
            b.sigterm();
            assertThat(b.waitFor(Scenario.PROCESS_TIMEOUT)).isEqualTo(1);
            assertThat(b.output()).contains("connection refused").contains("held");
        }
    }
}
