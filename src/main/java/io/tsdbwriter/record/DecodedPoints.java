package io.tsdbwriter.record;

import java.util.Arrays;

/**
 * A reusable buffer of the points decoded from one Kafka record: parallel arrays, no object per point.
 * Labels of point {@code p} are {@code labelNames[labelStart(p) .. labelEnd(p))} (with values alongside),
 * sorted by name and free of duplicates after {@link PointDecoder#decode}; {@code productKey} is already one of
 * them when present.
 *
 * <p>Not thread-safe; owned by one decoding thread and overwritten by every decode.
 */
public final class DecodedPoints {

    private int count;
    private String[] metric = new String[4];
    private long[] timestampMs = new long[4];
    private double[] value = new double[4];
    private int[] labelStart = new int[4];
    private int[] labelEnd = new int[4];
    private String[] labelNames = new String[32];
    private String[] labelValues = new String[32];
    private int labelCount;

    void clear() {
        count = 0;
        labelCount = 0;
    }

    int begin() {
        if (count == metric.length) {
            int n = count * 2;
            metric = Arrays.copyOf(metric, n);
            timestampMs = Arrays.copyOf(timestampMs, n);
            value = Arrays.copyOf(value, n);
            labelStart = Arrays.copyOf(labelStart, n);
            labelEnd = Arrays.copyOf(labelEnd, n);
        }
        int p = count++;
        metric[p] = null;
        labelStart[p] = labelCount;
        labelEnd[p] = labelCount;
        return p;
    }

    void drop(int p) {
        // only the last begun point can be dropped
        count = p;
        labelCount = labelStart[p];
    }

    void set(int p, String metricName, long ts, double v) {
        metric[p] = metricName;
        timestampMs[p] = ts;
        value[p] = v;
    }

    void addLabel(int p, String name, String v) {
        if (labelCount == labelNames.length) {
            labelNames = Arrays.copyOf(labelNames, labelCount * 2);
            labelValues = Arrays.copyOf(labelValues, labelCount * 2);
        }
        labelNames[labelCount] = name;
        labelValues[labelCount] = v;
        labelCount++;
        labelEnd[p] = labelCount;
    }

    /** Sorts point p's labels by name (stable) and keeps the last of duplicate names. */
    void canonicalize(int p) {
        int from = labelStart[p];
        int to = labelEnd[p];
        for (int i = from + 1; i < to; i++) {
            String n = labelNames[i];
            String v = labelValues[i];
            int k = i - 1;
            while (k >= from && labelNames[k].compareTo(n) > 0) {
                labelNames[k + 1] = labelNames[k];
                labelValues[k + 1] = labelValues[k];
                k--;
            }
            labelNames[k + 1] = n;
            labelValues[k + 1] = v;
        }
        int w = from;
        for (int i = from; i < to; i++) {
            if (i + 1 < to && labelNames[i + 1].equals(labelNames[i])) {
                continue; // a later duplicate wins
            }
            labelNames[w] = labelNames[i];
            labelValues[w] = labelValues[i];
            w++;
        }
        labelEnd[p] = w;
        labelCount = w;
    }

    /** Points decoded from the record. */
    public int count() {
        return count;
    }

    /** Metric name of point p. */
    public String metric(int p) {
        return metric[p];
    }

    /** Timestamp of point p in epoch milliseconds. */
    public long timestampMs(int p) {
        return timestampMs[p];
    }

    /** Value of point p (finite). */
    public double value(int p) {
        return value[p];
    }

    /** Index of point p's first label. */
    public int labelStart(int p) {
        return labelStart[p];
    }

    /** Index after point p's last label. */
    public int labelEnd(int p) {
        return labelEnd[p];
    }

    /** Label name at index i. */
    public String labelName(int i) {
        return labelNames[i];
    }

    /** Label value at index i. */
    public String labelValue(int i) {
        return labelValues[i];
    }

    /** The label names array (shared, read-only use; valid indices from labelStart/labelEnd). */
    public String[] labelNames() {
        return labelNames;
    }

    /** The label values array (shared, read-only use). */
    public String[] labelValues() {
        return labelValues;
    }

    /**
     * Appends point p's canonical series identity (metric name and sorted labels, length-prefixed so no value
     * can be confused with a separator) to {@code sb}.
     */
    public void appendSeriesKey(int p, StringBuilder sb) {
        sb.append(metric[p]).append('{');
        for (int i = labelStart[p]; i < labelEnd[p]; i++) {
            String v = labelValues[i];
            sb.append(labelNames[i]).append('=').append(v.length()).append(':').append(v);
        }
        sb.append('}');
    }
}
