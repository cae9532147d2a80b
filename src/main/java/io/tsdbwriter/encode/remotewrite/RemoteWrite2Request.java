package io.tsdbwriter.encode.remotewrite;

import com.google.protobuf.CodedInputStream;
import io.tsdbwriter.decode.FamilyMetadata;
import io.tsdbwriter.wire.ByteBuf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds a Prometheus Remote-Write 2.0 {@code io.prometheus.write.v2.Request} from a Remote-Write 1.0
 * {@code WriteRequest} body of {@link RemoteWriteEncoder} (https://prometheus.io/docs/specs/remote_write_spec_2_0/,
 * "Protocol"; Prometheus' {@code prompb/io/prometheus/write/v2/types.proto}):
 * <pre>
 * message Request    { repeated string symbols = 4; repeated TimeSeries timeseries = 5; }
 * message TimeSeries { repeated uint32 labels_refs = 1; repeated Sample samples = 2; repeated Histogram histograms = 3; }
 * message Sample     { double value = 1; int64 timestamp = 2; int64 start_timestamp = 3; }
 * </pre>
 * {@code labels_refs} is packed. A 1.0 {@code TimeSeries.histograms} entry (field 4) becomes a 2.0 one (field 3) byte for
 * byte: the {@code Histogram} message has the same fields in both, {@code custom_values} (16) included. The start
 * timestamps ({@code Sample.start_timestamp} = 3, {@code Histogram.start_timestamp} = 17, epoch ms; Prometheus remote
 * write 2.0 types.proto) are written by the encoder into the body it builds for a 2.0 request
 * ({@link RemoteWriteEncoder}, made with start timestamps), where a point has one, and so pass through with their
 * messages; a 1.0 body sent as it is carries none.
 * Every label name and value of the request becomes one entry of the symbol table ({@code symbols[0]} is the empty
 * string, as the specification requires), so the strings the M × N variants of a series share (the metric name, every
 * label but the instance label) are sent once per request, and each series carries two varint references per label.
 * Labels keep the 1.0 body's order (sorted by name); {@code Sample} messages are copied byte for byte.
 *
 * <p>Metadata ("Metadata" of the 2.0 specification): the 1.0 body's {@code WriteRequest.metadata} entries (field 3,
 * {@link MetricMetadata}; the first per family counts) become each matching series' {@code TimeSeries.metadata}
 * (field 5: {@code type = 1}, {@code help_ref = 3}, {@code unit_ref = 4}, help and unit in the symbol table). A series
 * matches a family when its {@code __name__} is the family name, or the name plus one of OpenMetrics' suffixes
 * {@code _total}, {@code _bucket}, {@code _count}, {@code _sum}, {@code _created}, {@code _info}, {@code _gcount},
 * {@code _gsum} (a gauge histogram's; the list of {@link FamilyMetadata#endsWithSuffix}). A series without a
 * family carries no metadata; the 1.0 entries themselves are not copied (2.0 has no such field).
 *
 * <p>Why from a 1.0 body: the write path builds one body per batch from whole points and splits a refused batch at
 * point boundaries, which needs chunks that stand on their own; a symbol table is a property of the whole request,
 * so it is built here, once per request sent (each half of a split batch gets its own). The cost is one pass over the
 * body (protobuf-java's {@link CodedInputStream}) and one hash lookup per label string, no allocation per string (the
 * table indexes the 1.0 body's bytes).
 *
 * <p>Stateless and thread-safe; each call allocates its output and its table.
 */
public final class RemoteWrite2Request {

    private static final int V1_TIMESERIES = 1 << 3 | 2;
    private static final int V1_LABELS = 1 << 3 | 2;
    private static final int V1_SAMPLES = 2 << 3 | 2;
    private static final int V1_EXEMPLARS = 3 << 3 | 2;
    private static final int V1_HISTOGRAMS = 4 << 3 | 2;
    private static final byte V2_HISTOGRAMS = 3 << 3 | 2;
    private static final int LABEL_NAME = 1 << 3 | 2;
    private static final int LABEL_VALUE = 2 << 3 | 2;
    private static final int V2_SYMBOLS = 4 << 3 | 2;
    private static final int V2_TIMESERIES = 5 << 3 | 2;
    private static final int V2_LABELS_REFS = 1 << 3 | 2;
    private static final int V1_METADATA = 3 << 3 | 2;
    private static final int MD_TYPE = 1 << 3;
    private static final int MD_FAMILY = 2 << 3 | 2;
    private static final int MD_HELP = 4 << 3 | 2;
    private static final int MD_UNIT = 5 << 3 | 2;
    private static final int V2_METADATA = 5 << 3 | 2;
    private static final byte[] NAME = "__name__".getBytes(StandardCharsets.US_ASCII);

    private RemoteWrite2Request() {}

    /**
     * The 2.0 request holding exactly the series and samples of a 1.0 {@code WriteRequest}.
     *
     * @param v1     the 1.0 body, {@code v1[0, length)}: {@code TimeSeries} entries only (as {@link RemoteWriteEncoder}
     *               writes them)
     * @return a new buffer with the 2.0 request (empty for an empty body)
     * @throws IllegalArgumentException when the body is not a well-formed 1.0 {@code WriteRequest}
     */
    public static ByteBuf fromV1(byte[] v1, int length) {
        ByteBuf out = new ByteBuf(length + 64);
        if (length == 0) {
            return out;
        }
        Symbols symbols = new Symbols(v1);
        int[] refs = new int[256];
        int refCount = 0;
        int[] samples = new int[256]; // byte ranges of the Sample and Histogram entries: start, end
        int sampleCount = 0;
        int[] series = new int[64]; // per series: refsEnd, samplesEnd (indices into refs and samples)
        int seriesCount = 0;
        int[] names = new int[64]; // per series: offset and length of its __name__ value (-1: none)
        Symbols families = new Symbols(v1); // metadata family names; index - 1 = metadata entry
        int[] meta = new int[32]; // per metadata entry: type, helpRef, unitRef
        V2Exemplars exemplars = new V2Exemplars();
        try {
            CodedInputStream in = CodedInputStream.newInstance(v1, 0, length);
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                if (tag == V1_METADATA) {
                    int mdLimit = in.pushLimit(in.readRawVarint32());
                    int type = 0;
                    int famOff = 0;
                    int famLen = 0;
                    int helpRef = 0;
                    int unitRef = 0;
                    while (!in.isAtEnd()) {
                        int mt = in.readTag();
                        if (mt == MD_TYPE) {
                            type = in.readRawVarint32();
                        } else if (mt == MD_FAMILY || mt == MD_HELP || mt == MD_UNIT) {
                            int n = in.readRawVarint32();
                            int off = in.getTotalBytesRead();
                            in.skipRawBytes(n);
                            if (mt == MD_FAMILY) {
                                famOff = off;
                                famLen = n;
                            } else if (mt == MD_HELP) {
                                helpRef = symbols.intern(off, n);
                            } else {
                                unitRef = symbols.intern(off, n);
                            }
                        } else {
                            in.skipField(mt);
                        }
                    }
                    in.popLimit(mdLimit);
                    int before = families.count;
                    int k = families.intern(famOff, famLen);
                    if (k > 0 && families.count > before) { // the first entry of a family wins
                        if (k * 3 + 3 > meta.length) {
                            meta = Arrays.copyOf(meta, meta.length * 2);
                        }
                        meta[k * 3] = type;
                        meta[k * 3 + 1] = helpRef;
                        meta[k * 3 + 2] = unitRef;
                    }
                    continue;
                }
                if (tag != V1_TIMESERIES) {
                    in.skipField(tag);
                    continue;
                }
                int nameOff = -1;
                int nameLen = 0;
                int len = in.readRawVarint32();
                int end = in.getTotalBytesRead() + len;
                int limit = in.pushLimit(len);
                while (!in.isAtEnd()) {
                    int at = in.getTotalBytesRead();
                    int t = in.readTag();
                    if (t == V1_LABELS) {
                        int labelLimit = in.pushLimit(in.readRawVarint32());
                        int nameRef = 0;
                        int valueRef = 0;
                        int valueOff = 0;
                        int valueLen = 0;
                        boolean isName = false;
                        while (!in.isAtEnd()) {
                            int lt = in.readTag();
                            if (lt == LABEL_NAME || lt == LABEL_VALUE) {
                                int n = in.readRawVarint32();
                                int off = in.getTotalBytesRead();
                                in.skipRawBytes(n);
                                if (lt == LABEL_NAME) {
                                    nameRef = symbols.intern(off, n);
                                    isName = Arrays.equals(v1, off, off + n, NAME, 0, NAME.length);
                                } else {
                                    valueRef = symbols.intern(off, n);
                                    valueOff = off;
                                    valueLen = n;
                                }
                            } else {
                                in.skipField(lt);
                            }
                        }
                        in.popLimit(labelLimit);
                        if (isName) {
                            nameOff = valueOff;
                            nameLen = valueLen;
                        }
                        if (refCount + 2 > refs.length) {
                            refs = Arrays.copyOf(refs, refs.length * 2);
                        }
                        refs[refCount++] = nameRef;
                        refs[refCount++] = valueRef;
                    } else if (t == V1_SAMPLES || t == V1_HISTOGRAMS) {
                        in.skipField(t);
                        if (sampleCount * 2 + 2 > samples.length) {
                            samples = Arrays.copyOf(samples, samples.length * 2);
                        }
                        samples[sampleCount * 2] = at;
                        samples[sampleCount * 2 + 1] = in.getTotalBytesRead();
                        sampleCount++;
                    } else if (t == V1_EXEMPLARS) {
                        exemplars.read(in, symbols::intern);
                    } else {
                        in.skipField(t);
                    }
                }
                if (in.getTotalBytesRead() != end) {
                    throw new IllegalArgumentException(
                            "a TimeSeries of " + len + " bytes runs past the end of the body");
                }
                in.popLimit(limit);
                if ((seriesCount + 1) * 2 > series.length) {
                    series = Arrays.copyOf(series, series.length * 2);
                }
                series[seriesCount * 2] = refCount;
                series[seriesCount * 2 + 1] = sampleCount;
                if ((seriesCount + 1) * 2 > names.length) {
                    names = Arrays.copyOf(names, names.length * 2);
                }
                names[seriesCount * 2] = nameOff;
                names[seriesCount * 2 + 1] = nameLen;
                exemplars.endSeries(seriesCount++);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("not a Remote-Write 1.0 WriteRequest: " + e.getMessage(), e);
        }
        for (int i = 0; i < symbols.count; i++) {
            out.put((byte) V2_SYMBOLS);
            putVarint(out, symbols.len[i]);
            out.put(v1, symbols.off[i], symbols.len[i]);
        }
        int refFrom = 0;
        int sampleFrom = 0;
        for (int k = 0; k < seriesCount; k++) {
            int refTo = series[k * 2];
            int sampleTo = series[k * 2 + 1];
            int refsBytes = 0;
            for (int i = refFrom; i < refTo; i++) {
                refsBytes += varintSize(refs[i]);
            }
            int samplesBytes = 0;
            for (int i = sampleFrom; i < sampleTo; i++) {
                samplesBytes += samples[i * 2 + 1] - samples[i * 2];
            }
            int md = families.count > 1 ? family(families, v1, names[k * 2], names[k * 2 + 1]) : 0;
            int mdBytes = md == 0 ? 0 : metadataSize(meta, md);
            out.put((byte) V2_TIMESERIES);
            putVarint(
                    out,
                    (refsBytes == 0 ? 0 : 1 + varintSize(refsBytes) + refsBytes)
                            + samplesBytes
                            + (md == 0 ? 0 : 1 + varintSize(mdBytes) + mdBytes)
                            + exemplars.size(k));
            if (refsBytes > 0) {
                out.put((byte) V2_LABELS_REFS);
                putVarint(out, refsBytes);
                for (int i = refFrom; i < refTo; i++) {
                    putVarint(out, refs[i]);
                }
            }
            for (int i = sampleFrom; i < sampleTo; i++) {
                int at = samples[i * 2];
                if (v1[at] == V1_HISTOGRAMS) { // the same Histogram message under 2.0's field 3 (a tag of one byte too)
                    out.put(V2_HISTOGRAMS);
                    out.put(v1, at + 1, samples[i * 2 + 1] - at - 1);
                } else {
                    out.put(v1, at, samples[i * 2 + 1] - at);
                }
            }
            exemplars.write(out, k, v1);
            if (md != 0) {
                out.put((byte) V2_METADATA);
                putVarint(out, mdBytes);
                putField(out, 1 << 3, meta[md * 3]);
                putField(out, 3 << 3, meta[md * 3 + 1]);
                putField(out, 4 << 3, meta[md * 3 + 2]);
            }
            refFrom = refTo;
            sampleFrom = sampleTo;
        }
        return out;
    }

    /** The metadata entry (its index in {@code families}) of the series named {@code v1[off, off + len)}, 0 if none. */
    private static int family(Symbols families, byte[] v1, int off, int len) {
        if (off < 0) {
            return 0;
        }
        int k = families.find(off, len);
        for (int i = 0; k == 0 && i < FamilyMetadata.suffixCount(); i++) {
            if (FamilyMetadata.endsWithSuffix(i, v1, off, len)) {
                k = families.find(off, len - FamilyMetadata.suffixLength(i));
            }
        }
        return k;
    }

    private static int metadataSize(int[] meta, int k) {
        int n = 0;
        for (int i = 0; i < 3; i++) {
            int v = meta[k * 3 + i];
            n += v == 0 ? 0 : 1 + varintSize(v);
        }
        return n;
    }

    /** A varint field, left out at its default 0 as proto3 does. */
    private static void putField(ByteBuf out, int tag, int v) {
        if (v != 0) {
            out.put((byte) tag);
            putVarint(out, v);
        }
    }

    static void putVarint(ByteBuf out, int v) {
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    static int varintSize(int v) {
        if ((v & ~0x7F) == 0) {
            return 1;
        }
        if ((v & ~0x3FFF) == 0) {
            return 2;
        }
        if ((v & ~0x1FFFFF) == 0) {
            return 3;
        }
        return (v & ~0xFFFFFFF) == 0 ? 4 : 5;
    }

    /** The symbol table: byte ranges of the 1.0 body, open addressing on their hash; symbol 0 is "". */
    private static final class Symbols {
        final byte[] bytes;
        int[] off = new int[256];
        int[] len = new int[256];
        int count;
        int[] slots = new int[1024]; // symbol index + 1, 0 = free
        int mask = slots.length - 1;

        Symbols(byte[] bytes) {
            this.bytes = bytes;
            count = 1; // "" at index 0, never in the hash table
        }

        int intern(int o, int l) {
            if (l == 0) {
                return 0;
            }
            int h = hash(o, l);
            for (int i = h & mask; ; i = (i + 1) & mask) {
                int s = slots[i];
                if (s == 0) {
                    if (count == off.length) {
                        off = Arrays.copyOf(off, count * 2);
                        len = Arrays.copyOf(len, count * 2);
                    }
                    off[count] = o;
                    len[count] = l;
                    slots[i] = ++count;
                    if (count * 2 > slots.length) {
                        rehash();
                    }
                    return count - 1;
                }
                int k = s - 1;
                if (len[k] == l && Arrays.equals(bytes, off[k], off[k] + l, bytes, o, o + l)) {
                    return k;
                }
            }
        }

        /** The index of {@code bytes[o, o + l)}, 0 when it is not in the table (or empty). */
        int find(int o, int l) {
            if (l == 0) {
                return 0;
            }
            for (int i = hash(o, l) & mask; ; i = (i + 1) & mask) {
                int s = slots[i];
                if (s == 0) {
                    return 0;
                }
                int k = s - 1;
                if (len[k] == l && Arrays.equals(bytes, off[k], off[k] + l, bytes, o, o + l)) {
                    return k;
                }
            }
        }

        private int hash(int o, int l) {
            int h = 1;
            for (int i = o, e = o + l; i < e; i++) {
                h = 31 * h + bytes[i];
            }
            return h ^ (h >>> 16);
        }

        private void rehash() {
            slots = new int[slots.length * 2];
            mask = slots.length - 1;
            for (int k = 1; k < count; k++) {
                int i = hash(off[k], len[k]) & mask;
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = k + 1;
            }
        }
    }
}
