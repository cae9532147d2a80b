package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code run --max-samples-per-second} holds the set rate minute by minute (issue 41 item 4): the soak of
 * docs/benchmarks-archive.md §9 held 96.3 % of it on average and 94.1 % in its worst minute, because the limiter
 * dropped the permits that went unused while every reader waited (each replay pass opens its readers anew).
 *
 * <p>The scenario is the soak's, small: the bundled scrapes (one point per record, 2 partitions) replayed
 * {@code --loop forever} at M=3, N=3 (91,260 samples a pass, ~3 s a pass at the set rate, as the soak's 3.1 s) with
 * {@code --max-samples-per-second 30000} for two full minutes (three until issue 56: a second full minute already
 * shows the rate held minute after minute, each minute asserted on its own; the third added a minute of wall time).
 * VictoriaMetrics has room: 30,000 samples/s is a few percent of one core.
 * {@code --segment-size 500} gives each reader a wait at the watermark gate every 500 records besides the pass
 * boundaries: the waits during which the old limiter (a 10 ms window) dropped its permits. Before the fix this run held
 * 60–70 % of the set rate per minute (on a loaded machine), its passes taking 3.6–5.3 s instead of 3.04 s.
 *
 * <p>The measurement: a sample's timestamp is its data time (rebased, shifted by each pass), not the time it was
 * written, so a per-minute count cannot be read back from the stored samples by time. Instead the test reads, at each
 * minute boundary of its own clock, VictoriaMetrics' own count of the rows it accepted ({@code vm_rows_inserted_total},
 * the TSDB's side) and the writer's {@code tsdbwriter_samples_written_total} (the writer's side); each full minute's
 * growth of both must be within ±2 % of the set rate × the minute's measured length. That the counters count exactly
 * what was stored is checked at the end: after the writer exits and {@code /internal/force_flush}, the stored samples
 * of the run (one {@code count_over_time} over the whole data range) equal both counters' totals and the summary's
 * {@code samples_written}. The counters are read over loopback in a few milliseconds (≪ 0.1 % of a minute); a batch
 * straddling a boundary is counted by each side at a slightly different moment: on a machine at load 36 the two sides'
 * minutes differed by up to 0.9 %, each within 0.7 % of the set rate.
 *
 * <p>It runs in the default failsafe execution, beside another class, not alone: the writer's and VictoriaMetrics'
 * share of a core at 30,000 samples/s is small, and the limiter is a schedule on the monotonic clock that makes up
 * permits a wait left unused (up to its 1 s burst), so a neighbour's load moves a write by milliseconds, not a minute's
 * count by percents (the load-36 figures above). The bound asserted is the same ±2 % of every full minute.
 * {@code --replay-duration} is the warm-up, the measured minutes and a slack: the writer ends soon after the last
 * minute's mark instead of writing on unmeasured.
 */
class RateIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    private static final double RATE = 30_000;
    /** Full minutes measured, each asserted on its own. */
    private static final int MINUTES = 2;
    /** From the writer's first write to the first minute's start: readers open, the first pass under way. */
    private static final int WARM_UP_SECONDS = 10;
    /**
     * What {@code --replay-duration} gives beyond the warm-up and the measured minutes: the writer's start of its
     * replay clock to its first write (seconds on a loaded machine) and the test's 200 ms polls, so the last minute ends well before
     * the replay does. The writer then stops at once: the test waits for its exit, not for an idle tail.
     */
    private static final int SLACK_SECONDS = 20;

    private static final String KEY = "rate";

    @Test
    void everyFullMinuteIsWithinTwoPercentOfTheSetRate() throws Exception {
        List<SourcePoint> points =
                RealInput.load(NodeExporterFiles.all(), Scenario.INSTANCE, KEY, OptionalLong.empty());
        String topic = "rate-input";
        stack.createTopic(topic, 2);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(points.size());
        for (int i = 0; i < points.size(); i++) {
            records.add(new ProducerRecord<>(
                    topic, i % 2, points.get(i).timestampMs(), null, PointRecords.encode(points.get(i))));
        }
        stack.produce(records);
        // ~65 passes of 20 minutes of data each: rebased 2 days back, the last pass stays in the past
        long rebaseTo = Instant.now()
                .minus(2, ChronoUnit.DAYS)
                .truncatedTo(ChronoUnit.MINUTES)
                .toEpochMilli();
        Path summary = stack.path("rate-summary.json");
        HttpClient http = HttpClient.newHttpClient();
        try (FreePorts.Reservation metricsPort = FreePorts.reserve()) {
            String writerMetrics = "http://127.0.0.1:" + metricsPort.port() + "/metrics";
            List<String> args = new ArrayList<>(stack.runArgs(
                    topic,
                    "g-" + topic,
                    3,
                    3,
                    2,
                    "--summary-json",
                    summary.toString(),
                    "--segment-size",
                    "500",
                    "--rebase-time",
                    Instant.ofEpochMilli(rebaseTo).toString(),
                    "--loop",
                    "forever",
                    "--replay-duration",
                    (WARM_UP_SECONDS + MINUTES * 60 + SLACK_SECONDS) + "s",
                    "--max-samples-per-second",
                    Long.toString((long) RATE)));
            int port = args.indexOf("--metrics-port");
            args.set(port + 1, Integer.toString(metricsPort.port()));
            args.addAll(List.of("--metrics-address", "127.0.0.1"));
            WriterProcess w = stack.writer("rate-writer", args);

            // warm-up: the writer has written for WARM_UP_SECONDS (readers open, the first pass under way)
            long deadline = System.nanoTime() + Scenario.PROCESS_TIMEOUT.toNanos();
            while (written(http, writerMetrics) <= 0) {
                assertThat(w.isAlive()).as(w.output()).isTrue();
                assertThat(System.nanoTime()).as("the writer's first write").isLessThan(deadline);
                Thread.sleep(200);
            }
            Thread.sleep(WARM_UP_SECONDS * 1000L);
            List<double[]> marks = new ArrayList<>(); // {nanos, vm rows inserted, writer samples written}
            long start = System.nanoTime();
            for (int minute = 0; minute <= MINUTES; minute++) {
                long at = start + minute * 60_000_000_000L;
                long now;
                while ((now = System.nanoTime()) < at) {
                    Thread.sleep(Math.max(1, Math.min(1000, (at - now) / 1_000_000)));
                }
                marks.add(new double[] {System.nanoTime(), vmRowsInserted(http), written(http, writerMetrics)});
            }
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();

            List<String> minutes = new ArrayList<>();
            List<String> outside = new ArrayList<>();
            for (int i = 1; i < marks.size(); i++) {
                double seconds = (marks.get(i)[0] - marks.get(i - 1)[0]) / 1e9;
                double vm = (marks.get(i)[1] - marks.get(i - 1)[1]) / (RATE * seconds);
                double writer = (marks.get(i)[2] - marks.get(i - 1)[2]) / (RATE * seconds);
                String line = String.format(
                        Locale.ROOT,
                        "minute %d (%.3f s): VictoriaMetrics %.2f %%, writer %.2f %% of the set rate",
                        i,
                        seconds,
                        100 * vm,
                        100 * writer);
                minutes.add(line);
                if (Math.abs(vm - 1) > 0.02 || Math.abs(writer - 1) > 0.02) {
                    outside.add(line);
                }
            }
            System.out.println("[RateIT] " + String.join("; ", minutes));
            assertThat(outside)
                    .as("minutes outside ±2 %% of %.0f samples/s; all: %s", RATE, minutes)
                    .isEmpty();

            // the counters count what was stored: every sample written is in VictoriaMetrics, once
            JsonNode s = Scenario.summary(summary);
            long samplesWritten = s.get("samples_written").asLong();
            assertThat(s.get("samples_refused").asLong()).isZero();
            // VictoriaMetrics counts a request's rows after it answers: a write acknowledged just before the writer
            // exited may be counted a moment later (seen: one 4,194-sample request). The count can only grow now.
            long settle = System.nanoTime() + 30_000_000_000L;
            while ((long) vmRowsInserted(http) < samplesWritten && System.nanoTime() < settle) {
                Thread.sleep(200);
            }
            assertThat(samplesWritten).isEqualTo((long) vmRowsInserted(http));
            stack.vm().forceFlush();
            assertThat(storedSamples(http, rebaseTo)).isEqualTo(samplesWritten);
        }
    }

    /** {@code tsdbwriter_samples_written_total} from the writer's /metrics (0 while it does not answer yet). */
    private static double written(HttpClient http, String url) throws InterruptedException {
        try {
            HttpResponse<String> r =
                    http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            double v = PromSnapshot.parse(r.body(), System.nanoTime()).sum("tsdbwriter_samples_written_total");
            return Double.isNaN(v) ? 0 : v;
        } catch (IOException e) {
            return 0;
        }
    }

    /** VictoriaMetrics' own count of the rows it accepted, every protocol. */
    private static double vmRowsInserted(HttpClient http) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(stack.vmUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        return PromSnapshot.parse(r.body(), System.nanoTime()).sum("vm_rows_inserted_total");
    }

    /** Raw samples of the run stored in VictoriaMetrics: one count_over_time over the whole data range. */
    private static long storedSamples(HttpClient http, long rebaseToMs) throws Exception {
        long end = System.currentTimeMillis() / 1000;
        long window = end - rebaseToMs / 1000 + 3600;
        String q = URLEncoder.encode(
                "sum(count_over_time({productKey=\"" + KEY + "\"}[" + window + "s]))", StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(stack.vmUrl() + "/api/v1/query?query=" + q + "&time=" + end))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode result =
                PointRecords.objectMapper().readTree(r.body()).get("data").get("result");
        assertThat(result).as(r.body()).hasSize(1);
        return result.get(0).get("value").get(1).asLong();
    }
}
