package io.tsdbwriter.decode.promremotewrite;

import com.google.protobuf.CodedInputStream;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.Utf8;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Tells a decompressed remote write body's version by its top-level fields and reads a remote write 2.0
 * {@code io.prometheus.write.v2.Request} (Prometheus remote write 2.0 specification / types.proto): fields 4
 * {@code symbols} and 5 {@code timeseries} make a 2.0 body, fields 1 {@code timeseries} and 3 {@code metadata} a 1.0
 * {@code WriteRequest} (2.0 reserves 1 to 3); a body with fields of both is not well-formed.
 *
 * <p>A 2.0 series' labels are pairs of {@code labels_refs} into the symbols table; each symbol's bytes are copied into
 * the points' arena once per record, however many series use it, without a {@code String}. Samples (value, timestamp,
 * {@code start_timestamp}) and native histograms (the same field numbers as 1.0's {@code Histogram}, with
 * {@code custom_values} 16 and {@code start_timestamp} 17) become points as {@link RemoteWriteDecoder} makes them of a
 * 1.0 series. Exemplars and metadata are skipped. A series with an odd number of {@code labels_refs}, a ref outside the
 * symbols table, or both samples and histograms is skipped and counted once as {@link DecodeError#INVALID_PROTOBUF}
 * (the record's other series are kept); a symbol that is not UTF-8 rejects the record
 * ({@link DecodeError#INVALID_UTF8}).
 *
 * <p>Not thread-safe: owned by one {@link RemoteWriteDecoder}, reused per record.
 */
final class RemoteWrite2Reader {

    private static final byte[] NAME = "__name__".getBytes(StandardCharsets.US_ASCII);

    /** Per symbol: offset and length in the body, then its offset in the arena (-1 until copied). */
    private int[] symbols = new int[3 * 64];

    private int symbolCount;
    private boolean v2;
    private String detail;
    private int[] refs = new int[64];
    private int refCount;

    /**
     * Reads the body's top-level fields: its version ({@link #isV2}) and, for 2.0, its symbols table.
     *
     * @return null, or the error that rejects the record whole ({@link #detail} says why)
     * @throws IOException bytes that are not protobuf
     */
    DecodeError scan(byte[] buf, int length) throws IOException {
        symbolCount = 0;
        boolean v1 = false;
        v2 = false;
        CodedInputStream in = CodedInputStream.newInstance(buf, 0, length);
        in.setSizeLimit(Integer.MAX_VALUE);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            int field = tag >>> 3;
            if (tag == (4 << 3 | 2)) { // repeated string symbols = 4
                int len = in.readRawVarint32();
                int pos = in.getTotalBytesRead();
                if (len < 0 || pos + len > length) {
                    detail = "symbol runs past the end";
                    return DecodeError.INVALID_PROTOBUF;
                }
                if (!Utf8.isValid(buf, pos, pos + len)) {
                    detail = "symbol " + symbolCount + " is not UTF-8";
                    return DecodeError.INVALID_UTF8;
                }
                in.skipRawBytes(len);
                addSymbol(pos, len);
                v2 = true;
                continue;
            }
            v1 |= field == 1 || field == 3;
            v2 |= field == 5;
            if (!in.skipField(tag)) {
                break;
            }
        }
        if (v1 && v2) {
            detail = "fields of both a 1.0 WriteRequest (1, 3) and a 2.0 Request (4, 5)";
            return DecodeError.INVALID_PROTOBUF;
        }
        return null;
    }

    /** Whether the body {@link #scan} read last is a remote write 2.0 {@code Request}. */
    boolean isV2() {
        return v2;
    }

    /** Why {@link #scan} returned an error. */
    String detail() {
        return detail;
    }

    private void addSymbol(int pos, int len) {
        if ((symbolCount + 1) * 3 > symbols.length) {
            symbols = Arrays.copyOf(symbols, symbols.length * 2);
        }
        int k = symbolCount * 3;
        symbols[k] = pos;
        symbols[k + 1] = len;
        symbols[k + 2] = -1;
        symbolCount++;
    }

    /**
     * Reads the 2.0 body {@link #scan} read last: its series' points into {@code out} through {@code series}' state,
     * refusals into {@code rejections}.
     *
     * @throws IOException bytes that are not protobuf
     */
    void read(byte[] buf, int length, RemoteWriteDecoder series, DecodedPoints out, Rejections rejections)
            throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(buf, 0, length);
        in.setSizeLimit(Integer.MAX_VALUE);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag == (5 << 3 | 2)) { // repeated TimeSeries timeseries = 5
                int limit = in.pushLimit(in.readRawVarint32());
                series(in, buf, series, out, rejections);
                in.popLimit(limit);
            } else if (!in.skipField(tag)) {
                break;
            }
        }
    }

    private void series(CodedInputStream in, byte[] buf, RemoteWriteDecoder d, DecodedPoints out, Rejections rejections)
            throws IOException {
        d.beginSeries();
        refCount = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag) {
                case 1 << 3 | 2 -> { // repeated uint32 labels_refs = 1, packed
                    int limit = in.pushLimit(in.readRawVarint32());
                    while (!in.isAtEnd()) {
                        addRef(in.readRawVarint32());
                    }
                    in.popLimit(limit);
                }
                case 1 << 3 -> addRef(in.readRawVarint32()); // the same, not packed
                case 2 << 3 | 2 -> d.readSample(in); // repeated Sample samples = 2
                case 3 << 3 | 2 -> d.readHistogram(in); // repeated Histogram histograms = 3
                default -> { // exemplars = 4, metadata = 5: skipped
                    if (!in.skipField(tag)) {
                        return;
                    }
                }
            }
        }
        String malformed = malformed(d);
        if (malformed != null) {
            rejections.add(
                    DecodeError.INVALID_PROTOBUF,
                    rejections.wantsDetail(DecodeError.INVALID_PROTOBUF)
                            ? malformed + " (" + (d.sampleCount() + d.histogramCount()) + " samples skipped)"
                            : "");
            return;
        }
        int metricOff = -1;
        int metricLen = 0;
        int[] s = symbols;
        for (int i = 0; i < refCount; i += 2) {
            int name = refs[i] * 3;
            int value = refs[i + 1] * 3;
            int nameLen = s[name + 1];
            int valueLen = s[value + 1];
            if (nameLen == 0 || valueLen == 0) {
                continue;
            }
            if (nameLen == 8 && Arrays.equals(buf, s[name], s[name] + 8, NAME, 0, 8)) {
                metricOff = arena(buf, value, out);
                metricLen = valueLen;
            } else {
                d.addLabel(arena(buf, name, out), nameLen, arena(buf, value, out), valueLen);
            }
        }
        d.emit(out, rejections, metricOff, metricLen);
    }

    private void addRef(int ref) {
        if (refCount == refs.length) {
            refs = Arrays.copyOf(refs, refCount * 2);
        }
        refs[refCount++] = ref;
    }

    /** Why the series just read is malformed, or null. */
    private String malformed(RemoteWriteDecoder d) {
        if ((refCount & 1) != 0) {
            return "a series with an odd number of labels_refs (" + refCount + ")";
        }
        for (int i = 0; i < refCount; i++) {
            if (refs[i] < 0 || refs[i] >= symbolCount) {
                return "labels_refs " + Integer.toUnsignedString(refs[i]) + " outside the symbols table of "
                        + symbolCount;
            }
        }
        if (d.sampleCount() > 0 && d.histogramCount() > 0) {
            return "a series with both samples and histograms";
        }
        return null;
    }

    /** The arena offset of symbol {@code k} (index × 3), copied there on first use. */
    private int arena(byte[] buf, int k, DecodedPoints out) {
        int at = symbols[k + 2];
        if (at < 0) {
            at = out.copy(buf, symbols[k], symbols[k + 1]);
            symbols[k + 2] = at;
        }
        return at;
    }
}
