package io.tsdbwriter.cli;

import io.tsdbwriter.config.InputConfig;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code run}'s flags of how record values are read: {@code --input-format} (and {@code --topic-format} where a topic
 * differs), {@code --influx-precision}, {@code --instance-label}, the plausible timestamp window
 * ({@code --min-timestamp}, {@code --max-timestamp-ahead}), {@code --convert-histograms-to-nhcb} and
 * {@code --convert-classic-histograms-to-nhcb}. A picocli mixin,
 * declared where these flags sit in {@code run --help}; only wires: {@link InputConfig} holds the settings, the
 * decoders the logic. Not thread-safe (picocli fills it once per parse).
 */
final class InputOptions {

    @Option(
            names = "--input-format",
            defaultValue = "json",
            paramLabel = "json|influx|promremotewrite|prometheus|jsonline|graphite|otlp|otlp-json",
            description = "How record values are read (default: ${DEFAULT-VALUE})")
    String inputFormat;

    @Option(
            names = "--topic-format",
            paramLabel = "TOPIC=FORMAT",
            description = "The format of one topic when it differs from --input-format (repeatable)")
    Map<String, String> topicFormats = new LinkedHashMap<>();

    @Option(
            names = "--influx-precision",
            defaultValue = "ns",
            paramLabel = "ns|us|ms|s",
            description = "Unit of influx line timestamps (default: ${DEFAULT-VALUE})")
    String influxPrecision;

    @Option(
            names = "--instance-label",
            defaultValue = "instanceNo",
            paramLabel = "NAME",
            description = "Label whose value becomes the N instance variants (default: ${DEFAULT-VALUE})")
    String instanceLabel;

    @Option(
            names = "--min-timestamp",
            defaultValue = "2000-01-01T00:00:00Z",
            converter = Converters.EpochMillisConverter.class,
            paramLabel = "RFC3339|EPOCH_MS",
            description = "An earlier sample timestamp is malformed (default: ${DEFAULT-VALUE})")
    long minTimestampMs;

    @Option(
            names = "--max-timestamp-ahead",
            defaultValue = "1d",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "A sample timestamp this far past now is malformed (default: ${DEFAULT-VALUE})")
    Duration maxTimestampAhead;

    @Option(
            names = "--convert-histograms-to-nhcb",
            description = "With remote write, OTLP explicit-bucket histograms become native histograms with custom"
                    + " buckets (schema -53), as Prometheus' convert_histograms_to_nhcb; the import API keeps classic"
                    + " _bucket{le} series")
    boolean convertHistogramsToNhcb;

    @Option(
            names = "--convert-classic-histograms-to-nhcb",
            description = "With remote write, classic histograms of Prometheus text and OpenMetrics records"
                    + " (_bucket{le}, _sum, _count of a family typed histogram) become native histograms with custom"
                    + " buckets (schema -53), as Prometheus' scrape option convert_classic_histograms_to_nhcb; the"
                    + " import API keeps classic _bucket{le} series")
    boolean convertClassicHistogramsToNhcb;

    /**
     * The input settings of these flags.
     *
     * @throws IllegalArgumentException naming the flag of an unknown format or precision
     */
    InputConfig toConfig() {
        Map<String, InputFormat> perTopic = new LinkedHashMap<>();
        topicFormats.forEach((t, f) -> {
            try {
                perTopic.put(t.trim(), InputFormat.parse(f));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--topic-format " + t + "=" + f + ": " + e.getMessage());
            }
        });
        InputFormat format;
        try {
            format = InputFormat.parse(inputFormat);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--input-format " + e.getMessage());
        }
        return new InputConfig(
                format,
                perTopic,
                InfluxDecoder.Precision.parse(influxPrecision),
                instanceLabel,
                new TimestampWindow(minTimestampMs, maxTimestampAhead.toMillis()),
                convertHistogramsToNhcb,
                convertClassicHistogramsToNhcb);
    }
}
