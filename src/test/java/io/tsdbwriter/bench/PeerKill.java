package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.VictoriaMetrics;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.lab.CollectorProcess;
import io.tsdbwriter.produce.OtlpScrapeRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The peer users pick first, side by side under faults: the OpenTelemetry Collector ({@link CollectorProcess}:
 * {@code kafkareceiver} → {@code prometheusremotewriteexporter}) and tsdb-writer ({@code run --input-format otlp
 * --output remote-write}, remote write 1.0) read the same topic of OTLP records, one per scrape as OpenTelemetry
 * exporters publish them to Kafka ({@link OtlpScrapeRecords}, the records of {@code produce --record-format otlp}),
 * each with its own consumer group, into a receiver of its own; scripts/compare-peers.sh and {@code PeerKillIT} run it.
 *
 * <ul>
 *   <li>{@link Case#PEER_KILLED}: the peer is killed -9 once its receiver accepted a third of the samples and started
 *       again on the same group 2 s later.</li>
 *   <li>{@link Case#RECEIVER_KILLED}: the receiver is killed -9 at the same point and started again 3 s later on the
 *       same port and data.</li>
 *   <li>{@link Case#ORDER}: no fault; the receiver is Prometheus 3 without an out-of-order window (its default), the
 *       Collector runs its components' default settings ({@link #DEFAULTS_CONFIG}), tsdb-writer its own defaults.</li>
 * </ul>
 *
 * <p>The feed: {@code series} series of the gauge {@value #METRIC} (labels {@code instanceNo=i000…} and
 * {@code series=s00000…}) spread over {@code instances} instances ({@code series / instances} consecutive series
 * each), each series {@code pointsPerSeries} points one second apart ending two minutes before the start (within
 * Prometheus' one-hour appendable window when {@code pointsPerSeries ≤ 3000}), value = the point's index. Every second
 * every instance is scraped: one record per scrape (a resource with {@code service.instance.id} = the instance, one
 * gauge holding the instance's points of that second), keyed by the instance, the scrapes of one second after
 * another, produced at {@code pointsPerSecond} points per second (records paced by the points they hold) into a new
 * topic per case once both peers' groups hold every partition, while both read it (a live stream; both run as
 * services and
 * get SIGTERM once their group committed every record: an exit code of 0 is a clean stop). VictoriaMetrics is started
 * with {@code -dedup.minScrapeInterval=0} (no deduplication), so its raw export shows every sample written twice.
 *
 * <p>Read back: VictoriaMetrics' {@code /api/v1/export} of the raw samples (stored = distinct expected samples,
 * duplicated = copies beyond the first, missing = produced − stored); Prometheus' {@code count_over_time} per series
 * (it keeps one sample per timestamp) and its own counter {@code prometheus_tsdb_out_of_order_samples_total}. Not
 * thread-safe: one comparison at a time.
 */
public final class PeerKill {

    /** The gauge every point belongs to. */
    public static final String METRIC = "peer_gauge";

    /**
     * Series per instance of {@link #main}'s feed: the points of one scrape, so of one record (a small node_exporter's
     * scrape; OpenTelemetry exporters publish one record per scrape).
     */
    static final int SERIES_PER_INSTANCE = 250;

    /** Series of {@link #main}'s feed up to 30 M points: 40 instances of {@link #SERIES_PER_INSTANCE}, keys on all partitions. */
    static final int FEED_SERIES = 10_000;

    /** A Collector configuration at its components' defaults (only what must be given: endpoints, topic, encoding). */
    static final String DEFAULTS_CONFIG =
            """
            # kafkareceiver -> prometheusremotewriteexporter at their defaults (contrib v0.165.1), but for
            # initial_offset: earliest (the default, latest, would skip a topic produced before the first start)
            receivers:
              kafka:
                brokers: ["${env:OTELCOL_KAFKA_BROKERS}"]
                group_id: "${env:OTELCOL_GROUP_ID}"
                initial_offset: earliest
                metrics:
                  topics: ["${env:OTELCOL_TOPIC}"]
                  encoding: otlp_proto
            exporters:
              prometheus_remote_write:
                endpoint: "${env:OTELCOL_REMOTE_WRITE_URL}"
                tls:
                  insecure: true
            service:
              pipelines:
                metrics:
                  receivers: [kafka]
                  exporters: [prometheus_remote_write]
              telemetry:
                logs:
                  level: warn
                metrics:
                  level: normal
                  readers:
                    - pull:
                        exporter:
                          prometheus:
                            host: 127.0.0.1
                            port: ${env:OTELCOL_METRICS_PORT}
            """;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** Who reads the topic. */
    public enum Peer {
        COLLECTOR("otelcol", "OpenTelemetry Collector"),
        WRITER("writer", "tsdb-writer");

        final String id;
        final String label;

        Peer(String id, String label) {
            this.id = id;
            this.label = label;
        }

        /** How the table names it. */
        public String label() {
            return label;
        }
    }

    /** What goes wrong, and into which receiver. */
    public enum Case {
        PEER_KILLED("a", "peer kill -9, restart", false),
        RECEIVER_KILLED("b", "receiver (VictoriaMetrics) kill -9, restart", false),
        ORDER("c", "order: Prometheus 3, no out-of-order window, defaults", true);

        final String id;
        final String label;
        final boolean prometheus;

        Case(String id, String label, boolean prometheus) {
            this.id = id;
            this.label = label;
            this.prometheus = prometheus;
        }

        /** How the table names it. */
        public String label() {
            return id + ") " + label;
        }
    }

    /**
     * One comparison's inputs.
     *
     * @param bootstrapServers  Kafka's {@code host:port}
     * @param workDir           where receivers, logs and summaries go (created)
     * @param collector         the Collector binary
     * @param series            series of the feed
     * @param pointsPerSeries   points per series (one second apart; ≤ 3000 for Prometheus)
     * @param instances         instances the series are spread over, one record per instance and second (divides
     *                          {@code series})
     * @param partitions        partitions of the topic
     * @param pointsPerSecond   the feed's rate: the topic is produced while the peers read it
     * @param durabilityWindow  tsdb-writer's {@code --durability-window}, or null for {@link WriterProcess}'s
     * @param timeout           how long one run may take, restart included
     */
    public record Settings(
            String bootstrapServers,
            Path workDir,
            Path collector,
            int series,
            int pointsPerSeries,
            int instances,
            int partitions,
            long pointsPerSecond,
            String durabilityWindow,
            Duration timeout) {
        public Settings {
            if (series < 1 || pointsPerSeries < 1 || instances < 1 || series % instances != 0) {
                throw new IllegalArgumentException("series, points and instances must be positive, instances must "
                        + "divide series: " + series + ", " + pointsPerSeries + ", " + instances);
            }
        }

        /** Series per instance: the points of one scrape, so of one record (fewer if a record is split at 1 MB). */
        public int seriesPerInstance() {
            return series / instances;
        }

        /** Points in the topic. */
        public long points() {
            return (long) series * pointsPerSeries;
        }
    }

    /**
     * One peer's figures in one case.
     *
     * @param produced      points in the topic
     * @param stored        distinct expected samples read back
     * @param missing       produced − stored
     * @param duplicated    copies beyond the first of a sample (VictoriaMetrics' raw export), -1 when not readable
     * @param unexpected    samples read back that are not in the feed
     * @param outOfOrder    samples the receiver refused as out of order (Prometheus' counter), -1 for VictoriaMetrics
     * @param acceptedAtFault samples the receiver had accepted when the fault came, -1 without a fault
     * @param faultMidRun   whether the peer had not yet committed every end offset when the fault came
     * @param replayBound   records past the peer's committed offsets right after its kill × points per record
     *                      ({@link Settings#seriesPerInstance}: what a restart reads again at most), -1 when the peer
     *                      was not killed
     * @param exits         the exit codes, in order ({@code kill -9} for a killed process)
     * @param health        what the peer reported about itself (its counters, error lines)
     */
    public record Outcome(
            Case kase,
            Peer peer,
            long produced,
            long stored,
            long missing,
            long duplicated,
            long unexpected,
            long outOfOrder,
            long acceptedAtFault,
            boolean faultMidRun,
            long replayBound,
            String exits,
            String health) {}

    private final Settings settings;
    private final long baseMs;

    private PeerKill(Settings settings, long baseMs) {
        this.settings = settings;
        this.baseMs = baseMs;
    }

    /** A comparison of {@code settings}' feed, its timestamps ending two minutes before now. */
    public static PeerKill create(Settings settings) {
        long now = System.currentTimeMillis() / 1000 * 1000;
        return new PeerKill(settings, now - Duration.ofMinutes(2).toMillis() - settings.pointsPerSeries * 1000L);
    }

    /** Creates {@code topic} with {@link Settings#partitions} partitions. */
    private void createTopic(String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, settings.partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Produces the feed into {@code topic}, {@link Settings#pointsPerSecond} points per second at most, every send
     * acknowledged.
     */
    private void feed(String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        long t0 = System.nanoTime();
        long sentPoints = 0;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Iterator<OtlpScrapeRecords.Record> records = records(); records.hasNext(); ) {
                OtlpScrapeRecords.Record r = records.next();
                sent.add(producer.send(
                        new ProducerRecord<>(topic, r.key().getBytes(StandardCharsets.UTF_8), r.value())));
                sentPoints += r.points();
                long due = t0 + (long) (sentPoints * 1e9 / settings.pointsPerSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                if (sent.size() > 5_000) {
                    for (Future<RecordMetadata> f : sent) {
                        f.get();
                    }
                    sent.clear();
                }
            }
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
    }

    /**
     * The feed's records, encoded as they are taken: one per scrape (instance and second), second after second, by
     * {@link OtlpScrapeRecords} as {@code produce --record-format otlp} encodes them.
     */
    Iterator<OtlpScrapeRecords.Record> records() {
        return new OtlpScrapeRecords().records(points());
    }

    /** The feed's points, scrape by scrape: second i, then instance, then the instance's series. */
    Iterator<SourcePoint> points() {
        int perInstance = settings.seriesPerInstance();
        return new Iterator<>() {
            private long next;

            @Override
            public boolean hasNext() {
                return next < settings.points();
            }

            @Override
            public SourcePoint next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int i = (int) (next / settings.series);
                int s = (int) (next % settings.series);
                next++;
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put(SourcePoint.INSTANCE_LABEL, instance(s / perInstance));
                labels.put("series", name(s));
                return new SourcePoint(METRIC, labels, null, baseMs + i * 1000L, i);
            }
        };
    }

    /** The first point's timestamp (epoch ms); point i of a series lies i seconds later. */
    long baseMs() {
        return baseMs;
    }

    static String name(int series) {
        return String.format(Locale.ROOT, "s%05d", series);
    }

    static String instance(int instance) {
        return String.format(Locale.ROOT, "i%03d", instance);
    }

    /**
     * Runs {@code kase} with {@code peer} on {@code topic} (its own group and a fresh receiver) while it is fed ({@code
     * fed} counted down at the end of the feed) and reads it back.
     */
    private Outcome run(Case kase, Peer peer, String topic, CountDownLatch fed) throws Exception {
        Path dir = settings.workDir.resolve(kase.id + "-" + peer.id).toAbsolutePath();
        Files.createDirectories(dir);
        String group = group(peer, topic);
        try (Receiver receiver = kase.prometheus ? new Prom(dir) : new Vm(dir);
                Running running = peer == Peer.COLLECTOR
                        ? new CollectorRun(dir, topic, group, receiver.remoteWriteUrl(), kase == Case.ORDER)
                        : new WriterRun(dir, topic, group, receiver.remoteWriteUrl())) {
            long produced = settings.points();
            long deadline = System.nanoTime() + settings.timeout.toNanos();
            long acceptedAtFault = -1;
            long replayBound = -1;
            boolean midRun = false;
            if (kase != Case.ORDER) {
                long accepted = receiver.accepted();
                while (accepted < produced / 3 && running.alive() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                    accepted = receiver.accepted();
                }
                acceptedAtFault = accepted;
                if (kase == Case.PEER_KILLED) {
                    running.kill();
                    long past = lag(topic, group);
                    midRun = past > 0;
                    replayBound = past * settings.seriesPerInstance();
                    System.err.printf(
                            Locale.ROOT,
                            "  %s killed -9 at %d of %d samples accepted; %d records past its commits%n",
                            peer.label,
                            accepted,
                            produced,
                            past);
                    Thread.sleep(2000);
                    running.restart();
                } else {
                    midRun = lag(topic, group) > 0;
                    receiver.kill();
                    System.err.printf(
                            Locale.ROOT,
                            "  receiver killed -9 under the %s at %d of %d samples accepted%n",
                            peer.label,
                            accepted,
                            produced);
                    Thread.sleep(3000);
                    receiver.restart();
                }
            }
            if (!fed.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("the feed did not end within " + settings.timeout);
            }
            running.awaitEnd(topic, group, deadline);
            ReadBack r = receiver.readBack(this);
            return new Outcome(
                    kase,
                    peer,
                    produced,
                    r.stored,
                    produced - r.stored,
                    r.duplicated,
                    r.unexpected,
                    receiver.outOfOrder(),
                    acceptedAtFault,
                    midRun,
                    replayBound,
                    running.exits(),
                    running.health());
        }
    }

    /**
     * Creates {@code topic} and feeds it while both peers read it, each in a thread of its own (its own group, receiver
     * and faults; {@link #run}): the Collector's outcome first.
     */
    public List<Outcome> runSideBySide(Case kase, String topic) throws Exception {
        createTopic(topic);
        CountDownLatch fed = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<Outcome> collector = pool.submit(() -> run(kase, Peer.COLLECTOR, topic, fed));
            Future<Outcome> writer = pool.submit(() -> run(kase, Peer.WRITER, topic, fed));
            Future<?> feeder = pool.submit(() -> {
                awaitAssigned(group(Peer.COLLECTOR, topic), topic);
                awaitAssigned(group(Peer.WRITER, topic), topic);
                feed(topic);
                fed.countDown();
                return null;
            });
            feeder.get();
            return List.of(collector.get(), writer.get());
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        } finally {
            pool.shutdownNow();
        }
    }

    static String group(Peer peer, String topic) {
        return topic + "-" + peer.id;
    }

    /** Waits (at most 2 minutes) until {@code group}'s members hold every partition of {@code topic}. */
    private void awaitAssigned(String group, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group))
                            .describedGroups()
                            .get(group)
                            .get(10, TimeUnit.SECONDS);
                    long assigned = g.members().stream()
                            .flatMap(m -> m.assignment().topicPartitions().stream())
                            .filter(tp -> tp.topic().equals(topic))
                            .count();
                    if (assigned == settings.partitions) {
                        return;
                    }
                } catch (ExecutionException e) {
                    // not created yet: no member has joined
                }
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException(group + " holds not every partition of " + topic + " after 2 minutes");
    }

    /** Records of {@code topic} past {@code group}'s committed offsets (all of them when it committed none). */
    long lag(String topic, String group) throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < settings.partitions; i++) {
                partitions.add(new TopicPartition(topic, i));
            }
            var ends = admin.listOffsets(
                            partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            long lag = 0;
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata c = committed.get(tp);
                lag += ends.get(tp).offset() - (c == null ? 0 : c.offset());
            }
            return lag;
        }
    }

    private Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers);
        return Admin.create(p);
    }

    // ---------------------------------------------------------------------------------------------------- the peers

    /** A peer's processes across one run, their exit codes in order and what it reported about itself at the end. */
    private abstract static class Running implements AutoCloseable {
        /** The exit codes, in order ({@code kill -9} for a killed process). */
        final List<String> exits = new ArrayList<>();
        /** What the peer reported about itself (its counters, error lines); empty until {@link #awaitEnd}. */
        String health = "";

        abstract boolean alive();

        abstract void kill() throws Exception;

        abstract void restart() throws Exception;

        /** Waits until the peer committed every end offset (and, for the writer, exited). */
        abstract void awaitEnd(String topic, String group, long deadline) throws Exception;

        final String exits() {
            return String.join(", ", exits);
        }

        final String health() {
            return health;
        }
    }

    private final class CollectorRun extends Running {
        private final Path dir;
        private final CollectorProcess.Settings collectorSettings;
        private final Path config;
        private CollectorProcess process;

        CollectorRun(Path dir, String topic, String group, String remoteWriteUrl, boolean defaults) throws IOException {
            this.dir = dir;
            this.collectorSettings =
                    new CollectorProcess.Settings(settings.bootstrapServers, topic, group, remoteWriteUrl, freePort());
            if (defaults) {
                config = dir.resolve("otelcol-defaults.yaml");
                Files.writeString(config, DEFAULTS_CONFIG, StandardCharsets.UTF_8);
            } else {
                config = CollectorProcess.writeConfig(dir);
            }
            process = CollectorProcess.start(settings.collector, dir, collectorSettings, List.of(), config);
        }

        @Override
        public boolean alive() {
            return process.process().isAlive();
        }

        @Override
        public void kill() throws InterruptedException {
            process.kill();
            exits.add("kill -9");
        }

        @Override
        public void restart() throws IOException {
            process = CollectorProcess.start(settings.collector, dir, collectorSettings, List.of(), config);
        }

        @Override
        public void awaitEnd(String topic, String group, long deadline) throws Exception {
            while (lag(topic, group) > 0) {
                if (!alive()) {
                    throw new IllegalStateException("the Collector exited with code "
                            + process.process().exitValue() + ": " + String.join(" | ", process.tail(10)));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Collector did not commit every record within "
                            + settings.timeout + "; " + lag(topic, group) + " left");
                }
                Thread.sleep(200);
            }
            String page = get("http://127.0.0.1:" + collectorSettings.metricsPort() + "/metrics");
            long failed = sum(page, "otelcol_exporter_send_failed_metric_points");
            long refused = sum(page, "otelcol_receiver_refused_metric_points");
            int code = process.stop(Duration.ofSeconds(20));
            exits.add(code == -1 ? "hung (kill -9)" : Integer.toString(code));
            long errors;
            try (var lines = Files.lines(process.log())) {
                errors = lines.filter(l -> l.contains("\terror\t") || l.contains("\"error\""))
                        .count();
            }
            health = "send failed " + failed + " points, receiver refused " + refused + ", " + errors
                    + " error lines (last process)";
        }

        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }

    private final class WriterRun extends Running {
        private final Path dir;
        private final List<String> args;
        private WriterProcess process;
        private int starts;

        WriterRun(Path dir, String topic, String group, String remoteWriteUrl) {
            this.dir = dir;
            this.args = new ArrayList<>(List.of(
                    "run",
                    "--bootstrap-servers",
                    settings.bootstrapServers,
                    "--topic",
                    topic,
                    "--group-id",
                    group,
                    "--input-format",
                    "otlp",
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    remoteWriteUrl,
                    "--time-multiplier",
                    "1",
                    "--instance-multiplier",
                    "1",
                    "--metrics-port",
                    "-1",
                    "--report-interval",
                    "5s"));
            if (settings.durabilityWindow != null) {
                args.addAll(List.of("--durability-window", settings.durabilityWindow));
            }
            start();
        }

        private void start() {
            starts++;
            List<String> a = new ArrayList<>(args);
            a.addAll(List.of(
                    "--summary-json", dir.resolve("summary-" + starts + ".json").toString()));
            process = WriterProcess.start(dir.resolve("writer-" + starts + ".log"), a);
        }

        @Override
        public boolean alive() {
            return process.isAlive();
        }

        @Override
        public void kill() {
            process.kill();
            exits.add("kill -9");
        }

        @Override
        public void restart() {
            start();
        }

        @Override
        public void awaitEnd(String topic, String group, long deadline) throws Exception {
            while (lag(topic, group) > 0) {
                if (!alive()) {
                    throw new IllegalStateException("tsdb-writer exited: " + process.output());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("tsdb-writer did not commit every record within " + settings.timeout
                            + "; " + lag(topic, group) + " left");
                }
                Thread.sleep(200);
            }
            process.sigterm();
            exits.add(Integer.toString(process.waitFor(Duration.ofSeconds(60))));
            Path summary = dir.resolve("summary-" + starts + ".json");
            if (Files.exists(summary)) {
                JsonNode s = JSON.readTree(summary.toFile());
                health = "samples written " + s.path("samples_written").asLong() + ", refused "
                        + s.path("samples_refused").asLong() + ", committed lag " + lag(topic, group) + " (last run)";
            } else {
                health = "no summary";
            }
        }

        @Override
        public void close() {
            process.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ the receivers

    /** Distinct expected samples read back, copies beyond the first, samples not in the feed. */
    record ReadBack(long stored, long duplicated, long unexpected) {}

    private interface Receiver extends AutoCloseable {
        String remoteWriteUrl();

        /** Samples it accepted so far (its own counter). */
        long accepted() throws Exception;

        void kill();

        void restart();

        ReadBack readBack(PeerKill feed) throws Exception;

        /** Samples refused as out of order (-1 when it takes any order). */
        long outOfOrder() throws Exception;
    }

    private static final class Vm implements Receiver {
        private final VictoriaMetrics vm;

        Vm(Path dir) {
            vm = VictoriaMetrics.start(dir, "-dedup.minScrapeInterval=0");
        }

        @Override
        public String remoteWriteUrl() {
            return vm.url() + "/api/v1/write";
        }

        @Override
        public long accepted() {
            try {
                return sum(vm.get("/metrics").body(), "vm_rows_inserted_total{type=\"promremotewrite\"}");
            } catch (RuntimeException e) {
                return 0; // restarting
            }
        }

        @Override
        public void kill() {
            vm.kill();
        }

        @Override
        public void restart() {
            vm.restart();
        }

        @Override
        public ReadBack readBack(PeerKill feed) throws InterruptedException {
            ReadBack last = null;
            int same = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                vm.forceFlush();
                ReadBack r = feed.count(vm.export(METRIC));
                same = r.equals(last) ? same + 1 : 0;
                last = r;
                if (same >= 2 || (r.stored == feed.settings.points() && same >= 1)) {
                    break;
                }
                Thread.sleep(1000);
            }
            return last;
        }

        @Override
        public long outOfOrder() {
            return -1;
        }

        @Override
        public void close() {
            vm.close();
        }
    }

    private static final class Prom implements Receiver {
        private final PrometheusServer prom;

        Prom(Path dir) {
            prom = PrometheusServer.startCurrent(dir, null, "prometheus.WriteRequest");
        }

        @Override
        public String remoteWriteUrl() {
            return prom.remoteWriteUrl();
        }

        @Override
        public long accepted() throws IOException, InterruptedException {
            return sum(get(prom.url() + "/metrics"), "prometheus_tsdb_head_samples_appended_total");
        }

        @Override
        public void kill() {
            prom.kill();
        }

        @Override
        public void restart() {
            prom.restart();
        }

        @Override
        public ReadBack readBack(PeerKill feed) throws IOException, InterruptedException {
            double at = (feed.baseMs + feed.settings.pointsPerSeries * 1000L) / 1000.0;
            String query = "count_over_time(" + METRIC + "[2h])";
            String body = get(prom.url() + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
                    + "&time=" + at);
            long stored = 0;
            for (JsonNode series : JSON.readTree(body).path("data").path("result")) {
                stored += Math.min(
                        feed.settings.pointsPerSeries,
                        Long.parseLong(series.path("value").get(1).asText()));
            }
            return new ReadBack(stored, -1, 0);
        }

        @Override
        public long outOfOrder() throws IOException, InterruptedException {
            return sum(get(prom.url() + "/metrics"), "prometheus_tsdb_out_of_order_samples_total");
        }

        @Override
        public void close() {
            prom.close();
        }
    }

    /** Counts VictoriaMetrics' export lines against the feed. */
    ReadBack count(List<String> lines) {
        int perSeries = settings.pointsPerSeries;
        int[] copies = new int[Math.toIntExact(settings.points())];
        long unexpected = 0;
        for (String line : lines) {
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String name = n.path("metric").path("series").asText("");
            int s = name.matches("s\\d{5}") ? Integer.parseInt(name.substring(1)) : -1;
            JsonNode ts = n.path("timestamps");
            for (int j = 0; j < ts.size(); j++) {
                long t = ts.get(j).asLong() - baseMs;
                if (s < 0 || s >= settings.series || t < 0 || t % 1000 != 0 || t / 1000 >= perSeries) {
                    unexpected++;
                } else {
                    copies[s * perSeries + (int) (t / 1000)]++;
                }
            }
        }
        long stored = 0;
        long duplicated = 0;
        for (int c : copies) {
            if (c > 0) {
                stored++;
                duplicated += c - 1;
            }
        }
        return new ReadBack(stored, duplicated, unexpected);
    }

    // --------------------------------------------------------------------------------------------------- the table

    /** The outcomes as a Markdown table (one row per case and peer). */
    public static String markdown(List<Outcome> outcomes) {
        StringBuilder b = new StringBuilder();
        b.append("| case | peer | produced | stored | missing | duplicated | refused out of order | fault at "
                + "(accepted) | exit codes | health |\n");
        b.append("|---|---|---:|---:|---:|---:|---:|---|---|---|\n");
        for (Outcome o : outcomes) {
            b.append("| ").append(String.join(" | ", cells(o))).append(" |\n");
        }
        return b.toString();
    }

    /** The outcomes as a plain text table. */
    public static String text(List<Outcome> outcomes) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "case", "peer", "produced", "stored", "missing", "duplicated", "out of order", "fault at", "exits", "health"
        });
        for (Outcome o : outcomes) {
            rows.add(cells(o).toArray(String[]::new));
        }
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                b.append(String.format(Locale.ROOT, "%-" + width[i] + "s", r[i]))
                        .append(i + 1 < r.length ? "  " : "");
            }
            b.append('\n');
        }
        return b.toString().replaceAll(" +\n", "\n");
    }

    private static List<String> cells(Outcome o) {
        String fault = o.acceptedAtFault < 0
                ? "—"
                : String.format(Locale.ROOT, "%,d%s", o.acceptedAtFault, o.faultMidRun ? "" : " (after its end)");
        return List.of(
                o.kase.label(),
                o.peer.label,
                String.format(Locale.ROOT, "%,d", o.produced),
                String.format(Locale.ROOT, "%,d", o.stored),
                String.format(Locale.ROOT, "%,d", o.missing),
                o.duplicated < 0 ? "— (one per timestamp)" : String.format(Locale.ROOT, "%,d", o.duplicated),
                o.outOfOrder < 0 ? "— (any order)" : String.format(Locale.ROOT, "%,d", o.outOfOrder),
                fault,
                o.exits,
                o.health + (o.unexpected > 0 ? "; " + o.unexpected + " unexpected samples" : ""));
    }

    // ------------------------------------------------------------------------------------------------------ helpers

    /** The sum of every sample of {@code metric} (a name, or a name with its label set) on a Prometheus text page. */
    static long sum(String page, String metric) {
        double sum = 0;
        for (String line : page.split("\n")) {
            if (line.startsWith(metric)
                    && (metric.endsWith("}")
                            || line.length() > metric.length()
                                    && (line.charAt(metric.length()) == '{'
                                            || line.charAt(metric.length()) == ' '
                                            || line.startsWith(metric + "_total")))) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) sum;
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * {@code PeerKill BOOTSTRAP_SERVERS OUT_DIR POINTS CASES PARTITIONS POINTS_PER_SECOND}: CASES a comma list of {@code a}, {@code b},
     * {@code c}; POINTS rounded to {@value #FEED_SERIES} series × a multiple of 100 points each (at most 3000, so {@code c} fits
     * Prometheus' appendable hour; more series above that, a multiple of {@value #SERIES_PER_INSTANCE}), the series
     * spread over instances of {@value #SERIES_PER_INSTANCE} series each. Prints the table as text, writes {@code OUT_DIR/peers.md}
     * and {@code OUT_DIR/peers.txt}; exit 0.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: PeerKill BOOTSTRAP_SERVERS OUT_DIR POINTS CASES PARTITIONS POINTS_PER_SECOND");
            System.exit(2);
        }
        Path out = Path.of(args[1]);
        long points = Long.parseLong(args[2]);
        List<String> cases = Arrays.asList(args[3].split(","));
        int partitions = Integer.parseInt(args[4]);
        long pointsPerSecond = Long.parseLong(args[5]);
        int perSeries = (int) Math.min(3000, Math.max(100, points / FEED_SERIES / 100 * 100));
        long seriesNeeded = Math.max(1, (points + perSeries - 1) / perSeries);
        int series = (int) ((seriesNeeded + SERIES_PER_INSTANCE - 1) / SERIES_PER_INSTANCE * SERIES_PER_INSTANCE);
        Path collector = CollectorProcess.locate(null)
                .orElseThrow(() -> new IllegalStateException("no Collector binary: scripts/lib.sh ensure_otelcol"));
        Settings settings = new Settings(
                args[0],
                out.resolve("work"),
                collector,
                series,
                perSeries,
                series / SERIES_PER_INSTANCE,
                partitions,
                pointsPerSecond,
                "auto",
                Duration.ofMinutes(20));
        System.err.printf(
                Locale.ROOT,
                "== each case: a topic of %d partitions fed %,d points (%d series × %d of %d instances, one OTLP record "
                        + "per scrape: %d points, keyed by instance) at %,d points/s while both peers read it%n",
                partitions,
                settings.points(),
                series,
                perSeries,
                settings.instances(),
                settings.seriesPerInstance(),
                pointsPerSecond);
        PeerKill k = create(settings);
        List<Outcome> outcomes = new ArrayList<>();
        for (Case c : Case.values()) {
            if (!cases.contains(c.id)) {
                continue;
            }
            System.err.printf(Locale.ROOT, "== case %s: both peers side by side%n", c.label());
            long t0 = System.nanoTime();
            for (Outcome o : k.runSideBySide(c, "peers-" + c.id + "-" + System.currentTimeMillis())) {
                System.err.printf(
                        Locale.ROOT,
                        "   %s: stored %,d, missing %,d, duplicated %,d, out of order %,d, exits %s%n",
                        o.peer.label,
                        o.stored,
                        o.missing,
                        o.duplicated,
                        o.outOfOrder,
                        o.exits);
                outcomes.add(o);
            }
            System.err.printf(Locale.ROOT, "   (%.0f s)%n", (System.nanoTime() - t0) / 1e9);
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("peers.md"), markdown(outcomes), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("peers.txt"), text(outcomes), StandardCharsets.UTF_8);
        System.out.print(text(outcomes));
        System.out.println();
        System.out.print(markdown(outcomes));
    }
}
