package io.tsdbwriter.produce;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Encodes point records, the Kafka record values of DESIGN §2, as UTF-8 JSON:
 * <pre>{"metric":"node_load1","timestamp":1795300857000,"value":0.12,
 *  "dimensions":{"instanceNo":"node-0001","cpu":"0"},"productKey":"node"}</pre>
 * {@code timestamp} is epoch milliseconds; {@code value} a JSON number in the shortest form that reads back to the
 * same double; {@code dimensions} holds the point's labels in their order (the key is omitted when there are
 * none) and {@code productKey} is omitted when the point has none. Several points make a JSON array record.
 *
 * <p>All methods are static and thread-safe; they share one {@link JsonFactory} (and one {@link ObjectMapper} built
 * on it), both thread-safe. {@link SourcePoint} already guarantees finite values and valid names, so encoding never
 * yields a record the writer rejects.
 */
public final class PointRecords {

    private static final JsonFactory JSON =
            JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();
    private static final ObjectMapper MAPPER = new ObjectMapper(JSON);

    private PointRecords() {}

    /** The shared, thread-safe JSON factory used for point records. */
    public static JsonFactory jsonFactory() {
        return JSON;
    }

    /** The shared, thread-safe object mapper (for reading records back, e.g. in tests). */
    public static ObjectMapper objectMapper() {
        return MAPPER;
    }

    /** One point as a single-object record value. */
    public static byte[] encode(SourcePoint point) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            write(g, point);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return out.toByteArray();
    }

    /**
     * Points as one record value: a single object for one point, a JSON array of objects for several.
     *
     * @throws IllegalArgumentException when {@code points} is empty (an empty array is a decode error)
     */
    public static byte[] encode(List<SourcePoint> points) {
        if (points.isEmpty()) {
            throw new IllegalArgumentException("a record needs at least one point");
        }
        if (points.size() == 1) {
            return encode(points.get(0));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 * points.size());
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (SourcePoint p : points) {
                write(g, p);
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Writes one point object with {@code g} (for callers that stream several records). */
    public static void write(JsonGenerator g, SourcePoint p) throws IOException {
        g.writeStartObject();
        g.writeStringField("metric", p.metric());
        g.writeNumberField("timestamp", p.timestampMs());
        g.writeNumberField("value", p.value());
        if (!p.labels().isEmpty()) {
            g.writeObjectFieldStart("dimensions");
            for (Map.Entry<String, String> e : p.labels().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
        if (p.productKey() != null) {
            g.writeStringField("productKey", p.productKey());
        }
        g.writeEndObject();
    }
}
