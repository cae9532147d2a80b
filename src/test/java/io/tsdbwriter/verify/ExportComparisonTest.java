package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExportComparisonTest {

    private static final long T = 1795300857000L;

    /** Two source series, M=2, N=2 → 4 series of 2 samples each. */
    private static final ExpectedSamples EXPECTED = ExpectedSamples.of(
            List.of(
                    new SourcePoint("node_load1", Map.of("instanceNo", "h"), "node", T, 0.5),
                    new SourcePoint(
                            "node_cpu_seconds_total",
                            Map.of("instanceNo", "h", "cpu", "0"),
                            "node",
                            T,
                            41.178000000000004)),
            2,
            2,
            60_000);

    private static String line(String metricJson, String values, String timestamps) {
        return "{\"metric\":" + metricJson + ",\"values\":[" + values + "],\"timestamps\":[" + timestamps + "]}";
    }

    /** What VictoriaMetrics returns when everything was written, values as given. */
    private static List<String> exactExport(String cpuValue) {
        List<String> lines = new ArrayList<>();
        for (String inst : new String[] {"h", "h-1"}) {
            lines.add(line(
                    "{\"__name__\":\"node_load1\",\"instanceNo\":\"" + inst + "\",\"productKey\":\"node\"}",
                    "0.5,0.5",
                    T + "," + (T + 30_000)));
            lines.add(line(
                    "{\"__name__\":\"node_cpu_seconds_total\",\"productKey\":\"node\",\"cpu\":\"0\",\"instanceNo\":\""
                            + inst + "\"}",
                    cpuValue + "," + cpuValue,
                    T + "," + (T + 30_000)));
        }
        return lines;
    }

    private static VerificationResult compare(List<String> lines, double tolerance) throws IOException {
        return ReadBackVerifier.compare(EXPECTED, lines.iterator(), tolerance);
    }

    @Test
    void passesWhenEverySampleIsBackWithItsExactValue() throws Exception {
        VerificationResult r = compare(exactExport("41.178000000000004"), 0);

        assertThat(r.passed()).isTrue();
        assertThat(r.expectedSamples()).isEqualTo(8);
        assertThat(r.foundSamples()).isEqualTo(8);
        assertThat(r.readSamples()).isEqualTo(8);
        assertThat(r.summary())
                .contains("expected samples:   8 (4 series; 2 source points x M=2 x N=2)")
                .endsWith("result: PASSED\n");
    }

    @Test
    void acceptsASeriesSplitOverSeveralLinesInAnyOrder() throws Exception {
        List<String> lines = new ArrayList<>(exactExport("41.178000000000004"));
        String first = lines.remove(0);
        lines.add(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"}",
                "0.5",
                Long.toString(T + 30_000)));
        lines.add(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"}", "0.5", Long.toString(T)));
        lines.add("");

        assertThat(first).contains("\"h\"");
        assertThat(compare(lines, 0).passed()).isTrue();
    }

    @Test
    void reportsMissingSamplesAndSeries() throws Exception {
        List<String> lines = exactExport("41.178000000000004");
        lines.remove(3); // cpu of h-1
        lines.set(
                0,
                line(
                        "{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"}",
                        "0.5",
                        Long.toString(T)));

        VerificationResult r = compare(lines, 0);

        assertThat(r.passed()).isFalse();
        assertThat(r.missingSamples()).isEqualTo(3);
        assertThat(r.missingSeries()).isEqualTo(1);
        assertThat(r.missingExamples()).hasSize(3).anySatisfy(e -> assertThat(e)
                .startsWith("node_load1{instanceNo=\"h\",productKey=\"node\"} @" + (T + 30_000)));
        assertThat(r.summary())
                .contains("missing:            3 (1 series with no sample at all)")
                .endsWith("result: FAILED\n");
    }

    @Test
    void reportsUnexpectedSeries() throws Exception {
        List<String> lines = exactExport("41.178000000000004");
        lines.add(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h-2\",\"productKey\":\"node\"}",
                "0.5",
                Long.toString(T)));
        lines.add(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h-2\",\"productKey\":\"node\"}",
                "0.5",
                Long.toString(T + 1)));

        VerificationResult r = compare(lines, 0);

        assertThat(r.passed()).isFalse();
        assertThat(r.unexpectedSeries()).isEqualTo(1);
        assertThat(r.unexpectedSamples()).isEqualTo(2);
        assertThat(r.unexpectedSeriesExamples())
                .singleElement()
                .asString()
                .startsWith("node_load1{instanceNo=\"h-2\",productKey=\"node\"}");
    }

    @Test
    void reportsExtraSamplesAtUnexpectedTimestamps() throws Exception {
        List<String> lines = exactExport("41.178000000000004");
        lines.add(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"}",
                "0.5",
                Long.toString(T + 15_000)));

        VerificationResult r = compare(lines, 0);

        assertThat(r.passed()).isFalse();
        assertThat(r.unexpectedSamples()).isEqualTo(1);
        assertThat(r.unexpectedSeries()).isZero();
        assertThat(r.unexpectedSampleExamples()).singleElement().asString().contains("timestamp not expected");
    }

    @Test
    void reportsDuplicateSamples() throws Exception {
        List<String> lines = exactExport("41.178000000000004");
        lines.add(lines.get(0));

        VerificationResult r = compare(lines, 0);

        assertThat(r.passed()).isFalse();
        assertThat(r.duplicateSamples()).isEqualTo(2);
        assertThat(r.foundSamples()).isEqualTo(8);
        assertThat(r.summary())
                .as("FAILED with 0 missing says where repeats come from and what leaves one")
                .contains("duplicate samples:  2 (", "-dedup.minScrapeInterval")
                .endsWith("result: FAILED\n");
    }

    @Test
    void reportsValueMismatchesWithBothValues() throws Exception {
        VerificationResult r = compare(exactExport("41.5"), ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE);

        assertThat(r.passed()).isFalse();
        assertThat(r.valueMismatches()).isEqualTo(4);
        assertThat(r.valueMismatchExamples()).first().asString().contains("expected 41.178000000000004, found 41.5");
    }

    @Test
    void toleratesVictoriaMetricsDecimalRoundingOnlyWhenAsked() throws Exception {
        // VictoriaMetrics 1.79 stores 41.178000000000004 as the decimal 41.178
        assertThat(compare(exactExport("41.178"), 0).valueMismatches()).isEqualTo(4);

        VerificationResult r = compare(exactExport("41.178"), ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE);
        assertThat(r.passed()).isTrue();
        assertThat(r.valuesWithinTolerance()).isEqualTo(4);
        assertThat(r.summary()).contains("4 values within it");
    }

    @Test
    void treatsNegativeZeroAsZero() throws Exception {
        ExpectedSamples e = ExpectedSamples.of(List.of(new SourcePoint("m", Map.of(), null, T, -0.0)), 1, 1, 60_000);

        VerificationResult r = ReadBackVerifier.compare(
                e, List.of(line("{\"__name__\":\"m\"}", "0", Long.toString(T))).iterator(), 0);

        assertThat(r.passed()).isTrue();
    }

    @Test
    void acceptsEitherValueWhereSourceSamplesCollided() throws Exception {
        ExpectedSamples e = ExpectedSamples.of(
                List.of(
                        new SourcePoint("m", Map.of("instanceNo", "h"), null, T, 1),
                        new SourcePoint("m", Map.of("instanceNo", "h"), null, T, 2)),
                1,
                1,
                60_000);

        for (String v : new String[] {"1", "2"}) {
            assertThat(ReadBackVerifier.compare(
                                    e,
                                    List.of(line("{\"__name__\":\"m\",\"instanceNo\":\"h\"}", v, Long.toString(T)))
                                            .iterator(),
                                    0)
                            .passed())
                    .as(v)
                    .isTrue();
        }
        assertThat(ReadBackVerifier.compare(
                                e,
                                List.of(line("{\"__name__\":\"m\",\"instanceNo\":\"h\"}", "3", Long.toString(T)))
                                        .iterator(),
                                0)
                        .valueMismatches())
                .isEqualTo(1);
    }

    @Test
    void readsLargeIntegersAndSpecialValuesAsVictoriaMetricsWritesThem() throws Exception {
        ExpectedSamples e = ExpectedSamples.of(
                List.of(new SourcePoint("m", Map.of("instanceNo", "h"), null, T, 1.8446744073709552e19)), 1, 1, 60_000);
        ExportComparison c = new ExportComparison(e, 1e-12);

        c.acceptAll(new ByteArrayInputStream((line(
                                "{\"__name__\":\"m\",\"instanceNo\":\"h\"}", "18446744073709548000", Long.toString(T))
                        + "\n" + line("{\"__name__\":\"m\",\"instanceNo\":\"h\"}", "NaN,\"Inf\"", T + 1 + "," + (T + 2))
                        + "\n")
                .getBytes(StandardCharsets.UTF_8)));

        VerificationResult r = c.result();
        assertThat(r.foundSamples()).isEqualTo(1);
        assertThat(r.valuesWithinTolerance()).isEqualTo(1);
        assertThat(r.unexpectedSamples()).isEqualTo(2);
    }

    @Test
    void limitsExamplesToFive() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add(line("{\"__name__\":\"other\",\"i\":\"" + i + "\"}", "1", Long.toString(T)));
        }

        VerificationResult r = compare(lines, 0);

        assertThat(r.unexpectedSeries()).isEqualTo(20);
        assertThat(r.unexpectedSeriesExamples()).hasSize(VerificationResult.MAX_EXAMPLES);
        assertThat(r.missingExamples()).hasSize(VerificationResult.MAX_EXAMPLES);
    }

    @Test
    void prefersExamplesFromDifferentSeries() throws Exception {
        List<SourcePoint> points = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            points.add(new SourcePoint("a", Map.of("instanceNo", "h"), null, T + k * 60_000L, 1));
        }
        points.add(new SourcePoint("b", Map.of("instanceNo", "h"), null, T, 1));
        ExpectedSamples e = ExpectedSamples.of(points, 1, 1, 60_000);

        VerificationResult r = ReadBackVerifier.compare(e, List.<String>of().iterator(), 0);

        assertThat(r.missingSamples()).isEqualTo(11);
        assertThat(r.missingExamples())
                .hasSize(5)
                .anySatisfy(x -> assertThat(x).startsWith("b{"))
                .filteredOn(x -> x.startsWith("a{"))
                .hasSize(4);
    }

    @Test
    void rejectsMalformedExportLines() {
        assertThatThrownBy(() -> compare(List.of("[1,2]"), 0)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> compare(List.of(line("{\"__name__\":\"m\"}", "1,2", Long.toString(T))), 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1 timestamps");
        assertThatThrownBy(() -> compare(List.of("{\"metric\":{}"), 0)).isInstanceOf(IOException.class);
    }

    @Test
    void ignoredLabelsAreRemovedFromTheSeriesReadBackBeforeTheyAreCompared() throws Exception {
        ExportComparison c = new ExportComparison(EXPECTED, 0, Set.of("tenant_id", "receive_replica"));
        for (String l : exactExport("41.178000000000004")) {
            c.acceptLine(l.replace("\"productKey\":", "\"tenant_id\":\"default-tenant\",\"productKey\":"));
        }
        c.acceptLine(line(
                "{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\",\"receive_replica\":\"1\"}",
                "0.5",
                Long.toString(T)));

        VerificationResult r = c.result();

        assertThat(r.foundSamples()).isEqualTo(8);
        assertThat(r.unexpectedSeries()).isZero();
        assertThat(r.duplicateSamples())
                .as("another replica's copy of a sample")
                .isEqualTo(1);
        ExportComparison kept = new ExportComparison(EXPECTED, 0);
        kept.acceptLine(exactExport("1").get(0).replace("\"productKey\":", "\"tenant_id\":\"t\",\"productKey\":"));
        assertThat(kept.result().unexpectedSeries()).isEqualTo(1);
    }
}
