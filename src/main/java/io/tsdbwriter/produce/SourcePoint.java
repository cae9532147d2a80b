package io.tsdbwriter.produce;

import io.tsdbwriter.decode.json.PointDecoder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One source point as a point record carries it (DESIGN §2): before amplification, one sample of one series.
 *
 * <p>The compact constructor enforces the record contract so that every point built here encodes to a record the
 * writer accepts: a valid Prometheus metric name, label names {@code [a-zA-Z_][a-zA-Z0-9_]*} not starting with
 * {@code __}, non-empty label values, a finite value. The labels are copied into an unmodifiable map that keeps
 * the given order. Immutable and thread-safe.
 *
 * @param metric      metric name, {@code [a-zA-Z_:][a-zA-Z0-9_:]*}; becomes {@code __name__}
 * @param labels      the record's {@code dimensions}, including {@code instanceNo} when the point has one
 * @param productKey  the record's {@code productKey}, or null for none (an empty key is treated as none)
 * @param timestampMs sample time in Unix epoch milliseconds
 * @param value       sample value, finite
 * @throws IllegalArgumentException when a field breaks the record contract
 */
public record SourcePoint(
        String metric, Map<String, String> labels, String productKey, long timestampMs, double value) {

    /** The dimension that names the instance, varied by the instance multiplier. */
    public static final String INSTANCE_LABEL = "instanceNo";
    /** The label that {@code productKey} becomes in VictoriaMetrics. */
    public static final String PRODUCT_KEY_LABEL = "productKey";

    public SourcePoint {
        if (metric == null || !isMetricName(metric)) {
            throw new IllegalArgumentException("invalid metric name '" + metric + "'");
        }
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("value of " + metric + " is not finite: " + value);
        }
        LinkedHashMap<String, String> copy = new LinkedHashMap<>(labels == null ? 4 : labels.size() * 2);
        if (labels != null) {
            for (Map.Entry<String, String> e : labels.entrySet()) {
                String name = e.getKey();
                if (name == null || !isLabelName(name) || name.startsWith("__")) {
                    throw new IllegalArgumentException("invalid label name '" + name + "' on " + metric);
                }
                if (e.getValue() == null || e.getValue().isEmpty()) {
                    throw new IllegalArgumentException("empty value of label '" + name + "' on " + metric);
                }
                copy.put(name, e.getValue());
            }
        }
        labels = Collections.unmodifiableMap(copy);
        if (productKey != null && productKey.isEmpty()) {
            productKey = null;
        }
    }

    /** The {@code instanceNo} label, or null when the point has none. */
    public String instance() {
        return labels.get(INSTANCE_LABEL);
    }

    /**
     * The labels of the series this point belongs to as VictoriaMetrics stores it without amplification:
     * the dimensions plus {@code productKey} (which wins over a dimension of that name, as in the writer), sorted
     * by name, without {@code __name__}.
     */
    public TreeMap<String, String> seriesLabels() {
        TreeMap<String, String> sorted = new TreeMap<>(labels);
        if (productKey != null) {
            sorted.put(PRODUCT_KEY_LABEL, productKey);
        }
        return sorted;
    }

    /** {@link #seriesKey(String, Map)} of this point's series. */
    public String seriesKey() {
        return seriesKey(metric, seriesLabels());
    }

    /**
     * The canonical text of a series: {@code metric{a="x",b="y"}} with the labels sorted by name and the values
     * escaped as in the exposition format ({@code \\}, {@code \"}, {@code \n}); {@code metric{}} without labels.
     * Equal series give equal strings, so it serves as a map key.
     *
     * @param labels labels without {@code __name__}, in any order (sorted here unless already a sorted map)
     */
    public static String seriesKey(String metric, Map<String, String> labels) {
        Map<String, String> sorted =
                labels instanceof TreeMap<String, String> t && t.comparator() == null ? t : new TreeMap<>(labels);
        StringBuilder b = new StringBuilder(metric.length() + 16 * sorted.size() + 2);
        b.append(metric).append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(e.getKey()).append("=\"");
            appendEscaped(b, e.getValue());
            b.append('"');
        }
        return b.append('}').toString();
    }

    private static void appendEscaped(StringBuilder b, String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
    }

    /** True when {@code s} matches {@code [a-zA-Z_:][a-zA-Z0-9_:]*} (the record contract's rule). */
    public static boolean isMetricName(String s) {
        return PointDecoder.isMetricName(s);
    }

    /** True when {@code s} matches {@code [a-zA-Z_][a-zA-Z0-9_]*} (the record contract's rule). */
    public static boolean isLabelName(String s) {
        return PointDecoder.isLabelName(s);
    }
}
