package io.tsdbwriter.verify;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of comparing what VictoriaMetrics returned with the {@link ExpectedSamples}.
 *
 * <p>Counts are of samples (one value at one timestamp of one series) unless named series. Example lists hold at
 * most {@value #MAX_EXAMPLES} human-readable lines each. Immutable and thread-safe.
 *
 * @param expectedSamples          distinct expected samples
 * @param expectedSeries           expected series
 * @param sourcePoints             source points the expectation was built from
 * @param timeMultiplier           M
 * @param instanceMultiplier       N
 * @param readSamples              samples read back (all of them, expected or not)
 * @param foundSamples             expected samples that were read back (value right or not)
 * @param missingSamples           expected samples not read back
 * @param missingSeries            expected series of which not one sample was read back
 * @param unexpectedSeries         series read back that are not expected at all
 * @param unexpectedSamples        samples read back that are not expected: those of unexpected series plus those at
 *                                 unexpected timestamps of expected series
 * @param duplicateSamples         expected samples read back more than once (same series and timestamp)
 * @param valueMismatches          found samples whose value differs beyond the tolerance
 * @param valuesWithinTolerance    found samples whose value is not bit-identical but within the tolerance
 * @param relativeTolerance        the relative tolerance applied: {@code |found − expected| ≤ tol × max(|found|, |expected|)}
 * @param missingExamples          examples of missing samples
 * @param unexpectedSeriesExamples examples of unexpected series
 * @param unexpectedSampleExamples examples of unexpected samples in expected series
 * @param duplicateExamples        examples of duplicate samples
 * @param valueMismatchExamples    examples of value mismatches
 */
public record VerificationResult(
        long expectedSamples,
        long expectedSeries,
        long sourcePoints,
        int timeMultiplier,
        int instanceMultiplier,
        long readSamples,
        long foundSamples,
        long missingSamples,
        long missingSeries,
        long unexpectedSeries,
        long unexpectedSamples,
        long duplicateSamples,
        long valueMismatches,
        long valuesWithinTolerance,
        double relativeTolerance,
        List<String> missingExamples,
        List<String> unexpectedSeriesExamples,
        List<String> unexpectedSampleExamples,
        List<String> duplicateExamples,
        List<String> valueMismatchExamples) {

    /** Most examples kept per kind of problem. */
    public static final int MAX_EXAMPLES = 5;

    public VerificationResult {
        missingExamples = List.copyOf(missingExamples);
        unexpectedSeriesExamples = List.copyOf(unexpectedSeriesExamples);
        unexpectedSampleExamples = List.copyOf(unexpectedSampleExamples);
        duplicateExamples = List.copyOf(duplicateExamples);
        valueMismatchExamples = List.copyOf(valueMismatchExamples);
    }

    /**
     * True when VictoriaMetrics holds exactly the expected samples: none missing, no unexpected series or sample,
     * no duplicate, every value equal (within {@link #relativeTolerance()}, 0 = bit-exact up to the sign of zero).
     */
    public boolean passed() {
        return missingSamples == 0
                && unexpectedSeries == 0
                && unexpectedSamples == 0
                && duplicateSamples == 0
                && valueMismatches == 0;
    }

    /** A multi-line report for operators, ending with {@code result: PASSED} or {@code result: FAILED}. */
    public String summary() {
        StringBuilder b = new StringBuilder();
        line(
                b,
                "expected samples",
                expectedSamples,
                String.format(
                        Locale.ROOT,
                        "%d series; %d source points x M=%d x N=%d",
                        expectedSeries,
                        sourcePoints,
                        timeMultiplier,
                        instanceMultiplier));
        line(b, "read back", readSamples, null);
        line(b, "found", foundSamples, null);
        line(b, "missing", missingSamples, missingSeries + " series with no sample at all");
        examples(b, missingExamples);
        line(b, "unexpected series", unexpectedSeries, null);
        examples(b, unexpectedSeriesExamples);
        line(b, "unexpected samples", unexpectedSamples, "incl. those of unexpected series");
        examples(b, unexpectedSampleExamples);
        line(
                b,
                "duplicate samples",
                duplicateSamples,
                duplicateSamples == 0
                        ? null
                        : "an at-least-once writer writes a sample "
                                + "again after a crash, a restart or a lost acknowledgement; VictoriaMetrics keeps one only when it runs with "
                                + "-dedup.minScrapeInterval (1ms in every stack of this project)");
        examples(b, duplicateExamples);
        String tol = relativeTolerance == 0
                ? "bit-exact"
                : String.format(
                        Locale.ROOT,
                        "relative tolerance %s; %d values within it, not bit-identical",
                        relativeTolerance,
                        valuesWithinTolerance);
        line(b, "value mismatches", valueMismatches, tol);
        examples(b, valueMismatchExamples);
        b.append("result: ").append(passed() ? "PASSED" : "FAILED").append('\n');
        return b.toString();
    }

    private static void line(StringBuilder b, String name, long n, String note) {
        b.append(String.format(Locale.ROOT, "%-19s %d", name + ":", n));
        if (note != null) {
            b.append(" (").append(note).append(')');
        }
        b.append('\n');
    }

    private static void examples(StringBuilder b, List<String> examples) {
        for (String e : examples) {
            b.append("    e.g. ").append(e).append('\n');
        }
    }
}
