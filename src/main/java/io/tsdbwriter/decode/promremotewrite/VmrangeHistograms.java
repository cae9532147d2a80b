package io.tsdbwriter.decode.promremotewrite;

import com.google.protobuf.CodedInputStream;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.otlp.GoFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A remote write native histogram (a {@code prometheus.Histogram} message, the fields {@link PointHistograms} lists) as
 * samples, as VictoriaMetrics converts one it receives over remote write ({@code lib/prompb}, v1.143.0 on), for an
 * output without native histograms (the import API):
 * <ul>
 *   <li>{@code <name>_count}: {@code count_float} when present, else {@code count_int} as Go's {@code float64(uint64)};
 *   <li>{@code <name>_sum}: {@code sum}, written even when absent (0);
 *   <li>{@code <name>_bucket{vmrange="-zt...zt"}}: the zero bucket, when its count ({@code zero_count_float} when
 *       present, else {@code zero_count_int}) is above 0;
 *   <li>{@code <name>_bucket{vmrange="<lower>...<upper>"}} per bucket whose count is above 0 (NaN and negative counts
 *       left out), positive buckets then negative ones: bucket index {@code i} of schema {@code s} has
 *       {@code upper = base^i}, {@code lower = upper / base}, {@code base = 2^(2^-s)}, both negated and swapped for a
 *       negative bucket, bounds as {@link GoFormat#formatVmrange}. Counts are {@code *_counts} (absolute) where that
 *       side has any, else the running sum of its {@code *_deltas}; a side whose spans claim more buckets than it has
 *       counts ends at its last count.
 * </ul>
 * Every schema goes through the same formula, custom buckets (schema −53) too: VictoriaMetrics ignores
 * {@code custom_values}, so bucket 0 becomes {@code vmrange="0.000e+00...1.000e+00"} and every later bucket
 * {@code vmrange="NaN...+Inf"}. The reset hint is not used. A stale histogram (Prometheus' staleness marker as its sum,
 * count 0) gives {@code _count} 0 and a stale {@code _sum}. Each sample is refused as a sample of the record would be
 * ({@link Rejections#skips}: the import API drops NaN, the stale {@code _sum} included, counted
 * {@link DecodeError#NON_FINITE_VALUE}).
 *
 * <p>Names are built in the points' arena. Each {@code vmrange} value of an exponential schema (−4 … 8) is formatted
 * once per decoder and bucket index within ±2048 and cached (at most 26 × 4096 small arrays, filled as buckets are
 * met), so a steady stream of histograms allocates nothing; other buckets, and a zero bucket whose threshold changed,
 * are formatted each time. Not thread-safe: one per {@link RemoteWriteDecoder}.
 */
final class VmrangeHistograms {

    private static final byte[] COUNT = "_count".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUM = "_sum".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUCKET = "_bucket".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VMRANGE = "vmrange".getBytes(StandardCharsets.US_ASCII);

    /** Per side (0 positive, 1 negative): spans as offset, length pairs; deltas; absolute counts. */
    private final int[][] spans = {new int[16], new int[16]};

    private final int[] spanCount = new int[2];
    private final long[][] deltas = {new long[32], new long[32]};
    private final int[] deltaCount = new int[2];
    private final double[][] counts = {new double[32], new double[32]};
    private final int[] countCount = new int[2];

    /** Schemas whose {@code vmrange} values are cached: the exponential ones. */
    private static final int MIN_CACHED_SCHEMA = -4;

    private static final int MAX_CACHED_SCHEMA = 8;
    /** Bucket indexes {@code [-WINDOW, WINDOW)} are cached (at schema 8: bounds 2^-8 … 2^8; at schema 3: every double). */
    private static final int WINDOW = 2048;
    /** Per cached schema and side: each bucket's {@code vmrange} value in ASCII, filled as buckets are met. */
    private final byte[][][] rangeCache = new byte[(MAX_CACHED_SCHEMA - MIN_CACHED_SCHEMA + 1) * 2][][];

    private byte[] zeroRange;
    private long zeroRangeThreshold;

    private DecodedPoints out;
    private Rejections rejections;
    private int[] labels;
    private int labelCount;
    private long timestamp;
    private int bucketName;
    private int bucketNameLength;
    private int vmrangeName;

    /**
     * Writes the samples of the histogram message {@code buf[start, end)} of series {@code metric} (an arena range of
     * {@code out}) with {@code labelCount} labels ({@code labels}: name offset, name length, value offset, value length
     * in the arena, four ints each) at {@code timestamp} (epoch ms).
     *
     * @throws IOException when the message is not well-formed protobuf
     */
    void write(
            byte[] buf,
            int start,
            int end,
            DecodedPoints out,
            Rejections rejections,
            int metricOff,
            int metricLen,
            int[] labels,
            int labelCount,
            long timestamp)
            throws IOException {
        this.out = out;
        this.rejections = rejections;
        this.labels = labels;
        this.labelCount = labelCount;
        this.timestamp = timestamp;
        long countInt = 0;
        double countFloat = 0;
        boolean isCountFloat = false;
        double sum = 0;
        int schema = 0;
        double zeroThreshold = 0;
        long zeroInt = 0;
        double zeroFloat = 0;
        boolean isZeroFloat = false;
        Arrays.fill(spanCount, 0);
        Arrays.fill(deltaCount, 0);
        Arrays.fill(countCount, 0);
        CodedInputStream in = CodedInputStream.newInstance(buf, start, end - start);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag) {
                case PointHistograms.COUNT_INT << 3 -> countInt = in.readUInt64();
                case PointHistograms.COUNT_FLOAT << 3 | 1 -> {
                    countFloat = in.readDouble();
                    isCountFloat = true;
                }
                case PointHistograms.SUM << 3 | 1 -> sum = in.readDouble();
                case PointHistograms.SCHEMA << 3 -> schema = in.readSInt32();
                case PointHistograms.ZERO_THRESHOLD << 3 | 1 -> zeroThreshold = in.readDouble();
                case PointHistograms.ZERO_COUNT_INT << 3 -> zeroInt = in.readUInt64();
                case PointHistograms.ZERO_COUNT_FLOAT << 3 | 1 -> {
                    zeroFloat = in.readDouble();
                    isZeroFloat = true;
                }
                case PointHistograms.POSITIVE_SPANS << 3 | 2 -> span(in, 0);
                case PointHistograms.NEGATIVE_SPANS << 3 | 2 -> span(in, 1);
                case PointHistograms.POSITIVE_DELTAS << 3 | 2 -> packedDeltas(in, 0);
                case PointHistograms.NEGATIVE_DELTAS << 3 | 2 -> packedDeltas(in, 1);
                case PointHistograms.POSITIVE_DELTAS << 3 -> delta(0, in.readSInt64());
                case PointHistograms.NEGATIVE_DELTAS << 3 -> delta(1, in.readSInt64());
                case PointHistograms.POSITIVE_COUNTS << 3 | 2 -> packedCounts(in, 0);
                case PointHistograms.NEGATIVE_COUNTS << 3 | 2 -> packedCounts(in, 1);
                case PointHistograms.POSITIVE_COUNTS << 3 | 1 -> count(0, in.readDouble());
                case PointHistograms.NEGATIVE_COUNTS << 3 | 1 -> count(1, in.readDouble());
                default -> {
                    if (!in.skipField(tag)) {
                        return;
                    }
                }
            }
        }
        sample(
                suffixed(metricOff, metricLen, COUNT),
                metricLen + COUNT.length,
                -1,
                0,
                isCountFloat ? countFloat : GoFormat.unsigned(countInt));
        sample(suffixed(metricOff, metricLen, SUM), metricLen + SUM.length, -1, 0, sum);
        bucketName = suffixed(metricOff, metricLen, BUCKET);
        bucketNameLength = metricLen + BUCKET.length;
        vmrangeName = out.copy(VMRANGE, 0, VMRANGE.length);
        double zeroCount = isZeroFloat ? zeroFloat : GoFormat.unsigned(zeroInt);
        if (zeroCount > 0) {
            if (zeroRange == null || Double.doubleToRawLongBits(zeroThreshold) != zeroRangeThreshold) {
                zeroRange = ascii(GoFormat.formatVmrange(-zeroThreshold, zeroThreshold));
                zeroRangeThreshold = Double.doubleToRawLongBits(zeroThreshold);
            }
            bucket(zeroRange, zeroCount);
        }
        double base = Math.pow(2, Math.pow(2, -schema));
        buckets(0, schema, base);
        buckets(1, schema, base);
    }

    /** The buckets of one side: a sample per bucket whose count is above 0. */
    private void buckets(int side, int schema, double base) {
        int[] s = spans[side];
        boolean absolute = countCount[side] > 0;
        int next = 0;
        long running = 0;
        int index = 0;
        for (int k = 0; k < spanCount[side]; k++) {
            index += s[k * 2];
            int length = s[k * 2 + 1];
            for (int i = 0; i < length; i++, index++) {
                double count;
                if (absolute) {
                    if (next >= countCount[side]) {
                        return;
                    }
                    count = counts[side][next++];
                } else {
                    if (next >= deltaCount[side]) {
                        return;
                    }
                    running += deltas[side][next++];
                    count = running;
                }
                if (count > 0) {
                    bucket(range(schema, side, index, base), count);
                }
            }
        }
    }

    private void bucket(byte[] vmrange, double count) {
        int off = out.copy(vmrange, 0, vmrange.length);
        sample(bucketName, bucketNameLength, off, vmrange.length, count);
    }

    /** Bucket {@code index}'s {@code vmrange} value: from the cache within its window, else formatted (allocates). */
    private byte[] range(int schema, int side, int index, double base) {
        if (schema < MIN_CACHED_SCHEMA || schema > MAX_CACHED_SCHEMA || index < -WINDOW || index >= WINDOW) {
            return format(side, index, base);
        }
        int k = (schema - MIN_CACHED_SCHEMA) * 2 + side;
        byte[][] c = rangeCache[k];
        if (c == null) {
            c = rangeCache[k] = new byte[2 * WINDOW][];
        }
        byte[] r = c[index + WINDOW];
        if (r == null) {
            r = c[index + WINDOW] = format(side, index, base);
        }
        return r;
    }

    /** VictoriaMetrics' bounds of bucket {@code index}: {@code upper = base^index}, {@code lower = upper / base}. */
    private static byte[] format(int side, int index, double base) {
        double upper = Math.pow(base, index);
        double lower = upper / base;
        return ascii(side == 0 ? GoFormat.formatVmrange(lower, upper) : GoFormat.formatVmrange(-upper, -lower));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One sample of the series: its name an arena range, its {@code vmrange} value one too when {@code rangeOff ≥ 0}. */
    private void sample(int nameOff, int nameLen, int rangeOff, int rangeLen, double v) {
        if (rejections.skips(v)) {
            rejections.add(
                    DecodeError.NON_FINITE_VALUE,
                    rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                            ? "histogram sample " + (RemoteWriteDecoder.isStaleMarker(v) ? "stale marker" : v)
                                    + " skipped"
                            : "");
            return;
        }
        DecodedPoints o = out;
        int p = o.begin();
        o.setMetric(p, nameOff, nameLen);
        int[] l = labels;
        for (int k = 0; k < labelCount * 4; k += 4) {
            o.addLabel(p, l[k], l[k + 1], l[k + 2], l[k + 3]);
        }
        if (rangeOff >= 0) {
            o.addLabel(p, vmrangeName, VMRANGE.length, rangeOff, rangeLen);
        }
        o.set(p, timestamp, v);
        o.canonicalize(p);
    }

    /** The metric name at {@code arena[off, off + len)} with {@code suffix} after it, copied to the arena's end. */
    private int suffixed(int off, int len, byte[] suffix) {
        byte[] a = out.arenaForWrite(len + suffix.length);
        int at = out.arenaLength();
        System.arraycopy(a, off, a, at, len);
        System.arraycopy(suffix, 0, a, at + len, suffix.length);
        return out.commitArena(len + suffix.length);
    }

    private void span(CodedInputStream in, int side) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        int offset = 0;
        int length = 0;
        while (!in.isAtEnd()) {
            int t = in.readTag();
            if (t == (1 << 3)) {
                offset = in.readSInt32();
            } else if (t == (2 << 3)) {
                length = in.readUInt32();
            } else if (!in.skipField(t)) {
                break;
            }
        }
        in.popLimit(limit);
        int n = spanCount[side];
        if ((n + 1) * 2 > spans[side].length) {
            spans[side] = Arrays.copyOf(spans[side], spans[side].length * 2);
        }
        spans[side][n * 2] = offset;
        spans[side][n * 2 + 1] = length;
        spanCount[side] = n + 1;
    }

    private void packedDeltas(CodedInputStream in, int side) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        while (!in.isAtEnd()) {
            delta(side, in.readSInt64());
        }
        in.popLimit(limit);
    }

    private void delta(int side, long d) {
        int n = deltaCount[side];
        if (n == deltas[side].length) {
            deltas[side] = Arrays.copyOf(deltas[side], n * 2);
        }
        deltas[side][n] = d;
        deltaCount[side] = n + 1;
    }

    private void packedCounts(CodedInputStream in, int side) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        while (!in.isAtEnd()) {
            count(side, in.readDouble());
        }
        in.popLimit(limit);
    }

    private void count(int side, double c) {
        int n = countCount[side];
        if (n == counts[side].length) {
            counts[side] = Arrays.copyOf(counts[side], n * 2);
        }
        counts[side][n] = c;
        countCount[side] = n + 1;
    }
}
