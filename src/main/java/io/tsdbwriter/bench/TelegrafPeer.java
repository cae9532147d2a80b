package io.tsdbwriter.bench;

import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.Binaries;
import io.tsdbwriter.lab.ChildProcess;
import io.tsdbwriter.lab.Placement;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The peer of {@code bench --peer telegraf}: Telegraf ({@code inputs.kafka_consumer}, {@code data_format = "json"}
 * reading our JSON point records: name from {@code metric}, time from {@code timestamp} in epoch ms, field
 * {@code value}, tags {@code dimensions_*} and {@code productKey}) → {@code outputs.influxdb} into a VictoriaMetrics, on
 * a pre-loaded topic, with a fresh consumer group from the oldest offset. Telegraf 1.37 has no parser of OTLP records
 * (only the generic {@code xpath_protobuf}, which {@code scripts/lib.sh} does not build), so it reads the JSON records of
 * the same points. Telegraf runs until its group's committed offsets reach the topic's end (it commits what its output
 * delivered), then gets SIGTERM; measured as {@link RelayPeers#measure} says. Linux only; plaintext Kafka only (the
 * bench's security flags are not passed on). Not thread-safe.
 */
public final class TelegrafPeer {

    /** Environment variable naming the Telegraf binary (as {@code ensure_telegraf} in {@code scripts/lib.sh} exports it). */
    public static final String BINARY_ENV = "TSDB_WRITER_TELEGRAF_BINARY";

    /** How the table names Telegraf. */
    static final String ROW_NAME = "telegraf (kafka_consumer json → influxdb)";

    private TelegrafPeer() {}

    /**
     * Where Telegraf is looked for: {@code explicit} (the {@code --telegraf-binary} flag), else {@value #BINARY_ENV},
     * else {@code ~/.cache/tsdb-writer/bin/telegraf} (where {@code scripts/lib.sh ensure_telegraf} builds it), else
     * {@code telegraf} on the PATH; empty when none is executable.
     */
    public static Optional<Path> locate(Path explicit) {
        return Binaries.locate(explicit, BINARY_ENV, "telegraf");
    }

    /** The Telegraf configuration for {@code topic} at {@code bootstrapServers} → {@code vmUrl} (TOML). */
    static String config(String bootstrapServers, String topic, String groupId, String vmUrl) {
        StringBuilder brokers = new StringBuilder();
        for (String b : bootstrapServers.split(",")) {
            if (!brokers.isEmpty()) {
                brokers.append(", ");
            }
            brokers.append('"').append(b.trim()).append('"');
        }
        return """
                [agent]
                  interval = "10s"
                  flush_interval = "1s"
                  metric_batch_size = 10000
                  metric_buffer_limit = 100000
                  omit_hostname = true
                  quiet = true

                [[inputs.kafka_consumer]]
                  brokers = [%s]
                  topics = ["%s"]
                  consumer_group = "%s"
                  offset = "oldest"
                  max_undelivered_messages = 10000
                  ## Kafka 4 removed the old protocol versions sarama speaks by default (the broker closes with EOF)
                  version = "3.9.0"
                  data_format = "json"
                  json_name_key = "metric"
                  json_time_key = "timestamp"
                  json_time_format = "unix_ms"
                  tag_keys = ["dimensions_*", "productKey"]

                [[outputs.influxdb]]
                  urls = ["%s"]
                  database = "telegraf"
                  skip_database_creation = true
                  timeout = "30s"
                """
                .formatted(brokers, topic, groupId, vmUrl.replaceAll("/+$", ""));
    }

    /**
     * Runs Telegraf over the whole of {@code topic} ({@code records} JSON point records) into the VictoriaMetrics at
     * {@code vmUrl} and returns its row (not read back); Telegraf starts on the placement's writer CPUs when it has them.
     *
     * @throws IOException when Telegraf exits early or does not finish within {@code timeout}
     */
    public static RelayPeers.Row run(
            Path binary,
            KafkaClientConfig kafka,
            String topic,
            long records,
            String vmUrl,
            Path workDir,
            Duration timeout,
            PrintStream progress,
            Placement placement)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        String group = "telegraf-peer-" + System.currentTimeMillis();
        Path conf = workDir.resolve("telegraf.conf");
        Path log = workDir.resolve("telegraf.log");
        Files.writeString(conf, config(kafka.bootstrapServers(), topic, group, vmUrl), StandardCharsets.UTF_8);
        long t0 = System.nanoTime();
        Process proc = ChildProcess.of(placement.writerCommand(List.of(binary.toString(), "--config", conf.toString())))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
                .start();
        try {
            return RelayPeers.measure("telegraf", ROW_NAME, proc, t0, log, kafka, group, records, timeout, progress);
        } finally {
            proc.destroy(); // SIGTERM: Telegraf flushes and stops
            if (!proc.waitFor(30, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
            }
        }
    }
}
