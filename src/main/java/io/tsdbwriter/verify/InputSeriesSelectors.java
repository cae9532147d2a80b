package io.tsdbwriter.verify;

import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
     * One selector of {@link #querySelectors} with the number of expected series it selects.
     *
     * @param selector the series selector, e.g. {@code {__name__=~"a|b",productKey="node"}}
     * @param series   the expected series it selects (≥ 0)
     */
    public record Counted(String selector, long series) {}

    /**
     * The selectors for a read-back through the Prometheus query API, where one query takes one range-vector
     * selector: the metrics whose points carry the same set of product keys share one selector, {@code
     * {__name__=~"m1|m2",productKey=~"a|b"}} (names regex-quoted), which selects exactly the series their selectors of
     * {@link #batches} select together. A selector holds metrics while its length stays within {@code maxChars} and its
     * expected series within {@code maxSeries} (a metric alone over either forms a selector of its own, or several
     * when its product keys alone exceed {@code maxChars}, each counted with all the metric's series). Selectors match
     * disjoint series; empty when nothing is expected.
     *
     * @param maxChars  upper bound on a selector's length, ≥ 256
     * @param maxSeries upper bound on the expected series of a selector of several metrics, ≥ 1
     * @throws IllegalArgumentException when a bound is out of range
     */
    public static List<Counted> querySelectors(ExpectedSamples expected, int maxChars, long maxSeries) {
        if (maxChars < 256) {
            throw new IllegalArgumentException("maxChars must be >= 256, got " + maxChars);
        }
        if (maxSeries < 1) {
            throw new IllegalArgumentException("maxSeries must be >= 1, got " + maxSeries);
        }
        Map<String, Long> seriesByMetric = new HashMap<>();
        for (ExpectedSamples.Series s : expected.seriesById()) {
            String key = s.key();
            int brace = key.indexOf('{');
            seriesByMetric.merge(brace < 0 ? key : key.substring(0, brace), 1L, Long::sum);
        }
        Map<SortedSet<String>, List<String>> metricsByKeys = new LinkedHashMap<>();
        List<Counted> out = new ArrayList<>();
        for (Map.Entry<String, SortedSet<String>> e :
                expected.productKeysByMetric().entrySet()) {
            List<String> own = selectors(e.getKey(), e.getValue(), maxChars);
            long series = seriesByMetric.getOrDefault(e.getKey(), 0L);
            if (own.size() > 1) {
                // each part selects the series of some of the metric's product keys: counted as all of them
                own.forEach(selector -> out.add(new Counted(selector, series)));
            } else {
                metricsByKeys
                        .computeIfAbsent(e.getValue(), k -> new ArrayList<>())
                        .add(e.getKey());
            }
        }
        for (Map.Entry<SortedSet<String>, List<String>> e : metricsByKeys.entrySet()) {
            List<String> keys = List.copyOf(e.getKey());
            String keysPart = keysMatcher(keys);
            List<String> names = new ArrayList<>();
            long series = 0;
            int length = 0;
            for (String metric : e.getValue()) {
                long own = seriesByMetric.getOrDefault(metric, 0L);
                int more = quotedBody(regexQuote(metric)).length() + 1;
                if (!names.isEmpty()
                        && (series + own > maxSeries || length + more + keysPart.length() + 20 > maxChars)) {
                    out.add(new Counted(nameSelector(names, keysPart), series));
                    names.clear();
                    series = 0;
                    length = 0;
                }
                names.add(metric);
                series += own;
                length += more;
            }
            if (!names.isEmpty()) {
                out.add(new Counted(nameSelector(names, keysPart), series));
            }
        }
        return out;
    }

    private static String nameSelector(List<String> names, String keysPart) {
        if (names.size() == 1) {
            return "{__name__=" + quoted(names.get(0)) + "," + keysPart + "}";
        }
        List<String> alternatives = new ArrayList<>(names.size());
        names.forEach(n -> alternatives.add(regexQuote(n)));
        return "{__name__=~" + quoted(String.join("|", alternatives)) + "," + keysPart + "}";
    }

    /** {@code productKey="k"} or {@code productKey=~"a|b"}. */
    private static String keysMatcher(List<String> keys) {
        if (keys.size() == 1) {
            return SourcePoint.PRODUCT_KEY_LABEL + "=" + quoted(keys.get(0));
        }
        List<String> alternatives = new ArrayList<>(keys.size());
        keys.forEach(k -> alternatives.add(regexQuote(k)));
        return SourcePoint.PRODUCT_KEY_LABEL + "=~" + quoted(String.join("|", alternatives));
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
