package io.tsdbwriter.decode.otlp;

/**
 * Gauge and Sum data points ({@code NumberDataPoint} of {@code metrics.proto}): one sample each, named as the metric,
 * its value {@code as_double} or {@code as_int}; a monotonic cumulative sum is a counter (VictoriaMetrics keeps no
 * type); its first exemplar goes with it ({@link OtlpExemplars}). A Sum's {@code start_time_unix_nano} is the sample's
 * start timestamp ({@link SampleWriter#startTime}); a Gauge's is not read. A delta Sum is refused whole ({@link
 * SampleWriter#refuseDelta}). The hot path of a Prometheus-shaped scrape:
 * no allocation per data point (attributes pushed as arena ranges by {@link Attributes#attribute}).
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class NumberPoints {

    private final WireReader w;
    private final SampleWriter samples;
    private final Attributes attributes;
    private final OtlpExemplars exemplars;

    NumberPoints(WireReader wire, SampleWriter samples, Attributes attributes) {
        this.exemplars = new OtlpExemplars(wire);
        this.w = wire;
        this.samples = samples;
        this.attributes = attributes;
    }

    /** The {@code Gauge} ({@code sum} false) or {@code Sum} message {@code [s, e)}. */
    void read(int s, int e, boolean sum) {
        WireReader w = this.w;
        SampleWriter o = samples;
        if (sum && o.refuseDelta(s, e, "sum")) {
            return;
        }
        int base = o.mark();
        for (int p = s; (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated NumberDataPoint data_points = 1
            int end = w.fieldEnd;
            long time = 0;
            long startTime = 0;
            double value = 0;
            int flags = 0;
            int exemplar = -1;
            int exemplarEnd = -1;
            for (int q = p; q < end; ) {
                q = w.varint(q, end);
                int t = (int) w.v;
                switch (t) {
                    case 7 << 3 | 2 -> q = attributes.attribute(q, end); // attributes = 7
                    case 2 << 3 | 1 -> { // fixed64 start_time_unix_nano = 2
                        startTime = w.fixed64(q, end);
                        q += 8;
                    }
                    case 3 << 3 | 1 -> { // fixed64 time_unix_nano = 3
                        time = w.fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> { // double as_double = 4
                        value = Double.longBitsToDouble(w.fixed64(q, end));
                        q += 8;
                    }
                    case 6 << 3 | 1 -> { // sfixed64 as_int = 6
                        value = w.fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 2 -> { // repeated Exemplar exemplars = 5: the first kept
                        q = w.varint(q, end);
                        int x = w.end(q, end);
                        if (exemplar < 0) {
                            exemplar = q;
                            exemplarEnd = x;
                        }
                        q = x;
                    }
                    case 8 << 3 -> { // uint32 flags = 8
                        q = w.varint(q, end);
                        flags = (int) w.v;
                    }
                    default -> q = w.skip(q, end, t);
                }
            }
            long ts = o.timestamp(time);
            o.startTime(sum ? startTime : 0);
            if (o.admit(ts, flags, value)) {
                o.emit(o.metricOffset(), o.metricLength(), ts, value);
                if (exemplar >= 0) {
                    exemplars.keep(exemplar, exemplarEnd, o.out.count() - 1, false, ts, o.out.exemplars());
                }
            }
            o.restore(base);
            p = end;
        }
    }
}
