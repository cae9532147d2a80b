package io.tsdbwriter.config;

import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import java.util.Map;
import java.util.Objects;

/**
 * How record values are read and which label amplification varies (DESIGN §2, §3; docs/input-formats.md).
 *
 * @param defaultFormat  {@code --input-format}: the format of every topic without an override (default json)
 * @param topicFormats   {@code --topic-format TOPIC=FORMAT} overrides; unmodifiable
 * @param influxPrecision {@code --influx-precision}: unit of influx line timestamps (default ns)
 * @param instanceLabel  {@code --instance-label}: the label whose value becomes the N instance variants (default
 *                       {@code instanceNo}); {@code [a-zA-Z_][a-zA-Z0-9_.]*}, not starting with {@code __} (dots: an
 *                       OpenTelemetry attribute such as {@code host.name}, kept as a label name by the OTLP mapping)
 * @param timestampWindow {@code --min-timestamp}, {@code --max-timestamp-ahead}: samples outside are refused as
 *                       {@code implausible_timestamp} (default 2000-01-01T00:00:00Z … now + 1 day)
 * @param convertHistogramsToNhcb {@code --convert-histograms-to-nhcb}: OTLP explicit-bucket histograms become native
 *                       histograms with custom buckets where the output is remote write (default false: classic
 *                       {@code _bucket{le}} series; the import API keeps them classic either way)
 * @param convertClassicHistogramsToNhcb {@code --convert-classic-histograms-to-nhcb}: classic histograms of Prometheus
 *                       text and OpenMetrics records become native histograms with custom buckets where the output is
 *                       remote write (default false; the import API keeps them classic either way)
 */
public record InputConfig(
        InputFormat defaultFormat,
        Map<String, InputFormat> topicFormats,
        InfluxDecoder.Precision influxPrecision,
        String instanceLabel,
        TimestampWindow timestampWindow,
        boolean convertHistogramsToNhcb,
        boolean convertClassicHistogramsToNhcb) {

    /** @throws IllegalArgumentException naming the flag whose value is wrong */
    public InputConfig {
        Objects.requireNonNull(defaultFormat, "--input-format");
        topicFormats = Map.copyOf(topicFormats);
        Objects.requireNonNull(influxPrecision, "--influx-precision");
        Objects.requireNonNull(timestampWindow, "timestampWindow");
        if (instanceLabel == null
                || !instanceLabel.matches("[a-zA-Z_][a-zA-Z0-9_.]*")
                || instanceLabel.startsWith("__")) {
            throw new IllegalArgumentException(
                    "--instance-label must be a label name [a-zA-Z_][a-zA-Z0-9_.]* not starting with __, got '"
                            + instanceLabel + "'");
        }
    }

    /**
     * json records, ns influx timestamps, {@code instanceNo}, classic histograms: the behaviour before input formats
     * existed.
     */
    public static InputConfig defaults() {
        return new InputConfig(
                InputFormat.JSON,
                Map.of(),
                InfluxDecoder.Precision.NS,
                "instanceNo",
                TimestampWindow.DEFAULT,
                false,
                false);
    }

    /** These settings with another timestamp window (the target's retention raises its earliest bound). */
    public InputConfig withTimestampWindow(TimestampWindow window) {
        return new InputConfig(
                defaultFormat,
                topicFormats,
                influxPrecision,
                instanceLabel,
                window,
                convertHistogramsToNhcb,
                convertClassicHistogramsToNhcb);
    }

    /** The format of {@code topic}. */
    public InputFormat formatOf(String topic) {
        return topicFormats.getOrDefault(topic, defaultFormat);
    }
}
