package io.tsdbwriter.decode.promremotewrite;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStream;
import com.google.protobuf.CodedInputStream;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampCheck;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.Utf8;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.xerial.snappy.Snappy;

/**
 * Reads one Prometheus remote write 1.0 {@code WriteRequest} per record (Prometheus "Remote-Write 1.0"
 * specification: protobuf, snappy block format), or VictoriaMetrics' zstd-compressed variant, told apart by its
 * bytes as vmagent and VictoriaMetrics do: a body that starts with the zstd frame magic {@code 28 B5 2F FD} is
 * decompressed as zstd (falling back to snappy if that fails), any other as a snappy block. A decompressed body whose
 * top-level fields are remote write 2.0's ({@code symbols} = 4, {@code timeseries} = 5) is read as a 2.0
 * {@code io.prometheus.write.v2.Request} (Prometheus remote write 2.0 specification / types.proto) by
 * {@code RemoteWrite2Reader}, into the same points as the 1.0 series below; the bytes decide, per record.
 *
 * <p>Each sample of each {@code TimeSeries} is a point: the {@code __name__} label is the metric name, the other
 * labels (empty values dropped) its labels, the sample's timestamp (epoch ms) and value its own. Each native histogram
 * ({@code TimeSeries.histograms}) is a histogram point when the points buffer accepts them
 * ({@link PointHistograms#accepted()}: the output is remote write), its message copied as it is but for its timestamp,
 * which is the point's; otherwise (the import API) {@code _count}, {@code _sum} and {@code _bucket{vmrange}} samples as
 * VictoriaMetrics converts a native histogram it receives over remote write ({@code VmrangeHistograms}). Exemplars and
 * metadata are skipped. A sample's or histogram's start timestamp is read where a message carries one, at the field
 * number remote write 2.0 gives it ({@code Sample.start_timestamp} = 3, {@code Histogram.start_timestamp} = 17, epoch
 * ms; Prometheus remote write 2.0 types.proto; 1.0's {@code types.proto} has neither field, a 1.0 sender leaves them
 * out): it becomes the point's {@link DecodedPoints#setStartTimestamp start timestamp} (0, or not earlier than the
 * sample's timestamp: none), taken out of the histogram's copied bytes as its timestamp is; the {@code _count},
 * {@code _sum} and {@code _bucket} samples of the import API's conversion carry none. Counted per sample and skipped:
 * NaN values including the staleness marker ({@link DecodeError#NON_FINITE_VALUE}), negative timestamps; per series:
 * a series without {@code __name__} ({@link DecodeError#MISSING_METRIC}). A record whose bytes do not decompress
 * ({@link DecodeError#INVALID_COMPRESSION}), decompress to more than {@link #maxDecompressedBytes} or are not a
 * well-formed {@code WriteRequest} ({@link DecodeError#INVALID_PROTOBUF}, {@link DecodeError#INVALID_UTF8}) is
 * rejected whole, as is a body with fields of both versions. Parsing uses protobuf-java's {@link CodedInputStream}
 * straight over the decompressed bytes;
 * label bytes are copied into the arena without a {@code String}.
 *
 * <p>Not thread-safe: one per consuming thread (it reuses its decompression buffer).
 */
public final class RemoteWriteDecoder implements RecordDecoder {

    private static final int MIN_DECOMPRESSED_LIMIT = 32 << 20;

    private final int maxRecordBytes;
    private final TimestampWindow window;
    private final TimestampCheck timestampCheck;
    private final int maxDecompressedBytes;
    private final VmrangeHistograms vmrange = new VmrangeHistograms();
    private final RemoteWrite2Reader v2 = new RemoteWrite2Reader();
    private byte[] buf = new byte[64 * 1024];
    private int length;
    private String detail;

    private int[] labels = new int[64]; // nameOff, nameLen, valueOff, valueLen in the arena
    private int labelCount;
    private double[] values = new double[64];
    private long[] timestamps = new long[64];
    private long[] starts = new long[64];
    private int sampleCount;
    /** The series' native histograms: per histogram the byte range of its message in {@link #buf}, start and end. */
    private int[] histogramRanges = new int[16];

    private long[] histogramTimestamps = new long[8];
    private long[] histogramStarts = new long[8];
    private int histogramCount;
    /** The start timestamp {@link #readHistogramTimestamp} read last (field 17; 0 if none). */
    private long histogramStart;

