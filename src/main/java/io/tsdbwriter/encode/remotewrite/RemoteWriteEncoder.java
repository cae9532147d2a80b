package io.tsdbwriter.encode.remotewrite;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesVariants;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.FamilyMetadata;
import io.tsdbwriter.decode.PointExemplars;
import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes amplified samples as Prometheus Remote-Write 1.0 (https://prometheus.io/docs/specs/remote_write_spec/):
 * the body of one request is a protobuf {@code prometheus.WriteRequest} whose {@code timeseries} (field 1) are one
 * {@code TimeSeries} per series variant and source point, carrying that point's M samples:
 * <pre>
 * message WriteRequest { repeated TimeSeries timeseries = 1; repeated MetricMetadata metadata = 3; }
 * message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 * message Label        { string name = 1; string value = 2; }
 * message Sample       { double value = 1; int64 timestamp = 2; }   // timestamp: epoch milliseconds
 * </pre>
 * A repeated field's entries are concatenated on the wire, so a body is the concatenation of its points' chunks and
 * any run of whole points is a valid {@code WriteRequest} (the write path splits refused batches there). Labels are
 * sorted by name in byte order ({@code __name__} included, where that order puts it), as the specification requires;
 * the samples of a {@code TimeSeries} ascend by timestamp ({@code t + i × interval / M}). The body is compressed
 * with snappy's block format by the write path ({@link io.tsdbwriter.write.SnappyBlock}), not here. A series whose
 * family the record declares ({@code # TYPE}, {@code # HELP}, {@code # UNIT}; {@link FamilyMetadata}) brings the
 * family's {@code metadata} entry ({@link MetricMetadata}) into the chunk of its first point in a body, once per
 * family per request ({@link RequestFamilies}); the 2.0 request gives it to each series of the family
 * ({@link RemoteWrite2Request#fromV1}). A refused body split in two keeps the entry in the half holding that point.
 * A point's exemplars ({@link io.tsdbwriter.decode.PointExemplars}, told by {@link #point}; one, or several for an
 * OTLP histogram point) are {@code TimeSeries.exemplars} entries (field 3) in each variant's {@code TimeSeries}, in
 * their order, at their own timestamps. A point with
 * a native histogram ({@link PointHistograms}, told by {@link #point}) carries it instead of samples: M
 * {@code TimeSeries.histograms} entries (field 4, {@code prometheus.Histogram}), the histogram's fields as decoded and
 * the timestamp of each time copy; it counts as one sample per copy.
 *
 * <p>Start timestamps ({@link DecodedPoints#startTimestampMs}): an encoder made for a body that becomes a remote write
 * 2.0 request ({@link #RemoteWriteEncoder(AmplificationPlan, boolean)}, {@link RemoteWrite2Request#fromV1}) writes a
 * point's as {@code Sample.start_timestamp} (field 3) of each of its samples and {@code Histogram.start_timestamp}
 * (field 17) of each histogram copy (Prometheus remote write 2.0 types.proto), the same for all M time copies and N
 * variants (one counter run), left out when 0 or not earlier than the copy's timestamp. 1.0 has no such field: an
 * encoder for a 1.0 request writes none.
 *
 * <p>Wire format without generated classes (protobuf-java's {@link CodedOutputStream} only sizes varints): the label
 * part of each variant is encoded once per series ({@link #prepareSeries}) and copied per point. A point's M
 * {@code samples} entries (per sample 2 tags, 2 lengths, 8 bytes of value little-endian and a varint timestamp) are
 * written once into a scratch array and copied after each variant's labels, straight into the caller's
 * {@link ByteBuf} after one capacity check per point (the CodedOutputStream this replaced flushed through an
 * {@code OutputStream} per point; the hot path is 19 % faster in JMH, docs/benchmarks-archive.md §15f). Nothing is
 * allocated per point or sample. At N = 1 points of JSON-safe records skip the series
 * cache: their labels are copied straight from the decoded record ({@link #encodePointVerbatim}), as the import
 * encoder does.
 *
 * <p>Not thread-safe: one instance per consuming thread ({@link #factory}); prepared series may be shared.
 */
public final class RemoteWriteEncoder implements SampleEncoder {

    static final int TIMESERIES = 1;
    static final int TS_LABELS = 1;
    static final int TS_SAMPLES = 2;
    static final int LABEL_NAME = 1;
    static final int LABEL_VALUE = 2;
    static final int SAMPLE_VALUE = 1;
    static final int SAMPLE_TIMESTAMP = 2;
    private static final byte LEN_TAG_TIMESERIES = (byte) (TIMESERIES << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte LEN_TAG_SAMPLES = (byte) (TS_SAMPLES << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte LEN_TAG_LABELS = (byte) (TS_LABELS << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte LEN_TAG_LABEL_NAME = (byte) (LABEL_NAME << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte LEN_TAG_LABEL_VALUE = (byte) (LABEL_VALUE << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte TAG_SAMPLE_VALUE = SAMPLE_VALUE << 3 | WireFormat.WIRETYPE_FIXED64;
    private static final byte TAG_SAMPLE_TIMESTAMP = SAMPLE_TIMESTAMP << 3 | WireFormat.WIRETYPE_VARINT;
    /** {@code Sample.start_timestamp = 3} of remote write 2.0. */
    static final int SAMPLE_START_TIMESTAMP = 3;

    private static final byte TAG_SAMPLE_START_TIMESTAMP = SAMPLE_START_TIMESTAMP << 3 | WireFormat.WIRETYPE_VARINT;
    static final int TS_EXEMPLARS = 3;
    private static final byte LEN_TAG_EXEMPLARS = (byte) (TS_EXEMPLARS << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte TAG_EXEMPLAR_VALUE = 2 << 3 | WireFormat.WIRETYPE_FIXED64;
    private static final byte TAG_EXEMPLAR_TIMESTAMP = 3 << 3 | WireFormat.WIRETYPE_VARINT;
    static final int TS_HISTOGRAMS = 4;
    private static final byte LEN_TAG_HISTOGRAMS = (byte) (TS_HISTOGRAMS << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final byte TAG_HISTOGRAM_TIMESTAMP = PointHistograms.TIMESTAMP << 3 | WireFormat.WIRETYPE_VARINT;
    /** Bytes of one samples entry at most: tag, length (1 byte: the message is at most 20), value 1 + 8, timestamp 1 + 10. */
    private static final int MAX_SAMPLE_ENTRY = 1 + 1 + 9 + 11;
    /** The same with a start timestamp (1 + 10 more; the message is at most 31 bytes, its length still 1 byte). */
    private static final int MAX_SAMPLE_ENTRY_WITH_START = MAX_SAMPLE_ENTRY + 11;
    /** {@code Histogram.start_timestamp}'s tag: field 17, varint (two bytes). */
    private static final int TAG_HISTOGRAM_START_TIMESTAMP =
            PointHistograms.START_TIMESTAMP << 3 | WireFormat.WIRETYPE_VARINT;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final String NAME_LABEL = "__name__";
    private static final byte[] NAME_BYTES = NAME_LABEL.getBytes(StandardCharsets.US_ASCII);

    private final AmplificationPlan plan;
    /** The families each open request body already carries a metadata entry for. */
    private final RequestFamilies requestFamilies = new RequestFamilies();
    /** The exemplars of the point {@link #encodePoint} encodes next ({@link #point}), and its exemplar (-1: none). */
    private PointExemplars exemplars;

    private int exemplar = -1;

    /** How many exemplars that point has, from {@link #exemplar} on. */
    private int exemplarCount;
    /** The native histograms of the point {@link #encodePoint} encodes next ({@link #point}), and its histogram (-1: none). */
    private PointHistograms histograms;

    private int histogram = -1;
    /** Whether start timestamps are written (the body becomes a 2.0 request). */
    private final boolean startTimestamps;
    /** The start timestamp of the point {@link #encodePoint} encodes next ({@link #point}), 0 for none. */
    private long start;
    /** {@code plan.sampleTimestampMs(t, i) - t} for each i. */
    private final long[] offsets;
    /** The current point's M samples as {@code TimeSeries.samples} entries ({@link #samplesBlock}); grown once. */
    private byte[] samples = new byte[0];

    /** An encoder of 1.0 bodies sent as they are (no start timestamps). @param plan the plan whose M and N it encodes for */
    public RemoteWriteEncoder(AmplificationPlan plan) {
        this(plan, false);
    }

    /**
     * @param plan            the amplification plan whose M and N it encodes for
     * @param startTimestamps whether points' start timestamps are written: true only for bodies that become remote
     *                        write 2.0 requests ({@link RemoteWrite2Request#fromV1})
     */
    public RemoteWriteEncoder(AmplificationPlan plan, boolean startTimestamps) {
        this.plan = plan;
        this.startTimestamps = startTimestamps;
        this.offsets = new long[plan.timeMultiplier()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = plan.sampleTimestampMs(0, i);
        }
    }

    /** A factory of per-thread encoders for {@code plan} of 1.0 bodies sent as they are (no start timestamps). */
    public static SampleEncoder.Factory factory(AmplificationPlan plan) {
        return factory(plan, false);
    }

    /**
     * A factory of per-thread encoders for {@code plan}.
     *
     * @param startTimestamps whether they write start timestamps: true for bodies that become 2.0 requests
     */
    public static SampleEncoder.Factory factory(AmplificationPlan plan, boolean startTimestamps) {
        return () -> new RemoteWriteEncoder(plan, startTimestamps);
    }

    @Override
    public Output output() {
        return Output.REMOTE_WRITE;
    }

    @Override
    public AmplificationPlan plan() {
        return plan;
    }

    /**
     * The N variants' {@code TimeSeries.labels} entries (each a {@code Label} message under field 1), labels sorted
     * by name in byte order; layout as {@link SampleEncoder#prepareSeries}. Called once per series.
     */
    @Override
    public byte[] prepareSeries(
            String metric, String[] labelNames, String[] labelValues, int from, int to, String instanceSuffix) {
        return prepareSeries(metric, labelNames, labelValues, from, to, instanceSuffix, null);
    }

    /**
     * {@link #prepareSeries(String, String[], String[], int, int, String)}, and the series' family metadata: the family
     * of {@code metric} in {@code families} ({@link FamilyMetadata#find}: its own name or an OpenMetrics suffix of it)
     * is registered ({@link MetadataRegistry#SHARED}) and its id (0: none) kept after the variants, 4 bytes big-endian,
     * where {@link #encodePoint} reads it. Called once per series.
     *
     * @param families the record's families, or null for none
     */
    @Override
    public byte[] prepareSeries(
            String metric,
            String[] labelNames,
            String[] labelValues,
            int from,
            int to,
            String instanceSuffix,
            FamilyMetadata families) {
        byte[] metricBytes = metric.getBytes(StandardCharsets.UTF_8);
        int k = families == null ? -1 : families.find(metricBytes, 0, metricBytes.length);
        int id = k < 0 ? 0 : MetadataRegistry.SHARED.id(MetricMetadata.of(families, k));
        byte[] variants = variants(metric, metricBytes, labelNames, labelValues, from, to, instanceSuffix);
        byte[] layout = Arrays.copyOf(variants, variants.length + 4);
        for (int i = 0; i < 4; i++) {
            layout[variants.length + i] = (byte) (id >>> (24 - 8 * i));
        }
        return layout;
    }

    private byte[] variants(
            String metric,
            byte[] metricBytes,
            String[] labelNames,
            String[] labelValues,
            int from,
            int to,
            String instanceSuffix) {
        return SeriesVariants.build(
                plan, labelNames, labelValues, from, to, instanceSuffix, (names, values, count, out) -> {
                    boolean nameWritten = false;
                    for (int i = 0; i < count; i++) {
                        if (!nameWritten && names[i].compareTo(NAME_LABEL) > 0) {
                            out.writeBytes(labelEntry(NAME_BYTES, metricBytes));
                            nameWritten = true;
                        }
                        out.writeBytes(labelEntry(
                                names[i].getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8)));
                    }
                    if (!nameWritten) {
                        out.writeBytes(labelEntry(NAME_BYTES, metricBytes));
                    }
                });
    }

    /** One {@code TimeSeries.labels} entry (its tag, its length and the {@code Label} message), once per series. */
    private static byte[] labelEntry(byte[] name, byte[] value) {
        byte[] entry = new byte[labelEntrySize(name.length, value.length)];
        putLabel(entry, 0, name, 0, name.length, value, 0, value.length);
        return entry;
    }

    @Override
    public void point(DecodedPoints points, int p) {
        exemplars = points.exemplars();
        exemplar = exemplars.of(p);
        exemplarCount = exemplars.countOf(p);
        histograms = points.histograms();
        histogram = histograms.of(p);
        start = startTimestamps ? points.startTimestampMs(p) : 0;
    }

    @Override
    public int encodePoint(byte[] series, int at, long timestampMs, double value, ByteBuf out) {
        int n = SeriesVariants.count(series, at);
        int h = histogram;
        histogram = -1;
        long st = start;
        start = 0;
        int samplesSize = h < 0
                ? samplesBlock(timestampMs, value, st) // the M samples, the same bytes for each variant
                : histogramBlock(h, timestampMs, st); // or the M copies of a native histogram
        int x = exemplar;
        int xs = exemplarCount;
        exemplar = -1;
        exemplarCount = 0;
        for (int i = 0; x >= 0 && i < xs; i++) { // and the exemplars, once per variant (design §6)
            samplesSize += exemplarEntry(x + i, samplesSize);
        }
        byte[] blk = samples;
        int total = 0;
        int pos = SeriesVariants.first(at);
        for (int j = 0; j < n; j++) {
            int inner = SeriesVariants.length(series, pos) + samplesSize;
            total += 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
            pos = SeriesVariants.next(series, pos);
        }
        int id = (series[pos] & 0xFF) << 24
                | (series[pos + 1] & 0xFF) << 16
                | (series[pos + 2] & 0xFF) << 8
                | (series[pos + 3] & 0xFF);
        MetricMetadata md = id != 0 && requestFamilies.firstIn(out, id) ? MetadataRegistry.SHARED.get(id) : null;
        byte[] a = out.reserve(total + (md == null ? 0 : md.v1Size()));
        int w = out.length();
        if (md != null) { // the family's WriteRequest.metadata entry, once per request, with its first point
            w = md.putV1(a, w);
        }
        pos = SeriesVariants.first(at);
        for (int j = 0; j < n; j++) {
            int len = SeriesVariants.length(series, pos);
            a[w++] = LEN_TAG_TIMESERIES;
            w = putVarint(a, w, len + samplesSize);
            System.arraycopy(series, pos + 4, a, w, len);
            w += len;
            System.arraycopy(blk, 0, a, w, samplesSize);
            w += samplesSize;
            pos = SeriesVariants.next(series, pos);
        }
        out.advance(w - out.length());
        return offsets.length * n;
    }

    /**
     * Writes the point's M {@code TimeSeries.samples} entries into {@link #samples} and returns their length: per sample
     * its tag, its length, {@code value} (tag + 8 bytes little-endian) and the timestamp (tag + varint); with a start
     * timestamp ({@code startMs} not 0) {@link #samplesBlockWithStart}.
     */
    private int samplesBlock(long timestampMs, double value, long startMs) {
        if (startMs != 0) {
            return samplesBlockWithStart(timestampMs, value, startMs);
        }
        long[] offs = offsets;
        int m = offs.length;
        long bits = Double.doubleToRawLongBits(value);
        byte[] b = samples;
        if (b.length < m * MAX_SAMPLE_ENTRY) {
            b = samples = new byte[m * MAX_SAMPLE_ENTRY];
        }
        int q = 0;
        for (int i = 0; i < m; i++) {
            long t = timestampMs + offs[i];
            b[q++] = LEN_TAG_SAMPLES;
            q = putVarint(b, q, sampleSize(t));
            b[q++] = TAG_SAMPLE_VALUE;
            LONG_LE.set(b, q, bits);
            q += 8;
            b[q++] = TAG_SAMPLE_TIMESTAMP;
            q = putVarint(b, q, t);
        }
        return q;
    }

    /**
     * {@link #samplesBlock} of a point with a start timestamp: each {@code Sample} also carries
     * {@code start_timestamp} (field 3) when it is earlier than the sample's timestamp.
     */
    private int samplesBlockWithStart(long timestampMs, double value, long startMs) {
        long[] offs = offsets;
        int m = offs.length;
        long bits = Double.doubleToRawLongBits(value);
        byte[] b = samples;
        if (b.length < m * MAX_SAMPLE_ENTRY_WITH_START) {
            b = samples = new byte[m * MAX_SAMPLE_ENTRY_WITH_START];
        }
        int q = 0;
        for (int i = 0; i < m; i++) {
            long t = timestampMs + offs[i];
            boolean withStart = startMs < t;
            b[q++] = LEN_TAG_SAMPLES;
            q = putVarint(b, q, sampleSize(t) + (withStart ? 1 + CodedOutputStream.computeInt64SizeNoTag(startMs) : 0));
            b[q++] = TAG_SAMPLE_VALUE;
            LONG_LE.set(b, q, bits);
            q += 8;
            b[q++] = TAG_SAMPLE_TIMESTAMP;
            q = putVarint(b, q, t);
            if (withStart) {
                b[q++] = TAG_SAMPLE_START_TIMESTAMP;
                q = putVarint(b, q, startMs);
            }
        }
        return q;
    }

    /**
     * Writes the point's native histogram {@code h} as M {@code TimeSeries.histograms} entries (field 4) into
     * {@link #samples} and returns their length: per time copy the histogram's fields ({@link PointHistograms}), its
     * timestamp (field 15, {@code t + i × interval / M}) and, when {@code startMs} is not 0 and earlier than that, its
     * start timestamp (field 17).
     */
    private int histogramBlock(int h, long timestampMs, long startMs) {
        PointHistograms hs = histograms;
        byte[] src = hs.bytes();
        int off = hs.offset(h);
        int len = hs.length(h);
        long[] offs = offsets;
        int m = offs.length;
        int most = m * (len + 1 + 5 + 1 + 10 + 2 + 10);
        if (samples.length < most) {
            samples = new byte[most];
        }
        byte[] b = samples;
        int q = 0;
        for (int i = 0; i < m; i++) {
            long t = timestampMs + offs[i];
            boolean withStart = startMs != 0 && startMs < t;
            b[q++] = LEN_TAG_HISTOGRAMS;
            q = putVarint(
                    b,
                    q,
                    len
                            + 1
                            + CodedOutputStream.computeInt64SizeNoTag(t)
                            + (withStart ? 2 + CodedOutputStream.computeInt64SizeNoTag(startMs) : 0));
            System.arraycopy(src, off, b, q, len);
            q += len;
            b[q++] = TAG_HISTOGRAM_TIMESTAMP;
            q = putVarint(b, q, t);
            if (withStart) {
                q = putVarint(b, q, TAG_HISTOGRAM_START_TIMESTAMP);
                q = putVarint(b, q, startMs);
            }
        }
        return q;
    }

    /**
     * Appends point's exemplar {@code x} to {@link #samples} at {@code at} as a {@code TimeSeries.exemplars} entry
     * (field 3; {@code Exemplar { repeated Label labels = 1; double value = 2; int64 timestamp = 3; }}); returns its
     * length. Its timestamp is its own: it goes with the time copy at the original timestamp (i = 0), no other.
     */
    private int exemplarEntry(int x, int at) {
        PointExemplars e = exemplars;
        byte[] src = e.bytes();
        int from = e.labelsStart(x);
        int to = e.labelsEnd(x);
        long t = e.timestampMs(x);
        int inner = 1 + 8 + 1 + CodedOutputStream.computeInt64SizeNoTag(t);
        for (int l = from; l < to; l++) {
            inner += labelEntrySize(e.nameLength(l), e.valueLength(l));
        }
        int size = 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
        if (samples.length < at + size) {
            samples = Arrays.copyOf(samples, Math.max(samples.length * 2, at + size));
        }
        byte[] b = samples;
        int q = at;
        b[q++] = LEN_TAG_EXEMPLARS;
        q = putVarint(b, q, inner);
        for (int l = from; l < to; l++) {
            q = putLabel(b, q, src, e.nameOffset(l), e.nameLength(l), src, e.valueOffset(l), e.valueLength(l));
        }
        b[q++] = TAG_EXEMPLAR_VALUE;
        LONG_LE.set(b, q, Double.doubleToRawLongBits(e.value(x)));
        q += 8;
        b[q++] = TAG_EXEMPLAR_TIMESTAMP;
        q = putVarint(b, q, t);
        return q - at;
    }

    /** Writes {@code v} as a base-128 varint at {@code a[w]} (a negative int64 takes 10 bytes); returns the next index. */
    static int putVarint(byte[] a, int w, long v) {
        while ((v & ~0x7FL) != 0) {
            a[w++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        a[w++] = (byte) v;
        return w;
    }

    /** Bytes of one {@code Sample} message with both fields present. */
    private static int sampleSize(long timestampMs) {
        return 1 + 8 + 1 + CodedOutputStream.computeInt64SizeNoTag(timestampMs);
    }

    /**
     * At N = 1, points of a JSON-safe record (raw UTF-8 in the arena) are encoded straight from it — unless the record
     * declares families (TYPE, HELP, UNIT), exemplars or native histograms: their metadata is kept per series in the
     * series cache, and exemplars and histograms are written by {@link #encodePoint}, so those points go through it.
     */
    @Override
    public boolean canEncodeVerbatim(DecodedPoints points) {
        return plan.instanceMultiplier() == 1
                && points.jsonSafe()
                && points.families().count() == 0
                && points.exemplars().count() == 0
                && points.histograms().count() == 0;
    }

    /**
     * At N = 1, encodes point {@code p}'s {@code TimeSeries} with its labels copied from the decoded record (no series
     * lookup): the record's labels are sorted by name in byte order already and copied as they are (no instance label
     * is added at N = 1, DESIGN §3); {@code __name__} is merged in where that order puts it. Two passes over the labels: sizes
     * (the message is length-prefixed), then bytes. Allocates nothing.
     */
    @Override
    public int encodePointVerbatim(DecodedPoints points, int p, ByteBuf out) {
        if (!canEncodeVerbatim(points)) {
            throw new IllegalStateException("verbatim encoding needs N = 1 and a JSON-safe record");
        }
        byte[] a = points.arena();
        int from = points.labelStart(p);
        int to = points.labelEnd(p);
        int metricLength = points.metricLength(p);
        int labelsSize = labelEntrySize(NAME_BYTES.length, metricLength);
        for (int i = from; i < to; i++) {
            labelsSize += labelEntrySize(points.nameLength(i), points.valueLength(i));
        }
        long timestampMs = points.timestampMs(p);
        double value = points.value(p);
        int m = offsets.length;
        int samplesSize = samplesBlock(timestampMs, value, startTimestamps ? points.startTimestampMs(p) : 0);
        start = 0;
        int inner = labelsSize + samplesSize;
        byte[] out2 = out.reserve(1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner);
        int w = out.length();
        out2[w++] = LEN_TAG_TIMESERIES;
        w = putVarint(out2, w, inner);
        boolean nameWritten = false;
        for (int i = from; i < to; i++) {
            if (!nameWritten && points.compareName(i, NAME_BYTES) > 0) {
                w = putLabel(out2, w, NAME_BYTES, 0, NAME_BYTES.length, a, points.metricOffset(p), metricLength);
                nameWritten = true;
            }
            w = putLabel(
                    out2,
                    w,
                    a,
                    points.nameOffset(i),
                    points.nameLength(i),
                    a,
                    points.valueOffset(i),
                    points.valueLength(i));
        }
        if (!nameWritten) {
            w = putLabel(out2, w, NAME_BYTES, 0, NAME_BYTES.length, a, points.metricOffset(p), metricLength);
        }
        System.arraycopy(samples, 0, out2, w, samplesSize);
        w += samplesSize;
        out.advance(w - out.length());
        return m;
    }

    /** Bytes of one {@code TimeSeries.labels} entry: its tag, its length and the {@code Label} message. */
    private static int labelEntrySize(int nameLength, int valueLength) {
        int inner = labelSize(nameLength, valueLength);
        return 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
    }

    /** Bytes of one {@code Label} message with both fields present. */
    private static int labelSize(int nameLength, int valueLength) {
        return 1
                + CodedOutputStream.computeUInt32SizeNoTag(nameLength)
                + nameLength
                + 1
                + CodedOutputStream.computeUInt32SizeNoTag(valueLength)
                + valueLength;
    }

    /** Writes one {@code TimeSeries.labels} entry at {@code a[w]}; returns the next index. */
    private static int putLabel(
            byte[] a,
            int w,
            byte[] name,
            int nameOffset,
            int nameLength,
            byte[] value,
            int valueOffset,
            int valueLength) {
        a[w++] = LEN_TAG_LABELS;
        w = putVarint(a, w, labelSize(nameLength, valueLength));
        a[w++] = LEN_TAG_LABEL_NAME;
        w = putVarint(a, w, nameLength);
        System.arraycopy(name, nameOffset, a, w, nameLength);
        w += nameLength;
        a[w++] = LEN_TAG_LABEL_VALUE;
        w = putVarint(a, w, valueLength);
        System.arraycopy(value, valueOffset, a, w, valueLength);
        return w + valueLength;
    }
}
