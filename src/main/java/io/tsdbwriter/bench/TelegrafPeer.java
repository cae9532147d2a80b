package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.ChildProcess;
import io.tsdbwriter.lab.Placement;
import io.tsdbwriter.metrics.AotCacheStatus;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The peer of {@code bench --peer telegraf}: Telegraf ({@code inputs.kafka_consumer}, {@code data_format = "json"}
 * reading our point records: name from {@code metric}, time from {@code timestamp} in epoch ms, field {@code value},
 * tags {@code dimensions_*} and {@code productKey}) → {@code outputs.influxdb} into the same VictoriaMetrics, on the
 * topic the bench has just pre-loaded, with a fresh consumer group from the oldest offset. Telegraf runs until its
 * group's committed offsets reach the topic's end (it commits what its output delivered), then gets SIGTERM. Its CPU
 * (utime + stime of {@code /proc/PID/stat}) and peak RSS ({@code VmHWM} of {@code /proc/PID/status}) are read just
 * before that; elapsed time is from its start to the last committed offset. Linux only; plaintext Kafka only (the
 * bench's security flags are not passed on). Not thread-safe.
 */
public final class TelegrafPeer {

    /** Environment variable naming the Telegraf binary (as {@code ensure_telegraf} in {@code scripts/lib.sh} exports it). */
    public static final String BINARY_ENV = "TSDB_WRITER_TELEGRAF_BINARY";

    /** One process's figures over the same records. */
    public record Row(String name, long points, double cpuSeconds, double elapsedSeconds, long peakRssBytes) {
        public double cpuPerMillion() {
            return points > 0 ? cpuSeconds / (points / 1e6) : Double.NaN;
        }

        double pointsPerSecond() {
            return elapsedSeconds > 0 ? points / elapsedSeconds : Double.NaN;
        }
    }

    private TelegrafPeer() {}

    /**
     * Where Telegraf is looked for: {@code explicit} (the {@code --telegraf-binary} flag), else {@value #BINARY_ENV},
     * else {@code ~/.cache/tsdb-writer/bin/telegraf} (where {@code scripts/lib.sh ensure_telegraf} builds it), else
     * {@code telegraf} on the PATH; empty when none is executable.
     */
    public static Optional<Path> locate(Path explicit) {
        List<Path> candidates = new ArrayList<>();
        if (explicit != null) {
            return Files.isExecutable(explicit) ? Optional.of(explicit) : Optional.empty();
        }
        String env = System.getenv(BINARY_ENV);
        if (env != null && !env.isBlank()) {
            candidates.add(Path.of(env));
        }
        candidates.add(Path.of(System.getProperty("user.home"), ".cache", "tsdb-writer", "bin", "telegraf"));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, "telegraf"));
            }
        }
        return candidates.stream().filter(Files::isExecutable).findFirst();
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
     * Runs Telegraf over the whole of {@code topic} ({@code records} records) and returns its row; Telegraf starts on
     * the placement's writer CPUs when it has them.
     *
     * @throws IOException when Telegraf exits early or does not finish within {@code timeout}
     */
    public static Row run(
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
        Properties p = kafka.clientPropertiesAsProperties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-bench-peer");
        try (Admin admin = Admin.create(p)) {
            long t0 = System.nanoTime();
            Process proc = ChildProcess.of(
                            placement.writerCommand(List.of(binary.toString(), "--config", conf.toString())))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
                    .start();
            try {
                long deadline = t0 + timeout.toNanos();
                long committed = 0;
                long lastReport = t0;
                while (committed < records) {
                    if (!proc.isAlive()) {
                        throw new IOException("telegraf exited (" + proc.exitValue() + ") after " + committed + " of "
                                + records + " records; see " + log);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IOException("telegraf committed " + committed + " of " + records + " records in "
                                + timeout + "; see " + log);
                    }
                    Thread.sleep(200);
                    committed = committed(admin, group);
                    if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
                        progress.printf(
                                Locale.ROOT,
                                "bench: peer telegraf: %,d of %,d records committed%n",
                                committed,
                                records);
                        lastReport = System.nanoTime();
                    }
                }
                double elapsed = (System.nanoTime() - t0) / 1e9;
                double cpu = cpuSeconds(proc.pid());
                long rss = peakRssBytes(proc.pid());
                return new Row("telegraf (kafka_consumer json → influxdb)", records, cpu, elapsed, rss);
            } finally {
                proc.destroy(); // SIGTERM: Telegraf flushes and stops
                if (!proc.waitFor(30, TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                }
            }
        }
    }

    private static long committed(Admin admin, String group) throws InterruptedException {
        try {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            return m.values().stream()
                    .filter(o -> o != null)
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        } catch (ExecutionException | TimeoutException e) {
            return 0; // the group does not exist yet
        }
    }

    /** utime + stime of a live process, in seconds (Linux {@code /proc/PID/stat}, clock ticks of 100 Hz). */
    static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after "pid (comm) ": state is field 3, utime field 14, stime field 15 → indexes 11 and 12 here
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    /** Peak resident set size of a live process ({@code VmHWM}), in bytes; -1 when unreadable. */
    static long peakRssBytes(long pid) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
            return lines.filter(l -> l.startsWith("VmHWM:"))
                    .findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
                    .orElse(-1L);
        }
    }

    /** Our relay cells' rows, from the writers' summaries in {@code workDir} (cells with M=N=1). */
    public static List<Row> writerRows(Path workDir) throws IOException {
        List<Row> rows = new ArrayList<>();
        if (!Files.isDirectory(workDir)) {
            return rows;
        }
        List<Path> summaries;
        try (Stream<Path> s = Files.list(workDir)) {
            summaries = s.filter(f -> f.getFileName().toString().matches("cell-\\d+\\.json"))
                    .sorted()
                    .toList();
        }
        ObjectMapper json = new ObjectMapper();
        for (Path f : summaries) {
            JsonNode j = json.readTree(f.toFile());
            long points = j.path("points").asLong();
            if (points == 0 || j.path("samples_expected").asLong() != points) {
                continue; // not a relay cell (M×N > 1) or nothing read
            }
            String cmd = firstLine(workDir.resolve(f.getFileName().toString().replace(".json", ".log")));
            String label = cellLabel(
                    cmd,
                    AotCacheStatus.State.ofLabel(j.path("aot_cache").asText("")).orElse(null));
            rows.add(new Row(
                    "tsdb-writer " + f.getFileName().toString().replace(".json", "") + label,
                    points,
                    j.path("cpu_seconds").asDouble(Double.NaN),
                    j.path("elapsed_seconds").asDouble(Double.NaN),
                    j.path("peak_rss_bytes").asLong(-1)));
        }
        return rows;
    }

    private static String firstLine(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "";
        }
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.findFirst().orElse(""); // the command
        }
    }

    /**
     * " P=<p> <mode>", and the AOT cache as the writer found it ({@code aot_cache} of its summary; null when absent): a
     * cache passed but stale or missing is not counted as one, since the run then paid the JIT warm-up in full.
     */
    private static String cellLabel(String cmd, AotCacheStatus.State aotCache) {
        Matcher p = Pattern.compile("--parallelism (\\d+)").matcher(cmd);
        Matcher w = Pattern.compile("--write-mode (\\w+)").matcher(cmd);
        String cache = "";
        if (cmd.contains("-XX:AOTCache=")) {
            cache = aotCache == AotCacheStatus.State.STALE
                    ? " (AOT cache stale: not used)"
                    : aotCache == AotCacheStatus.State.MISSING ? " (AOT cache missing)" : " (AOT cache)";
        }
        return (p.find() ? " P=" + p.group(1) : "") + (w.find() ? " " + w.group(1) : "") + cache;
    }

    /** The comparison block: our relay rows, the peer's row under them. */
    public static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("| process | points | CPU-s | CPU-s / M points | points/s | peak RSS |\n");
        b.append("|:--|--:|--:|--:|--:|--:|\n");
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %.2f | %.2f | %,.0f | %s |%n",
                    r.name(),
                    r.points(),
                    r.cpuSeconds(),
                    r.cpuPerMillion(),
                    r.pointsPerSecond(),
                    r.peakRssBytes() < 0 ? "–" : (r.peakRssBytes() >> 20) + " MiB"));
        }
        return b.toString();
    }
}
