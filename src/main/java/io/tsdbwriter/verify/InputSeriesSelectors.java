package io.tsdbwriter.verify;

import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

/**
 * The series selectors that name exactly the metrics and product keys of an {@link ExpectedSamples}, so that a
 * read-back of a shared TSDB reads only the series the input names: one selector per metric name,
 * {@code {__name__="node_load1",productKey="node"}}, or with several product keys
 * {@code {__name__="node_load1",productKey=~"a|b"}} (values regex-quoted; PromQL anchors the regex). A metric whose
 * points carry no product key gets {@code productKey=""} among its alternatives, which matches series without the label.
 * Every series that such a selector matches has the metric name and a product key of the input: series nobody
 * produced under those are never read; a wrong instance variant or an extra label under them still is (an
 * unexpected series).
 *
 * <p>Batching: a selector longer than {@code maxChars} is split into several, each with a disjoint subset of the
 * product keys, and the selectors are grouped into batches whose summed length stays within {@code maxChars}
 * (a selector alone over it, for one very long product key, forms a batch of its own). Selectors of different
 * batches match disjoint series, so one export per batch reads every series once.
 *
 * <p>Stateless; thread-safe.
 */
public final class InputSeriesSelectors {

    /**
     * Default upper bound on the selector text of one export request, in chars: VictoriaMetrics' {@code
     * -search.maxQueryLen} default (16 KiB).
     */
    public static final int DEFAULT_MAX_BATCH_CHARS = 16 * 1024;

    private InputSeriesSelectors() {}

    /**
     * The batches of selectors for {@code expected}, in metric name order; empty when nothing is expected.
     *
     * @param maxChars upper bound on the summed selector length of a batch, ≥ 256
     * @throws IllegalArgumentException when {@code maxChars} is below 256
     */
    public static List<List<String>> batches(ExpectedSamples expected, int maxChars) {
        if (maxChars < 256) {
            throw new IllegalArgumentException("maxChars must be >= 256, got " + maxChars);
        }
        List<String> selectors = new ArrayList<>();
        for (Map.Entry<String, SortedSet<String>> e :
                expected.productKeysByMetric().entrySet()) {
            selectors.addAll(selectors(e.getKey(), e.getValue(), maxChars));
        }
        List<List<String>> batches = new ArrayList<>();
        List<String> batch = new ArrayList<>();
        int length = 0;
        for (String s : selectors) {
            if (!batch.isEmpty() && length + s.length() > maxChars) {
                batches.add(List.copyOf(batch));
                batch.clear();
                length = 0;
            }
            batch.add(s);
            length += s.length();
        }
        if (!batch.isEmpty()) {
            batches.add(List.copyOf(batch));
        }
        return batches;
    }

    /**
     * The selectors of one metric: its product keys ({@code ""} for none) split so that each selector stays within
     * {@code maxChars} when it can.
     */
    static List<String> selectors(String metric, SortedSet<String> productKeys, int maxChars) {
        String head = "{__name__=" + quoted(metric) + "," + SourcePoint.PRODUCT_KEY_LABEL;
        List<String> out = new ArrayList<>();
        List<String> part = new ArrayList<>();
        int length = head.length() + 4;
        for (String key : productKeys) {
            String alternative = quotedBody(regexQuote(key));
            if (!part.isEmpty() && length + alternative.length() + 1 > maxChars) {
                out.add(selector(head, part));
                part.clear();
                length = head.length() + 4;
            }
            part.add(key);
            length += alternative.length() + 1;
        }
        if (!part.isEmpty()) {
            out.add(selector(head, part));
        }
        return out;
    }

    private static String selector(String head, List<String> keys) {
        if (keys.size() == 1) {
            return head + "=" + quoted(keys.get(0)) + "}";
        }
        List<String> alternatives = new ArrayList<>(keys.size());
        keys.forEach(k -> alternatives.add(regexQuote(k)));
        return head + "=~" + quoted(String.join("|", alternatives)) + "}";
    }

    /** {@code s} with every RE2 metacharacter backslash-escaped. */
    static String regexQuote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    private static String quoted(String s) {
        return "\"" + quotedBody(s) + "\"";
    }

    /** {@code s} escaped for a double-quoted PromQL string: {@code \\}, {@code \"}, {@code \n}. */
    private static String quotedBody(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
