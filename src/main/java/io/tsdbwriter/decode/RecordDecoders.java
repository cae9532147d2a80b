package io.tsdbwriter.decode;

import io.tsdbwriter.decode.graphite.GraphiteDecoder;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.decode.json.JsonDecoder;
import io.tsdbwriter.decode.jsonline.ExportLineDecoder;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;

/** Builds the {@link RecordDecoder} of a format. Stateless. */
public final class RecordDecoders {

    private RecordDecoders() {
    }

    /**
     * A new decoder (not thread-safe: one per consuming thread).
     *
     * @param maxRecordBytes   larger records are rejected whole ({@code too_large})
     * @param influxPrecision  timestamp unit of influx lines
     */
    public static RecordDecoder create(InputFormat format, int maxRecordBytes, InfluxDecoder.Precision influxPrecision) {
        return switch (format) {
            case JSON -> new JsonDecoder(maxRecordBytes);
            case INFLUX -> new InfluxDecoder(maxRecordBytes, influxPrecision);
            case PROMREMOTEWRITE -> new RemoteWriteDecoder(maxRecordBytes);
            case PROMETHEUS -> new ExpositionDecoder(maxRecordBytes);
            case JSONLINE -> new ExportLineDecoder(maxRecordBytes);
            case GRAPHITE -> new GraphiteDecoder(maxRecordBytes);
        };
    }
}
