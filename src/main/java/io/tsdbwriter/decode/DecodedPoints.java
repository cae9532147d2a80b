package io.tsdbwriter.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable buffer of the points decoded from one Kafka record: parallel arrays and one byte arena, no object
 * per point. Metric names, label names and label values are UTF-8 byte ranges of the arena (already unescaped);
 * labels of point {@code p} are the indices {@code [labelStart(p), labelEnd(p))}, sorted by name and free of
 * duplicates after {@link io.tsdbwriter.decode.json.PointDecoder#decode}; {@code productKey} is already one of them when present.
 * A decoder may leave a point's labels in the record's order ({@link #deferSort}): they are sorted the first time
 * {@link #labelStart}, {@link #labelEnd} or {@link #seriesKey} is asked for them, and an encoder to which the order
 * does not matter reads them as they are with {@link #labelStartAsRead} and {@link #labelEndAsRead}.
 *
 * <p>The hot path reads a point's canonical series identity with {@link #seriesKey(int)} (bytes, no
 * {@code String}); the {@code String} accessors allocate and are meant for a series seen for the first time and
 * for tests.
 *
 * <p>Not thread-safe; owned by one decoding thread and overwritten by every decode.
 */
public final class DecodedPoints {

    private int count;
    private int[] metricOff = new int[4];
    private int[] metricLen = new int[4];
    private long[] timestampMs = new long[4];
    /** Start timestamps (epoch ms; 0 = none), {@link #setStartTimestamp}. */
    private long[] startMs = new long[4];

    private boolean anyStart;
    private double[] value = new double[4];
    /** The value's own text in the arena ({@link #setValueText}); length 0 = none. */
    private int[] valueTextOff = new int[4];

    private int[] valueTextLen = new int[4];
    private int[] labelStart = new int[4];
    private int[] labelEnd = new int[4];
    /** Points whose labels are still in the record's order ({@link #deferSort}). */
    private boolean[] sortPending = new boolean[4];

    private int[] nameOff = new int[32];
    private int[] nameLen = new int[32];
    private int[] valueOff = new int[32];
    private int[] valueLen = new int[32];
    private int labelCount;

    private byte[] arena = new byte[1024];
    private int arenaLength;

    private byte[] key = new byte[256];
    private boolean jsonSafe;
    private final FamilyMetadata families = new FamilyMetadata();
    private final PointExemplars exemplars = new PointExemplars();
    private final PointHistograms histograms = new PointHistograms();

    /** The record's metric families (TYPE, HELP, UNIT; a buffer of their own); empty for formats without them. */
    public FamilyMetadata families() {
        return families;
    }

    /** The record's exemplars (a buffer of their own; see {@link PointExemplars}); empty for formats without them. */
    public PointExemplars exemplars() {
        return exemplars;
    }

    /**
     * The record's native histograms, at most one per point (a buffer of their own): made by decoders only when it
     * {@link PointHistograms#accepted() accepts} them; empty otherwise.
     */
    public PointHistograms histograms() {
        return histograms;
    }

    /** Empties the buffer (every decode starts with it). */
    public void clear() {
        families.clear();
        exemplars.clear();
        histograms.clear();
        count = 0;
        labelCount = 0;
        arenaLength = 0;
        jsonSafe = false;
        anyStart = false;
    }

    public void jsonSafe(boolean safe) {
        jsonSafe = safe;
    }

    /**
     * For decoders other than the JSON fast path: marks the record {@link #jsonSafe()} when no byte of the arena is
     * {@code "}, {@code \\} or a control character below 0x20 (the arena holds exactly the record's names and values,
     * plus bytes of lines dropped since the last {@link #clear}, which can only make the answer more cautious). One
     * pass over the arena; lets N = 1 write such points verbatim instead of looking their series up.
     */
    public void updateJsonSafe() {
        byte[] a = arena;
        for (int i = 0, n = arenaLength; i < n; i++) {
            byte c = a[i];
            if (c == '"' || c == '\\' || (c >= 0 && c < 0x20)) {
                jsonSafe = false;
                return;
            }
        }
        jsonSafe = true;
    }

    /**
     * True when every metric name, label name and label value of this record is, byte for byte, valid JSON string
     * content (no character needs escaping: no {@code "}, no {@code \}, no control character) — records decoded by
     * the fast path. Such points can be written out verbatim from {@link #arena()}.
     */
    public boolean jsonSafe() {
        return jsonSafe;
    }

    /** The arena the offsets below index into (shared, read-only use; overwritten by the next decode). */
    public byte[] arena() {
        return arena;
    }

    /** Arena offset of point p's metric name. */
    public int metricOffset(int p) {
        return metricOff[p];
    }

    /** Byte length of point p's metric name. */
    public int metricLength(int p) {
        return metricLen[p];
    }

    /** Arena offset of label i's name. */
    public int nameOffset(int i) {
        return nameOff[i];
    }

    /** Byte length of label i's name. */
    public int nameLength(int i) {
        return nameLen[i];
    }

    /**
     * Compares label i's name with {@code name} as unsigned bytes — the order {@link #sortLabels} puts names in:
     * negative, zero or positive as label i's name sorts before, equal to or after {@code name}.
     */
    public int compareName(int i, byte[] name) {
        return compareUnsigned(arena, nameOff[i], nameLen[i], name, 0, name.length);
    }

    /** Arena offset of label i's value. */
    public int valueOffset(int i) {
        return valueOff[i];
    }

    /** Byte length of label i's value (≥ 1: empty values are dropped). */
    public int valueLength(int i) {
        return valueLen[i];
    }

    /** Starts a new point; returns its index. Its labels are the ones added until the next {@code begin}. */
    public int begin() {
        if (count == metricOff.length) {
            int n = count * 2;
            metricOff = Arrays.copyOf(metricOff, n);
            metricLen = Arrays.copyOf(metricLen, n);
            timestampMs = Arrays.copyOf(timestampMs, n);
            startMs = Arrays.copyOf(startMs, n);
            value = Arrays.copyOf(value, n);
            valueTextOff = Arrays.copyOf(valueTextOff, n);
            valueTextLen = Arrays.copyOf(valueTextLen, n);
            labelStart = Arrays.copyOf(labelStart, n);
            labelEnd = Arrays.copyOf(labelEnd, n);
            sortPending = Arrays.copyOf(sortPending, n);
        }
        int p = count++;
        metricLen[p] = 0;
        startMs[p] = 0;
        valueTextLen[p] = 0;
        sortPending[p] = false;
        labelStart[p] = labelCount;
        labelEnd[p] = labelCount;
        return p;
    }

    /** Copies {@code len} bytes of {@code src} into the arena; returns their offset there. */
    public int copy(byte[] src, int off, int len) {
        ensureArena(len);
        System.arraycopy(src, off, arena, arenaLength, len);
        int at = arenaLength;
        arenaLength += len;
        return at;
    }

    /** Appends {@code s} in UTF-8 to the arena (slow path only: allocates); returns its offset, length via {@link #lastLength}. */
    public int copy(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        lastLength = b.length;
        return copy(b, 0, b.length);
    }

    private int lastLength;

    /** Byte length of what the last {@link #copy(String)} appended. */
    public int lastLength() {
        return lastLength;
    }

    /**
     * Drops the points from index {@code pointCount} on (a line found broken after {@link #begin}); their arena
     * bytes stay until the next {@link #clear}.
     */
    public void truncate(int pointCount) {
        if (pointCount < count) {
            count = pointCount;
            labelCount = labelStart[pointCount];
        }
    }

    /** Arena bytes in use (for decoders that write into {@link #arenaForWrite}). */
    public int arenaLength() {
        return arenaLength;
    }

    /**
     * Makes room for {@code more} bytes after {@link #arenaLength()} and returns the arena to write them into;
     * {@link #commitArena} then claims what was written. For decoders that unescape straight into the arena.
     */
    public byte[] arenaForWrite(int more) {
        ensureArena(more);
        return arena;
    }

    /** Claims {@code len} bytes written at {@link #arenaLength()}; returns their offset. */
    public int commitArena(int len) {
        int at = arenaLength;
        arenaLength += len;
        return at;
    }

    private void ensureArena(int more) {
        if (arenaLength + more > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaLength + more));
        }
    }

    /** Sets point p's metric name to an arena range. */
    public void setMetric(int p, int off, int len) {
        metricOff[p] = off;
        metricLen[p] = len;
    }

    /** Sets point p's timestamp (epoch ms) and value. */
    public void set(int p, long ts, double v) {
        timestampMs[p] = ts;
        value[p] = v;
    }

    /**
     * Sets point p's start timestamp (epoch ms): when the counter, histogram or summary the sample belongs to started
     * counting, Prometheus' "created timestamp" (the {@code start_timestamp} of Prometheus remote write 2.0 types.proto,
     * OTLP's {@code start_time_unix_nano}). Kept only when above 0 and earlier than the point's timestamp, which
     * {@link #set} must have given first; otherwise the point has none (0, what {@link #begin} leaves). Allocates nothing.
     */
    public void setStartTimestamp(int p, long startTimestampMs) {
        if (startTimestampMs > 0 && startTimestampMs < timestampMs[p]) {
            startMs[p] = startTimestampMs;
            anyStart = true;
        } else {
            startMs[p] = 0;
        }
    }

    /** Point p's start timestamp in epoch ms ({@link #setStartTimestamp}), 0 when it has none. */
    public long startTimestampMs(int p) {
        return startMs[p];
    }

    /** Whether some point of the record has a start timestamp. */
    public boolean hasStartTimestamps() {
        return anyStart;
    }

    /**
     * Marks an arena range as point p's value written as a JSON number that any correctly rounding parser reads back
     * as exactly {@link #value(int) value(p)} (the JSON fast path sets it for plain decimals of at most 15 significant
     * digits, without an exponent and not -0): an encoder may copy it instead of formatting the double.
     */
    public void setValueText(int p, int off, int len) {
        valueTextOff[p] = off;
        valueTextLen[p] = len;
    }

    /** Byte length of point p's value text in the arena ({@link #setValueText}), 0 when it has none. */
    public int valueTextLength(int p) {
        return valueTextLen[p];
    }

    /** Arena offset of point p's value text; meaningful only when {@link #valueTextLength} is above 0. */
    public int valueTextOffset(int p) {
        return valueTextOff[p];
    }

    /** Adds a label whose name and value are arena ranges. */
    public void addLabel(int p, int nOff, int nLen, int vOff, int vLen) {
        if (labelCount == nameOff.length) {
            int n = labelCount * 2;
            nameOff = Arrays.copyOf(nameOff, n);
            nameLen = Arrays.copyOf(nameLen, n);
            valueOff = Arrays.copyOf(valueOff, n);
            valueLen = Arrays.copyOf(valueLen, n);
        }
        nameOff[labelCount] = nOff;
        nameLen[labelCount] = nLen;
        valueOff[labelCount] = vOff;
        valueLen[labelCount] = vLen;
        labelCount++;
        labelEnd[p] = labelCount;
    }

    /** Adds a label from strings (slow path: copies them into the arena in UTF-8). */
    public void addLabel(int p, String name, String v) {
        int nOff = copy(name);
        int nLen = lastLength;
        int vOff = copy(v);
        addLabel(p, nOff, nLen, vOff, lastLength);
    }

    /**
     * Leaves point p's labels in the order they were added until something needs them sorted ({@link #labelStart},
     * {@link #labelEnd}, {@link #seriesKey}, which then sort them as {@link #sortLabels} does). Only for labels without
     * duplicate names: {@link #canonicalize} is the call for labels that may have some. The import encoder at N = 1
     * writes them as read and never pays for the sort (12.5 % of the JSON hot path at M=1, docs/benchmarks-archive.md §12d).
     */
    public void deferSort(int p) {
        sortPending[p] = true;
    }

    private void ensureSorted(int p) {
        if (sortPending[p]) {
            sortLabels(p);
        }
    }

    /** Sorts point p's labels by name (stable, bytewise = by code point for the ASCII label names). */
    public void sortLabels(int p) {
        sortPending[p] = false;
        int from = labelStart[p];
        int to = labelEnd[p];
        for (int i = from + 1; i < to; i++) {
            int no = nameOff[i];
            int nl = nameLen[i];
            int vo = valueOff[i];
            int vl = valueLen[i];
            int k = i - 1;
            while (k >= from && compareUnsigned(arena, nameOff[k], nameLen[k], arena, no, nl) > 0) {
                nameOff[k + 1] = nameOff[k];
                nameLen[k + 1] = nameLen[k];
                valueOff[k + 1] = valueOff[k];
                valueLen[k + 1] = valueLen[k];
                k--;
            }
            nameOff[k + 1] = no;
            nameLen[k + 1] = nl;
            valueOff[k + 1] = vo;
            valueLen[k + 1] = vl;
        }
    }

    /** Sorts point p's labels by name (stable) and keeps the last of duplicate names. */
    public void canonicalize(int p) {
        sortLabels(p);
        int from = labelStart[p];
        int to = labelEnd[p];
        int w = from;
        for (int i = from; i < to; i++) {
            if (i + 1 < to && sameName(i, i + 1)) {
                continue; // a later duplicate wins
            }
            nameOff[w] = nameOff[i];
            nameLen[w] = nameLen[i];
            valueOff[w] = valueOff[i];
            valueLen[w] = valueLen[i];
            w++;
        }
        labelEnd[p] = w;
        labelCount = w;
    }

    private boolean sameName(int i, int j) {
        return nameLen[i] == nameLen[j]
                && Arrays.equals(
                        arena, nameOff[i], nameOff[i] + nameLen[i], arena, nameOff[j], nameOff[j] + nameLen[j]);
    }

    private static int compareUnsigned(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        if (aLen > 0 && bLen > 0 && a[aOff] != b[bOff]) {
            return (a[aOff] & 0xFF) - (b[bOff] & 0xFF); // most label names differ in their first byte
        }
        return Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
    }

    /** Points decoded from the record. */
    public int count() {
        return count;
    }

    /** Metric name of point p (allocates). */
    public String metric(int p) {
        return new String(arena, metricOff[p], metricLen[p], StandardCharsets.UTF_8);
    }

    /** Timestamp of point p in epoch milliseconds. */
    public long timestampMs(int p) {
        return timestampMs[p];
    }

    /**
     * Adds {@code deltaMs} to every point's timestamp ({@code --rebase-time}, {@code --loop}: one constant per pass), and
     * to every start timestamp ({@link #startTimestampMs}; one that would no longer be above 0 is dropped).
     *
     * @return the smallest timestamp before the shift, {@link Long#MAX_VALUE} when there is no point
     */
    public long shiftTimestamps(long deltaMs) {
        long min = Long.MAX_VALUE;
        long[] t = timestampMs;
        for (int p = 0, n = count; p < n; p++) {
            long v = t[p];
            if (v < min) {
                min = v;
            }
            t[p] = v + deltaMs;
        }
        if (anyStart) {
            long[] st = startMs;
            for (int p = 0, n = count; p < n; p++) {
                if (st[p] != 0) {
                    long v = st[p] + deltaMs;
                    st[p] = v > 0 ? v : 0;
                }
            }
        }
        return min;
    }

    /** The largest timestamp of the points, {@link Long#MIN_VALUE} when there is none. */
    public long maxTimestampMs() {
        long max = Long.MIN_VALUE;
        for (int p = 0; p < count; p++) {
            max = Math.max(max, timestampMs[p]);
        }
        return max;
    }

    /** Value of point p (finite). */
    public double value(int p) {
        return value[p];
    }

    /** Index of point p's first label, the labels sorted by name. */
    public int labelStart(int p) {
        ensureSorted(p);
        return labelStart[p];
    }

    /** Index after point p's last label, the labels sorted by name. */
    public int labelEnd(int p) {
        ensureSorted(p);
        return labelEnd[p];
    }

    /**
     * Index of point p's first label, the labels in the order the decoder left them: the record's order after
     * {@link #deferSort}, else sorted. For encoders to which the order does not matter.
     */
    public int labelStartAsRead(int p) {
        return labelStart[p];
    }

    /** Index after point p's last label, in the order of {@link #labelStartAsRead}. */
    public int labelEndAsRead(int p) {
        return labelEnd[p];
    }

    /** Label name at index i (allocates). */
    public String labelName(int i) {
        return new String(
                arena, nameOff[i], nameLen[i], StandardCharsets.UTF_8); // ASCII for json; any UTF-8 for other formats
    }

    /** Label value at index i (allocates). */
    public String labelValue(int i) {
        return new String(arena, valueOff[i], valueLen[i], StandardCharsets.UTF_8);
    }

    /**
     * Writes point p's canonical series identity — metric name, then each sorted label's name and value, each as
     * an unsigned LEB128 byte length followed by its UTF-8 bytes (so no value can be mistaken for a separator) —
     * into an internal buffer, {@link #seriesKeyBytes()}. Allocates nothing once the buffer has grown.
     *
     * @return the key's length in bytes
     */
    public int seriesKey(int p) {
        ensureSorted(p);
        int need = 5 + metricLen[p];
        for (int i = labelStart[p]; i < labelEnd[p]; i++) {
            need += 10 + nameLen[i] + valueLen[i];
        }
        if (need > key.length) {
            key = new byte[Math.max(need, key.length * 2)];
        }
        int w = put(metricOff[p], metricLen[p], 0);
        for (int i = labelStart[p]; i < labelEnd[p]; i++) {
            w = put(nameOff[i], nameLen[i], w);
            w = put(valueOff[i], valueLen[i], w);
        }
        return w;
    }

    /** The buffer {@link #seriesKey(int)} wrote into (valid up to the returned length; overwritten by the next call). */
    public byte[] seriesKeyBytes() {
        return key;
    }

    private int put(int off, int len, int w) {
        byte[] k = key;
        int n = len;
        while (n >= 0x80) {
            k[w++] = (byte) (n | 0x80);
            n >>>= 7;
        }
        k[w++] = (byte) n;
        System.arraycopy(arena, off, k, w, len);
        return w + len;
    }
}
