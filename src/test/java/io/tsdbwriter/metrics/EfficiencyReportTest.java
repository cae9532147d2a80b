package io.tsdbwriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The final report never prints a figure without meaning (issue 12). */
class EfficiencyReportTest {

    @TempDir
    Path dir;

    @Test
    void withNothingExpectedEfficiencyIsNullAndCpuPerMillionIsAbsent() throws Exception {
        EfficiencyReport report =
                new EfficiencyReport(new WriterMeters(new SimpleMeterRegistry()), 6, () -> 0, () -> 0);
        Path json = dir.resolve("s.json");
        report.writeSummary(json);
        JsonNode s = new ObjectMapper().readTree(json.toFile());
        assertThat(s.has("efficiency")).isTrue();
        assertThat(s.get("efficiency").isNull()).isTrue();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        report.printFinal(new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("efficiency").contains("n/a").doesNotContain("cpu_s_per_million");
    }

    @Test
    void withSamplesWrittenEfficiencyAndCpuPerMillionArePrinted() throws Exception {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        meters.samplesExpected.increment(1000);
        meters.samplesWritten.increment(1000);
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        assertThat(report.summary().get("efficiency")).isEqualTo(1.0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        report.printFinal(new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("cpu_s_per_million");
    }

    @Test
    void aWriteLeftStaleByATsdbRestartIsExpectedOnceTheReReadWritesItAndEfficiencyIsWhole() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        meters.samplesExpected.increment(600); // batch A, acknowledged before the restart
        meters.written(null, 600);
        meters.samplesExpected.increment(400); // batch B, in flight at the restart: stale, abandoned unwritten
        meters.samplesSuperseded.increment(400);
        meters.samplesExpected.increment(600 + 400); // the rewind reads A and B again, and writes both
        meters.written(null, 600 + 400);

        assertThat(report.summary())
                .containsEntry("samples_expected", 1600L)
                .containsEntry("samples_written", 1600L)
                .containsEntry("samples_superseded", 400L)
                .containsEntry("efficiency", 1.0);
        assertThat(meters.samplesExpected.count())
                .as("the Prometheus counter counts every sample taken in")
                .isEqualTo(2000);
    }

    @Test
    void aStaleWriteLeftUnreadIsStillMissingFromTheEfficiency() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        meters.samplesExpected.increment(1000);
        meters.written(null, 600);
        meters.samplesSuperseded.increment(100); // stale: its records read again below
        meters.samplesExpected.increment(100);
        meters.written(null, 100);

        assertThat(report.summary())
                .containsEntry("samples_expected", 1000L)
                .containsEntry("samples_written", 700L)
                .containsEntry("efficiency", 0.7);
    }

    @Test
    void theSummaryCountsNativeHistogramsWrittenAndTheirBucketsBesideTheSamples() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        assertThat(report.summary())
                .containsEntry("histograms_written", 0L)
                .containsEntry("histogram_buckets_written", 0L);

        meters.written(null, 10);
        meters.histogramsWritten(4, 40);
        meters.histogramsWritten(0, 0);
        meters.histogramsWritten(2, 6);

        assertThat(report.summary())
                .containsEntry("samples_written", 10L)
                .containsEntry("histograms_written", 6L)
                .containsEntry("histogram_buckets_written", 46L);
    }

    @Test
    void samplesTheSeriesLimitsDroppedAreInTheSummaryByReasonAndOnTheReportLine() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        assertThat(report.summary()).containsEntry("series_limit_dropped", 0L);
        assertThat(report.tick()).doesNotContain("series_limit_dropped");

        meters.seriesLimitDropped(12, 0);
        meters.seriesLimitDropped(6, 3);

