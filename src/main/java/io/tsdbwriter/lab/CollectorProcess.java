package io.tsdbwriter.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One OpenTelemetry Collector process ({@code kafkareceiver} → {@code prometheusremotewriteexporter}) as the peer
 * comparisons run it: the binary {@code scripts/lib.sh ensure_otelcol} builds (builder and contrib versions in
 * pom.xml), with the at-least-once configuration of the resource {@value #CONFIG_RESOURCE} (its comments quote the
 * components' READMEs), which takes its endpoints from {@code OTELCOL_*} environment variables. The Collector reads
 * OTLP protobuf records ({@code produce --record-format otlp}) and serves its own metrics on 127.0.0.1 at
 * {@link Settings#metricsPort()}. Not thread-safe: one owner starts, kills and stops it.
 */
public final class CollectorProcess implements AutoCloseable {

    /** The classpath resource of the Collector's configuration (YAML). */
    public static final String CONFIG_RESOURCE = "/otelcol/kafka-to-remote-write.yaml";

    /** The variable naming the Collector binary (set by {@code scripts/lib.sh ensure_otelcol}). */
    public static final String BINARY_ENV = "TSDB_WRITER_OTELCOL_BINARY";

    /**
     * Where the Collector reads and writes.
     *
     * @param bootstrapServers Kafka's {@code host:port} (the receiver's {@code brokers}; one address)
     * @param topic            the topic of OTLP records
     * @param groupId          the consumer group (a restart with the same group resumes from its marks)
     * @param remoteWriteUrl   the remote write 1.0 endpoint, e.g. {@code http://127.0.0.1:8428/api/v1/write}
     * @param metricsPort      the port of the Collector's own Prometheus metrics on 127.0.0.1
     */
    public record Settings(
            String bootstrapServers, String topic, String groupId, String remoteWriteUrl, int metricsPort) {
        public Settings {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(remoteWriteUrl, "remoteWriteUrl");
        }

        /** The {@code OTELCOL_*} variables the configuration reads. */
        Map<String, String> environment() {
            return Map.of(
                    "OTELCOL_KAFKA_BROKERS", bootstrapServers,
                    "OTELCOL_TOPIC", topic,
                    "OTELCOL_GROUP_ID", groupId,
                    "OTELCOL_REMOTE_WRITE_URL", remoteWriteUrl,
                    "OTELCOL_METRICS_PORT", Integer.toString(metricsPort));
        }
    }

    private final Process process;
    private final Path log;

    private CollectorProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Where the Collector is looked for: {@code explicit} when given, else {@value #BINARY_ENV}, else
     * {@code ~/.cache/tsdb-writer/bin/otelcol}, else {@code otelcol} on the PATH; empty when none is executable.
     */
    public static Optional<Path> locate(Path explicit) {
        return Binaries.locate(explicit, BINARY_ENV, "otelcol");
    }

    /** Writes the configuration resource to {@code dir/otelcol.yaml} (created when missing) and returns its path. */
    public static Path writeConfig(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path config = dir.resolve("otelcol.yaml");
        try (InputStream in = CollectorProcess.class.getResourceAsStream(CONFIG_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CONFIG_RESOURCE + " is missing from the classpath");
            }
            Files.copy(in, config, StandardCopyOption.REPLACE_EXISTING);
        }
        return config;
    }

    /**
     * Starts the Collector ({@code prefix} before it, e.g. {@code taskset -c 1}, or empty) with the configuration
     * written into {@code workDir}; its output goes to {@code workDir/otelcol.log} (appended, so a restart keeps the
     * first run's lines).
     *
     * @throws IOException when the configuration cannot be written or the process cannot start
     */
    public static CollectorProcess start(Path binary, Path workDir, Settings settings, List<String> prefix)
            throws IOException {
        return start(binary, workDir, settings, prefix, writeConfig(workDir));
    }

    /**
     * As {@link #start(Path, Path, Settings, List)} with another configuration file ({@code config}, YAML reading the
     * same {@code OTELCOL_*} variables, e.g. the components' defaults).
     *
     * @throws IOException when the process cannot start
     */
    public static CollectorProcess start(Path binary, Path workDir, Settings settings, List<String> prefix, Path config)
            throws IOException {
        Files.createDirectories(workDir);
        List<String> command = new ArrayList<>(prefix);
        command.add(binary.toString());
        command.add("--config");
        command.add(config.toString());
        ProcessBuilder pb = ChildProcess.of(command);
        pb.environment().putAll(settings.environment());
        Path log = workDir.resolve("otelcol.log");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new CollectorProcess(pb.start(), log);
    }

    /** The process (its PID for CPU and RSS readings). */
    public Process process() {
        return process;
    }

    /** The Collector's log file. */
    public Path log() {
        return log;
    }

    /** SIGKILL, then waits for the process to be gone (at most 10 s). */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM (the Collector's graceful shutdown), then at most {@code grace} for it to exit; SIGKILL after that.
     *
     * @return the exit code, or -1 when it had to be killed
     */
    public int stop(Duration grace) throws InterruptedException {
        process.destroy();
        if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        kill();
        return -1;
    }

    /** The last {@code n} lines of the log (for a failure message). */
    public List<String> tail(int n) {
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.subList(Math.max(0, lines.size() - n), lines.size());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops it as {@link #stop} with 10 s of grace. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stop(Duration.ofSeconds(10));
        }
    }
}
