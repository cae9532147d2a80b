package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import java.util.Objects;

/**
 * Reads one OpenTelemetry {@code ExportMetricsServiceRequest} per record, protobuf-encoded — what the OpenTelemetry
 * Collector's Kafka exporter writes with its default encoding {@code otlp_proto} (opentelemetry-proto
 * {@code opentelemetry/proto/collector/metrics/v1/metrics_service.proto}, {@code metrics/v1/metrics.proto}).
 *
 * <p>Mapped as VictoriaMetrics v1.150.0 maps its own {@code /opentelemetry/v1/metrics} endpoint with its default flags
 * ({@code lib/protoparser/opentelemetry/pb}: no {@code -opentelemetry.usePrometheusNaming}, every resource attribute
 * promoted, scope metadata promoted), so that a record written through the writer reads back exactly as the same
 * request sent to VictoriaMetrics does:
 * <ul>
 *   <li>metric and label names as they are (dots kept, no unit or {@code _total} suffix added);</li>
 *   <li>labels: every resource attribute, then {@code scope.name} and {@code scope.version} ({@code unknown} when the
 *       scope has none) and each scope attribute as {@code scope.attributes.<key>}, then the data point's attributes;
 *       a key-value list attribute becomes {@code <key>.<subkey>} labels; values: strings as they are, booleans
 *       {@code true}/{@code false}, integers in decimal, doubles as Go's {@code strconv.FormatFloat(v, 'f', -1, 64)},
 *       bytes in base64, arrays as JSON; a label with an empty value is dropped, of duplicate names the last wins;</li>
 *   <li>gauge and sum data points: one sample (a monotonic cumulative sum is a counter); histograms:
 *       {@code <name>_count}, {@code <name>_sum} (when present) and cumulative {@code <name>_bucket{le="…"}} up to
 *       {@code le="+Inf"} — or, where the output carries native histograms and {@code --convert-histograms-to-nhcb}
 *       is on, one native histogram with custom buckets each ({@link NativeCustomBuckets}); exponential
 *       histograms: {@code _count}, {@code _sum} and VictoriaMetrics' own
 *       {@code <name>_bucket{vmrange="<lower>...<upper>"}} per non-empty bucket (the zero bucket as
 *       {@code -zt...zt}), per-bucket counts as VictoriaMetrics' histogram functions read them — or, where the output
 *       carries native histograms (remote write), one native histogram point each ({@link NativeExponential}); summaries:
 *       {@code _count}, {@code _sum} and {@code <name>{quantile="…"}};</li>
 *   <li>timestamps: {@code time_unix_nano} ÷ 10^6 (epoch ms); a data point without one takes the Kafka record's
 *       timestamp;</li>
 *   <li>each metric's kind, description and unit: its family's TYPE, HELP and UNIT ({@link OtlpFamilies}), which
 *       remote write sends as metadata (the import API carries none).</li>
 * </ul>
 * Refused, counted per reason, the rest of the record kept: delta temporality of sums and (exponential) histograms
 * ({@link DecodeError#UNSUPPORTED_TEMPORALITY}: cumulative only — convert with the Collector's
 * {@code deltatocumulative} processor before Kafka; VictoriaMetrics would store delta values as if cumulative); a
 * histogram whose bucket counts are not its bounds + 1, or that has no bucket, and a metric without a name
 * ({@link DecodeError#INVALID_DATA_POINT}); a data point flagged "no recorded value" (a staleness marker,
 * {@link DecodeError#NON_FINITE_VALUE}) or whose value is NaN or infinite; timestamps outside the plausible window.
 * Rejected whole: bytes that are not a well-formed message ({@link DecodeError#INVALID_PROTOBUF}), strings that are not
 * UTF-8.
 *
 * <p>The wire format is read in place (no message objects): the label stack holds arena ranges, names are copied once
 * per record and metric, {@code le} values of bounds repeated by the next data point are reused. Exponential
 * histograms' {@code vmrange} values and array attributes are formatted per data point (a string each).
 *
 * <p>This class walks the messages down to each metric and hands its data to the reader of its kind, along the data
 * model: {@link WireReader} (the protobuf wire format), {@link Attributes} (resource, scope and data point attributes
 * into labels), {@link SampleWriter} (the label stack, the metric's names, the checks, the samples),
 * {@link NumberPoints} (gauge and sum), {@link HistogramPoints}, {@link ExponentialHistogramPoints},
 * {@link SummaryPoints}; {@link GoFormat} writes numbers as VictoriaMetrics (Go) does. All share one record's state.
 *
 * <p>Not thread-safe: one per consuming thread (it reuses its buffers).
 */
public final class OtlpDecoder implements RecordDecoder {

    private final int maxRecordBytes;

    // the record's readers, sharing its state (see the class comment)
    private final WireReader wire = new WireReader();
    private final SampleWriter samples;
    private final Attributes attributes;
    private final NumberPoints numbers;
    private final HistogramPoints histograms;
    private final ExponentialHistogramPoints exponentialHistograms;
    private final SummaryPoints summaries;
    private final OtlpFamilies families;

