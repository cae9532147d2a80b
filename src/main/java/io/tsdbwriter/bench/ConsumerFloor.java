package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import io.tsdbwriter.lab.ChildProcess;
import io.tsdbwriter.lab.Placement;
import io.tsdbwriter.lab.WriterCellRunner;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The relay's floor: a bare {@code KafkaConsumer} that reads a whole topic once, with the segment readers'
 * fetch settings ({@code SegmentConsumer.readerProps}: 10,000 records per poll, {@code fetch.max.bytes} 16 MiB,
 * {@code max.partition.fetch.bytes} 4 MiB, {@code read_committed}, byte-array values) and touches every value, in a
 * process of its own — what any Kafka → TSDB writer in Java pays before decoding a point. Run by {@code bench --floor}
 * as {@code java [the writers' JVM options] -cp <jar> io.tsdbwriter.bench.ConsumerFloor BOOTSTRAP TOPIC SUMMARY.json
 * [CLIENT.properties]} (the Kafka client's properties, security included, from a file); writes
 * {@code records}, {@code value_bytes}, {@code cpu_seconds} (the whole process), {@code elapsed_seconds} (from the
 * consumer's creation to the last record), {@code kafka_fetched_bytes} and {@code peak_rss_bytes} to SUMMARY.json.
 */
public final class ConsumerFloor {

    private ConsumerFloor() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: ConsumerFloor BOOTSTRAP TOPIC SUMMARY.json [CLIENT.properties]");
            System.exit(2);
        }
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tsdb-writer-bench-floor");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16 * 1024 * 1024);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        if (args.length > 3) { // the client's properties (security: a file, never the command line)
            Properties client = new Properties();
            try (var in = Files.newInputStream(Path.of(args[3]))) {
                client.load(in);
            }
            client.forEach((k, v) -> p.put(k.toString(), v));
        }
        String topic = args[1];
        long t0 = System.nanoTime();
        long records = 0;
        long valueBytes = 0;
        long checksum = 0;
        double fetched = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            while (true) {
                boolean done = true;
                for (TopicPartition tp : tps) {
                    if (c.position(tp) < end.get(tp)) {
                        done = false;
                        break;
                    }
                }
                if (done) {
                    break;
                }
                ConsumerRecords<byte[], byte[]> polled = c.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    byte[] v = r.value();
                    if (v != null) {
                        valueBytes += v.length;
                        checksum += v.length > 0 ? v[v.length - 1] : 0; // read the value, as a decoder would
                    }
                    records++;
                }
            }
            for (var e : c.metrics().entrySet()) {
                if (e.getKey().name().equals("incoming-byte-total")
                        && e.getKey().group().equals("consumer-metrics")
                        && e.getValue().metricValue() instanceof Double d) {
                    fetched += d;
                }
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("records", records);
        m.put("points", records);
        m.put("value_bytes", valueBytes);
        m.put("checksum", checksum);
        m.put("cpu_seconds", os.getProcessCpuTime() / 1e9);
        m.put("elapsed_seconds", elapsed);
        m.put("kafka_fetched_bytes", (long) fetched);
        m.put("peak_rss_bytes", peakRssBytes());
        new ObjectMapper()
                .writerWithDefaultPrettyPrinter()
                .writeValue(Path.of(args[2]).toFile(), m);
    }

    /**
     * Runs the floor as its own process over {@code topic} and returns its row for the relay table.
     *
     * @param javaCommand the writers' {@code java}; {@code jvmOptions} theirs too (and their AOT cache when they get one)
     * @param client      the Kafka client's properties (written to a file only the owner may read)
     * @param placement   the process starts on its writer CPUs when it has them
     * @throws IOException when the process fails or writes no summary within {@code timeout}
     */
    public static RelayPeers.Row run(
            List<String> javaCommand,
            List<String> jvmOptions,
            Path jar,
            String bootstrapServers,
            Properties client,
            String topic,
            Path workDir,
            Duration timeout,
            Placement placement)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path props = workDir.resolve("floor-client.properties");
        Files.deleteIfExists(props);
        Files.createFile(props, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (var out = Files.newOutputStream(props)) {
            client.store(out, "bench --floor");
        }
        Path summary = workDir.resolve("floor.json");
        Path log = workDir.resolve("floor.log");
        Files.deleteIfExists(summary);
        List<String> cmd = new ArrayList<>(javaCommand);
        cmd.addAll(WriterCellRunner.aotCacheOption(
                jar, jvmOptions, Runtime.version().feature()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of(
                "-cp",
                jar.toString(),
                ConsumerFloor.class.getName(),
                bootstrapServers,
                topic,
                summary.toString(),
                props.toString()));
        Process p = ChildProcess.of(placement.writerCommand(cmd))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException("the floor did not finish within " + timeout + "; see " + log);
        }
        if (p.exitValue() != 0 || !Files.exists(summary)) {
            throw new IOException("the floor exited " + p.exitValue() + "; see " + log);
        }
        var j = new ObjectMapper().readTree(summary.toFile());
        return new RelayPeers.Row(
                "Kafka consumer floor (bare KafkaConsumer, same fetch settings)",
                j.path("records").asLong(),
                j.path("cpu_seconds").asDouble(Double.NaN),
                j.path("elapsed_seconds").asDouble(Double.NaN),
                j.path("peak_rss_bytes").asLong(-1));
    }

    /** VmHWM of /proc/self/status, or -1. */
    private static long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }
}
