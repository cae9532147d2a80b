package io.tsdbwriter.decode.json;

import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.record.DecodeError;
import io.tsdbwriter.record.DecodedPoints;
import io.tsdbwriter.record.PointDecoder;

/**
 * The proof of concept's JSON point records (DESIGN §2) behind the {@link RecordDecoder} seam: delegates to
 * {@link PointDecoder} (fast scanner, Jackson fallback), which accepts or rejects a record whole; the Kafka
 * timestamp is not used (the contract requires a timestamp per point).
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class JsonDecoder implements RecordDecoder {

    private final PointDecoder decoder;

    /** @param maxRecordBytes larger records are rejected whole */
    public JsonDecoder(int maxRecordBytes) {
        this.decoder = new PointDecoder(maxRecordBytes);
    }

    @Override
    public InputFormat format() {
        return InputFormat.JSON;
    }

    @Override
    public void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        rejections.clear();
        DecodeError error = decoder.decode(value, out);
        if (error != null) {
            rejections.add(error, decoder.lastErrorDetail());
        }
    }
}
