package io.tsdbwriter.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * The settings every Kafka client of the process shares (group member, segment readers, dead-letter producer,
 * {@code produce}'s and {@code bench}'s producers and admin clients), the Kafka way: a Java properties file
 * ({@code --kafka-config}, as the Kafka CLI tools' {@code --command-config}) overlaid by {@code --kafka-property
 * KEY=VALUE} entries, overlaid by {@code --bootstrap-servers}. Values are passed to Kafka unchanged, so Kafka's own
 * config providers work ({@code config.providers=env,file} with {@code ${env:VAR}} / {@code ${file:path:key}}
 * placeholders are resolved by the client, not by us) and Kafka logs password-typed settings as {@code [hidden]}.
 *
 * <p>Immutable; thread-safe. {@link #toString()} shows keys only, never values.
 *
 * @param bootstrapServers {@code host:port,…}; always wins over a {@code bootstrap.servers} in the file or properties
 * @param properties       the file's entries overlaid by the {@code --kafka-property} entries (insertion order kept)
 */
public record KafkaClientConfig(String bootstrapServers, Map<String, String> properties) {

    /** @throws IllegalArgumentException when the bootstrap servers are empty or a key is blank */
    public KafkaClientConfig {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("--bootstrap-servers must not be empty");
        }
        Objects.requireNonNull(properties, "properties");
        for (String k : properties.keySet()) {
            if (k == null || k.isBlank()) {
                throw new IllegalArgumentException("--kafka-property needs KEY=VALUE with a non-empty KEY");
            }
        }
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** Only the bootstrap servers (no extra settings). */
    public static KafkaClientConfig of(String bootstrapServers) {
        return new KafkaClientConfig(bootstrapServers, Map.of());
    }

    /**
     * Reads {@code configFile} (may be null) as a Java properties file and overlays {@code overrides}.
     *
     * @throws IllegalArgumentException naming {@code --kafka-config} when the file cannot be read (the message names
     *                                  the file, never its content)
     */
    public static KafkaClientConfig of(String bootstrapServers, Path configFile, Map<String, String> overrides) {
        Map<String, String> props = new LinkedHashMap<>();
        if (configFile != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(configFile, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalArgumentException("--kafka-config " + configFile + ": cannot read it ("
                        + e.getClass().getSimpleName() + ")");
            }
            p.stringPropertyNames().stream().sorted().forEach(k -> props.put(k, p.getProperty(k)));
        }
        if (overrides != null) {
            props.putAll(overrides);
        }
        return new KafkaClientConfig(bootstrapServers, props);
    }

    /**
     * A new mutable map for one client: the properties plus {@code bootstrap.servers}. The caller adds its own
     * client-specific settings (serializers, client.id, group.id …) on top.
     */
    public Map<String, Object> clientProperties() {
        Map<String, Object> m = new LinkedHashMap<>(properties);
        m.put("bootstrap.servers", bootstrapServers);
        return m;
    }

    /** As {@link #clientProperties()}, as {@link Properties}. */
    public Properties clientPropertiesAsProperties() {
        Properties p = new Properties();
        p.putAll(clientProperties());
        return p;
    }

    /** Never shows values (they may be secrets): bootstrap servers and the keys only. */
    @Override
    public String toString() {
        return "KafkaClientConfig[bootstrap.servers=" + bootstrapServers + ", keys=" + properties.keySet() + "]";
    }
}
