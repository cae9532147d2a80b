package io.tsdbwriter.decode.json;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampCheck;
import io.tsdbwriter.decode.TimestampWindow;
import java.util.Objects;

/**
 * The proof of concept's JSON point records (DESIGN §2) behind the {@link RecordDecoder} seam: delegates to
 * {@link PointDecoder} (fast scanner, Jackson fallback), which accepts or rejects a record whole; the Kafka
 * timestamp is not used (the contract requires a timestamp per point).
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class JsonDecoder implements RecordDecoder {

    private final PointDecoder decoder;
    private final TimestampWindow window;
    private final TimestampCheck timestamps;

    /** @param maxRecordBytes larger records are rejected whole */
    public JsonDecoder(int maxRecordBytes) {
        this(maxRecordBytes, TimestampWindow.DEFAULT);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param window         a record with a point outside it is refused whole as {@code implausible_timestamp}
     */
    public JsonDecoder(int maxRecordBytes, TimestampWindow window) {
        this.decoder = new PointDecoder(maxRecordBytes);
        this.window = Objects.requireNonNull(window, "window");
        this.timestamps = new TimestampCheck(window);
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
            return;
        }
        for (int p = 0, n = out.count(); p < n; p++) {
            long t = out.timestampMs(p);
            if (!timestamps.contains(t)) {
                out.clear(); // a record that breaks a rule is refused whole (DESIGN §2)
                rejections.add(DecodeError.IMPLAUSIBLE_TIMESTAMP, window.describe(t));
                return;
            }
        }
    }
}
