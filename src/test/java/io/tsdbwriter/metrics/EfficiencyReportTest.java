package io.tsdbwriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The final report never prints a figure without meaning (issue 12). */
class EfficiencyReportTest {

    @TempDir
    Path dir;

    @Test
    void withNothingExpectedEfficiencyIsNullAndCpuPerMillionIsAbsent() throws Exception {
        EfficiencyReport report = new EfficiencyReport(new WriterMeters(new SimpleMeterRegistry()), 6, () -> 0, () -> 0);
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
}