        assertThat(report.summary())
                .containsEntry("series_limit_dropped", 21L)
                .containsEntry("series_limit_dropped_by_reason", Map.of("hourly", 18L, "daily", 3L));
        assertThat(report.tick()).contains(" series_limit_dropped=21");
    }

    @Test
    void theSummarySeparatesTheWriteTimeFromTheDurabilityWait() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        meters.durabilityWindowSeconds.set(13);
        meters.lastWriteNanos.set(System.nanoTime()); // the last 2xx; the summary is taken after it

        var summary = report.summary();
        double write = (double) summary.get("write_seconds");
        double elapsed = (double) summary.get("elapsed_seconds");
        @SuppressWarnings("unchecked")
        var durability = (Map<String, Object>) summary.get("durability");

        assertThat(write).isLessThanOrEqualTo(elapsed);
        assertThat((double) durability.get("wait_seconds"))
                .isGreaterThanOrEqualTo(0.0)
                .isEqualTo(elapsed - write, Offset.offset(0.002));
        assertThat(durability)
                .containsEntry("window_seconds", 13L)
                .containsEntry("tsdb_restarts", 0L)
                .containsEntry("records_reread", 0L);
    }

    @Test
    void ofInputComparesReadingWithTheInputsDemandAndIsAbsentOnABacklog() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        AtomicLong logEnd = new AtomicLong(1000);
        EfficiencyReport report = new EfficiencyReport(meters, 6, logEnd::get, () -> 0);
        String first = report.tick(); // no previous log end: no input rate yet
        assertThat(first).doesNotContain("of_input");

        logEnd.addAndGet(200); // the input grew 200 records; the writer read 100 of them (one point each)
        meters.recordsConsumed.increment(100);
        meters.pointsDecoded.increment(100);
        meters.samplesExpected.increment(600);
        meters.samplesWritten.increment(600);
        String line = report.tick();
        assertThat(line).contains("efficiency=100.0%");
        assertThat(line)
                .contains("of_input=50.0%"); // both rates over the same interval: 600 of the 1,200 samples demanded

        meters.samplesExpected.increment(600); // a backlog: nothing arrives, all is read and written
        meters.samplesWritten.increment(600);
        assertThat(report.tick()).contains("efficiency=100.0%").doesNotContain("of_input");
    }

    @Test
    void aLogEndFirstReadAfterStartIsNotInputGrowth() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        AtomicLong logEnd = new AtomicLong(0); // not read yet
        EfficiencyReport report = new EfficiencyReport(meters, 6, logEnd::get, () -> 0);
        meters.recordsConsumed.increment(10_140); // the demo: the whole backlog read and written in the first interval
        meters.pointsDecoded.increment(10_140);
        meters.samplesExpected.increment(60_840);
        meters.samplesWritten.increment(60_840);
        report.tick();
        logEnd.set(10_140); // the partitions' end offsets, read now: a backlog, not records that arrived
        assertThat(report.tick()).contains("input_expected/min=0 ").doesNotContain("of_input");
    }

    @Test
    void theReportLineEndsWithTheIntervalsIngestDelaysAndTheSummaryHasTheRunsLast() throws Exception {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        EfficiencyReport report = new EfficiencyReport(meters, 6, () -> 0, () -> 0);
        assertThat(report.delays()).isEqualTo(" | ingest_delay p50/p99 acknowledged=n/a committed=n/a");

        // one batch about 2 s old at its 2xx, one 45 s old at its commit: buckets (1 s, 2.5 s] and (30 s, 60 s]
        meters.ingestDelay.record(IngestDelay.Stage.ACKNOWLEDGED, System.currentTimeMillis() - 2_000);
        meters.ingestDelay.record(IngestDelay.Stage.COMMITTED, System.currentTimeMillis() - 45_000);
        assertThat(report.delays())
                .isEqualTo(" | ingest_delay p50/p99 acknowledged=1.750s/2.485s committed=45.000s/59.700s");
        assertThat(report.delays())
                .as("over the interval: nothing since the last line")
                .isEqualTo(" | ingest_delay p50/p99 acknowledged=n/a committed=n/a");

        report.outcome(0, "done", null);
        Map<String, Object> summary = report.summary();
        assertThat(summary.keySet())
                .as("after every field of the run, before how it ended")
                .containsSubsequence("skipped_ranges", "ingest_delay_seconds", "exit_code");
        Path json = dir.resolve("delay.json");
        report.writeSummary(json);
        JsonNode d = new ObjectMapper().readTree(json.toFile()).get("ingest_delay_seconds");
        assertThat(d.get("acknowledged").get("p50").asDouble()).isEqualTo(1.75);
        assertThat(d.get("acknowledged").get("p99").asDouble()).isEqualTo(2.485);
        assertThat(d.get("committed").get("p50").asDouble()).isEqualTo(45.0);
        assertThat(d.get("committed").get("p99").asDouble()).isEqualTo(59.7);
    }
}
