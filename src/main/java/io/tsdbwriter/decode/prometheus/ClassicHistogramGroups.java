package io.tsdbwriter.decode.prometheus;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Numbers;
import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.decode.Rejections;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code --convert-classic-histograms-to-nhcb} for one exposition record: its classic histograms become native
 * histograms with custom buckets ({@link ClassicHistogram}), grouped as Prometheus' scrape path groups them with
 * {@code convert_classic_histograms_to_nhcb: true} ({@code model/textparse/nhcbparse.go}):
 * <ul>
 *   <li>a sample belongs to a classic histogram when the last {@code # TYPE} line before it typed its family
 *       {@code histogram} (exactly; a {@code gaugehistogram} stays classic) and its name is that family's name plus
 *       {@code _bucket} (with an {@code le} label that is a float and not NaN), {@code _sum} or {@code _count};</li>
 *   <li>consecutive such samples with the same family and the same labels but {@code le} are one histogram, named as
 *       the family, its labels those of its first sample without {@code le}; it ends at the first sample of another
 *       family or other labels, at any {@code #} line ({@code TYPE}, {@code HELP}, {@code UNIT}, a comment,
 *       {@code # EOF}) and at the record's end, so a histogram split across the record is two histograms (with the
 *       same series, as Prometheus makes them);</li>
 *   <li>its samples are not kept as classic series; it is one point at the timestamp of its last sample (Prometheus
 *       takes the one of the line after it when that line has one: all lines of a scrape body usually share it), with
 *       the first exemplar of its samples (Prometheus keeps them all; a point carries one);</li>
 *   <li>one that is no valid native histogram (not cumulative, a negative count, {@code _count} not the {@code +Inf}
 *       bucket's count) is dropped whole, as Prometheus drops it, and counted as
 *       {@link DecodeError#INVALID_DATA_POINT}; a sample that does not belong (a {@code _bucket} without a float
 *       {@code le}, a series named as the family) stays a sample.</li>
 * </ul>
 * A point whose line is refused stays out of it. Allocates nothing once its arrays have grown (but the detail of a
 * refusal). Not thread-safe: one per {@link ExpositionDecoder}.
 */
final class ClassicHistogramGroups {

    private static final byte[] HISTOGRAM = "histogram".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUCKET = "_bucket".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUM = "_sum".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COUNT = "_count".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LE = "le".getBytes(StandardCharsets.US_ASCII);

    private final ExpositionDecoder decoder;
    private final Numbers numbers = new Numbers();
    private final ClassicHistogram histogram = new ClassicHistogram();

    // the record being decoded
    private byte[] record;
    private DecodedPoints out;
    private Rejections rejections;

    // the last # TYPE line: its family name as a range of the record, and whether it said histogram
    private boolean typeHistogram;
    private int typeFrom;
    private int typeTo;

    // the open histogram: its name (an arena range), labels (4 ints each: name and value arena ranges), last sample
    private boolean collecting;
    private int nameOff;
    private int nameLen;
    private int[] labels = new int[32];
    private int labelN;
    private int[] incoming = new int[32];
    private int incomingN;
    private long timestampMs;
    private int line;
    private boolean hasExemplar;
    private int exemplarFrom;
    private int exemplarTo;
    private long exemplarTimestampMs;

    ClassicHistogramGroups(ExpositionDecoder decoder) {
        this.decoder = decoder;
    }

    /** Starts a record: no family typed, no histogram open. */
    void start(byte[] value, DecodedPoints points, Rejections refused) {
        record = value;
        out = points;
        rejections = refused;
        typeHistogram = false;
        collecting = false;
    }

    /** Ends the record: the open histogram is added. */
    void finish() {
        close();
        record = null;
        out = null;
        rejections = null;
    }

    /** A {@code #} line: the open histogram is added. */
    void close() {
        if (collecting) {
            emit();
        }
    }

    /** A {@code # TYPE} line naming the family {@code record[nameFrom, nameTo)} of type {@code record[from, to)}. */
    void type(int nameFrom, int nameTo, int from, int to) {
        close();
        typeFrom = nameFrom;
        typeTo = nameTo;
        typeHistogram = Arrays.equals(record, from, to, HISTOGRAM, 0, HISTOGRAM.length);
    }

    /**
     * Point {@code p}, the last of {@link #out} (labels canonical, timestamp in the window), of the line
     * {@code record[lineFrom, lineTo)} numbered {@code lineNumber}: ends the open histogram when it is of another
     * family or other labels; when it belongs to a histogram it is taken out of the points into it.
     *
     * @param exemplar whether the line has an exemplar (not kept for the point yet)
     * @return true when the point was taken (the caller keeps nothing more of it)
     */
    boolean series(int p, int lineFrom, int lineTo, int lineNumber, boolean exemplar) {
        if (!collecting && !typeHistogram) {
            return false;
        }
        DecodedPoints o = out;
        byte[] a = o.arena();
        int mOff = o.metricOffset(p);
        int mLen = o.metricLength(p);
        byte[] suffix = endsWith(a, mOff, mLen, BUCKET)
                ? BUCKET
                : endsWith(a, mOff, mLen, SUM) ? SUM : endsWith(a, mOff, mLen, COUNT) ? COUNT : null;
        int baseLen = suffix == null ? mLen : mLen - suffix.length;
        boolean different = collecting
                && (!Arrays.equals(a, mOff, mOff + baseLen, a, nameOff, nameOff + nameLen) || !sameLabels(o, p));
        boolean member =
                typeHistogram && suffix != null && Arrays.equals(a, mOff, mOff + baseLen, record, typeFrom, typeTo);
        double le = 0;
        if (member && suffix == BUCKET) {
            int i = le(o, p);
            member = i >= 0
                    && numbers.parseDouble(a, o.valueOffset(i), o.valueOffset(i) + o.valueLength(i))
                    && !Double.isNaN(numbers.doubleValue());
            le = numbers.doubleValue();
        }
        double v = o.value(p);
        long t = o.timestampMs(p);
        if (member) {
            keepLabels(o, p);
            o.truncate(p); // its index is the emitted histogram's next: v and t are read before
        }
        if (different) {
            emit();
        }
        if (!member) {
            return false;
        }
        if (!collecting) {
            collecting = true;
            int[] swap = labels;
            labels = incoming;
            incoming = swap;
            labelN = incomingN;
            nameOff = mOff;
            nameLen = baseLen;
            hasExemplar = false;
            histogram.reset();
        }
        if (suffix == BUCKET) {
            histogram.bucket(le, v);
        } else if (suffix == SUM) {
            histogram.sum(v);
        } else {
            histogram.count(v);
        }
        timestampMs = t;
        line = lineNumber;
        if (exemplar && !hasExemplar) {
            hasExemplar = true;
            exemplarFrom = lineFrom;
            exemplarTo = lineTo;
            exemplarTimestampMs = timestampMs;
        }
        return true;
    }

    /** Adds the open histogram as a point, or counts it refused; no histogram is open then. */
    private void emit() {
        collecting = false;
        String why = histogram.convert();
        if (why != null) {
            rejections.add(
                    DecodeError.INVALID_DATA_POINT,
                    rejections.wantsDetail(DecodeError.INVALID_DATA_POINT)
                            ? "line " + line + ": classic histogram "
                                    + new String(out.arena(), nameOff, nameLen, StandardCharsets.UTF_8)
                                    + " is no native histogram: " + why
                            : "");
            return;
        }
        DecodedPoints o = out;
        int q = o.begin();
        for (int j = 0; j < labelN; j++) {
            o.addLabel(q, labels[j * 4], labels[j * 4 + 1], labels[j * 4 + 2], labels[j * 4 + 3]);
        }
        o.setMetric(q, nameOff, nameLen);
        o.set(q, timestampMs, 0);
        PointHistograms h = o.histograms();
        h.begin(q);
        histogram.write(h);
        h.end();
        if (hasExemplar) {
            decoder.exemplarOf(record, exemplarFrom, exemplarTo, q, exemplarTimestampMs, o.exemplars());
        } else {
            o.exemplars().none(q);
        }
    }

    /** Whether point {@code p}'s labels but {@code le} are the open histogram's. */
    private boolean sameLabels(DecodedPoints o, int p) {
        byte[] a = o.arena();
        int j = 0;
        for (int i = o.labelStart(p), e = o.labelEnd(p); i < e; i++) {
            if (o.compareName(i, LE) == 0) {
                continue;
            }
            if (j == labelN) {
                return false;
            }
            int k = j++ * 4;
            if (!Arrays.equals(
                            a,
                            o.nameOffset(i),
                            o.nameOffset(i) + o.nameLength(i),
                            a,
                            labels[k],
                            labels[k] + labels[k + 1])
                    || !Arrays.equals(
                            a,
                            o.valueOffset(i),
                            o.valueOffset(i) + o.valueLength(i),
                            a,
                            labels[k + 2],
                            labels[k + 2] + labels[k + 3])) {
                return false;
            }
        }
        return j == labelN;
    }

    /** Keeps point {@code p}'s labels but {@code le} in {@link #incoming}. */
    private void keepLabels(DecodedPoints o, int p) {
        int s = o.labelStart(p);
        int e = o.labelEnd(p);
        if (incoming.length < (e - s) * 4) {
            incoming = new int[(e - s) * 8];
        }
        int n = 0;
        for (int i = s; i < e; i++) {
            if (o.compareName(i, LE) != 0) {
                incoming[n * 4] = o.nameOffset(i);
                incoming[n * 4 + 1] = o.nameLength(i);
                incoming[n * 4 + 2] = o.valueOffset(i);
                incoming[n * 4 + 3] = o.valueLength(i);
                n++;
            }
        }
        incomingN = n;
    }

    /** Index of point {@code p}'s {@code le} label, -1 when it has none. */
    private static int le(DecodedPoints o, int p) {
        for (int i = o.labelStart(p), e = o.labelEnd(p); i < e; i++) {
            if (o.compareName(i, LE) == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean endsWith(byte[] a, int off, int len, byte[] suffix) {
        return len > suffix.length && Arrays.equals(a, off + len - suffix.length, off + len, suffix, 0, suffix.length);
    }
}
