package io.tsdbwriter.decode.otlp;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * Reads one OpenTelemetry {@code ExportMetricsServiceRequest} per record in OTLP's JSON encoding (the OpenTelemetry
 * Collector's Kafka exporter with {@code encoding: otlp_json}; OTLP specification "JSON Protobuf Encoding": lowerCamelCase
 * keys, 64-bit integers as strings or numbers, enums as integers, unknown fields ignored). The JSON is parsed by
 * protobuf's {@link JsonFormat} into the official {@code opentelemetry-proto} message and mapped by
 * {@link OtlpDecoder}, so both encodings give the same samples. Trace and span ids of exemplars (hex in OTLP JSON) are
 * not read. Refused whole: bytes that are not UTF-8 ({@link DecodeError#INVALID_UTF8}), JSON that is not such a request
 * ({@link DecodeError#INVALID_JSON}).
 *
 * <p>Slower than the protobuf path (a message object tree per record): for throughput, have the Collector write
 * {@code otlp_proto}.
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class OtlpJsonDecoder implements RecordDecoder {

    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

    private final int maxRecordBytes;
    private final OtlpDecoder protobuf;

    /**
     * @param maxRecordBytes larger records are rejected whole ({@code too_large})
     * @param window         a data point outside it is refused as {@code implausible_timestamp}
     */
    public OtlpJsonDecoder(int maxRecordBytes, TimestampWindow window) {
        this.maxRecordBytes = maxRecordBytes;
        this.protobuf = new OtlpDecoder(maxRecordBytes, window);
    }

    @Override
    public InputFormat format() {
        return InputFormat.OTLP_JSON;
    }

    @Override
    public void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        out.clear();
        rejections.clear();
        if (!LineDecoder.admit(value, maxRecordBytes, rejections)) {
            return;
        }
        if (!Utf8.isValid(value, 0, value.length)) {
            rejections.add(DecodeError.INVALID_UTF8, "record is not UTF-8");
            return;
        }
        ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
        try {
            PARSER.merge(new String(value, StandardCharsets.UTF_8), request);
        } catch (InvalidProtocolBufferException | RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            rejections.add(
                    DecodeError.INVALID_JSON,
                    "not an OTLP JSON ExportMetricsServiceRequest: "
                            + (m.length() > 200 ? m.substring(0, 200) + "…" : m));
            return;
        }
        byte[] bytes = request.build().toByteArray();
        protobuf.decodeMessage(bytes, bytes.length, kafkaTimestampMs, out, rejections);
    }
}
