package io.tsdbwriter.pipeline;

import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.graphite.GraphiteDecoder;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.decode.json.JsonDecoder;
import io.tsdbwriter.decode.jsonline.ExportLineDecoder;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.otlp.OtlpJsonDecoder;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;

/**
 * Builds the {@link RecordDecoder} of a format: the one place that knows every {@code decode/<format>} package (the
 * formats depend on {@code decode}'s interfaces, never the other way round). Stateless.
 */
public final class RecordDecoders {

    private RecordDecoders() {}

    /**
     * A new decoder (not thread-safe: one per consuming thread).
     *
     * @param maxRecordBytes   larger records are rejected whole ({@code too_large})
     * @param influxPrecision  timestamp unit of influx lines
     */
    public static RecordDecoder create(
            InputFormat format, int maxRecordBytes, InfluxDecoder.Precision influxPrecision) {
        return create(format, maxRecordBytes, influxPrecision, TimestampWindow.DEFAULT);
    }

    /**
     * A new decoder (not thread-safe: one per consuming thread).
     *
     * @param maxRecordBytes   larger records are rejected whole ({@code too_large})
     * @param influxPrecision  timestamp unit of influx lines
     * @param window           samples outside it are refused as {@code implausible_timestamp}
     */
    public static RecordDecoder create(
            InputFormat format, int maxRecordBytes, InfluxDecoder.Precision influxPrecision, TimestampWindow window) {
        return switch (format) {
            case JSON -> new JsonDecoder(maxRecordBytes, window);
            case INFLUX -> new InfluxDecoder(maxRecordBytes, influxPrecision, window);
            case PROMREMOTEWRITE -> new RemoteWriteDecoder(maxRecordBytes, window);
            case PROMETHEUS -> new ExpositionDecoder(maxRecordBytes, window);
            case JSONLINE -> new ExportLineDecoder(maxRecordBytes, window);
            case GRAPHITE -> new GraphiteDecoder(maxRecordBytes, window);
            case OTLP -> new OtlpDecoder(maxRecordBytes, window);
            case OTLP_JSON -> new OtlpJsonDecoder(maxRecordBytes, window);
        };
    }
}
