package io.tsdbwriter.verify;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares the output of VictoriaMetrics' {@code /api/v1/export} (JSON lines
 * {@code {"metric":{"__name__":"m","a":"b"},"values":[…],"timestamps":[…]}}) with {@link ExpectedSamples}.
 *
 * <p>Feed it export lines ({@link #acceptLine}) or a whole export stream ({@link #acceptAll}); a series may come in
 * several lines. Then {@link #result()} tells what is missing, unexpected, duplicated or of the wrong value.
 * Values compare equal when bit-identical (with {@code 0.0 == -0.0}) or, when a relative tolerance {@code tol > 0}
 * is set, when {@code |found − expected| ≤ tol × max(|found|, |expected|)}.
 *
 * <p>Memory: one bit per expected sample plus the set of unexpected series keys (capped at
 * {@value #MAX_TRACKED_UNEXPECTED_SERIES}; beyond it unexpected series lines are still counted, not deduplicated).
 * Not thread-safe; one comparison per export.
 */
public final class ExportComparison {

    /** Most distinct unexpected series remembered for counting them exactly. */
    public static final int MAX_TRACKED_UNEXPECTED_SERIES = 1_000_000;

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private final ExpectedSamples expected;
    private final double tolerance;
    private final Set<String> ignoredLabels;
    private final BitSet[] found;

    private long readSamples;
    private long foundSamples;
    private long unexpectedSamples;
    private long duplicateSamples;
    private long valueMismatches;
    private long withinTolerance;
    private long unexpectedSeries;
    private final HashSet<String> unexpectedKeys = new HashSet<>();
    private final Examples unexpectedSeriesExamples = new Examples();
    private final Examples unexpectedSampleExamples = new Examples();
    private final Examples duplicateExamples = new Examples();
    private final Examples mismatchExamples = new Examples();

    // reused per line
    private final TreeMap<String, String> labels = new TreeMap<>();
    private long[] ts = new long[64];
    private double[] vs = new double[64];

    /**
     * @param expected          the expected samples
     * @param relativeTolerance 0 for bit-exact values, else the relative tolerance (≥ 0, &lt; 1)
     * @throws IllegalArgumentException when the tolerance is out of range
     */
    public ExportComparison(ExpectedSamples expected, double relativeTolerance) {
        this(expected, relativeTolerance, Set.of());
    }

    /**
     * As {@link #ExportComparison(ExpectedSamples, double)}, removing the labels {@code ignoredLabels} from every series
     * read back before it is compared: the labels a reader adds that the writer did not write, such as the external
     * labels a Thanos query adds ({@code tenant_id}, a replica label). Series that differ only in them read back as one.
     *
     * @throws IllegalArgumentException when the tolerance is out of range
     */
    public ExportComparison(ExpectedSamples expected, double relativeTolerance, Set<String> ignoredLabels) {
        this.ignoredLabels = Set.copyOf(ignoredLabels);
        if (!(relativeTolerance >= 0 && relativeTolerance < 1)) {
            throw new IllegalArgumentException("relative tolerance must be in [0, 1), got " + relativeTolerance);
        }
        this.expected = expected;
        this.tolerance = relativeTolerance;
        this.found = new BitSet[expected.seriesCount()];
    }

    /**
     * Compares one export line. Blank lines are ignored.
     *
     * @throws IOException when the line is not an export JSON object
     */
    public void acceptLine(String line) throws IOException {
        if (line.isBlank()) {
            return;
        }
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("export line is not a JSON object: " + clip(line));
            }
            readSeries(p);
            if (p.nextToken() != null) {
                throw new IOException("trailing content after an export line: " + clip(line));
            }
        }
    }

    /**
     * Compares a whole export response: a sequence of JSON objects separated by newlines. The stream is read to its
     * end, not closed.
     *
     * @throws IOException when reading fails or the content is not export JSON
     */
    public void acceptAll(InputStream in) throws IOException {
        try (JsonParser p = JSON.createParser(in)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("export stream holds " + t + " where a series object was expected");
                }
                readSeries(p);
            }
        }
    }

    /**
     * Compares the samples of one series as read back.
     *
     * @param metric       the {@code __name__} (empty string if the series had none)
     * @param labels       the other labels
     * @param timestampsMs timestamps in epoch ms; {@code values} alongside; the first {@code count} are used
     */
    public void acceptSeries(
            String metric, Map<String, String> labels, long[] timestampsMs, double[] values, int count) {
        if (!ignoredLabels.isEmpty() && !Collections.disjoint(labels.keySet(), ignoredLabels)) {
            TreeMap<String, String> kept = new TreeMap<>(labels);
            kept.keySet().removeAll(ignoredLabels);
            labels = kept;
        }
        String key = SourcePoint.seriesKey(metric, labels);
        ExpectedSamples.Series series = expected.series(key);
        readSamples += count;
        if (series == null) {
            unexpectedSamples += count;
            boolean isNew;
            if (unexpectedKeys.size() < MAX_TRACKED_UNEXPECTED_SERIES) {
                isNew = unexpectedKeys.add(key);
            } else {
                isNew = !unexpectedKeys.contains(key);
            }
            if (isNew) {
                unexpectedSeries++;
                if (unexpectedSeriesExamples.wants(key)) {
                    unexpectedSeriesExamples.add(
                            key, key + (count > 0 ? " first read back " + sample(timestampsMs[0], values[0]) : ""));
                }
            }
            return;
        }
        Timeline tl = series.timeline();
        BitSet bits = found[series.id()];
        if (bits == null) {
            bits = new BitSet(tl.size());
            found[series.id()] = bits;
        }
        for (int k = 0; k < count; k++) {
            long t = timestampsMs[k];
            double v = values[k];
            int idx = Arrays.binarySearch(tl.timestamps, t);
            if (idx < 0) {
                unexpectedSamples++;
                if (unexpectedSampleExamples.wants(key)) {
                    unexpectedSampleExamples.add(key, key + " " + sample(t, v) + ": timestamp not expected");
                }
                continue;
            }
            if (bits.get(idx)) {
                duplicateSamples++;
                if (duplicateExamples.wants(key)) {
                    duplicateExamples.add(key, key + " " + sample(t, v) + ": timestamp read back more than once");
                }
                continue;
            }
            bits.set(idx);
            foundSamples++;
            double e = tl.values[idx];
            if (v == e) {
                continue;
            }
            double[] alts = tl.alternatives == null ? null : tl.alternatives.get(idx);
            if (alts != null && anyEqual(alts, v)) {
                continue;
            }
            if (tolerance > 0 && (within(v, e) || (alts != null && anyWithin(alts, v)))) {
                withinTolerance++;
                continue;
            }
            valueMismatches++;
            if (mismatchExamples.wants(key)) {
                mismatchExamples.add(
                        key,
                        key + " @" + t + " (" + Instant.ofEpochMilli(t) + "): expected " + e
                                + (alts == null ? "" : " (or " + Arrays.toString(alts) + ")") + ", found " + v);
            }
        }
    }

    /** The comparison of everything accepted so far against the full expectation. */
    public VerificationResult result() {
        long missingSeries = 0;
        List<String> missingExamples = new ArrayList<>();
        // first pass: one example per series; second pass fills up from series with several missing samples
        for (int pass = 0; pass < 2 && missingExamples.size() < VerificationResult.MAX_EXAMPLES; pass++) {
            for (ExpectedSamples.Series s : expected.seriesById()) {
                if (missingExamples.size() == VerificationResult.MAX_EXAMPLES) {
                    break;
                }
                BitSet bits = found[s.id()];
                int first = bits == null ? 0 : bits.nextClearBit(0);
                int idx = pass == 0 ? first : (bits == null ? 1 : bits.nextClearBit(first + 1));
                while (idx < s.timeline().size() && missingExamples.size() < VerificationResult.MAX_EXAMPLES) {
                    missingExamples.add(s.key() + " " + sample(s.timeline().timestamps[idx], s.timeline().values[idx]));
                    if (pass == 0) {
                        break;
                    }
                    idx = bits == null ? idx + 1 : bits.nextClearBit(idx + 1);
                }
            }
        }
        for (ExpectedSamples.Series s : expected.seriesById()) {
            BitSet bits = found[s.id()];
            int size = s.timeline().size();
            if (bits == null || bits.isEmpty()) {
                if (size > 0) {
                    missingSeries++;
                }
            }
        }
        return new VerificationResult(
                expected.sampleCount(),
                expected.seriesCount(),
                expected.sourcePointCount(),
                expected.timeMultiplier(),
                expected.instanceMultiplier(),
                readSamples,
                foundSamples,
                expected.sampleCount() - foundSamples,
                missingSeries,
                unexpectedSeries,
                unexpectedSamples,
                duplicateSamples,
                valueMismatches,
                withinTolerance,
                tolerance,
                missingExamples,
                unexpectedSeriesExamples.items(),
                unexpectedSampleExamples.items(),
                duplicateExamples.items(),
                mismatchExamples.items());
    }

    private void readSeries(JsonParser p) throws IOException {
        String metric = "";
        labels.clear();
        int nValues = -1;
        int nTimestamps = -1;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken vt = p.nextToken();
            switch (field) {
                case "metric" -> {
                    expectToken(vt, JsonToken.START_OBJECT, "metric");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        String value = p.getValueAsString();
                        if ("__name__".equals(name)) {
                            metric = value;
                        } else if (value != null && !value.isEmpty()) {
                            labels.put(name, value);
                        }
                    }
                }
                case "values" -> {
                    expectToken(vt, JsonToken.START_ARRAY, "values");
                    nValues = 0;
                    JsonToken e;
                    while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (nValues == vs.length) {
                            vs = Arrays.copyOf(vs, nValues * 2);
                        }
                        vs[nValues++] = switch (e) {
                            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                            case VALUE_STRING -> stringValue(p.getText());
                            case VALUE_NULL -> Double.NaN;
                            default -> throw new IOException("export 'values' holds " + e);
                        };
                    }
                }
                case "timestamps" -> {
                    expectToken(vt, JsonToken.START_ARRAY, "timestamps");
                    nTimestamps = 0;
                    JsonToken e;
                    while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (e != JsonToken.VALUE_NUMBER_INT) {
                            throw new IOException("export 'timestamps' holds " + e);
                        }
                        if (nTimestamps == ts.length) {
                            ts = Arrays.copyOf(ts, nTimestamps * 2);
                        }
                        ts[nTimestamps++] = p.getLongValue();
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("malformed export object near " + t);
        }
        if (nValues < 0 || nTimestamps < 0 || nValues != nTimestamps) {
            throw new IOException("export line of " + SourcePoint.seriesKey(metric, labels) + " has " + nValues
                    + " values and " + nTimestamps + " timestamps");
        }
        acceptSeries(metric, labels, ts, vs, nValues);
    }

    private static double stringValue(String text) throws IOException {
        try {
            return PrometheusTextParser.parseValue(text);
        } catch (NumberFormatException e) {
            throw new IOException("export 'values' holds a string that is not a number: '" + clip(text) + "'");
        }
    }

    private static void expectToken(JsonToken actual, JsonToken wanted, String field) throws IOException {
        if (actual != wanted) {
            throw new IOException("export field '" + field + "' is " + actual + ", expected " + wanted);
        }
    }

    private boolean within(double found, double expected) {
        return Math.abs(found - expected) <= tolerance * Math.max(Math.abs(found), Math.abs(expected));
    }

    private boolean anyWithin(double[] alts, double v) {
        for (double a : alts) {
            if (within(v, a)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyEqual(double[] alts, double v) {
        for (double a : alts) {
            if (a == v) {
                return true;
            }
        }
        return false;
    }

    /** Up to {@link VerificationResult#MAX_EXAMPLES} examples, preferring different series, filled up with more of the same. */
    private static final class Examples {
        private final List<String> distinct = new ArrayList<>();
        private final List<String> more = new ArrayList<>();
        private final HashSet<String> keys = new HashSet<>();

        /** True when an example of {@code key} would be kept. */
        boolean wants(String key) {
            return distinct.size() < VerificationResult.MAX_EXAMPLES
                    && (!keys.contains(key) || distinct.size() + more.size() < VerificationResult.MAX_EXAMPLES);
        }

        void add(String key, String text) {
            if (keys.add(key)) {
                distinct.add(text);
            } else {
                more.add(text);
            }
        }

        List<String> items() {
            List<String> all = new ArrayList<>(distinct);
            for (String m : more) {
                if (all.size() == VerificationResult.MAX_EXAMPLES) {
                    break;
                }
                all.add(m);
            }
            return all;
        }
    }

    private static String sample(long t, double v) {
        return "@" + t + " (" + Instant.ofEpochMilli(t) + ") value " + v;
    }

    private static String clip(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
