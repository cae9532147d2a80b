package io.tsdbwriter.bench;

import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.CollectorProcess;
import io.tsdbwriter.lab.Placement;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The peer of {@code bench --peer otelcol}: one OpenTelemetry Collector ({@link CollectorProcess}: {@code kafkareceiver}
 * reading OTLP records → {@code prometheusremotewriteexporter}, the at-least-once configuration of
 * {@value CollectorProcess#CONFIG_RESOURCE}) on a pre-loaded topic of OTLP records, with a fresh consumer group from the
 * earliest offset, into one remote write 1.0 endpoint. The records hold a scrape each ({@code produce --record-format
 * otlp}), as OpenTelemetry exporters publish them: the Collector handles a record as one pipeline call and one
 * request. It runs until its group's committed offsets reach the topic's end (the receiver marks a record once its
 * export returned), then gets SIGTERM; measured as {@link RelayPeers#measure} says. The receiver gets the first
 * address of the bootstrap servers; plaintext Kafka only. Linux only. Not thread-safe.
 */
public final class CollectorPeer {

    /** How the table names the Collector. */
    static final String ROW_NAME = "otelcol (kafkareceiver otlp_proto → prometheusremotewrite)";

    /** How long the Collector may take to shut down after SIGTERM before it is killed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private CollectorPeer() {}

    /**
     * Where the Collector is looked for: {@code explicit} (the {@code --otelcol-binary} flag), else as
     * {@link CollectorProcess#locate} says ({@value CollectorProcess#BINARY_ENV}, {@code ~/.cache/tsdb-writer/bin/otelcol},
     * {@code otelcol} on the PATH); empty when none is executable.
     */
    public static Optional<Path> locate(Path explicit) {
        return CollectorProcess.locate(explicit);
    }

    /** The Collector's settings: the first of {@code bootstrapServers}, a new group, its metrics on {@code metricsPort}. */
    static CollectorProcess.Settings settings(
            String bootstrapServers, String topic, String groupId, String remoteWriteUrl, int metricsPort) {
        return new CollectorProcess.Settings(
                bootstrapServers.split(",")[0].trim(), topic, groupId, remoteWriteUrl, metricsPort);
    }

    /**
     * Runs the Collector over the whole of {@code topic} ({@code records} OTLP records holding {@code points} data points)
     * into {@code remoteWriteUrl} and returns its row of {@code points} (not read back); it starts on the placement's
     * writer CPUs when it has them.
     *
     * @throws IOException when the Collector exits early or does not finish within {@code timeout}
     */
    public static RelayPeers.Row run(
            Path binary,
            KafkaClientConfig kafka,
            String topic,
            long records,
            long points,
            String remoteWriteUrl,
            Path workDir,
            Duration timeout,
            PrintStream progress,
            Placement placement)
            throws IOException, InterruptedException {
        String group = "otelcol-peer-" + System.currentTimeMillis();
        CollectorProcess.Settings settings =
                settings(kafka.bootstrapServers(), topic, group, remoteWriteUrl, freePort());
        long t0 = System.nanoTime();
        CollectorProcess collector =
                CollectorProcess.start(binary, workDir, settings, placement.writerCommand(List.of()));
        try {
            RelayPeers.Row row = RelayPeers.measure(
                    "otelcol",
                    ROW_NAME,
                    collector.process(),
                    t0,
                    collector.log(),
                    kafka,
                    group,
                    records,
                    timeout,
                    progress);
            return new RelayPeers.Row(row.name(), points, row.cpuSeconds(), row.elapsedSeconds(), row.peakRssBytes());
        } finally {
            collector.stop(STOP_GRACE);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
