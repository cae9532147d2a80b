package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import java.util.Arrays;

/**
 * Histogram data points ({@code HistogramDataPoint} of {@code metrics.proto}) as VictoriaMetrics maps them:
 * {@code <name>_count}, {@code <name>_sum} (when present) and cumulative {@code <name>_bucket{le="…"}} per explicit
 * bound, then {@code le="+Inf"}; {@code le} values as {@link GoFormat#formatFloat}. Refused: a delta histogram
 * ({@link SampleWriter#refuseDelta}), a data point with no bucket or whose bucket counts are not its bounds + 1
 * ({@link DecodeError#INVALID_DATA_POINT}). Bucket counts and bounds are read packed or not. Where the output carries
 * native histograms and {@code --convert-histograms-to-nhcb} is on
 * ({@link io.tsdbwriter.decode.PointHistograms#customBuckets()}) each data point is instead one native histogram with
 * custom buckets named as the metric ({@link NativeCustomBuckets}); one Prometheus would not store (bounds not strictly
 * increasing, NaN or ending in {@code +Inf}, bucket counts not adding up to the count) is then refused
 * ({@link DecodeError#INVALID_DATA_POINT}).
 *
 * <p>Its exemplars ({@code exemplars} = 8, {@link OtlpExemplars}) go where Prometheus' OTLP translator puts them: walking
 * them in the data point's order up the buckets, each to the first {@code _bucket} sample whose bound is not below its
 * value (for exemplars listed by ascending value, the usual case, the bucket that holds it), the rest to
 * {@code le="+Inf"}; none to {@code _count} or {@code _sum}. As a native histogram with custom buckets all go to its
 * point. The exemplars of one point are ordered by time ({@link io.tsdbwriter.decode.PointExemplars#sortByTime}).
 *
 * <p>The {@code le} values of the bounds last formatted are kept per record: a data point repeating the bounds of the
 * one before (the usual case) reuses their arena copies, no string formatted.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder} (it reuses its buffers).
 */
final class HistogramPoints {

    private final WireReader w;
    private final SampleWriter samples;
    private final Attributes attributes;
    private final NativeCustomBuckets nativeHistograms = new NativeCustomBuckets();
    private final OtlpExemplars exemplars;

    // the data point's buckets and bounds
    private long[] bucketCounts = new long[32];
    private int bucketCount;
    private double[] bounds = new double[32];
    private int boundCount;
    // le values of the bounds last formatted (this record): bound bits, arena offset, length
    private long[] leBits = new long[32];
    private int[] leOff = new int[32];
    private int[] leLen = new int[32];
    private int leCount;

    HistogramPoints(WireReader wire, SampleWriter samples, Attributes attributes) {
        this.exemplars = new OtlpExemplars(wire);
        this.w = wire;
        this.samples = samples;
        this.attributes = attributes;
    }

    /** Starts a record (its arena holds none of the {@code le} values kept). */
    void start() {
        leCount = 0;
    }

