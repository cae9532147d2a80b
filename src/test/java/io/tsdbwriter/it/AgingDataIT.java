package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Data that ages: the scrapes the project ships are produced relative to the present by default, so the demo path
 * ({@code produce}, {@code run --stop-at-end}, {@code verify}, as {@code scripts/demo.sh} runs it) works on any date.
 *
 * <p>The clock a year ahead: VictoriaMetrics (a Go binary) ignores libfaketime, so instead of moving every process's
 * clock a year forward the shipped scrapes are moved a year back: copies of {@code examples/data} whose file names
 * (the scrape times, Unix seconds) are 365 days earlier. Against the present the data is then exactly as old as the
 * shipped scrapes are a year from now. VictoriaMetrics runs with its default retention ({@code -retentionPeriod=1},
 * one month), which the writer reads from its {@code /metrics}.
 */
class AgingDataIT {

    private static final long YEAR_MS = Duration.ofDays(365).toMillis();

    @RegisterExtension
    static final Stack stack =
            Stack.withKafka().withVm("-retentionPeriod=1"); // after the fixture's 100y: the last one counts

    /** Copies of the shipped scrapes, each named (= dated) 365 days before the original. */
    private static List<Path> yearOldScrapes() throws Exception {
        Path dir = stack.path("year-old-scrapes");
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        for (Path f : NodeExporterFiles.all()) {
            long seconds = RealInput.timestampFromFileName(f).getAsLong() / 1000 - YEAR_MS / 1000;
            Path copy = dir.resolve("node-exporter-" + seconds + ".prom");
            Files.copy(f, copy, StandardCopyOption.REPLACE_EXISTING);
            files.add(copy);
        }
        return files;
    }

    private static List<String> withFiles(List<String> args, List<Path> files) {
        List<String> all = new ArrayList<>(args);
        files.forEach(f -> all.add(f.toString()));
        return all;
    }

    @Test
    void theDemoPathReadsBackEverySampleOfScrapesAYearOld() throws Exception {
        List<Path> files = yearOldScrapes();
        String topic = stack.createTopic("aged", 3);
        long now = System.currentTimeMillis();

        WriterProcess produce = stack.writer(
                "aged-produce",
                withFiles(
                        List.of(
                                "produce",
                                "--bootstrap-servers",
                                stack.bootstrapServers(),
                                "--topic",
                                topic,
                                "--instance",
                                Scenario.INSTANCE,
                                "--product-key",
                                "aged",
                                "--now",
                                Long.toString(now)),
                        files));
        assertThat(produce.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(produce.output())
                .isZero();
        Path summary = stack.path("aged-summary.json");
        WriterProcess writer = stack.writer(
                "aged-writer",
                stack.runArgs(topic, "aged-job", 6, 10, 3, "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        // the rule, stated here on its own: whole minutes that bring the newest scrape to within the minute before now
        List<SourcePoint> dated = RealInput.load(files, Scenario.INSTANCE, "aged", OptionalLong.empty());
        long newest = dated.stream().mapToLong(SourcePoint::timestampMs).max().orElseThrow();
        long shift = Math.floorDiv(now - newest, 60_000L) * 60_000L;
        assertThat(shift)
                .as("a year and a few days of whole minutes")
                .isBetween(YEAR_MS, YEAR_MS + Duration.ofDays(60).toMillis());
        List<SourcePoint> present = dated.stream()
                .map(p -> new SourcePoint(p.metric(), p.labels(), p.productKey(), p.timestampMs() + shift, p.value()))
                .toList();
        ExpectedSamples expected = Scenario.expected(present, 6, 10);
        stack.assertExactReadBack(expected);
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("decode_errors").asLong()).isZero();

        // a shared TSDB: series nobody here produced, one under an input's metric name with another product key, one
        // under the input's product key with another metric name
        long t = System.currentTimeMillis();
        assertThat(stack.vm()
                        .importLines("{\"metric\":{\"__name__\":\""
                                + present.get(0).metric() + "\",\"productKey\":\"someone-else\"},"
                                + "\"values\":[1],\"timestamps\":[" + t
                                + "]}\n{\"metric\":{\"__name__\":\"foreign_metric\",\"productKey\":\"aged\"},"
                                + "\"values\":[2],\"timestamps\":[" + t + "]}\n"))
                .isEqualTo(204);
        stack.vm().forceFlush();
        assertThat(stack.vm().export("{productKey=\"someone-else\"}")).hasSize(1);

        // the verify command finds them where produce put them (give both the same --now); without --match it reads
        // only
        // the input's series: the foreign ones are neither read nor reported
        WriterProcess verify = stack.writer(
                "aged-verify",
                withFiles(
                        List.of(
                                "verify",
                                "--vm-url",
                                stack.vmUrl(),
                                "--time-multiplier",
                                "6",
                                "--instance-multiplier",
                                "10",
                                "--instance",
                                Scenario.INSTANCE,
                                "--product-key",
                                "aged",
                                "--now",
                                Long.toString(now)),
                        files));
        assertThat(verify.waitFor(Scenario.PROCESS_TIMEOUT)).as(verify.output()).isZero();
        assertThat(verify.output())
                .contains("missing:            0")
                .contains("result: PASSED")
                .contains("read back:          " + expected.sampleCount() + "\n")
                .contains("unexpected series:  0\n")
                .doesNotContain("someone-else")
                .doesNotContain("foreign_metric");
    }

    @Test
    void keepTimestampsLeavesScrapesAYearOldOutsideTheRetention() throws Exception {
        List<Path> files = yearOldScrapes();
        String topic = stack.createTopic("kept", 3);

        WriterProcess produce = stack.writer(
                "kept-produce",
                withFiles(
                        List.of(
                                "produce",
                                "--bootstrap-servers",
                                stack.bootstrapServers(),
                                "--topic",
                                topic,
                                "--instance",
                                Scenario.INSTANCE,
                                "--product-key",
                                "kept",
                                "--keep-timestamps"),
                        files));
        assertThat(produce.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(produce.output())
                .isZero();
        Path summary = stack.path("kept-summary.json");
        WriterProcess writer = stack.writer(
                "kept-writer",
                stack.runArgs(topic, "kept-job", 6, 10, 3, "--stop-at-end", "--summary-json", summary.toString()));
        int code = writer.waitFor(Scenario.PROCESS_TIMEOUT);

        // what the user sees: every point refused before it is sent, as older than the target's retention
        JsonNode s = Scenario.summary(summary);
        assertThat(code).as(writer.output()).isZero();
        assertThat(s.get("samples_written").asLong()).as(s.toString()).isZero();
        assertThat(s.get("decode_errors").asLong()).as(s.toString()).isEqualTo(10_140);
        assertThat(writer.output()).contains("older than the target's retention");
        stack.vm().forceFlush();
        assertThat(stack.vm().export("{productKey=\"kept\"}")).isEmpty();
    }
}
