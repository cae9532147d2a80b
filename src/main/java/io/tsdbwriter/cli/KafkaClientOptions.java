package io.tsdbwriter.cli;

import io.tsdbwriter.config.KafkaClientConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The Kafka client flags shared by {@code run}, {@code produce} and {@code bench}: {@code --kafka-config FILE} and
 * {@code --kafka-property KEY=VALUE}. Only wires; {@link KafkaClientConfig} holds the logic. Not thread-safe (picocli
 * fills it once per execution).
 */
public final class KafkaClientOptions {

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description =
                    "Properties file for every Kafka client (sasl.*, ssl.*; secrets as $${env:VAR} / $${file:path:key})")
    Path configFile;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description = "Setting for every Kafka client (repeatable); overrides --kafka-config")
    Map<String, String> properties = new LinkedHashMap<>();

    /** The shared client settings. @throws IllegalArgumentException when the file cannot be read */
    public KafkaClientConfig toConfig(String bootstrapServers) {
        return KafkaClientConfig.of(bootstrapServers, configFile, properties);
    }

    /** The same flags as arguments for a child {@code run} (the bench's writers). */
    public List<String> asArgs() {
        List<String> args = new ArrayList<>();
        if (configFile != null) {
            args.add("--kafka-config");
            args.add(configFile.toAbsolutePath().toString());
        }
        properties.forEach((k, v) -> {
            args.add("--kafka-property");
            args.add(k + "=" + v);
        });
        return args;
    }
}
