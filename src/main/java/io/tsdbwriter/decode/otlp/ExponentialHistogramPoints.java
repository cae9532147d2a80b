package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;

/**
 * Exponential histogram data points ({@code ExponentialHistogramDataPoint} of {@code metrics.proto}) as VictoriaMetrics
 * maps them: {@code <name>_count}, {@code <name>_sum} (when present) and its own
 * {@code <name>_bucket{vmrange="<lower>...<upper>"}} per non-empty bucket, per-bucket counts (not cumulative) as
 * VictoriaMetrics' histogram functions read them; the zero bucket as {@code -zt...zt}. Bucket {@code i} of a
 * {@code Buckets} message with offset {@code o} at scale {@code s} spans {@code (2^((o+i)·2^-s), 2^((o+i+1)·2^-s)]},
 * negated for the negative buckets; bounds as {@link GoFormat#formatVmrange}. A delta one is refused
 * ({@link SampleWriter#refuseDelta}). Where the output carries native histograms
 * ({@link io.tsdbwriter.decode.PointHistograms#accepted()}: remote write) each data point is instead one native
 * histogram point named as the metric ({@link NativeExponential}); one with a scale below −4 is then refused
 * ({@link DecodeError#INVALID_DATA_POINT}); its exemplars ({@code exemplars} = 11, {@link OtlpExemplars}) all go with
 * that point, ordered by time, as Prometheus' OTLP translator attaches them to the histogram's series. The
 * {@code vmrange} samples (the import API, which carries no exemplars) get none.
 *
 * <p>Each non-empty bucket's {@code vmrange} value is formatted per data point (a string each): not on the hot path
 * of a Prometheus-shaped scrape.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class ExponentialHistogramPoints {

    private final WireReader w;
    private final SampleWriter samples;
    private final Attributes attributes;
    private final NativeExponential nativeHistograms;
    private final OtlpExemplars exemplars;

    ExponentialHistogramPoints(WireReader wire, SampleWriter samples, Attributes attributes) {
        this.nativeHistograms = new NativeExponential(wire);
        this.exemplars = new OtlpExemplars(wire);
        this.w = wire;
        this.samples = samples;
        this.attributes = attributes;
    }

    /** The {@code ExponentialHistogram} message {@code [s, e)}. */
    void read(int s, int e) {
        WireReader w = this.w;
        SampleWriter o = samples;
        if (o.refuseDelta(s, e, "exponential histogram")) {
            return;
        }
        int base = o.mark();
        for (int p = s;
                (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated ExponentialHistogramDataPoint data_points = 1
            int end = w.fieldEnd;
            long time = 0;
            long startTime = 0;
            long count = 0;
            double sum = 0;
            boolean hasSum = false;
            int scale = 0;
            long zeroCount = 0;
            double zeroThreshold = 0;
            int flags = 0;
            int posStart = -1;
            int posEnd = -1;
            int negStart = -1;
            int negEnd = -1;
            exemplars.reset();
            for (int q = p; q < end; ) {
                q = w.varint(q, end);
                int t = (int) w.v;
                switch (t) {
                    case 1 << 3 | 2 -> q = attributes.attribute(q, end); // attributes = 1
                    case 2 << 3 | 1 -> { // fixed64 start_time_unix_nano = 2
                        startTime = w.fixed64(q, end);
                        q += 8;
                    }
                    case 3 << 3 | 1 -> {
                        time = w.fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> {
                        count = w.fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 1 -> {
                        sum = Double.longBitsToDouble(w.fixed64(q, end));
                        hasSum = true;
                        q += 8;
                    }
                    case 6 << 3 -> { // sint32 scale = 6
                        q = w.varint(q, end);
                        scale = (int) (w.v >>> 1) ^ -(int) (w.v & 1);
                    }
                    case 7 << 3 | 1 -> { // fixed64 zero_count = 7
                        zeroCount = w.fixed64(q, end);
                        q += 8;
                    }
                    case 8 << 3 | 2, 9 << 3 | 2 -> { // Buckets positive = 8, negative = 9
                        q = w.varint(q, end);
                        int be = w.end(q, end);
                        if (t == (8 << 3 | 2)) {
                            posStart = q;
                            posEnd = be;
                        } else {
                            negStart = q;
                            negEnd = be;
                        }
                        q = be;
                    }
                    case 10 << 3 -> {
                        q = w.varint(q, end);
                        flags = (int) w.v;
                    }
                    case 14 << 3 | 1 -> { // double zero_threshold = 14
                        zeroThreshold = Double.longBitsToDouble(w.fixed64(q, end));
                        q += 8;
                    }
                    case 11 << 3 | 2 -> { // repeated Exemplar exemplars = 11
                        q = w.varint(q, end);
                        int x = w.end(q, end);
                        exemplars.collect(q, x);
                        q = x;
                    }
                    default -> q = w.skip(q, end, t);
                }
            }
            p = end;
            long ts = o.timestamp(time);
            o.startTime(startTime);
            if (!o.admit(ts, flags, 0)) {
                o.restore(base);
                continue;
            }
            if (o.out.histograms().accepted()) {
                if (scale < NativeExponential.MIN_SCALE) {
                    o.rejections.add(
                            DecodeError.INVALID_DATA_POINT,
                            o.rejections.wantsDetail(DecodeError.INVALID_DATA_POINT)
                                    ? "exponential histogram '" + o.metricText() + "': scale " + scale
                                            + " below -4, the smallest native histogram schema"
                                    : "");
                } else {
                    o.beginHistogram(ts);
                    nativeHistograms.write(
                            o.out.histograms(),
                            count,
                            hasSum,
                            sum,
                            o.stale(),
                            scale,
                            zeroThreshold,
                            zeroCount,
                            posStart,
                            posEnd,
                            negStart,
                            negEnd);
                    o.out.histograms().end();
                    if (exemplars.collected() > 0) {
                        exemplars.keepUpTo(0, Double.POSITIVE_INFINITY, o.out.count() - 1, ts, o.out.exemplars());
                    }
                }
                o.restore(base);
                continue;
            }
            o.emit(o.suffix(0), o.suffixLength(0), ts, GoFormat.unsigned(count));
            if (hasSum) {
                o.emitChecked(o.suffix(1), o.suffixLength(1), ts, sum);
            }
            int range = o.mark();
            o.push(o.constant(SampleWriter.VMRANGE), SampleWriter.length(SampleWriter.VMRANGE), 0, 0);
            int bucketName = o.suffix(2);
            if (zeroCount != 0) {
                o.setText(range, GoFormat.formatVmrange(-zeroThreshold, zeroThreshold));
                o.emit(bucketName, o.suffixLength(2), ts, GoFormat.unsigned(zeroCount));
            }
            double ratio = Math.pow(2, -scale);
            double growth = Math.pow(2, ratio);
            if (posStart >= 0) {
                buckets(posStart, posEnd, ratio, growth, false, range, bucketName, ts);
            }
            if (negStart >= 0) {
                buckets(negStart, negEnd, ratio, growth, true, range, bucketName, ts);
            }
            o.restore(base);
        }
    }

    /** One {@code Buckets} message ({@code sint32 offset = 1; repeated uint64 bucket_counts = 2}): a sample per non-empty bucket. */
    private void buckets(
            int s, int e, double ratio, double growth, boolean negative, int range, int bucketName, long ts) {
        WireReader w = this.w;
        int offset = 0;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (1 << 3)) {
                p = w.varint(p, e);
                offset = (int) (w.v >>> 1) ^ -(int) (w.v & 1);
            } else {
                p = w.skip(p, e, tag);
            }
        }
        double first = Math.pow(2, offset * ratio);
        int i = 0;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (2 << 3 | 2)) { // packed
                p = w.varint(p, e);
                int pe = w.end(p, e);
                while (p < pe) {
                    p = w.varint(p, pe);
                    bucket(w.v, i++, first, growth, negative, range, bucketName, ts);
                }
            } else if (tag == (2 << 3)) {
                p = w.varint(p, e);
                bucket(w.v, i++, first, growth, negative, range, bucketName, ts);
            } else {
                p = w.skip(p, e, tag);
            }
        }
    }

    private void bucket(
            long count, int i, double first, double growth, boolean negative, int range, int bucketName, long ts) {
        if (count == 0) {
            return;
        }
        SampleWriter o = samples;
        double lower = first * Math.pow(growth, i);
        double upper = lower * growth;
        o.setText(range, negative ? GoFormat.formatVmrange(-upper, -lower) : GoFormat.formatVmrange(lower, upper));
        o.emit(bucketName, o.suffixLength(2), ts, GoFormat.unsigned(count));
    }
}
