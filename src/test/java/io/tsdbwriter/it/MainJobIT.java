package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.Components;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The main job end to end on real input (issue "The main job"): real Kafka broker, real VictoriaMetrics, the writer
 * jar as a child process; exact read-back of every sample and committed offsets equal to the end offsets.
 */
class MainJobIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    private static final ObjectMapper JSON = new ObjectMapper();

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
     * A cardinality explosion stopped by {@code --max-hourly-series} (vmagent's limit): 200 distinct series, 3 points
     * each, 4 points a record, with a limit of 50 — the first 50 series (one partition, one reader: in order) are
     * written, every point of the 150 others is dropped and counted in the summary, and every record is committed.
     */
    @Test
    void aCardinalityExplosionIsCutAtTheHourlySeriesLimitAndItsRecordsCommitted() throws Exception {
        long hour = Duration.ofHours(1).toMillis();
        long toNextHour = hour - System.currentTimeMillis() % hour;
        if (toNextHour < 40_000) { // the run must see one hour: a new one would admit 50 more
            Thread.sleep(toNextHour + 1_000);
        }
        long t0 = System.currentTimeMillis() / 60_000 * 60_000
                - Duration.ofMinutes(10).toMillis();
        List<SourcePoint> points = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 200; i++) {
                points.add(new SourcePoint("explosion", Map.of("user_id", "u" + i), "limit-it", t0 + k * 60_000L, i));
            }
        }
        String topic = stack.createTopic("series-limit", 1);
        int records = stack.produce(topic, 1, points, 4);
        Path summary = stack.path("series-limit-summary.json");
        // a VictoriaMetrics of its own: the shared one's exact read-backs (the class's other tests) see every series
        Components.VmEndpoint vm = stack.startVm("vm-series-limit");

        WriterProcess writer = stack.writer(
                "series-limit-writer",
                stack.runArgs(
                        vm.url(),
                        topic,
                        "series-limit",
                        1,
                        1,
                        1,
                        "--max-hourly-series",
                        "50",
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();
        assertThat(writer.output()).contains("series limit: the hourly limit of 50 series is reached");
        vm.forceFlush();

        Set<String> stored = new TreeSet<>();
        long samples = 0;
        for (String line : vm.export("{productKey=\"limit-it\"}")) {
            JsonNode j = JSON.readTree(line);
            stored.add(j.path("metric").path("user_id").asText());
            samples += j.path("values").size();
        }
        Set<String> first50 = new TreeSet<>();
        for (int i = 0; i < 50; i++) {
            first50.add("u" + i);
        }
        assertThat(stored).as("exactly the series under the limit").isEqualTo(first50);
        assertThat(samples).isEqualTo(150);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(600);
        assertThat(s.get("series_limit_dropped").asLong())
                .as("150 series × 3 points")
                .isEqualTo(450);
        assertThat(s.get("series_limit_dropped_by_reason").get("hourly").asLong())
                .isEqualTo(450);
        assertThat(s.get("series_limit_dropped_by_reason").get("daily").asLong())
                .isZero();
        assertThat(s.get("samples_expected").asLong()).isEqualTo(150);
        assertThat(s.get("samples_written").asLong()).isEqualTo(150);
        assertThat(s.get("decode_errors").asLong()).isZero();
        assertThat(s.get("samples_refused").asLong()).isZero();
        assertThat(stack.committedOffsets("series-limit", topic)).isEqualTo(stack.endOffsets(topic));
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
