package io.tsdbwriter.pipeline;


import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.json.JsonDecoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.write.ByteBuf;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;

/**
 * The hot path decode → amplify → encode, for one record at a time: {@link #decode} a record value, then
 * {@link #encodePoint} each of its points as M × N samples into a request body. Per point it looks the series up
 * by its identity bytes (no {@code String}) and allocates nothing once warm; per sample nothing (series line
 * prefixes come from a {@link SeriesCache}, built once per series).
 * Used by every SegmentConsumer and by the JMH benchmark.
 *
 * <p>Not thread-safe: one instance per consuming thread (the series cache it uses may be shared).
 */
public final class PointAmplifier {

    private final RecordDecoder decoder;
    private final Rejections rejections = new Rejections();
    private final SampleEncoder encoder;
    private final SeriesCache seriesCache;
    private final DecodedPoints points = new DecodedPoints();

    /**
     * @param maxRecordBytes      larger records are rejected
     * @param encoder             encodes for the run's amplification plan
     * @param seriesCacheCapacity series whose prepared lines are kept (a cache of its own)
     */
    public PointAmplifier(int maxRecordBytes, ImportLineEncoder encoder, int seriesCacheCapacity) {
        this(maxRecordBytes, encoder, new SeriesCache(seriesCacheCapacity));
    }

    /**
     * @param seriesCache prepared series lines, shared with the process's other consumers (same encoder)
     */
    public PointAmplifier(int maxRecordBytes, ImportLineEncoder encoder, SeriesCache seriesCache) {
        this(new JsonDecoder(maxRecordBytes), new ImportSampleEncoder(encoder), seriesCache);
    }

    /**
     * @param encoder     this thread's encoder for the run's output protocol (the seam of DESIGN §6)
     * @param seriesCache prepared series, shared with the process's other consumers (encoders of the same output)
     */
    public PointAmplifier(int maxRecordBytes, SampleEncoder encoder, SeriesCache seriesCache) {
        this(new JsonDecoder(maxRecordBytes), encoder, seriesCache);
    }

    /**
     * @param decoder reads the records of one {@link InputFormat} (the topic's); the output is the import API's
     */
    public PointAmplifier(RecordDecoder decoder, ImportLineEncoder encoder, SeriesCache seriesCache) {
        this(decoder, new ImportSampleEncoder(encoder), seriesCache);
    }

    /**
     * @param decoder     reads the records of one {@link InputFormat} (the topic's)
     * @param encoder     this thread's encoder for the run's output protocol (the seam of DESIGN §6)
     * @param seriesCache prepared series, shared with the process's other consumers (encoders of the same output)
     */
    public PointAmplifier(RecordDecoder decoder, SampleEncoder encoder, SeriesCache seriesCache) {
        this.decoder = decoder;
        this.encoder = encoder;
        this.seriesCache = seriesCache;
    }

    /**
     * Decodes a json record value (the Kafka timestamp is not needed); null when valid (then
     * {@link #pointCount()} ≥ 1), else why it is rejected.
     */
    public DecodeError decode(byte[] value) {
        return decode(value, 0).first();
    }

    /**
     * Decodes a record value of this amplifier's format; the valid points are then {@link #pointCount()}, what was
     * refused is in the returned {@link Rejections} (valid until the next decode).
     *
     * @param kafkaTimestampMs the record's timestamp: the timestamp of samples that carry none
     */
    public Rejections decode(byte[] value, long kafkaTimestampMs) {
        decoder.decode(value, kafkaTimestampMs, points, rejections);
        return rejections;
    }

    /** The format this amplifier decodes. */
    public InputFormat format() {
        return decoder.format();
    }

    /** Detail of the last rejection. */
    public String lastErrorDetail() {
        return rejections.firstDetail();
    }

    /** Points of the last decoded record. */
    public int pointCount() {
        return points.count();
    }

    /** Samples each point becomes: M × N. */
    public long samplesPerPoint() {
        return encoder.plan().samplesPerPoint();
    }

    /**
     * Appends point {@code p}'s N lines of M samples to {@code out}.
     *
     * @return samples appended
     */
    public int encodePoint(int p, ByteBuf out) {
        if (encoder.canEncodeVerbatim(points)) {
            return encoder.encodePointVerbatim(points, p, out);
        }
        int keyLength = points.seriesKey(p);
        byte[] key = points.seriesKeyBytes();
        long hash = SeriesCache.hash(key, keyLength);
        byte[] entry = seriesCache.get(key, keyLength, hash);
        if (entry == null) {
            entry = seriesCache.put(key, keyLength, hash, prepare(p));
        }
        return encoder.encodePoint(entry, SeriesCache.stateOffset(entry), points.timestampMs(p), points.value(p), out);
    }

    /** A series seen for the first time (or evicted since): its label strings, then its N line prefixes. */
    private byte[] prepare(int p) {
        int from = points.labelStart(p);
        int n = points.labelEnd(p) - from;
        String[] names = new String[n];
        String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = points.labelName(from + i);
            values[i] = points.labelValue(from + i);
        }
        return encoder.prepareSeries(points.metric(p), names, values, 0, n);
    }
}
