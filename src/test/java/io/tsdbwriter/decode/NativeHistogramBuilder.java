package io.tsdbwriter.decode;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code prometheus.Histogram} message ({@code prompb/types.proto}) written field by field in field order, packed
 * repeated fields, for tests; {@link #series} wraps histograms into a {@code TimeSeries} entry of a {@code WriteRequest}.
 */
public final class NativeHistogramBuilder {

    private Long countInt;
    private Double countFloat;
    private double sum;
    private int schema;
    private double zeroThreshold;
    private Long zeroCountInt;
    private Double zeroCountFloat;
    private final List<int[]> negativeSpans = new ArrayList<>();
    private long[] negativeDeltas = {};
    private double[] negativeCounts = {};
    private final List<int[]> positiveSpans = new ArrayList<>();
    private long[] positiveDeltas = {};
    private double[] positiveCounts = {};
    private long timestamp;
    private double[] customValues = {};

    public NativeHistogramBuilder countInt(long v) {
        countInt = v;
        return this;
    }

    public NativeHistogramBuilder countFloat(double v) {
        countFloat = v;
        return this;
    }

    public NativeHistogramBuilder sum(double v) {
        sum = v;
        return this;
    }

    public NativeHistogramBuilder schema(int v) {
        schema = v;
        return this;
    }

    public NativeHistogramBuilder zeroThreshold(double v) {
        zeroThreshold = v;
        return this;
    }

    public NativeHistogramBuilder zeroCountInt(long v) {
        zeroCountInt = v;
        return this;
    }

    public NativeHistogramBuilder zeroCountFloat(double v) {
        zeroCountFloat = v;
        return this;
    }

    public NativeHistogramBuilder negativeSpan(int offset, int length) {
        negativeSpans.add(new int[] {offset, length});
        return this;
    }

    public NativeHistogramBuilder negativeDeltas(long... v) {
        negativeDeltas = v;
        return this;
    }

    public NativeHistogramBuilder negativeCounts(double... v) {
        negativeCounts = v;
        return this;
    }

    public NativeHistogramBuilder positiveSpan(int offset, int length) {
        positiveSpans.add(new int[] {offset, length});
        return this;
    }

    public NativeHistogramBuilder positiveDeltas(long... v) {
        positiveDeltas = v;
        return this;
    }

    public NativeHistogramBuilder positiveCounts(double... v) {
        positiveCounts = v;
        return this;
    }

    public NativeHistogramBuilder timestamp(long v) {
        timestamp = v;
        return this;
    }

    public NativeHistogramBuilder customValues(double... v) {
        customValues = v;
        return this;
    }

    public byte[] bytes() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(b);
        if (countInt != null) {
            out.writeUInt64(1, countInt);
        }
        if (countFloat != null) {
            out.writeDouble(2, countFloat);
        }
        out.writeDouble(3, sum);
        out.writeSInt32(4, schema);
        out.writeDouble(5, zeroThreshold);
        if (zeroCountInt != null) {
            out.writeUInt64(6, zeroCountInt);
        }
        if (zeroCountFloat != null) {
            out.writeDouble(7, zeroCountFloat);
        }
        spans(out, 8, negativeSpans);
        packedSint64(out, 9, negativeDeltas);
        packedDouble(out, 10, negativeCounts);
        spans(out, 11, positiveSpans);
        packedSint64(out, 12, positiveDeltas);
        packedDouble(out, 13, positiveCounts);
        out.writeInt64(15, timestamp);
        packedDouble(out, 16, customValues);
        out.flush();
        return b.toByteArray();
    }

    private static void spans(CodedOutputStream out, int field, List<int[]> spans) throws IOException {
        for (int[] s : spans) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            CodedOutputStream so = CodedOutputStream.newInstance(b);
            so.writeSInt32(1, s[0]);
            so.writeUInt32(2, s[1]);
            so.flush();
            out.writeByteArray(field, b.toByteArray());
        }
    }

    private static void packedSint64(CodedOutputStream out, int field, long[] v) throws IOException {
        if (v.length == 0) {
            return;
        }
        int size = 0;
        for (long x : v) {
            size += CodedOutputStream.computeSInt64SizeNoTag(x);
        }
        out.writeTag(field, 2);
        out.writeUInt32NoTag(size);
        for (long x : v) {
            out.writeSInt64NoTag(x);
        }
    }

    private static void packedDouble(CodedOutputStream out, int field, double[] v) throws IOException {
        if (v.length == 0) {
            return;
        }
        out.writeTag(field, 2);
        out.writeUInt32NoTag(v.length * 8);
        for (double x : v) {
            out.writeDoubleNoTag(x);
        }
    }

    /**
     * A {@code WriteRequest}'s {@code timeseries} entry (field 1) of labels {@code name, value, …} and the given
     * {@code Histogram} messages; entries concatenated are a {@code WriteRequest} (uncompressed).
     */
    public static byte[] series(String[] labels, byte[]... histograms) throws IOException {
        ByteArrayOutputStream ts = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(ts);
        for (int i = 0; i < labels.length; i += 2) {
            ByteArrayOutputStream lb = new ByteArrayOutputStream();
            CodedOutputStream lo = CodedOutputStream.newInstance(lb);
            lo.writeString(1, labels[i]);
            lo.writeString(2, labels[i + 1]);
            lo.flush();
            t.writeByteArray(1, lb.toByteArray());
        }
        for (byte[] h : histograms) {
            t.writeByteArray(4, h);
        }
        t.flush();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(1, ts.toByteArray());
        out.flush();
        return bytes.toByteArray();
    }
}
