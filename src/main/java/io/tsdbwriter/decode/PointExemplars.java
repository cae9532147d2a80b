package io.tsdbwriter.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The exemplars of one record's points (OpenMetrics 1.0 "Exemplars": {@code # {labels} value [timestamp]} after a
 * sample; OTLP {@code Exemplar}s): per exemplar its labels (names and unescaped values in a buffer of its own, not the
 * points' arena), its value and its timestamp in epoch milliseconds (the point's own when the exemplar has none). A
 * point has none, one, or (OTLP histogram points, as Prometheus' OTLP translator attaches them) several, stored
 * contiguously: {@link #of} is the first, {@link #countOf} how many. Read by the remote write encoder per point (array
 * reads), never allocating once grown: no object per point or exemplar.
 *
 * <p>A decoder calls {@link #begin} for every point it keeps, then {@link #label} per label and {@link #end} when the point
 * has an exemplar, or {@link #none} when it has not (a point index a refused line used is so overwritten); a further
 * exemplar of the point begun last is {@link #another}, then its labels and {@link #end}. Not thread-safe; cleared with
 * its {@link DecodedPoints}.
 */
public final class PointExemplars {

    /** Per point index: its exemplar's index + 1, 0 for none. */
    private int[] byPoint = new int[64];

    /** Per point index: how many exemplars it has (from {@link #byPoint}'s on). */
    private int[] perPoint = new int[64];

    private int points;
    /** Per exemplar: first label, end label (indices into {@link #labels} / 4). */
    private int[] labelRange = new int[32];

    private double[] values = new double[16];
    private long[] timestamps = new long[16];
    private int count;
    /** Per label: name offset, name length, value offset, value length in {@link #bytes}. */
    private int[] labels = new int[64];

    private int labelCount;
    private byte[] bytes = new byte[256];
    private int length;
    private int open = -1;

    void clear() {
        points = 0;
        count = 0;
        labelCount = 0;
        length = 0;
        open = -1;
    }

    /** Exemplars kept in the record. */
    public int count() {
        return count;
    }

    /** Point {@code p} has no exemplar. */
    public void none(int p) {
        grow(p);
        byPoint[p] = 0;
        perPoint[p] = 0;
    }

    /** Starts point {@code p}'s (first) exemplar; its labels follow ({@link #label}), then {@link #end}. */
    public void begin(int p) {
        none(p);
        startExemplar(p);
    }

    /**
     * Starts a further exemplar of point {@code p}, which must be the point whose exemplar was ended last (its exemplars
     * stay contiguous); as {@link #begin} when {@code p} has none yet.
     *
     * @throws IllegalStateException when another point's exemplar was ended after {@code p}'s
     */
    public void another(int p) {
        grow(p);
        if (byPoint[p] != 0 && byPoint[p] - 1 + perPoint[p] != count) {
            throw new IllegalStateException("point " + p + "'s exemplars are not the last ones");
        }
        startExemplar(p);
    }

    private void startExemplar(int p) {
        if (count + 1 > values.length) {
            values = Arrays.copyOf(values, values.length * 2);
            timestamps = Arrays.copyOf(timestamps, timestamps.length * 2);
            labelRange = Arrays.copyOf(labelRange, labelRange.length * 2);
        }
        labelRange[count * 2] = labelCount;
        open = p;
    }

    /**
     * Adds a label of the open exemplar: the name {@code src[nameOff, nameOff + nameLen)} and the value {@code
     * src[valueOff, valueOff + valueLen)}, its {@code \\}, {@code \"} and {@code \n} escapes resolved when {@code escaped}.
     */
    public void label(byte[] src, int nameOff, int nameLen, int valueOff, int valueLen, boolean escaped) {
        if ((labelCount + 1) * 4 > labels.length) {
            labels = Arrays.copyOf(labels, labels.length * 2);
        }
        ensure(nameLen + valueLen);
        int l = labelCount++ * 4;
        labels[l] = length;
        labels[l + 1] = nameLen;
        System.arraycopy(src, nameOff, bytes, length, nameLen);
        length += nameLen;
        labels[l + 2] = length;
        int w = length;
        for (int i = valueOff, e = valueOff + valueLen; i < e; i++) {
            byte c = src[i];
            if (escaped && c == '\\' && i + 1 < e) {
                byte n = src[++i];
                c = n == 'n' ? (byte) '\n' : n;
            }
            bytes[w++] = c;
        }
        labels[l + 3] = w - length;
        length = w;
    }

    /** Adds a label of the open exemplar: {@code name} and {@code src[off, off + len)} in lower-case hex (OTLP's ids). */
    public void labelHex(byte[] name, byte[] src, int off, int len) {
        if ((labelCount + 1) * 4 > labels.length) {
            labels = Arrays.copyOf(labels, labels.length * 2);
        }
        ensure(name.length + 2 * len);
        int l = labelCount++ * 4;
        labels[l] = length;
        labels[l + 1] = name.length;
        System.arraycopy(name, 0, bytes, length, name.length);
        length += name.length;
        labels[l + 2] = length;
        labels[l + 3] = 2 * len;
        for (int i = off; i < off + len; i++) {
            bytes[length++] = HEX[(src[i] >> 4) & 0xF];
            bytes[length++] = HEX[src[i] & 0xF];
        }
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** Ends the open exemplar with its value and timestamp (epoch ms). */
    public void end(double value, long timestampMs) {
        labelRange[count * 2 + 1] = labelCount;
        values[count] = value;
        timestamps[count] = timestampMs;
        if (byPoint[open] == 0) {
            byPoint[open] = count + 1;
        }
        perPoint[open]++;
        count++;
        open = -1;
    }

    private void grow(int p) {
        if (p >= byPoint.length) {
            int n = Math.max(byPoint.length * 2, p + 1);
            byPoint = Arrays.copyOf(byPoint, n);
            perPoint = Arrays.copyOf(perPoint, n);
        }
        if (p >= points) {
            Arrays.fill(byPoint, points, p + 1, 0);
            Arrays.fill(perPoint, points, p + 1, 0);
            points = p + 1;
        }
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    /** The (first) exemplar of point {@code p}, or -1 when it has none. */
    public int of(int p) {
        return p < points ? byPoint[p] - 1 : -1;
    }

    /** How many exemplars point {@code p} has: {@link #of}{@code (p)} and the ones after it. */
    public int countOf(int p) {
        return p < points ? perPoint[p] : 0;
    }

    /**
     * Orders point {@code p}'s exemplars by timestamp, then value (as Prometheus' appenders require them, {@code
     * exemplar.Compare}); equal ones keep their order. An insertion sort: a point has few.
     */
    public void sortByTime(int p) {
        int first = of(p);
        for (int i = first + 1, e = first + countOf(p); i < e; i++) {
            for (int j = i; j > first && after(j - 1, j); j--) {
                swap(j - 1, j);
            }
        }
    }

    private boolean after(int a, int b) {
        return timestamps[a] > timestamps[b] || timestamps[a] == timestamps[b] && values[a] > values[b];
    }

    private void swap(int a, int b) {
        double v = values[a];
        values[a] = values[b];
        values[b] = v;
        long t = timestamps[a];
        timestamps[a] = timestamps[b];
        timestamps[b] = t;
        for (int k = 0; k < 2; k++) {
            int r = labelRange[a * 2 + k];
            labelRange[a * 2 + k] = labelRange[b * 2 + k];
            labelRange[b * 2 + k] = r;
        }
    }

    /** The buffer the label ranges point into. */
    public byte[] bytes() {
        return bytes;
    }

    /** Index of exemplar {@code x}'s first label; {@link #labelsEnd} its end. */
    public int labelsStart(int x) {
        return labelRange[x * 2];
    }

    public int labelsEnd(int x) {
        return labelRange[x * 2 + 1];
    }

    public int nameOffset(int label) {
        return labels[label * 4];
    }

    public int nameLength(int label) {
        return labels[label * 4 + 1];
    }

    public int valueOffset(int label) {
        return labels[label * 4 + 2];
    }

    public int valueLength(int label) {
        return labels[label * 4 + 3];
    }

    public double value(int x) {
        return values[x];
    }

    /** Epoch milliseconds. */
    public long timestampMs(int x) {
        return timestamps[x];
    }
}