    /** The {@code Histogram} message {@code [s, e)}. */
    void read(int s, int e) {
        WireReader w = this.w;
        SampleWriter o = samples;
        if (o.refuseDelta(s, e, "histogram")) {
            return;
        }
        int base = o.mark();
        for (int p = s; (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated HistogramDataPoint data_points = 1
            int end = w.fieldEnd;
            long time = 0;
            long startTime = 0;
            long count = 0;
            double sum = 0;
            boolean hasSum = false;
            int flags = 0;
            bucketCount = 0;
            boundCount = 0;
            exemplars.reset();
            for (int q = p; q < end; ) {
                q = w.varint(q, end);
                int t = (int) w.v;
                switch (t) {
                    case 9 << 3 | 2 -> q = attributes.attribute(q, end); // attributes = 9
                    case 2 << 3 | 1 -> { // fixed64 start_time_unix_nano = 2
                        startTime = w.fixed64(q, end);
                        q += 8;
                    }
                    case 3 << 3 | 1 -> {
                        time = w.fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> { // fixed64 count = 4
                        count = w.fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 1 -> { // optional double sum = 5
                        sum = Double.longBitsToDouble(w.fixed64(q, end));
                        hasSum = true;
                        q += 8;
                    }
                    case 6 << 3 | 2 -> { // repeated fixed64 bucket_counts = 6, packed
                        q = w.varint(q, end);
                        int pe = w.end(q, end);
                        for (; q + 8 <= pe; q += 8) {
                            addBucket(w.fixed64(q, pe));
                        }
                        if (q != pe) {
                            throw new WireReader.Malformed(
                                    DecodeError.INVALID_PROTOBUF, "packed bucket_counts not a multiple of 8 bytes");
                        }
                    }
                    case 6 << 3 | 1 -> {
                        addBucket(w.fixed64(q, end));
                        q += 8;
                    }
                    case 7 << 3 | 2 -> { // repeated double explicit_bounds = 7, packed
                        q = w.varint(q, end);
                        int pe = w.end(q, end);
                        for (; q + 8 <= pe; q += 8) {
                            addBound(Double.longBitsToDouble(w.fixed64(q, pe)));
                        }
                        if (q != pe) {
                            throw new WireReader.Malformed(
                                    DecodeError.INVALID_PROTOBUF, "packed explicit_bounds not a multiple of 8 bytes");
                        }
                    }
                    case 7 << 3 | 1 -> {
                        addBound(Double.longBitsToDouble(w.fixed64(q, end)));
                        q += 8;
                    }
                    case 10 << 3 -> { // uint32 flags = 10
                        q = w.varint(q, end);
                        flags = (int) w.v;
                    }
                    case 8 << 3 | 2 -> { // repeated Exemplar exemplars = 8
                        q = w.varint(q, end);
                        int x = w.end(q, end);
                        exemplars.collect(q, x);
                        q = x;
                    }
                    default -> q = w.skip(q, end, t);
                }
            }
            p = end;
            if (bucketCount == 0 || bucketCount != boundCount + 1) {
                o.rejections.add(
                        DecodeError.INVALID_DATA_POINT,
                        o.rejections.wantsDetail(DecodeError.INVALID_DATA_POINT)
                                ? "histogram '" + o.metricText() + "' with " + bucketCount + " bucket counts for "
                                        + boundCount + " bounds"
                                : "");
                o.restore(base);
                continue;
            }
            long ts = o.timestamp(time);
            o.startTime(startTime);
            if (!o.admit(ts, flags, 0)) {
                o.restore(base);
                continue;
            }
            if (o.out.histograms().customBuckets()) {
                if (customBuckets(ts, count, hasSum, sum) && exemplars.collected() > 0) {
                    exemplars.keepUpTo(0, Double.POSITIVE_INFINITY, o.out.count() - 1, ts, o.out.exemplars());
                }
                o.restore(base);
                continue;
            }
            o.emit(o.suffix(0), o.suffixLength(0), ts, GoFormat.unsigned(count));
            if (hasSum) {
                o.emitChecked(o.suffix(1), o.suffixLength(1), ts, sum);
            }
            int le = o.mark();
            o.push(o.constant(SampleWriter.LE), SampleWriter.length(SampleWriter.LE), 0, 0);
            int bucketName = o.suffix(2);
            long cumulative = 0;
            int exemplar = 0; // the next exemplar to place, walking up the buckets
            for (int i = 0; i < boundCount; i++) {
                cumulative += bucketCounts[i];
                leValue(le, i);
                o.emit(bucketName, o.suffixLength(2), ts, GoFormat.unsigned(cumulative));
                if (exemplar < exemplars.collected()) {
                    exemplar = exemplars.keepUpTo(exemplar, bounds[i], o.out.count() - 1, ts, o.out.exemplars());
                }
            }
            cumulative += bucketCounts[boundCount];
            o.setValue(le, o.constant(SampleWriter.INF), SampleWriter.length(SampleWriter.INF));
            o.emit(bucketName, o.suffixLength(2), ts, GoFormat.unsigned(cumulative));
            if (exemplar < exemplars.collected()) {
                exemplars.keepUpTo(exemplar, Double.POSITIVE_INFINITY, o.out.count() - 1, ts, o.out.exemplars());
            }
            o.restore(base);
        }
    }

    /**
     * The data point as one native histogram with custom buckets, or refused as Prometheus would refuse it; whether it
     * was made.
     */
    private boolean customBuckets(long ts, long count, boolean hasSum, double sum) {
        SampleWriter o = samples;
        String invalid = NativeCustomBuckets.valid(count, hasSum, sum, o.stale(), bucketCounts, bounds, boundCount);
        if (invalid != null) {
            o.rejections.add(
                    DecodeError.INVALID_DATA_POINT,
                    o.rejections.wantsDetail(DecodeError.INVALID_DATA_POINT)
                            ? "histogram '" + o.metricText() + "' as custom buckets: " + invalid
                            : "");
            return false;
        }
        o.beginHistogram(ts);
        nativeHistograms.write(o.out.histograms(), count, hasSum, sum, o.stale(), bucketCounts, bounds, boundCount);
        o.out.histograms().end();
        return true;
    }

    /** Sets the {@code le} entry to bound {@code i}'s text, reusing the arena copy of an equal bound of this record. */
    private void leValue(int le, int i) {
        SampleWriter o = samples;
        long bits = Double.doubleToRawLongBits(bounds[i]);
        if (i < leCount && leBits[i] == bits) {
            o.setValue(le, leOff[i], leLen[i]);
            return;
        }
        o.setText(le, GoFormat.formatFloat(bounds[i]));
        if (i >= leBits.length) {
            leBits = Arrays.copyOf(leBits, i * 2 + 1);
            leOff = Arrays.copyOf(leOff, i * 2 + 1);
            leLen = Arrays.copyOf(leLen, i * 2 + 1);
        }
        leBits[i] = bits;
        leOff[i] = o.valueOffset(le);
        leLen[i] = o.valueLength(le);
        leCount = Math.max(leCount, i + 1); // each entry is checked by its bound's bits before reuse
    }

    private void addBucket(long c) {
        if (bucketCount == bucketCounts.length) {
            bucketCounts = Arrays.copyOf(bucketCounts, bucketCount * 2);
        }
        bucketCounts[bucketCount++] = c;
    }

    private void addBound(double b) {
        if (boundCount == bounds.length) {
            bounds = Arrays.copyOf(bounds, boundCount * 2);
        }
        bounds[boundCount++] = b;
    }
}
