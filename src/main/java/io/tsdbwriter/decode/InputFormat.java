package io.tsdbwriter.decode;

import java.util.Locale;

/**
 * The record formats {@code --input-format} and {@code --topic-format} name (DESIGN §2; docs/input-formats.md).
 * Each has one {@link RecordDecoder} ({@link io.tsdbwriter.pipeline.RecordDecoders#create}).
 */
public enum InputFormat {
    /** The proof of concept's JSON point (DESIGN §2): one object or an array of objects; rejected whole. */
    JSON,
    /** InfluxDB 2 line protocol, one or more lines, named as VictoriaMetrics' {@code /write} names them. */
    INFLUX,
    /** One Prometheus remote write 1.0 {@code WriteRequest}, snappy block or zstd frame; rejected whole. */
    PROMREMOTEWRITE,
    /** Prometheus text exposition 0.0.4 lines. */
    PROMETHEUS,
    /** VictoriaMetrics {@code /api/v1/export} JSON lines. */
    JSONLINE,
    /** Graphite plaintext lines {@code path[;tag=value…] value [timestamp]}. */
    GRAPHITE,
    /**
     * One OpenTelemetry {@code ExportMetricsServiceRequest}, protobuf (the Collector's Kafka exporter's
     * {@code otlp_proto}), mapped as VictoriaMetrics' {@code /opentelemetry/v1/metrics} maps it.
     */
    OTLP,
    /** The same request in OTLP's JSON encoding (the Collector's {@code otlp_json}); flag value {@code otlp-json}. */
    OTLP_JSON;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** Lower-case name ({@code otlp_json}): the {@code format} tag of the decode-error counter; the flag takes it with {@code -} too. */
    public String tag() {
        return tag;
    }

    /**
     * The format a flag value names (case-insensitive).
     *
     * @throws IllegalArgumentException for any other value, listing the valid ones
     */
    public static InputFormat parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (InputFormat f : values()) {
            if (f.tag.equals(v)) {
                return f;
            }
        }
        throw new IllegalArgumentException("'" + value
                + "' is not one of json, influx, promremotewrite, prometheus, jsonline, graphite, otlp, otlp-json");
    }
}
