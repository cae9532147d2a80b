package io.tsdbwriter.decode.otlp;

/**
 * Summary data points ({@code SummaryDataPoint} of {@code metrics.proto}) as VictoriaMetrics maps them:
 * {@code <name>_count}, {@code <name>_sum} and {@code <name>{quantile="…"}} per {@code ValueAtQuantile}, the quantile
 * as {@link GoFormat#formatFloat} (a string per quantile: not on the hot path of a Prometheus-shaped scrape). A NaN or
 * infinite sum or quantile value is counted, not written ({@link SampleWriter#emitChecked}). Summaries have no
 * temporality.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class SummaryPoints {

    private final WireReader w;
    private final SampleWriter samples;
    private final Attributes attributes;

    SummaryPoints(WireReader wire, SampleWriter samples, Attributes attributes) {
        this.w = wire;
        this.samples = samples;
        this.attributes = attributes;
    }

    /** The {@code Summary} message {@code [s, e)}. */
    void read(int s, int e) {
        WireReader w = this.w;
        SampleWriter o = samples;
        int base = o.mark();
        for (int p = s; (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated SummaryDataPoint data_points = 1
            int end = w.fieldEnd;
            long time = 0;
            long startTime = 0;
            long count = 0;
            double sum = 0;
            int flags = 0;
            for (int q = p; q < end; ) {
                q = w.varint(q, end);
                int t = (int) w.v;
                switch (t) {
                    case 7 << 3 | 2 -> q = attributes.attribute(q, end);
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
                        q += 8;
                    }
                    case 8 << 3 -> {
                        q = w.varint(q, end);
                        flags = (int) w.v;
                    }
                    default -> q = w.skip(q, end, t);
                }
            }
            long ts = o.timestamp(time);
            o.startTime(startTime);
            if (o.admit(ts, flags, 0)) {
                o.emit(o.suffix(0), o.suffixLength(0), ts, GoFormat.unsigned(count));
                o.emitChecked(o.suffix(1), o.suffixLength(1), ts, sum);
                int quantile = o.mark();
                o.push(o.constant(SampleWriter.QUANTILE), SampleWriter.length(SampleWriter.QUANTILE), 0, 0);
                for (int q = p;
                        (q = w.next(q, end, 6 << 3 | 2)) >= 0; ) { // repeated ValueAtQuantile quantile_values = 6
                    int qe = w.fieldEnd;
                    double qv = 0;
                    double value = 0;
                    for (int r = q; r < qe; ) {
                        r = w.varint(r, qe);
                        int rt = (int) w.v;
                        if (rt == (1 << 3 | 1)) {
                            qv = Double.longBitsToDouble(w.fixed64(r, qe));
                            r += 8;
                        } else if (rt == (2 << 3 | 1)) {
                            value = Double.longBitsToDouble(w.fixed64(r, qe));
                            r += 8;
                        } else {
                            r = w.skip(r, qe, rt);
                        }
                    }
                    o.setText(quantile, GoFormat.formatFloat(qv));
                    o.emitChecked(o.metricOffset(), o.metricLength(), ts, value);
                    q = qe;
                }
            }
            o.restore(base);
            p = end;
        }
    }
}