    /**
     * @param maxRecordBytes larger records are rejected whole; a record may decompress to at most
     *                       {@code max(32 MiB, maxRecordBytes × 8)} bytes
     */
    public RemoteWriteDecoder(int maxRecordBytes) {
        this(maxRecordBytes, TimestampWindow.DEFAULT);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param window         a sample outside it is refused as {@code implausible_timestamp} (the rest of its series is kept)
     */
    public RemoteWriteDecoder(int maxRecordBytes, TimestampWindow window) {
        this.window = Objects.requireNonNull(window, "window");
        this.timestampCheck = new TimestampCheck(window);
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("max record bytes must be >= 1, got " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.maxDecompressedBytes =
                (int) Math.min(Integer.MAX_VALUE - 16, Math.max(MIN_DECOMPRESSED_LIMIT, maxRecordBytes * 8L));
    }

    /** Most bytes a record may decompress to. */
    public int maxDecompressedBytes() {
        return maxDecompressedBytes;
    }

    @Override
    public InputFormat format() {
        return InputFormat.PROMREMOTEWRITE;
    }

    @Override
    public void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        out.clear();
        rejections.clear();
        if (!LineDecoder.admit(value, maxRecordBytes, rejections)) {
            return;
        }
        if (!decompress(value)) {
            rejections.add(DecodeError.INVALID_COMPRESSION, detail);
            return;
        }
        try {
            DecodeError e = parse(out, rejections);
            if (e != null) {
                out.clear();
                rejections.add(e, detail);
                return;
            }
        } catch (IOException | RuntimeException e) {
            out.clear();
            rejections.add(
                    DecodeError.INVALID_PROTOBUF,
                    (v2.isV2() ? "not a remote write 2.0 Request: " : "not a WriteRequest: ") + e.getMessage());
            return;
        }
        if (out.count() == 0 && rejections.total() == 0) {
            rejections.add(DecodeError.NO_SAMPLES, (v2.isV2() ? "Request" : "WriteRequest") + " holds no sample");
        }
        out.updateJsonSafe();
    }

    private static boolean isZstd(byte[] v) {
        return v.length >= 4
                && (v[0] & 0xFF) == 0x28
                && (v[1] & 0xFF) == 0xB5
                && (v[2] & 0xFF) == 0x2F
                && (v[3] & 0xFF) == 0xFD;
    }

    private boolean decompress(byte[] value) {
        if (isZstd(value) && zstd(value)) {
            return true;
        }
        String zstdError = detail;
        try {
            if (!Snappy.isValidCompressedBuffer(value)) {
                detail = zstdError != null && isZstd(value) ? zstdError : "neither a snappy block nor a zstd frame";
                return false;
            }
            int n = Snappy.uncompressedLength(value);
            if (n < 0 || n > maxDecompressedBytes) {
                detail = "snappy block decompresses to " + n + " bytes > max " + maxDecompressedBytes;
                return false;
            }
            ensure(n);
            length = Snappy.uncompress(value, 0, value.length, buf, 0);
            return true;
        } catch (IOException | RuntimeException e) {
            detail = "snappy: " + e.getMessage();
            return false;
        }
    }

    private boolean zstd(byte[] value) {
        try {
            long size = Zstd.getFrameContentSize(value);
            if (size > maxDecompressedBytes) {
                detail = "zstd frame decompresses to " + size + " bytes > max " + maxDecompressedBytes;
                return false;
            }
            if (size >= 0) {
                ensure((int) size);
                long n = Zstd.decompressByteArray(buf, 0, (int) size, value, 0, value.length);
                if (Zstd.isError(n)) {
                    detail = "zstd: " + Zstd.getErrorName(n);
                    return false;
                }
                length = (int) n;
                return true;
            }
            // no content size in the frame header: stream it, bounded
            try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(value))) {
                int n = 0;
                int r;
                while ((r = in.read(buf, n, buf.length - n)) > 0 || (r == 0 && n == buf.length)) {
                    n += Math.max(r, 0);
                    if (n == buf.length) {
                        if (n >= maxDecompressedBytes) {
                            detail = "zstd frame decompresses to more than " + maxDecompressedBytes + " bytes";
                            return false;
                        }
                        buf = Arrays.copyOf(buf, (int) Math.min(maxDecompressedBytes, buf.length * 2L));
                    }
                }
                length = n;
                return true;
            }
        } catch (IOException | RuntimeException e) {
            detail = "zstd: " + e.getMessage();
            return false;
        }
    }

    private void ensure(int n) {
        if (buf.length < n) {
            buf = new byte[Math.max(n, buf.length * 2)];
        }
    }

    private DecodeError parse(DecodedPoints out, Rejections rejections) throws IOException {
        DecodeError version = v2.scan(buf, length);
        if (version != null) {
            detail = v2.detail();
            return version;
        }
        if (v2.isV2()) {
            v2.read(buf, length, this, out, rejections);
            return null;
        }
        CodedInputStream in = CodedInputStream.newInstance(buf, 0, length);
        in.setSizeLimit(Integer.MAX_VALUE);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (tag == (1 << 3 | 2)) { // repeated TimeSeries timeseries = 1
                int len = in.readRawVarint32();
                int limit = in.pushLimit(len);
                DecodeError e = series(in, out, rejections);
                if (e != null) {
                    return e;
                }
                in.popLimit(limit);
            } else if (!in.skipField(tag)) {
                break;
            }
        }
        return null;
    }

    // Longer than ~60 lines: one TimeSeries message read field by field, kept in one method on purpose (hot path): the
    // parse state stays in locals, which the JIT keeps in registers. DecoderBenchmark guards its speed.
    private DecodeError series(CodedInputStream in, DecodedPoints out, Rejections rejections) throws IOException {
        beginSeries();
        int metricOff = -1;
        int metricLen = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (tag) {
                case 1 << 3 | 2 -> { // repeated Label labels = 1
                    int limit = in.pushLimit(in.readRawVarint32());
                    int nameOff = 0;
                    int nameLen = 0;
                    int valueOff = 0;
                    int valueLen = 0;
                    while (!in.isAtEnd()) {
                        int t = in.readTag();
                        if (t == (1 << 3 | 2) || t == (2 << 3 | 2)) {
                            int len = in.readRawVarint32();
                            int pos = in.getTotalBytesRead();
                            if (len < 0 || pos + len > length) {
                                detail = "label string runs past the end";
                                return DecodeError.INVALID_PROTOBUF;
                            }
                            if (!Utf8.isValid(buf, pos, pos + len)) {
                                detail = "label string is not UTF-8";
                                return DecodeError.INVALID_UTF8;
                            }
                            in.skipRawBytes(len);
                            if (t == (1 << 3 | 2)) {
                                nameOff = pos;
                                nameLen = len;
                            } else {
                                valueOff = pos;
                                valueLen = len;
                            }
                        } else if (!in.skipField(t)) {
                            break;
                        }
                    }
                    in.popLimit(limit);
                    if (valueLen == 0 || nameLen == 0) {
                        continue;
                    }
                    if (nameLen == 8 && isName(nameOff)) {
                        metricOff = out.copy(buf, valueOff, valueLen);
                        metricLen = valueLen;
                    } else {
                        addLabel(out.copy(buf, nameOff, nameLen), nameLen, out.copy(buf, valueOff, valueLen), valueLen);
                    }
                }
                case 2 << 3 | 2 -> readSample(in); // repeated Sample samples = 2
                case 4 << 3 | 2 -> readHistogram(in); // repeated Histogram histograms = 4
                default -> {
                    if (!in.skipField(tag)) {
                        return null;
                    }
                }
            }
        }
        emit(out, rejections, metricOff, metricLen);
        return null;
    }

    /** Starts a series: no label, sample or histogram yet. */
    void beginSeries() {
        labelCount = 0;
        sampleCount = 0;
        histogramCount = 0;
    }

    /** Adds a label of the series: its name's and value's ranges in the arena. */
    void addLabel(int nameOff, int nameLen, int valueOff, int valueLen) {
        if (labelCount * 4 == labels.length) {
            labels = Arrays.copyOf(labels, labels.length * 2);
        }
        int[] l = labels;
        int k = labelCount * 4;
        l[k] = nameOff;
        l[k + 1] = nameLen;
        l[k + 2] = valueOff;
        l[k + 3] = valueLen;
        labelCount++;
    }

    /** Adds a sample of the series (timestamps in epoch ms, start 0 when none). */
    void addSample(double v, long ts, long st) {
        if (sampleCount == values.length) {
            values = Arrays.copyOf(values, sampleCount * 2);
            timestamps = Arrays.copyOf(timestamps, sampleCount * 2);
            starts = Arrays.copyOf(starts, sampleCount * 2);
        }
        values[sampleCount] = v;
        timestamps[sampleCount] = ts;
        starts[sampleCount] = st;
        sampleCount++;
    }

    /** Samples of the series so far. */
    int sampleCount() {
        return sampleCount;
    }

    /** Native histograms of the series so far. */
    int histogramCount() {
        return histogramCount;
    }

    /**
     * Reads one {@code Sample} message (value 1, timestamp 2, and remote write 2.0's start_timestamp 3; the same field
     * numbers in 1.0 and 2.0) and adds it to the current series.
     */
    void readSample(CodedInputStream in) throws IOException {
        int limit = in.pushLimit(in.readRawVarint32());
        double v = 0;
        long ts = 0;
        long st = 0;
        while (!in.isAtEnd()) {
            int t = in.readTag();
            if (t == (1 << 3 | 1)) {
                v = in.readDouble();
            } else if (t == (2 << 3)) {
                ts = in.readInt64();
            } else if (t == (3 << 3)) { // int64 start_timestamp = 3 (remote write 2.0's Sample)
                st = in.readInt64();
            } else if (!in.skipField(t)) {
                break;
            }
        }
        in.popLimit(limit);
        addSample(v, ts, st);
    }

    /** Adds a {@code Histogram} message of the series: {@code in} is at its length, which this reads, then the message. */
    void readHistogram(CodedInputStream in) throws IOException {
        int len = in.readRawVarint32();
        int start = in.getTotalBytesRead();
        int limit = in.pushLimit(len);
        long ts = readHistogramTimestamp(in);
        in.popLimit(limit);
        histogram(start, start + len, ts, histogramStart);
    }

    /**
     * Writes the series' points to {@code out}: its histograms, then its samples, each with the series' metric name
     * ({@code metricOff} -1: none, counted as {@link DecodeError#MISSING_METRIC}) and labels; refusals counted.
     */
    void emit(DecodedPoints out, Rejections rejections, int metricOff, int metricLen) throws IOException {
        if (sampleCount == 0 && histogramCount == 0) {
            return;
        }
        if (metricOff < 0) {
            rejections.add(
                    DecodeError.MISSING_METRIC,
                    "a series without __name__ (" + (sampleCount + histogramCount) + " samples skipped)");
            return;
        }
        histogramPoints(out, rejections, metricOff, metricLen);
        for (int i = 0; i < sampleCount; i++) {
            double v = values[i];
            if (rejections.skips(v)) {
                rejections.add(
                        DecodeError.NON_FINITE_VALUE,
                        rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                                ? "value " + (isStaleMarker(v) ? "stale marker" : v) + " skipped"
                                : "");
                continue;
            }
            if (timestamps[i] < 0) {
                rejections.add(
                        DecodeError.INVALID_TIMESTAMP,
                        rejections.wantsDetail(DecodeError.INVALID_TIMESTAMP)
                                ? "negative timestamp " + timestamps[i]
                                : "");
                continue;
            }
            if (!timestampCheck.contains(timestamps[i])) {
                rejections.add(
                        DecodeError.IMPLAUSIBLE_TIMESTAMP,
                        rejections.wantsDetail(DecodeError.IMPLAUSIBLE_TIMESTAMP)
                                ? window.describe(timestamps[i])
                                : "");
                continue;
            }
            int p = out.begin();
            out.setMetric(p, metricOff, metricLen);
            int[] l = labels;
            for (int k = 0; k < labelCount * 4; k += 4) {
                out.addLabel(p, l[k], l[k + 1], l[k + 2], l[k + 3]);
            }
            out.set(p, timestamps[i], v);
            if (starts[i] != 0) {
                out.setStartTimestamp(p, starts[i]);
            }
            out.canonicalize(p);
        }
    }

    /**
     * Reads a {@code Histogram} message to its end (the limit pushed), returning its timestamp (field 15; 0 if none);
     * its start timestamp (field 17; 0 if none) is left in {@link #histogramStart}.
     */
    private long readHistogramTimestamp(CodedInputStream in) throws IOException {
        long ts = 0;
        histogramStart = 0;
        while (!in.isAtEnd()) {
            int t = in.readTag();
            if (t == (PointHistograms.TIMESTAMP << 3)) {
                ts = in.readInt64();
            } else if (t == (PointHistograms.START_TIMESTAMP << 3)) {
                histogramStart = in.readInt64();
            } else if (!in.skipField(t)) {
                break;
            }
        }
        return ts;
    }

    private void histogram(int start, int end, long timestamp, long startTimestamp) {
        if ((histogramCount + 1) * 2 > histogramRanges.length) {
            histogramRanges = Arrays.copyOf(histogramRanges, histogramRanges.length * 2);
            histogramTimestamps = Arrays.copyOf(histogramTimestamps, histogramTimestamps.length * 2);
            histogramStarts = Arrays.copyOf(histogramStarts, histogramStarts.length * 2);
        }
        histogramRanges[histogramCount * 2] = start;
        histogramRanges[histogramCount * 2 + 1] = end;
        histogramTimestamps[histogramCount] = timestamp;
        histogramStarts[histogramCount] = startTimestamp;
        histogramCount++;
    }

    /**
     * The series' native histograms as histogram points ({@link PointHistograms}): each message's fields copied byte for
     * byte but its timestamp and start timestamp, which become the point's; where the points do not accept histograms, each as
     * VictoriaMetrics' {@code _count}, {@code _sum} and {@code _bucket{vmrange}} samples ({@link VmrangeHistograms});
     * refused as samples are for their timestamp.
     */
    private void histogramPoints(DecodedPoints out, Rejections rejections, int metricOff, int metricLen)
            throws IOException {
        for (int h = 0; h < histogramCount; h++) {
            long ts = histogramTimestamps[h];
            if (!plausible(ts, rejections)) {
                continue;
            }
            if (!out.histograms().accepted()) {
                vmrange.write(
                        buf,
                        histogramRanges[h * 2],
                        histogramRanges[h * 2 + 1],
                        out,
                        rejections,
                        metricOff,
                        metricLen,
                        labels,
                        labelCount,
                        ts);
                continue;
            }
            int p = out.begin();
            out.setMetric(p, metricOff, metricLen);
            int[] l = labels;
            for (int k = 0; k < labelCount * 4; k += 4) {
                out.addLabel(p, l[k], l[k + 1], l[k + 2], l[k + 3]);
            }
            out.set(p, ts, 0);
            out.setStartTimestamp(p, histogramStarts[h]);
            out.canonicalize(p);
            PointHistograms hs = out.histograms();
            hs.begin(p);
            int start = histogramRanges[h * 2];
            int end = histogramRanges[h * 2 + 1];
            CodedInputStream in = CodedInputStream.newInstance(buf, start, end - start);
            while (!in.isAtEnd()) {
                int at = in.getTotalBytesRead();
                int t = in.readTag();
                in.skipField(t);
                if (t != (PointHistograms.TIMESTAMP << 3) && t != (PointHistograms.START_TIMESTAMP << 3)) {
                    hs.putRaw(buf, start + at, in.getTotalBytesRead() - at);
                }
            }
            hs.end();
        }
    }

    /** Whether a sample's timestamp is plausible; a refusal counted when not. */
    private boolean plausible(long ts, Rejections rejections) {
        if (ts < 0) {
            rejections.add(
                    DecodeError.INVALID_TIMESTAMP,
                    rejections.wantsDetail(DecodeError.INVALID_TIMESTAMP) ? "negative timestamp " + ts : "");
            return false;
        }
        if (!timestampCheck.contains(ts)) {
            rejections.add(
                    DecodeError.IMPLAUSIBLE_TIMESTAMP,
                    rejections.wantsDetail(DecodeError.IMPLAUSIBLE_TIMESTAMP) ? window.describe(ts) : "");
            return false;
        }
        return true;
    }

    private static final byte[] NAME = "__name__".getBytes(StandardCharsets.US_ASCII);

    private boolean isName(int off) {
        return Arrays.equals(buf, off, off + 8, NAME, 0, 8);
    }

    /** Prometheus' staleness marker: the NaN with bits 0x7ff0000000000002. */
    public static boolean isStaleMarker(double v) {
        return Double.doubleToRawLongBits(v) == 0x7ff0000000000002L;
    }
}
