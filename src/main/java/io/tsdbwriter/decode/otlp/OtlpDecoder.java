package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampCheck;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
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
 *       {@code le="+Inf"}; exponential histograms: {@code _count}, {@code _sum} and VictoriaMetrics' own
 *       {@code <name>_bucket{vmrange="<lower>...<upper>"}} per non-empty bucket (the zero bucket as
 *       {@code -zt...zt}), per-bucket counts as VictoriaMetrics' histogram functions read them; summaries:
 *       {@code _count}, {@code _sum} and {@code <name>{quantile="…"}};</li>
 *   <li>timestamps: {@code time_unix_nano} ÷ 10^6 (epoch ms); a data point without one takes the Kafka record's
 *       timestamp.</li>
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
 * <p>Not thread-safe: one per consuming thread (it reuses its buffers).
 */
public final class OtlpDecoder implements RecordDecoder {

    private static final byte[] SCOPE_NAME = "scope.name".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCOPE_VERSION = "scope.version".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCOPE_ATTRIBUTES = "scope.attributes".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UNKNOWN = "unknown".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LE = "le".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INF = "+Inf".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] QUANTILE = "quantile".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VMRANGE = "vmrange".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COUNT = "_count".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUM = "_sum".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUCKET = "_bucket".getBytes(StandardCharsets.US_ASCII);
    private static final int TEMPORALITY_DELTA = 1;
    /** Deepest nesting of array and key-value list attribute values read (deeper: the record is refused, not the stack). */
    static final int MAX_ATTRIBUTE_DEPTH = 32;

    private final int maxRecordBytes;
    private final TimestampWindow window;
    private final TimestampCheck timestamps;

    // per record
    private byte[] buf;
    private DecodedPoints out;
    private Rejections rejections;
    private long kafkaTimestampMs;
    /** The varint last read by {@link #varint}. */
    private long v;
    /** The end of the field {@link #next} found. */
    private int fieldEnd;
    /** Nesting of the attribute value being read. */
    private int depth;

    // the label stack: arena ranges nameOff, nameLen, valueOff, valueLen
    private int[] stack = new int[64 * 4];
    private int top;

    // the current metric's names in the arena: base, _count, _sum, _bucket (-1 until needed)
    private int metricOff;
    private int metricLen;
    private final int[] suffixOff = new int[3];
    private final int[] suffixLen = new int[3];
    private String metricText;

    // constants copied into the arena once per record (-1 until needed)
    private final int[] constOff = new int[11];

    // histogram scratch
    private long[] bucketCounts = new long[32];
    private int bucketCount;
    private double[] bounds = new double[32];
    private int boundCount;
    // le values of the bounds last formatted (this record): bound bits, arena offset, length
    private long[] leBits = new long[32];
    private int[] leOff = new int[32];
    private int[] leLen = new int[32];
    private int leCount;
    private final byte[] digits = new byte[24];

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
        this.window = Objects.requireNonNull(window, "window");
        this.timestamps = new TimestampCheck(window);
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
        this.buf = message;
        this.out = out;
        this.rejections = rejections;
        this.kafkaTimestampMs = kafkaTimestampMs;
        Arrays.fill(constOff, -1);
        leCount = 0;
        depth = 0;
        try {
            int p = 0;
            while ((p = next(p, length, 1 << 3 | 2)) >= 0) { // repeated ResourceMetrics resource_metrics = 1
                int end = fieldEnd;
                resourceMetrics(p, end);
                p = end;
            }
        } catch (Malformed e) {
            out.clear();
            rejections.add(e.reason, e.getMessage());
            return;
        } finally {
            this.buf = null;
            this.out = null;
            this.rejections = null;
        }
        if (out.count() == 0 && rejections.total() == 0) {
            rejections.add(DecodeError.NO_SAMPLES, "ExportMetricsServiceRequest holds no data point");
        }
        out.updateJsonSafe();
    }

    // ------------------------------------------------------------------ messages

    private void resourceMetrics(int s, int e) {
        top = 0;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // Resource resource = 1 (before the scopes whatever the wire order)
            int end = fieldEnd;
            attributes(p, end, 1, -1, 0);
            p = end;
        }
        int resourceTop = top;
        for (int p = s; (p = next(p, e, 2 << 3 | 2)) >= 0; ) { // repeated ScopeMetrics scope_metrics = 2
            int end = fieldEnd;
            scopeMetrics(p, end);
            top = resourceTop;
            p = end;
        }
    }

    private void scopeMetrics(int s, int e) {
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // InstrumentationScope scope = 1
            int end = fieldEnd;
            scope(p, end);
            p = end;
        }
        int scopeTop = top;
        for (int p = s; (p = next(p, e, 2 << 3 | 2)) >= 0; ) { // repeated Metric metrics = 2
            int end = fieldEnd;
            metric(p, end);
            top = scopeTop;
            p = end;
        }
    }

    private void scope(int s, int e) {
        int nameOff = -1;
        int nameLen = 0;
        int versionOff = -1;
        int versionLen = 0;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (1 << 3 | 2) || tag == (2 << 3 | 2)) {
                p = varint(p, e);
                int end = end(p, e);
                utf8(p, end, "scope name/version");
                if (tag == (1 << 3 | 2)) {
                    nameOff = p;
                    nameLen = end - p;
                } else {
                    versionOff = p;
                    versionLen = end - p;
                }
                p = end;
            } else {
                p = skip(p, e, tag);
            }
        }
        push(constant(0, SCOPE_NAME), SCOPE_NAME.length, nameOff < 0 ? constant(1, UNKNOWN) : out.copy(buf, nameOff, nameLen),
                nameOff < 0 ? UNKNOWN.length : nameLen);
        push(constant(2, SCOPE_VERSION), SCOPE_VERSION.length, versionOff < 0 ? constant(1, UNKNOWN) : out.copy(buf, versionOff, versionLen),
                versionOff < 0 ? UNKNOWN.length : versionLen);
        int prefix = constant(3, SCOPE_ATTRIBUTES);
        attributes(s, e, 3, prefix, SCOPE_ATTRIBUTES.length);
    }

    /** Pushes every {@code KeyValue} of field {@code field} of the message {@code [s, e)}, names under an optional prefix. */
    private void attributes(int s, int e, int field, int prefixOff, int prefixLen) {
        int want = field << 3 | 2;
        for (int p = s; (p = next(p, e, want)) >= 0; ) {
            int end = fieldEnd;
            keyValue(p, end, prefixOff, prefixLen);
            p = end;
        }
    }

    private void keyValue(int s, int e, int prefixOff, int prefixLen) {
        int keyOff = -1;
        int keyLen = 0;
        int valueStart = -1;
        int valueEnd = -1;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (1 << 3 | 2) || tag == (2 << 3 | 2)) {
                p = varint(p, e);
                int end = end(p, e);
                if (tag == (1 << 3 | 2)) {
                    keyOff = p;
                    keyLen = end - p;
                } else {
                    valueStart = p;
                    valueEnd = end;
                }
                p = end;
            } else {
                p = skip(p, e, tag);
            }
        }
        if (keyOff < 0 || valueStart < 0) {
            return; // no key, or a null value: skipped, as VictoriaMetrics does
        }
        utf8(keyOff, keyOff + keyLen, "attribute key");
        int nameOff;
        int nameLen;
        if (prefixOff < 0) {
            nameOff = out.copy(buf, keyOff, keyLen);
            nameLen = keyLen;
        } else {
            byte[] a = out.arenaForWrite(prefixLen + 1 + keyLen);
            int at = out.arenaLength();
            System.arraycopy(a, prefixOff, a, at, prefixLen);
            a[at + prefixLen] = '.';
            System.arraycopy(buf, keyOff, a, at + prefixLen + 1, keyLen);
            nameLen = prefixLen + 1 + keyLen;
            nameOff = out.commitArena(nameLen);
        }
        anyValue(valueStart, valueEnd, nameOff, nameLen);
    }

    /** One data point attribute ({@code KeyValue}) whose length is read at {@code q}: pushed; returns the position after it. */
    private int attribute(int q, int limit) {
        q = varint(q, limit);
        int end = end(q, limit);
        keyValue(q, end, -1, 0);
        return end;
    }

    private void anyValue(int s, int e, int nameOff, int nameLen) {
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            switch (tag) {
                case 1 << 3 | 2 -> { // string string_value = 1
                    p = varint(p, e);
                    int end = end(p, e);
                    utf8(p, end, "attribute value");
                    push(nameOff, nameLen, out.copy(buf, p, end - p), end - p);
                    p = end;
                }
                case 2 << 3 -> { // bool bool_value = 2
                    p = varint(p, e);
                    push(nameOff, nameLen, v != 0 ? constant(4, TRUE) : constant(5, FALSE), v != 0 ? TRUE.length : FALSE.length);
                }
                case 3 << 3 -> { // int64 int_value = 3
                    p = varint(p, e);
                    pushLong(nameOff, nameLen, v);
                }
                case 4 << 3 | 1 -> { // double double_value = 4
                    double d = Double.longBitsToDouble(fixed64(p, e));
                    p += 8;
                    pushText(nameOff, nameLen, formatFloat(d));
                }
                case 5 << 3 | 2 -> { // ArrayValue array_value = 5: JSON, as VictoriaMetrics encodes it
                    p = varint(p, e);
                    int end = end(p, e);
                    StringBuilder json = new StringBuilder();
                    nest();
                    arrayJson(p, end, json);
                    depth--;
                    pushText(nameOff, nameLen, json.toString());
                    p = end;
                }
                case 6 << 3 | 2 -> { // KeyValueList kvlist_value = 6: <key>.<subkey> labels
                    p = varint(p, e);
                    int end = end(p, e);
                    nest();
                    attributes(p, end, 1, nameOff, nameLen);
                    depth--;
                    p = end;
                }
                case 7 << 3 | 2 -> { // bytes bytes_value = 7: base64
                    p = varint(p, e);
                    int end = end(p, e);
                    pushText(nameOff, nameLen, Base64.getEncoder().encodeToString(Arrays.copyOfRange(buf, p, end)));
                    p = end;
                }
                default -> p = skip(p, e, tag);
            }
        }
    }

    private void metric(int s, int e) {
        metricOff = -1;
        for (int p = s; p < e && metricOff < 0; ) { // string name = 1 (the first one)
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (1 << 3 | 2)) {
                p = varint(p, e);
                int end = end(p, e);
                utf8(p, end, "metric name");
                if (end > p) {
                    metricOff = out.copy(buf, p, end - p);
                    metricLen = end - p;
                }
                p = end;
            } else {
                p = skip(p, e, tag);
            }
        }
        suffixOff[0] = suffixOff[1] = suffixOff[2] = -1;
        metricText = null;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            int field = tag >>> 3;
            if ((tag & 7) == 2 && (field == 5 || field == 7 || field == 9 || field == 10 || field == 11)) {
                p = varint(p, e);
                int end = end(p, e);
                if (metricOff < 0) {
                    rejections.add(DecodeError.INVALID_DATA_POINT, "a metric without a name");
                } else {
                    switch (field) {
                        case 5 -> numberPoints(p, end, false); // Gauge
                        case 7 -> numberPoints(p, end, true); // Sum
                        case 9 -> histogram(p, end);
                        case 10 -> exponentialHistogram(p, end);
                        default -> summary(p, end);
                    }
                }
                p = end;
            } else {
                p = skip(p, e, tag);
            }
        }
    }

    /** Aggregation temporality (field 2) of a Sum, Histogram or ExponentialHistogram message. */
    private int temporality(int s, int e) {
        int t = 0;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (2 << 3)) {
                p = varint(p, e);
                t = (int) v;
            } else {
                p = skip(p, e, tag);
            }
        }
        return t;
    }

    private boolean refuseDelta(int s, int e, String kind) {
        if (temporality(s, e) != TEMPORALITY_DELTA) {
            return false;
        }
        int points = 0;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; p = fieldEnd) {
            points++;
        }
        for (int i = 0; i < points; i++) {
            rejections.add(DecodeError.UNSUPPORTED_TEMPORALITY, rejections.wantsDetail(DecodeError.UNSUPPORTED_TEMPORALITY)
                    ? "delta " + kind + " '" + metricText() + "': cumulative only (the Collector's deltatocumulative processor converts)" : "");
        }
        return true;
    }

    private void numberPoints(int s, int e, boolean sum) {
        if (sum && refuseDelta(s, e, "sum")) {
            return;
        }
        int base = top;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated NumberDataPoint data_points = 1
            int end = fieldEnd;
            long time = 0;
            double value = 0;
            int flags = 0;
            for (int q = p; q < end; ) {
                q = varint(q, end);
                int t = (int) v;
                switch (t) {
                    case 7 << 3 | 2 -> q = attribute(q, end); // attributes = 7
                    case 3 << 3 | 1 -> { // fixed64 time_unix_nano = 3
                        time = fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> { // double as_double = 4
                        value = Double.longBitsToDouble(fixed64(q, end));
                        q += 8;
                    }
                    case 6 << 3 | 1 -> { // sfixed64 as_int = 6
                        value = fixed64(q, end);
                        q += 8;
                    }
                    case 8 << 3 -> { // uint32 flags = 8
                        q = varint(q, end);
                        flags = (int) v;
                    }
                    default -> q = skip(q, end, t);
                }
            }
            long ts = timestamp(time);
            if (admit(ts, flags, value)) {
                emit(metricOff, metricLen, ts, value);
            }
            top = base;
            p = end;
        }
    }

    private void histogram(int s, int e) {
        if (refuseDelta(s, e, "histogram")) {
            return;
        }
        int base = top;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated HistogramDataPoint data_points = 1
            int end = fieldEnd;
            long time = 0;
            long count = 0;
            double sum = 0;
            boolean hasSum = false;
            int flags = 0;
            bucketCount = 0;
            boundCount = 0;
            for (int q = p; q < end; ) {
                q = varint(q, end);
                int t = (int) v;
                switch (t) {
                    case 9 << 3 | 2 -> q = attribute(q, end); // attributes = 9
                    case 3 << 3 | 1 -> {
                        time = fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> { // fixed64 count = 4
                        count = fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 1 -> { // optional double sum = 5
                        sum = Double.longBitsToDouble(fixed64(q, end));
                        hasSum = true;
                        q += 8;
                    }
                    case 6 << 3 | 2 -> { // repeated fixed64 bucket_counts = 6, packed
                        q = varint(q, end);
                        int pe = end(q, end);
                        for (; q + 8 <= pe; q += 8) {
                            addBucket(fixed64(q, pe));
                        }
                        if (q != pe) {
                            throw new Malformed(DecodeError.INVALID_PROTOBUF, "packed bucket_counts not a multiple of 8 bytes");
                        }
                    }
                    case 6 << 3 | 1 -> {
                        addBucket(fixed64(q, end));
                        q += 8;
                    }
                    case 7 << 3 | 2 -> { // repeated double explicit_bounds = 7, packed
                        q = varint(q, end);
                        int pe = end(q, end);
                        for (; q + 8 <= pe; q += 8) {
                            addBound(Double.longBitsToDouble(fixed64(q, pe)));
                        }
                        if (q != pe) {
                            throw new Malformed(DecodeError.INVALID_PROTOBUF, "packed explicit_bounds not a multiple of 8 bytes");
                        }
                    }
                    case 7 << 3 | 1 -> {
                        addBound(Double.longBitsToDouble(fixed64(q, end)));
                        q += 8;
                    }
                    case 10 << 3 -> { // uint32 flags = 10
                        q = varint(q, end);
                        flags = (int) v;
                    }
                    default -> q = skip(q, end, t);
                }
            }
            p = end;
            if (bucketCount == 0 || bucketCount != boundCount + 1) {
                rejections.add(DecodeError.INVALID_DATA_POINT, rejections.wantsDetail(DecodeError.INVALID_DATA_POINT)
                        ? "histogram '" + metricText() + "' with " + bucketCount + " bucket counts for " + boundCount + " bounds" : "");
                top = base;
                continue;
            }
            long ts = timestamp(time);
            if (!admit(ts, flags, 0)) {
                top = base;
                continue;
            }
            emit(suffix(0), suffixLen[0], ts, unsigned(count));
            if (hasSum) {
                emitChecked(suffix(1), suffixLen[1], ts, sum);
            }
            int le = top;
            push(constant(6, LE), LE.length, 0, 0);
            int bucketName = suffix(2);
            long cumulative = 0;
            for (int i = 0; i < boundCount; i++) {
                cumulative += bucketCounts[i];
                leValue(le, i);
                emit(bucketName, suffixLen[2], ts, unsigned(cumulative));
            }
            cumulative += bucketCounts[boundCount];
            stack[le * 4 + 2] = constant(7, INF);
            stack[le * 4 + 3] = INF.length;
            emit(bucketName, suffixLen[2], ts, unsigned(cumulative));
            top = base;
        }
    }

    private void exponentialHistogram(int s, int e) {
        if (refuseDelta(s, e, "exponential histogram")) {
            return;
        }
        int base = top;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated ExponentialHistogramDataPoint data_points = 1
            int end = fieldEnd;
            long time = 0;
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
            for (int q = p; q < end; ) {
                q = varint(q, end);
                int t = (int) v;
                switch (t) {
                    case 1 << 3 | 2 -> q = attribute(q, end); // attributes = 1
                    case 3 << 3 | 1 -> {
                        time = fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> {
                        count = fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 1 -> {
                        sum = Double.longBitsToDouble(fixed64(q, end));
                        hasSum = true;
                        q += 8;
                    }
                    case 6 << 3 -> { // sint32 scale = 6
                        q = varint(q, end);
                        scale = (int) (v >>> 1) ^ -(int) (v & 1);
                    }
                    case 7 << 3 | 1 -> { // fixed64 zero_count = 7
                        zeroCount = fixed64(q, end);
                        q += 8;
                    }
                    case 8 << 3 | 2, 9 << 3 | 2 -> { // Buckets positive = 8, negative = 9
                        q = varint(q, end);
                        int be = end(q, end);
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
                        q = varint(q, end);
                        flags = (int) v;
                    }
                    case 14 << 3 | 1 -> { // double zero_threshold = 14
                        zeroThreshold = Double.longBitsToDouble(fixed64(q, end));
                        q += 8;
                    }
                    default -> q = skip(q, end, t);
                }
            }
            p = end;
            long ts = timestamp(time);
            if (!admit(ts, flags, 0)) {
                top = base;
                continue;
            }
            emit(suffix(0), suffixLen[0], ts, unsigned(count));
            if (hasSum) {
                emitChecked(suffix(1), suffixLen[1], ts, sum);
            }
            int range = top;
            push(constant(8, VMRANGE), VMRANGE.length, 0, 0);
            int bucketName = suffix(2);
            if (zeroCount != 0) {
                setText(range, formatVmrange(-zeroThreshold, zeroThreshold));
                emit(bucketName, suffixLen[2], ts, unsigned(zeroCount));
            }
            double ratio = Math.pow(2, -scale);
            double growth = Math.pow(2, ratio);
            if (posStart >= 0) {
                buckets(posStart, posEnd, ratio, growth, false, range, bucketName, ts);
            }
            if (negStart >= 0) {
                buckets(negStart, negEnd, ratio, growth, true, range, bucketName, ts);
            }
            top = base;
        }
    }

    /** One {@code Buckets} message ({@code sint32 offset = 1; repeated uint64 bucket_counts = 2}): a sample per non-empty bucket. */
    private void buckets(int s, int e, double ratio, double growth, boolean negative, int range, int bucketName, long ts) {
        int offset = 0;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (1 << 3)) {
                p = varint(p, e);
                offset = (int) (v >>> 1) ^ -(int) (v & 1);
            } else {
                p = skip(p, e, tag);
            }
        }
        double first = Math.pow(2, offset * ratio);
        int i = 0;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (2 << 3 | 2)) { // packed
                p = varint(p, e);
                int pe = end(p, e);
                while (p < pe) {
                    p = varint(p, pe);
                    bucket(v, i++, first, growth, negative, range, bucketName, ts);
                }
            } else if (tag == (2 << 3)) {
                p = varint(p, e);
                bucket(v, i++, first, growth, negative, range, bucketName, ts);
            } else {
                p = skip(p, e, tag);
            }
        }
    }

    private void bucket(long count, int i, double first, double growth, boolean negative, int range, int bucketName, long ts) {
        if (count == 0) {
            return;
        }
        double lower = first * Math.pow(growth, i);
        double upper = lower * growth;
        setText(range, negative ? formatVmrange(-upper, -lower) : formatVmrange(lower, upper));
        emit(bucketName, suffixLen[2], ts, unsigned(count));
    }

    private void summary(int s, int e) {
        int base = top;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) { // repeated SummaryDataPoint data_points = 1
            int end = fieldEnd;
            long time = 0;
            long count = 0;
            double sum = 0;
            int flags = 0;
            for (int q = p; q < end; ) {
                q = varint(q, end);
                int t = (int) v;
                switch (t) {
                    case 7 << 3 | 2 -> q = attribute(q, end);
                    case 3 << 3 | 1 -> {
                        time = fixed64(q, end);
                        q += 8;
                    }
                    case 4 << 3 | 1 -> {
                        count = fixed64(q, end);
                        q += 8;
                    }
                    case 5 << 3 | 1 -> {
                        sum = Double.longBitsToDouble(fixed64(q, end));
                        q += 8;
                    }
                    case 8 << 3 -> {
                        q = varint(q, end);
                        flags = (int) v;
                    }
                    default -> q = skip(q, end, t);
                }
            }
            long ts = timestamp(time);
            if (admit(ts, flags, 0)) {
                emit(suffix(0), suffixLen[0], ts, unsigned(count));
                emitChecked(suffix(1), suffixLen[1], ts, sum);
                int quantile = top;
                push(constant(9, QUANTILE), QUANTILE.length, 0, 0);
                for (int q = p; (q = next(q, end, 6 << 3 | 2)) >= 0; ) { // repeated ValueAtQuantile quantile_values = 6
                    int qe = fieldEnd;
                    double qv = 0;
                    double value = 0;
                    for (int r = q; r < qe; ) {
                        r = varint(r, qe);
                        int rt = (int) v;
                        if (rt == (1 << 3 | 1)) {
                            qv = Double.longBitsToDouble(fixed64(r, qe));
                            r += 8;
                        } else if (rt == (2 << 3 | 1)) {
                            value = Double.longBitsToDouble(fixed64(r, qe));
                            r += 8;
                        } else {
                            r = skip(r, qe, rt);
                        }
                    }
                    setText(quantile, formatFloat(qv));
                    emitChecked(metricOff, metricLen, ts, value);
                    q = qe;
                }
            }
            top = base;
            p = end;
        }
    }

    // ------------------------------------------------------------------ samples

    private long timestamp(long timeUnixNano) {
        return timeUnixNano == 0 ? kafkaTimestampMs : Long.divideUnsigned(timeUnixNano, 1_000_000L);
    }

    /** Whether a data point's samples may be written: its flags and timestamp; refusals counted. */
    private boolean admit(long ts, int flags, double value) {
        if ((flags & 1) != 0) { // DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK: a staleness marker
            rejections.add(DecodeError.NON_FINITE_VALUE, rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                    ? "'" + metricText() + "': no recorded value (a staleness marker) skipped" : "");
            return false;
        }
        if (!Double.isFinite(value)) {
            rejections.add(DecodeError.NON_FINITE_VALUE, rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                    ? "'" + metricText() + "': value " + value + " skipped" : "");
            return false;
        }
        if (ts < 0 || !timestamps.contains(ts)) {
            rejections.add(DecodeError.IMPLAUSIBLE_TIMESTAMP, rejections.wantsDetail(DecodeError.IMPLAUSIBLE_TIMESTAMP)
                    ? "'" + metricText() + "': " + window.describe(ts) : "");
            return false;
        }
        return true;
    }

    /** {@link #emit} for a value that may be NaN or infinite (a sum, a quantile): such a sample is counted, not written. */
    private void emitChecked(int nameOff, int nameLen, long ts, double value) {
        if (!Double.isFinite(value)) {
            rejections.add(DecodeError.NON_FINITE_VALUE, rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                    ? "'" + metricText() + "': value " + value + " skipped" : "");
            return;
        }
        emit(nameOff, nameLen, ts, value);
    }

    /** One point: the metric name given, every label of the stack (empty values dropped), canonical order. */
    private void emit(int nameOff, int nameLen, long ts, double value) {
        int pt = out.begin();
        out.setMetric(pt, nameOff, nameLen);
        int[] st = stack;
        for (int k = 0, n = top * 4; k < n; k += 4) {
            if (st[k + 3] > 0) {
                out.addLabel(pt, st[k], st[k + 1], st[k + 2], st[k + 3]);
            }
        }
        out.set(pt, ts, value);
        out.canonicalize(pt);
    }

    private void push(int nameOff, int nameLen, int valueOff, int valueLen) {
        if ((top + 1) * 4 > stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
        }
        int k = top++ * 4;
        stack[k] = nameOff;
        stack[k + 1] = nameLen;
        stack[k + 2] = valueOff;
        stack[k + 3] = valueLen;
    }

    /** Pushes a label whose value is {@code x} in decimal, written straight into the arena. */
    private void pushLong(int nameOff, int nameLen, long x) {
        byte[] d = digits;
        int n = d.length;
        long r = x;
        do {
            d[--n] = (byte) ('0' + Math.abs(r % 10));
            r /= 10;
        } while (r != 0);
        if (x < 0) {
            d[--n] = '-';
        }
        int len = d.length - n;
        push(nameOff, nameLen, out.copy(d, n, len), len);
    }

    private void pushText(int nameOff, int nameLen, String value) {
        int off = out.copy(value);
        push(nameOff, nameLen, off, out.lastLength());
    }

    /** Sets the value of stack entry {@code i} to {@code text} (copied into the arena). */
    private void setText(int i, String text) {
        stack[i * 4 + 2] = out.copy(text);
        stack[i * 4 + 3] = out.lastLength();
    }

    /** Sets the {@code le} entry to bound {@code i}'s text, reusing the arena copy of an equal bound of this record. */
    private void leValue(int le, int i) {
        long bits = Double.doubleToRawLongBits(bounds[i]);
        if (i < leCount && leBits[i] == bits) {
            stack[le * 4 + 2] = leOff[i];
            stack[le * 4 + 3] = leLen[i];
            return;
        }
        setText(le, formatFloat(bounds[i]));
        if (i >= leBits.length) {
            leBits = Arrays.copyOf(leBits, i * 2 + 1);
            leOff = Arrays.copyOf(leOff, i * 2 + 1);
            leLen = Arrays.copyOf(leLen, i * 2 + 1);
        }
        leBits[i] = bits;
        leOff[i] = stack[le * 4 + 2];
        leLen[i] = stack[le * 4 + 3];
        leCount = Math.max(leCount, i + 1); // each entry is checked by its bound's bits before reuse
    }

    /** The arena offset of the current metric's name + suffix k (0 {@code _count}, 1 {@code _sum}, 2 {@code _bucket}). */
    private int suffix(int k) {
        if (suffixOff[k] < 0) {
            byte[] sfx = k == 0 ? COUNT : k == 1 ? SUM : BUCKET;
            byte[] a = out.arenaForWrite(metricLen + sfx.length);
            int at = out.arenaLength();
            System.arraycopy(a, metricOff, a, at, metricLen);
            System.arraycopy(sfx, 0, a, at + metricLen, sfx.length);
            suffixLen[k] = metricLen + sfx.length;
            suffixOff[k] = out.commitArena(suffixLen[k]);
        }
        return suffixOff[k];
    }

    /** The arena offset of a constant, copied once per record. */
    private int constant(int slot, byte[] bytes) {
        if (constOff[slot] < 0) {
            constOff[slot] = out.copy(bytes, 0, bytes.length);
        }
        return constOff[slot];
    }

    private String metricText() {
        if (metricText == null) {
            metricText = metricOff < 0 ? "" : new String(out.arena(), metricOff, metricLen, StandardCharsets.UTF_8);
        }
        return metricText;
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

    /** A uint64 as the double Go's {@code float64(uint64)} gives. */
    static double unsigned(long x) {
        if (x >= 0) {
            return x;
        }
        double d = (double) ((x >>> 1) | (x & 1));
        return d * 2.0;
    }

    /**
     * Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest decimal that reads back as {@code v}, never in
     * exponent form ({@code 0.005}, {@code 10}, {@code 0.00001}); {@code +Inf}, {@code -Inf}, {@code NaN}.
     */
    static String formatFloat(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == 0) {
            return (Double.doubleToRawLongBits(d) < 0) ? "-0" : "0";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return new java.math.BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
    }

    /** VictoriaMetrics' {@code vmrange} value: both bounds as Go's {@code FormatFloat(v, 'e', 3, 64)}, joined by {@code ...}. */
    static String formatVmrange(double lower, double upper) {
        return formatE3(lower) + "..." + formatE3(upper);
    }

    private static String formatE3(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        return String.format(Locale.ROOT, "%.3e", d);
    }

    /** JSON of an {@code ArrayValue} (strings quoted, numbers and booleans bare, lists nested, key-value lists as objects). */
    private void arrayJson(int s, int e, StringBuilder json) {
        json.append('[');
        boolean first = true;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; ) {
            int end = fieldEnd;
            if (!first) {
                json.append(',');
            }
            first = false;
            anyValueJson(p, end, json);
            p = end;
        }
        json.append(']');
    }

    private void anyValueJson(int s, int e, StringBuilder json) {
        int before = json.length();
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            json.setLength(before);
            switch (tag) {
                case 1 << 3 | 2 -> {
                    p = varint(p, e);
                    int end = end(p, e);
                    utf8(p, end, "attribute value");
                    quote(new String(buf, p, end - p, StandardCharsets.UTF_8), json);
                    p = end;
                }
                case 2 << 3 -> {
                    p = varint(p, e);
                    json.append(v != 0);
                }
                case 3 << 3 -> {
                    p = varint(p, e);
                    json.append(v);
                }
                case 4 << 3 | 1 -> {
                    json.append(formatFloat(Double.longBitsToDouble(fixed64(p, e))));
                    p += 8;
                }
                case 5 << 3 | 2 -> {
                    p = varint(p, e);
                    int end = end(p, e);
                    nest();
                    arrayJson(p, end, json);
                    depth--;
                    p = end;
                }
                case 6 << 3 | 2 -> {
                    p = varint(p, e);
                    int end = end(p, e);
                    nest();
                    json.append('{');
                    boolean first = true;
                    for (int q = p; (q = next(q, end, 1 << 3 | 2)) >= 0; ) {
                        int ke = fieldEnd;
                        String key = "";
                        int valueStart = -1;
                        int valueEnd = -1;
                        for (int r = q; r < ke; ) {
                            r = varint(r, ke);
                            int rt = (int) v;
                            if (rt == (1 << 3 | 2) || rt == (2 << 3 | 2)) {
                                r = varint(r, ke);
                                int re = end(r, ke);
                                if (rt == (1 << 3 | 2)) {
                                    utf8(r, re, "attribute key");
                                    key = new String(buf, r, re - r, StandardCharsets.UTF_8);
                                } else {
                                    valueStart = r;
                                    valueEnd = re;
                                }
                                r = re;
                            } else {
                                r = skip(r, ke, rt);
                            }
                        }
                        if (!first) {
                            json.append(',');
                        }
                        first = false;
                        quote(key, json);
                        json.append(':');
                        if (valueStart < 0) {
                            json.append("null");
                        } else {
                            anyValueJson(valueStart, valueEnd, json);
                        }
                        q = ke;
                    }
                    json.append('}');
                    depth--;
                    p = end;
                }
                case 7 << 3 | 2 -> {
                    p = varint(p, e);
                    int end = end(p, e);
                    quote(Base64.getEncoder().encodeToString(Arrays.copyOfRange(buf, p, end)), json);
                    p = end;
                }
                default -> p = skip(p, e, tag);
            }
        }
        if (json.length() == before) {
            json.append("null");
        }
    }

    private static void quote(String s, StringBuilder json) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }

    // ------------------------------------------------------------------ wire format

    private void nest() {
        if (++depth > MAX_ATTRIBUTE_DEPTH) {
            throw new Malformed(DecodeError.INVALID_DATA_POINT, "an attribute value nested deeper than " + MAX_ATTRIBUTE_DEPTH + " levels");
        }
    }

    /**
     * The start of the next length-delimited field with {@code tag} in {@code [p, limit)}, other fields skipped; its end
     * in {@link #fieldEnd} (read it before the next call); -1 when there is none.
     */
    private int next(int p, int limit, int tag) {
        while (p < limit) {
            p = varint(p, limit);
            int t = (int) v;
            if (t == tag) {
                p = varint(p, limit);
                fieldEnd = end(p, limit);
                return p;
            }
            p = skip(p, limit, t);
        }
        return -1;
    }

    /** Reads a varint at {@code p} (before {@code limit}) into {@link #v}; returns the position after it. */
    private int varint(int p, int limit) {
        byte[] b = buf;
        long r = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated varint at byte " + p);
            }
            byte x = b[p++];
            r |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                v = r;
                return p;
            }
        }
        throw new Malformed(DecodeError.INVALID_PROTOBUF, "malformed varint at byte " + p);
    }

    /** The end of a length-delimited field whose length {@link #v} was just read at {@code p}. */
    private int end(int p, int limit) {
        if (v < 0 || v > limit - p) {
            throw new Malformed(DecodeError.INVALID_PROTOBUF, "a field of " + v + " bytes runs past its message at byte " + p);
        }
        return p + (int) v;
    }

    private long fixed64(int p, int limit) {
        if (limit - p < 8) {
            throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed64 at byte " + p);
        }
        byte[] b = buf;
        return (b[p] & 0xFFL) | (b[p + 1] & 0xFFL) << 8 | (b[p + 2] & 0xFFL) << 16 | (b[p + 3] & 0xFFL) << 24
                | (b[p + 4] & 0xFFL) << 32 | (b[p + 5] & 0xFFL) << 40 | (b[p + 6] & 0xFFL) << 48 | (b[p + 7] & 0xFFL) << 56;
    }

    private int skip(int p, int limit, int tag) {
        switch (tag & 7) {
            case 0 -> {
                return varint(p, limit);
            }
            case 1 -> {
                if (limit - p < 8) {
                    throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed64 at byte " + p);
                }
                return p + 8;
            }
            case 2 -> {
                p = varint(p, limit);
                return end(p, limit);
            }
            case 5 -> {
                if (limit - p < 4) {
                    throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed32 at byte " + p);
                }
                return p + 4;
            }
            default -> throw new Malformed(DecodeError.INVALID_PROTOBUF, "wire type " + (tag & 7) + " (field " + (tag >>> 3)
                    + ") is not one of OTLP's at byte " + p);
        }
    }

    private void utf8(int s, int e, String what) {
        if (!Utf8.isValid(buf, s, e)) {
            throw new Malformed(DecodeError.INVALID_UTF8, what + " is not UTF-8");
        }
    }

    /** A record that is not a well-formed request: rejected whole. No stack trace (a malformed record is not a bug). */
    private static final class Malformed extends RuntimeException {
        final DecodeError reason;

        Malformed(DecodeError reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
