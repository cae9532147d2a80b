package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.metrics.AotCacheStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
 * What the relay peers of {@code bench --peer} ({@link TelegrafPeer}, {@link CollectorPeer}) share: the peers' names,
 * where a peer's binary is looked for, how a peer process is measured over a topic (it runs until its consumer group's
 * committed offsets reach the topic's end; CPU = utime + stime of {@code /proc/PID/stat}, peak RSS = {@code VmHWM} of
 * {@code /proc/PID/status}, both read just before it is stopped; elapsed from its start to the last committed offset),
 * our relay cells' rows from their summaries, and the comparison table. Linux only. Static; thread-safe.
 */
public final class RelayPeers {

    /** The peers {@code --peer} names. */
    public enum Peer {
        /** Telegraf: {@code inputs.kafka_consumer} JSON → {@code outputs.influxdb}. */
        TELEGRAF("telegraf"),
        /** The OpenTelemetry Collector: {@code kafkareceiver} OTLP → {@code prometheusremotewriteexporter}. */
        OTELCOL("otelcol");

        private final String label;

        Peer(String label) {
            this.label = label;
        }

        /** {@code telegraf}, {@code otelcol}: its {@code --peer} value. */
        public String label() {
            return label;
        }

        /**
         * The peers of {@code --peer} values (each may be a comma-separated list; repeats collapse), in this enum's order.
         *
         * @throws IllegalArgumentException naming a value that is neither {@code telegraf} nor {@code otelcol}
         */
        public static Set<Peer> parse(Collection<String> values) {
            Set<Peer> peers = EnumSet.noneOf(Peer.class);
            for (String value : values) {
                for (String v : value.split(",", -1)) {
                    String name = v.trim();
                    peers.add(Stream.of(values())
                            .filter(p -> p.label.equals(name))
                            .findFirst()
                            .orElseThrow(() -> new IllegalArgumentException(
                                    "--peer must be telegraf or otelcol, got '" + name + "'")));
                }
            }
            return peers;
        }
    }

    /**
     * One process's figures over the same records.
     *
     * @param name           how the table names it
     * @param points         points (records) it relayed
     * @param cpuSeconds     its CPU time, s
     * @param elapsedSeconds its time from start to the last committed offset, s
     * @param peakRssBytes   its peak resident set size, bytes; -1 unknown
     * @param stored         samples read back from its receiver afterwards; -1 not read back
     */
    public record Row(
            String name, long points, double cpuSeconds, double elapsedSeconds, long peakRssBytes, long stored) {

        /** A row not read back. */
        public Row(String name, long points, double cpuSeconds, double elapsedSeconds, long peakRssBytes) {
            this(name, points, cpuSeconds, elapsedSeconds, peakRssBytes, -1);
        }

        /** CPU-s per million points; NaN without points. */
        public double cpuPerMillion() {
            return points > 0 ? cpuSeconds / (points / 1e6) : Double.NaN;
        }

        /** Points per second of elapsed time; NaN without it. */
        double pointsPerSecond() {
            return elapsedSeconds > 0 ? points / elapsedSeconds : Double.NaN;
        }

        /** This row with {@code stored} samples read back. */
        public Row withStored(long stored) {
            return new Row(name, points, cpuSeconds, elapsedSeconds, peakRssBytes, stored);
        }

        /** "–" when not read back, "all" when every point is there as one sample, else what is missing or extra. */
        String storedText() {
            if (stored < 0) {
                return "–";
            }
            if (stored == points) {
                return String.format(Locale.ROOT, "all %,d", stored);
            }
            return stored < points
                    ? String.format(Locale.ROOT, "%,d: %,d missing", stored, points - stored)
                    : String.format(Locale.ROOT, "%,d: %,d extra", stored, stored - points);
        }
    }

    private RelayPeers() {}

    /**
     * Waits until the peer process {@code proc} (started at {@code startNanos}) has committed {@code records} offsets
     * for {@code group}, printing progress every 10 s, and returns its row (not read back); the caller stops it.
     *
     * @throws IOException when the process exits early or does not get there within {@code timeout} (naming {@code log})
     */
    static Row measure(
            String peer,
            String rowName,
            Process proc,
            long startNanos,
            Path log,
            KafkaClientConfig kafka,
            String group,
            long records,
            Duration timeout,
            PrintStream progress)
            throws IOException, InterruptedException {
        Properties p = kafka.clientPropertiesAsProperties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-bench-peer");
        try (Admin admin = Admin.create(p)) {
            long deadline = startNanos + timeout.toNanos();
            long committed = 0;
            long lastReport = startNanos;
            while (committed < records) {
                if (!proc.isAlive()) {
                    throw new IOException(peer + " exited (" + proc.exitValue() + ") after " + committed + " of "
                            + records + " records; see " + log);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(peer + " committed " + committed + " of " + records + " records in " + timeout
                            + "; see " + log);
                }
                Thread.sleep(200);
                committed = committed(admin, group);
                if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
                    progress.printf(
                            Locale.ROOT, "bench: peer %s: %,d of %,d records committed%n", peer, committed, records);
                    lastReport = System.nanoTime();
                }
            }
            double elapsed = (System.nanoTime() - startNanos) / 1e9;
            return new Row(rowName, records, cpuSeconds(proc.pid()), elapsed, peakRssBytes(proc.pid()));
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
                    j.path("peak_rss_bytes").asLong(-1),
                    j.path(READ_BACK_FIELD).asLong(-1)));
        }
        return rows;
    }

    /** The field of a cell's summary with the samples read back from its own receiver (when it had one). */
    public static final String READ_BACK_FIELD = "samples_read_back";

    private static String firstLine(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "";
        }
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.findFirst().orElse(""); // the command
        }
    }

    /**
     * " P=<p> <mode>", " otlp" when the writer read OTLP records, and the AOT cache as the writer found it
     * ({@code aot_cache} of its summary; null when absent): a cache passed but stale or missing is not counted as one,
     * since the run then paid the JIT warm-up in full.
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
        return (p.find() ? " P=" + p.group(1) : "")
                + (w.find() ? " " + w.group(1) : "")
                + (cmd.contains("--input-format otlp") ? " otlp" : "")
                + cache;
    }

    /** The comparison block: our relay rows, the floor's and the peers' rows under them. */
    public static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("| process | points | CPU-s | CPU-s / M points | points/s | peak RSS | stored (read back) |\n");
        b.append("|:--|--:|--:|--:|--:|--:|--:|\n");
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %.2f | %.2f | %,.0f | %s | %s |%n",
                    r.name(),
                    r.points(),
                    r.cpuSeconds(),
                    r.cpuPerMillion(),
                    r.pointsPerSecond(),
                    r.peakRssBytes() < 0 ? "–" : (r.peakRssBytes() >> 20) + " MiB",
                    r.storedText()));
        }
        return b.toString();
    }
}
