package io.tsdbwriter.encode.remotewrite;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.tsdbwriter.wire.ByteBuf;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntBinaryOperator;

/**
 * The exemplars of a 1.0 body's series as 2.0 writes them ({@link RemoteWrite2Request#fromV1}): a 1.0
 * {@code TimeSeries.exemplars} entry (field 3, {@code Exemplar { repeated Label labels = 1; double value = 2; int64
 * timestamp = 3; }}) becomes a 2.0 {@code TimeSeries.exemplars} entry (field 4, {@code Exemplar { repeated uint32
 * labels_refs = 1; double value = 2; int64 timestamp = 3; }}; 2.0 specification "Exemplars"), its label names and
 * values interned in the request's symbol table like the series' labels. The value's 8 bytes are copied as they are.
 *
 * <p>One per request being built; not thread-safe.
 */
final class V2Exemplars {

    private static final int V1_LABEL = 1 << 3 | 2;
    private static final int V1_VALUE = 2 << 3 | 1;
    private static final int V1_TIMESTAMP = 3 << 3;
    private static final int LABEL_NAME = 1 << 3 | 2;
    private static final int LABEL_VALUE = 2 << 3 | 2;
    private static final byte V2_EXEMPLARS = 4 << 3 | 2;

    /** Per series k: the end of its exemplars (index into the per-exemplar arrays); set by {@link #endSeries}. */
    private int[] seriesEnd = new int[64];
    /** Per exemplar: first ref, end ref (into {@link #refs}), offset of the value's 8 bytes in the body (-1: none). */
    private int[] ranges = new int[48];

    private long[] timestamps = new long[16];
    private int count;
    private int[] refs = new int[64];
    private int refCount;

    /** Reads one 1.0 {@code Exemplar} entry whose tag {@code in} has just read, interning its labels. */
    void read(CodedInputStream in, IntBinaryOperator intern) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        if ((count + 1) * 3 > ranges.length) {
            ranges = Arrays.copyOf(ranges, ranges.length * 2);
            timestamps = Arrays.copyOf(timestamps, timestamps.length * 2);
        }
        int x = count++;
        ranges[x * 3] = refCount;
        ranges[x * 3 + 2] = -1;
        timestamps[x] = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag == V1_LABEL) {
                int labelLimit = in.pushLimit(in.readRawVarint32());
                int name = 0;
                int value = 0;
                while (!in.isAtEnd()) {
                    int lt = in.readTag();
                    if (lt == LABEL_NAME || lt == LABEL_VALUE) {
                        int n = in.readRawVarint32();
                        int ref = intern.applyAsInt(in.getTotalBytesRead(), n);
                        in.skipRawBytes(n);
                        if (lt == LABEL_NAME) {
                            name = ref;
                        } else {
                            value = ref;
                        }
                    } else {
                        in.skipField(lt);
                    }
                }
                in.popLimit(labelLimit);
                if (refCount + 2 > refs.length) {
                    refs = Arrays.copyOf(refs, refs.length * 2);
                }
                refs[refCount++] = name;
                refs[refCount++] = value;
            } else if (tag == V1_VALUE) {
                ranges[x * 3 + 2] = in.getTotalBytesRead();
                in.skipRawBytes(8);
            } else if (tag == V1_TIMESTAMP) {
                timestamps[x] = in.readInt64();
            } else {
                in.skipField(tag);
            }
        }
        in.popLimit(limit);
        ranges[x * 3 + 1] = refCount;
    }

    /** Ends series {@code k} (0-based, in body order): the exemplars read since the previous series are its own. */
    void endSeries(int k) {
        if (k >= seriesEnd.length) {
            seriesEnd = Arrays.copyOf(seriesEnd, Math.max(seriesEnd.length * 2, k + 1));
        }
        seriesEnd[k] = count;
    }

    /** Bytes of series {@code k}'s 2.0 exemplar entries. */
    int size(int k) {
        int n = 0;
        for (int x = k == 0 ? 0 : seriesEnd[k - 1]; x < seriesEnd[k]; x++) {
            int inner = inner(x);
            n += 1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner;
        }
        return n;
    }

    private int refsBytes(int x) {
        int n = 0;
        for (int i = ranges[x * 3]; i < ranges[x * 3 + 1]; i++) {
            n += CodedOutputStream.computeUInt32SizeNoTag(refs[i]);
        }
        return n;
    }

    private int inner(int x) {
        int r = refsBytes(x);
        return (r == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(r) + r)
                + (ranges[x * 3 + 2] < 0 ? 0 : 9)
                + 1
                + CodedOutputStream.computeInt64SizeNoTag(timestamps[x]);
    }

    /** Appends series {@code k}'s 2.0 exemplar entries; the values' bytes are read from {@code v1}. */
    void write(ByteBuf out, int k, byte[] v1) {
        for (int x = k == 0 ? 0 : seriesEnd[k - 1]; x < seriesEnd[k]; x++) {
            out.put(V2_EXEMPLARS);
            RemoteWrite2Request.putVarint(out, inner(x));
            int r = refsBytes(x);
            if (r > 0) {
                out.put((byte) (1 << 3 | 2));
                RemoteWrite2Request.putVarint(out, r);
                for (int i = ranges[x * 3]; i < ranges[x * 3 + 1]; i++) {
                    RemoteWrite2Request.putVarint(out, refs[i]);
                }
            }
            if (ranges[x * 3 + 2] >= 0) {
                out.put((byte) V1_VALUE); // the same field number and wire type in 2.0
                out.put(v1, ranges[x * 3 + 2], 8);
            }
            out.put((byte) V1_TIMESTAMP);
            long t = timestamps[x];
            while ((t & ~0x7FL) != 0) {
                out.put((byte) ((t & 0x7F) | 0x80));
                t >>>= 7;
            }
            out.put((byte) t);
        }
    }
}
