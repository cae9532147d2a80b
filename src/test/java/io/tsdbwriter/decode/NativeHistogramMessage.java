package io.tsdbwriter.decode;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.xerial.snappy.Snappy;

/**
 * A {@code prometheus.Histogram} message ({@code prompb/types.proto}, remote write 1.0 and 2.0) read field by field with
 * protobuf-java, for tests; {@link #bucketsOf} expands spans and deltas to absolute bucket counts by bucket index.
 */
public record NativeHistogramMessage(
        Long countInt,
        Double countFloat,
        double sum,
        int schema,
        double zeroThreshold,
        Long zeroCountInt,
        List<int[]> negativeSpans,
        List<Long> negativeDeltas,
        List<int[]> positiveSpans,
        List<Long> positiveDeltas,
        List<Double> positiveCounts,
        int resetHint,
        long timestamp,
        List<Double> customValues) {

    /** Parses {@code b[off, off + len)}. */
    public static NativeHistogramMessage parse(byte[] b, int off, int len) {
        Long countInt = null;
        Double countFloat = null;
        double sum = 0;
        int schema = 0;
        double zt = 0;
        Long zc = null;
        List<int[]> ns = new ArrayList<>();
        List<Long> nd = new ArrayList<>();
        List<int[]> ps = new ArrayList<>();
        List<Long> pd = new ArrayList<>();
        List<Double> pc = new ArrayList<>();
        List<Double> cv = new ArrayList<>();
        int hint = 0;
        long ts = 0;
        try {
            CodedInputStream in = CodedInputStream.newInstance(b, off, len);
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                switch (tag >>> 3) {
                    case 1 -> countInt = in.readUInt64();
                    case 2 -> countFloat = in.readDouble();
                    case 3 -> sum = in.readDouble();
                    case 4 -> schema = in.readSInt32();
                    case 5 -> zt = in.readDouble();
                    case 6 -> zc = in.readUInt64();
                    case 8, 11 -> {
                        int limit = in.pushLimit(in.readRawVarint32());
                        int[] span = new int[2];
                        while (!in.isAtEnd()) {
                            int t = in.readTag();
                            if (t >>> 3 == 1) {
                                span[0] = in.readSInt32();
                            } else {
                                span[1] = in.readUInt32();
                            }
                        }
                        in.popLimit(limit);
                        (tag >>> 3 == 8 ? ns : ps).add(span);
                    }
                    case 9, 12 -> {
                        List<Long> to = tag >>> 3 == 9 ? nd : pd;
                        if ((tag & 7) == 2) {
                            int limit = in.pushLimit(in.readRawVarint32());
                            while (!in.isAtEnd()) {
                                to.add(in.readSInt64());
                            }
                            in.popLimit(limit);
                        } else {
                            to.add(in.readSInt64());
                        }
                    }
                    case 13, 16 -> {
                        List<Double> to = tag >>> 3 == 13 ? pc : cv;
                        int limit = in.pushLimit(in.readRawVarint32());
                        while (!in.isAtEnd()) {
                            to.add(in.readDouble());
                        }
                        in.popLimit(limit);
                    }
                    case 14 -> hint = in.readEnum();
                    case 15 -> ts = in.readInt64();
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new NativeHistogramMessage(countInt, countFloat, sum, schema, zt, zc, ns, nd, ps, pd, pc, hint, ts, cv);
    }

    /** The histogram of point {@code p} of {@code points} (its timestamp 0: it is the point's). */
    public static NativeHistogramMessage of(DecodedPoints points, int p) {
        PointHistograms h = points.histograms();
        int x = h.of(p);
        if (x < 0) {
            throw new AssertionError("point " + p + " has no histogram");
        }
        return parse(h.bytes(), h.offset(x), h.length(x));
    }

    /** Absolute counts by bucket index of integer spans and deltas (empty buckets included). */
    public static Map<Integer, Long> bucketsOf(List<int[]> spans, List<Long> deltas) {
        Map<Integer, Long> m = new TreeMap<>();
        int index = 0;
        int d = 0;
        long count = 0;
        for (int s = 0; s < spans.size(); s++) {
            index += spans.get(s)[0];
            for (int i = 0; i < spans.get(s)[1]; i++) {
                count += deltas.get(d++);
                m.put(index++, count);
            }
        }
        return m;
    }

    /** {@link #bucketsOf} of the positive buckets without the empty ones. */
    public Map<Integer, Long> positive() {
        Map<Integer, Long> m = bucketsOf(positiveSpans, positiveDeltas);
        m.values().removeIf(c -> c == 0);
        return m;
    }

    /** {@link #bucketsOf} of the negative buckets without the empty ones. */
    public Map<Integer, Long> negative() {
        Map<Integer, Long> m = bucketsOf(negativeSpans, negativeDeltas);
        m.values().removeIf(c -> c == 0);
        return m;
    }

    /**
     * An integer histogram message: count, sum, schema, zero threshold and count, positive spans ({offset, length} …)
     * and deltas, and a timestamp (field 15, left out when 0).
     */
    public static byte[] integer(
            long count, double sum, int schema, double zt, long zc, int[] spans, long[] deltas, long timestamp) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeUInt64(1, count);
            out.writeDouble(3, sum);
            out.writeSInt32(4, schema);
            out.writeDouble(5, zt);
            out.writeUInt64(6, zc);
            for (int i = 0; i < spans.length; i += 2) {
                ByteArrayOutputStream s = new ByteArrayOutputStream();
                CodedOutputStream so = CodedOutputStream.newInstance(s);
                so.writeSInt32(1, spans[i]);
                so.writeUInt32(2, spans[i + 1]);
                so.flush();
                out.writeByteArray(11, s.toByteArray());
            }
            for (long d : deltas) {
                out.writeSInt64(12, d); // unpacked: a reader must take both
            }
            if (timestamp != 0) {
                out.writeInt64(15, timestamp);
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A snappy-compressed WriteRequest of one series {@code up{job="j"}} with a sample and the given Histogram messages. */
    public static byte[] writeRequest(byte[]... histograms) throws IOException {
        ByteArrayOutputStream ts = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(ts);
        for (String[] l : new String[][] {{"__name__", "up"}, {"job", "j"}}) {
            ByteArrayOutputStream lb = new ByteArrayOutputStream();
            CodedOutputStream lo = CodedOutputStream.newInstance(lb);
            lo.writeString(1, l[0]);
            lo.writeString(2, l[1]);
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
        return Snappy.compress(bytes.toByteArray());
    }
}
