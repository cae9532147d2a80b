package io.tsdbwriter.encode.remotewrite;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.SeriesVariants;
import io.tsdbwriter.write.ByteBuf;
import io.tsdbwriter.write.Output;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Encodes amplified samples as Prometheus Remote-Write 1.0 (https://prometheus.io/docs/specs/remote_write_spec/):
 * the body of one request is a protobuf {@code prometheus.WriteRequest} whose {@code timeseries} (field 1) are one
 * {@code TimeSeries} per series variant and source point, carrying that point's M samples:
 * <pre>
 * message WriteRequest { repeated TimeSeries timeseries = 1; }
 * message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 * message Label        { string name = 1; string value = 2; }
 * message Sample       { double value = 1; int64 timestamp = 2; }   // timestamp: epoch milliseconds
 * </pre>
 * A repeated field's entries are concatenated on the wire, so a body is the concatenation of its points' chunks and
 * any run of whole points is a valid {@code WriteRequest} (the write path splits refused batches there). Labels are
 * sorted by name in byte order ({@code __name__} included, where that order puts it), as the specification requires;
 * the samples of a {@code TimeSeries} ascend by timestamp ({@code t + i × interval / M}). The body is compressed
 * with snappy's block format by the write path ({@link io.tsdbwriter.write.SnappyBlock}), not here.
 *
 * <p>Wire format by protobuf-java's {@link CodedOutputStream} (tags, varints, little-endian doubles), without
 * generated classes: the label part of each variant is encoded once per series ({@link #prepareSeries}) and copied
 * per point; per sample the encoder writes 2 tags, 2 lengths, 8 bytes of value and a varint timestamp through one
 * {@code CodedOutputStream} kept for the life of this encoder, which flushes into the caller's {@link ByteBuf}
 * once per point. Nothing is allocated per point or sample. At N = 1 points of JSON-safe records skip the series
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
    private static final int LEN_TAG_TIMESERIES = TIMESERIES << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int LEN_TAG_SAMPLES = TS_SAMPLES << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int LEN_TAG_LABELS = TS_LABELS << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int LEN_TAG_LABEL_NAME = LABEL_NAME << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final int LEN_TAG_LABEL_VALUE = LABEL_VALUE << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private static final String NAME_LABEL = "__name__";
    private static final byte[] NAME_BYTES = NAME_LABEL.getBytes(StandardCharsets.US_ASCII);

    private final AmplificationPlan plan;
    /** {@code plan.sampleTimestampMs(t, i) - t} for each i. */
    private final long[] offsets;
    private final Sink sink = new Sink();
    private final CodedOutputStream cos = CodedOutputStream.newInstance(sink, 8192);

    /** @param plan the amplification plan whose M and N it encodes for */
    public RemoteWriteEncoder(AmplificationPlan plan) {
        this.plan = plan;
        this.offsets = new long[plan.timeMultiplier()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = plan.sampleTimestampMs(0, i);
        }
    }

    /** A factory of per-thread encoders for {@code plan}. */
    public static SampleEncoder.Factory factory(AmplificationPlan plan) {
        return () -> new RemoteWriteEncoder(plan);
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
    public byte[] prepareSeries(String metric, String[] labelNames, String[] labelValues, int from, int to, String instanceSuffix) {
        byte[] metricBytes = metric.getBytes(StandardCharsets.UTF_8);
        return SeriesVariants.build(plan, labelNames, labelValues, from, to, instanceSuffix, (names, values, count, out) -> {
            try {
                CodedOutputStream c = CodedOutputStream.newInstance(out, 256);
                boolean nameWritten = false;
                for (int i = 0; i < count; i++) {
                    if (!nameWritten && names[i].compareTo(NAME_LABEL) > 0) {
                        writeLabel(c, NAME_BYTES, metricBytes);
                        nameWritten = true;
                    }
                    writeLabel(c, names[i].getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8));
                }
                if (!nameWritten) {
                    writeLabel(c, NAME_BYTES, metricBytes);
                }
                c.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e); // into memory: cannot happen
            }
        });
    }

    private static void writeLabel(CodedOutputStream c, byte[] name, byte[] value) throws IOException {
        writeLabel(c, name, 0, name.length, value, 0, value.length);
    }

    @Override
    public int encodePoint(byte[] series, int at, long timestampMs, double value, ByteBuf out) {
        int n = SeriesVariants.count(series, at);
        int pos = SeriesVariants.first(at);
        long[] offs = offsets;
        int m = offs.length;
        int samplesSize = 0;
        for (int i = 0; i < m; i++) {
            int inner = sampleSize(timestampMs + offs[i]);
            samplesSize += 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
        }
        sink.target = out;
        try {
            CodedOutputStream c = cos;
            for (int j = 0; j < n; j++) {
                int len = SeriesVariants.length(series, pos);
                c.writeUInt32NoTag(LEN_TAG_TIMESERIES);
                c.writeUInt32NoTag(len + samplesSize);
                c.writeRawBytes(series, pos + 4, len);
                pos = SeriesVariants.next(series, pos);
                for (int i = 0; i < m; i++) {
                    long t = timestampMs + offs[i];
                    c.writeUInt32NoTag(LEN_TAG_SAMPLES);
                    c.writeUInt32NoTag(sampleSize(t));
                    c.writeDouble(SAMPLE_VALUE, value);
                    c.writeInt64(SAMPLE_TIMESTAMP, t);
                }
            }
            c.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory: cannot happen
        } finally {
            sink.target = null;
        }
        return m * n;
    }

    /** Bytes of one {@code Sample} message with both fields present. */
    private static int sampleSize(long timestampMs) {
        return 1 + 8 + 1 + CodedOutputStream.computeInt64SizeNoTag(timestampMs);
    }

    /** At N = 1, points of a JSON-safe record (raw UTF-8 in the arena) are encoded straight from it. */
    @Override
    public boolean canEncodeVerbatim(DecodedPoints points) {
        return plan.instanceMultiplier() == 1 && points.jsonSafe();
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
        long[] offs = offsets;
        int m = offs.length;
        int samplesSize = 0;
        for (int i = 0; i < m; i++) {
            int inner = sampleSize(timestampMs + offs[i]);
            samplesSize += 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
        }
        sink.target = out;
        try {
            CodedOutputStream c = cos;
            c.writeUInt32NoTag(LEN_TAG_TIMESERIES);
            c.writeUInt32NoTag(labelsSize + samplesSize);
            boolean nameWritten = false;
            for (int i = from; i < to; i++) {
                if (!nameWritten && points.compareName(i, NAME_BYTES) > 0) {
                    writeLabel(c, NAME_BYTES, 0, NAME_BYTES.length, a, points.metricOffset(p), metricLength);
                    nameWritten = true;
                }
                writeLabel(c, a, points.nameOffset(i), points.nameLength(i), a, points.valueOffset(i), points.valueLength(i));
            }
            if (!nameWritten) {
                writeLabel(c, NAME_BYTES, 0, NAME_BYTES.length, a, points.metricOffset(p), metricLength);
            }
            for (int i = 0; i < m; i++) {
                long t = timestampMs + offs[i];
                c.writeUInt32NoTag(LEN_TAG_SAMPLES);
                c.writeUInt32NoTag(sampleSize(t));
                c.writeDouble(SAMPLE_VALUE, value);
                c.writeInt64(SAMPLE_TIMESTAMP, t);
            }
            c.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // into memory: cannot happen
        } finally {
            sink.target = null;
        }
        return m;
    }

    /** Bytes of one {@code TimeSeries.labels} entry: its tag, its length and the {@code Label} message. */
    private static int labelEntrySize(int nameLength, int valueLength) {
        int inner = 1 + CodedOutputStream.computeUInt32SizeNoTag(nameLength) + nameLength
                + 1 + CodedOutputStream.computeUInt32SizeNoTag(valueLength) + valueLength;
        return 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
    }

    private static void writeLabel(CodedOutputStream c, byte[] name, int nameOffset, int nameLength,
                                   byte[] value, int valueOffset, int valueLength) throws IOException {
        int inner = 1 + CodedOutputStream.computeUInt32SizeNoTag(nameLength) + nameLength
                + 1 + CodedOutputStream.computeUInt32SizeNoTag(valueLength) + valueLength;
        c.writeUInt32NoTag(LEN_TAG_LABELS);
        c.writeUInt32NoTag(inner);
        c.writeUInt32NoTag(LEN_TAG_LABEL_NAME);
        c.writeUInt32NoTag(nameLength);
        c.writeRawBytes(name, nameOffset, nameLength);
        c.writeUInt32NoTag(LEN_TAG_LABEL_VALUE);
        c.writeUInt32NoTag(valueLength);
        c.writeRawBytes(value, valueOffset, valueLength);
    }

    /** The OutputStream the CodedOutputStream flushes into: the current point's body. */
    private static final class Sink extends OutputStream {
        ByteBuf target;

        @Override
        public void write(int b) {
            target.put((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            target.put(b, off, len);
        }
    }
}