    /** As {@link #OtlpDecoder(int, TimestampWindow)} with the default window. */
    public OtlpDecoder(int maxRecordBytes) {
        this(maxRecordBytes, TimestampWindow.DEFAULT);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole ({@code too_large})
     * @param window         a data point outside it is refused as {@code implausible_timestamp}
     */
    public OtlpDecoder(int maxRecordBytes, TimestampWindow window) {
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("max record bytes must be >= 1, got " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.samples = new SampleWriter(wire, Objects.requireNonNull(window, "window"));
        this.attributes = new Attributes(wire, samples);
        this.numbers = new NumberPoints(wire, samples, attributes);
        this.histograms = new HistogramPoints(wire, samples, attributes);
        this.exponentialHistograms = new ExponentialHistogramPoints(wire, samples, attributes);
        this.summaries = new SummaryPoints(wire, samples, attributes);
        this.families = new OtlpFamilies(wire);
    }

    @Override
    public InputFormat format() {
        return InputFormat.OTLP;
    }

    @Override
    public void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        out.clear();
        rejections.clear();
        if (!LineDecoder.admit(value, maxRecordBytes, rejections)) {
            return;
        }
        decodeMessage(value, value.length, kafkaTimestampMs, out, rejections);
    }

    /** Decodes {@code message[0, length)}, an {@code ExportMetricsServiceRequest}, into cleared {@code out} and {@code rejections}. */
    void decodeMessage(byte[] message, int length, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        WireReader w = wire;
        w.buf = message;
        samples.start(out, rejections, kafkaTimestampMs);
        attributes.start();
        histograms.start();
        try {
            int p = 0;
            while ((p = w.next(p, length, 1 << 3 | 2)) >= 0) { // repeated ResourceMetrics resource_metrics = 1
                int end = w.fieldEnd;
                resourceMetrics(p, end);
                p = end;
            }
        } catch (WireReader.Malformed e) {
            out.clear();
            rejections.add(e.reason, e.getMessage());
            return;
        } finally {
            w.buf = null;
            samples.finish();
        }
        if (out.count() == 0 && rejections.total() == 0) {
            rejections.add(DecodeError.NO_SAMPLES, "ExportMetricsServiceRequest holds no data point");
        }
        out.updateJsonSafe();
    }

    // ------------------------------------------------------------------ messages

    private void resourceMetrics(int s, int e) {
        WireReader w = wire;
        samples.restore(0);
        for (int p = s;
                (p = w.next(p, e, 1 << 3 | 2))
                        >= 0; ) { // Resource resource = 1 (before the scopes whatever the wire order)
            int end = w.fieldEnd;
            attributes.attributes(p, end, 1, -1, 0);
            p = end;
        }
        int resourceTop = samples.mark();
        for (int p = s; (p = w.next(p, e, 2 << 3 | 2)) >= 0; ) { // repeated ScopeMetrics scope_metrics = 2
            int end = w.fieldEnd;
            scopeMetrics(p, end);
            samples.restore(resourceTop);
            p = end;
        }
    }

    private void scopeMetrics(int s, int e) {
        WireReader w = wire;
        for (int p = s; (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) { // InstrumentationScope scope = 1
            int end = w.fieldEnd;
            attributes.scope(p, end);
            p = end;
        }
        int scopeTop = samples.mark();
        for (int p = s; (p = w.next(p, e, 2 << 3 | 2)) >= 0; ) { // repeated Metric metrics = 2
            int end = w.fieldEnd;
            metric(p, end);
            samples.restore(scopeTop);
            p = end;
        }
    }

    private void metric(int s, int e) {
        WireReader w = wire;
        int nameOff = -1;
        int nameLen = 0;
        for (int p = s; p < e && nameOff < 0; ) { // string name = 1 (the first one)
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (1 << 3 | 2)) {
                p = w.varint(p, e);
                int end = w.end(p, e);
                w.utf8(p, end, "metric name");
                if (end > p) {
                    nameOff = samples.out.copy(w.buf, p, end - p);
                    nameLen = end - p;
                }
                p = end;
            } else {
                p = w.skip(p, e, tag);
            }
        }
        samples.metric(nameOff, nameLen);
        families.declare(s, e, samples.out.families()); // type, description, unit: remote write's metadata
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            int field = tag >>> 3;
            if ((tag & 7) == 2 && (field == 5 || field == 7 || field == 9 || field == 10 || field == 11)) {
                p = w.varint(p, e);
                int end = w.end(p, e);
                if (!samples.hasMetric()) {
                    samples.rejections.add(DecodeError.INVALID_DATA_POINT, "a metric without a name");
                } else {
                    switch (field) {
                        case 5 -> numbers.read(p, end, false); // Gauge
                        case 7 -> numbers.read(p, end, true); // Sum
                        case 9 -> histograms.read(p, end);
                        case 10 -> exponentialHistograms.read(p, end);
                        default -> summaries.read(p, end);
                    }
                }
                p = end;
            } else {
                p = w.skip(p, e, tag);
            }
        }
    }

    /** {@link GoFormat#formatFloat}, here too for OtlpDecoderTest (which reads it by reflection). */
    static String formatFloat(double d) {
        return GoFormat.formatFloat(d);
    }
}
