package io.tsdbwriter.cli;

import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.produce.LatencyHistograms;
import io.tsdbwriter.produce.OtlpPointRecords;
import io.tsdbwriter.produce.OtlpScrapeRecords;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.ProducerSettings;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.produce.SyntheticInput;
import io.tsdbwriter.produce.TopicCheck;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tsdb-writer produce}: sends source points to a Kafka topic as point records (DESIGN §2), from real
 * node_exporter scrapes or generated ({@code --synthetic}), optionally rate-limited and packed several points to a
 * record, or as OTLP records ({@code --record-format otlp}: one per scrape, {@link OtlpScrapeRecords}); or, with
 * {@code --histogram-series}, generated request latencies as OTLP exponential histograms ({@link LatencyHistograms},
 * for a writer reading {@code --input-format otlp}). The files' timestamps are moved to
 * the present by default ({@link SourceOptions}: the newest scrape within the minute before {@code --now}, default the
 * clock; {@code --keep-timestamps} keeps them), and the shift is printed to stderr.
 *
 * <p>The producer is idempotent with {@code acks=all}, {@code linger.ms=20}, {@code batch.size=256 KiB} and lz4
 * compression. Every 5 s of a long run it prints progress to stderr; at the end it prints, like
 * {@code kafka-producer-perf-test}, one line to stdout:
 * {@code N records sent, X records/sec (Y MB/sec), points=P}, counting only records the broker acknowledged.
 * Exit codes: 0 all records acknowledged; 1 a send failed or input could not be read; 2 bad flags.
 *
 * <p>Not thread-safe: picocli makes one instance per execution.
 */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Send source points to Kafka as point records: real Prometheus scrapes (files) or --synthetic series.",
            "Each exposition sample becomes {\"metric\",\"timestamp\"(epoch ms),\"value\",\"dimensions\"{…,instanceNo},\"productKey\"}.",
            "Prints '<N> records sent, <X> records/sec (<Y> MB/sec), points=<P>' at the end, progress every 5 s on stderr."
        })
public final class ProduceCommand implements Callable<Integer> {

    /** {@code --log-format}: applied by {@link Main} before {@link #call()}. */
    @picocli.CommandLine.Mixin
    LogOptions logs = new LogOptions();

    static final long PROGRESS_INTERVAL_NANOS = Duration.ofSeconds(5).toNanos();

    @Spec
    CommandSpec spec;

    @Mixin
    SourceOptions source = new SourceOptions();

    @Option(
            names = "--bootstrap-servers",
            defaultValue = "localhost:9092",
            paramLabel = "HOST:PORT[,…]",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE})")
    String bootstrapServers;

    @Mixin
    KafkaClientOptions kafkaClient = new KafkaClientOptions();

    @Option(
            names = "--topic",
            required = true,
            paramLabel = "TOPIC",
            description = "Topic to send the point records to (required)")
    String topic;

    @Option(
            names = {"--records-per-second", DeprecatedNames.PRODUCE_RATE},
            defaultValue = "0",
            paramLabel = "R",
            description = "Records sent per second at most; 0 = as fast as possible (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(
            names = "--points-per-record",
            defaultValue = "1",
            paramLabel = "K",
            description = "Points per record; more than 1 sends a JSON array of points (default: ${DEFAULT-VALUE})")
    int pointsPerRecord;

    @Option(
            names = "--keyed",
            description =
                    "Give each record a key: the series of its first point, metric{labels}; with --record-format otlp the scrape's instance (default: no key, the partitioner spreads records)")
    boolean keyed;

    @Option(
            names = "--histogram-series",
            defaultValue = "0",
            paramLabel = "S",
            description =
                    "Send S series of OTLP exponential histograms instead of point records: request latencies of 8 services (http.server.request.duration; route, method, status 200/404/500), buckets as the OpenTelemetry SDK's (at most 160), medians that drift; --points-per-series points each, --source-interval apart; the writer reads them with --input-format otlp. 0 = point records (default: ${DEFAULT-VALUE})")
    int histogramSeries;

    @Option(
            names = "--record-format",
            defaultValue = "json",
            paramLabel = "json|otlp|otlp-points",
            description =
                    "Value of each record: json (the point objects above); otlp (one protobuf OTLP ExportMetricsServiceRequest per scrape, i.e. per instance and time, as OpenTelemetry exporters publish: resource service.name/service.instance.id, one metric per name, *_total as cumulative monotonic sums, the rest as gauges, labels as attributes, split below 1 MB; --input-format otlp, the OpenTelemetry Collector's kafkareceiver); otlp-points (OTLP gauge points, --points-per-record to a record) (default: ${DEFAULT-VALUE})")
    String recordFormat;

    /** {@code --record-format}: JSON point records. */
    static final String JSON = "json";
    /** {@code --record-format}: one OTLP record per scrape ({@link OtlpScrapeRecords}). */
    static final String OTLP = "otlp";
    /** {@code --record-format}: OTLP gauge points, {@code --points-per-record} to a record ({@link OtlpPointRecords}). */
    static final String OTLP_POINTS = "otlp-points";

    /** The seed of {@code --histogram-series}: the same flags send the same histograms. */
    static final long HISTOGRAM_SEED = 1;

    private final Function<Properties, Producer<byte[], byte[]>> producerFactory;
    private final InstantSource clock;
    /** The topic's problem before the first send ({@link TopicCheck#missingTopic}), or empty. */
    private final BiFunction<KafkaClientConfig, String, Optional<String>> topicCheck;

    /** The command as picocli instantiates it: a real {@link KafkaProducer}, the system clock, the Admin topic check. */
    public ProduceCommand() {
        this(
                props -> new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer()),
                InstantSource.system(),
                TopicCheck::missingTopic);
    }

    /** For tests: records go to the producer {@code producerFactory} makes from the configuration; no topic check. */
    ProduceCommand(Function<Properties, Producer<byte[], byte[]>> producerFactory) {
        this(producerFactory, InstantSource.system());
    }

    /** For tests: as above, with {@code clock} as the present the source timestamps are made relative to. */
    ProduceCommand(Function<Properties, Producer<byte[], byte[]>> producerFactory, InstantSource clock) {
        this(producerFactory, clock, (kafka, topic) -> Optional.empty());
    }

    private ProduceCommand(
            Function<Properties, Producer<byte[], byte[]>> producerFactory,
            InstantSource clock,
            BiFunction<KafkaClientConfig, String, Optional<String>> topicCheck) {
        this.producerFactory = producerFactory;
        this.clock = clock;
        this.topicCheck = topicCheck;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new ParameterException(spec.commandLine(), "--records-per-second must be >= 0, got " + rate);
        }
        if (pointsPerRecord < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--points-per-record must be >= 1, got " + pointsPerRecord);
        }
        if (topic.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--topic must not be empty");
        }
        if (!List.of(JSON, OTLP, OTLP_POINTS).contains(recordFormat)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--record-format must be json, otlp or otlp-points, got '" + recordFormat + "'");
        }
        if (recordFormat.equals(OTLP)
                && histogramSeries == 0
                && spec.commandLine().getParseResult().hasMatchedOption("--points-per-record")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--record-format otlp sends one record per scrape; --points-per-record needs json or otlp-points");
        }
        if (histogramSeries < 0) {
            throw new ParameterException(spec.commandLine(), "--histogram-series must be >= 0, got " + histogramSeries);
        }
        Iterator<Outgoing> records;
        if (histogramSeries > 0) {
            LatencyHistograms histograms = histograms();
            err.println("produce: " + describe(histograms) + " -> topic " + topic + " at " + bootstrapServers);
            records = histogramRecords(histograms);
        } else {
            SourceOptions.Source src;
            try {
                src = source.open(clock.millis());
            } catch (IOException e) {
                err.println("produce: cannot read the input: " + e.getMessage());
                err.flush();
                return 1;
            }
            err.println("produce: " + src.description() + " -> topic " + topic + " at " + bootstrapServers);
            if (src.timestamps() != null) {
                err.println("produce: " + src.timestamps());
            }
            if (!source.synthetic && source.timestampMs != null && source.files.size() > 1) {
                err.println("produce: note: --timestamp gives all " + source.files.size()
                        + " files the same timestamp; samples of the same series collide (VictoriaMetrics keeps one)");
            }
            records = pointRecords(src.points());
        }
        err.flush();

        Producer<byte[], byte[]> created;
        try {
            Optional<String> missing = topicCheck.apply(kafkaClient.toConfig(bootstrapServers), topic);
            if (missing.isPresent()) {
                err.println("produce: " + missing.get());
                err.flush();
                return 1;
            }
            created = producerFactory.apply(ProducerSettings.of(kafkaClient.toConfig(bootstrapServers)));
        } catch (ConfigException e) {
            throw new ParameterException(
                    spec.commandLine(), "--bootstrap-servers '" + bootstrapServers + "': " + e.getMessage(), e);
        }
        Stats stats = new Stats();
        long start = System.nanoTime();
        // progress from its own thread: a send blocked on an unreachable broker (up to max.block.ms) still reports
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("produce-progress").unstarted(r));
        Progress window = new Progress(start);
        progress.scheduleAtFixedRate(
                () -> window.print(stats, err), PROGRESS_INTERVAL_NANOS, PROGRESS_INTERVAL_NANOS, TimeUnit.NANOSECONDS);
        try (Producer<byte[], byte[]> producer = created) {
            send(producer, records, stats, start);
            producer.flush();
        } catch (KafkaException e) {
            stats.failures.incrementAndGet();
            stats.failed.compareAndSet(null, e);
        }
        progress.shutdownNow();
        double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
        out.println(summary(stats.records.get(), stats.bytes.get(), stats.points.get(), seconds));
        out.flush();
        Exception failure = stats.failed.get();
        if (failure != null) {
            err.println("produce: " + stats.failures.get() + " record(s) failed; first error: " + failure);
            err.flush();
            return 1;
        }
        return 0;
    }

    /** One record to send: its key (null for none), value and the points in it. */
    private record Outgoing(byte[] key, byte[] value, int points) {}

    /**
     * The records of {@code points}, encoded as they are taken: one per scrape with {@code --record-format otlp}, else
     * {@code --points-per-record} points to a record.
     */
    private Iterator<Outgoing> pointRecords(Iterable<SourcePoint> points) {
        Iterator<SourcePoint> it = points.iterator();
        if (recordFormat.equals(OTLP)) {
            Iterator<OtlpScrapeRecords.Record> scrapes = new OtlpScrapeRecords().records(it);
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return scrapes.hasNext();
                }

                @Override
                public Outgoing next() {
                    OtlpScrapeRecords.Record r = scrapes.next();
                    return new Outgoing(keyed ? r.key().getBytes(StandardCharsets.UTF_8) : null, r.value(), r.points());
                }
            };
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Outgoing next() {
                if (!it.hasNext()) {
                    throw new NoSuchElementException();
                }
                List<SourcePoint> batch = new ArrayList<>(pointsPerRecord);
                while (batch.size() < pointsPerRecord && it.hasNext()) {
                    batch.add(it.next());
                }
                byte[] key = keyed ? batch.get(0).seriesKey().getBytes(StandardCharsets.UTF_8) : null;
                byte[] value =
                        recordFormat.equals(OTLP_POINTS) ? OtlpPointRecords.encode(batch) : PointRecords.encode(batch);
                return new Outgoing(key, value, batch.size());
            }
        };
    }

    /**
     * The histograms {@code --histogram-series} asks for: the synthetic source's timing flags ({@code --points-per-series},
     * {@code --source-interval}, {@code --timestamp}, {@code --now}) and {@code --instance}.
     *
     * @throws ParameterException when a flag of the other inputs is given too, or a count or time is out of range
     */
    private LatencyHistograms histograms() {
        CommandLine cl = spec.commandLine();
        if (!source.files.isEmpty() || source.synthetic) {
            throw new ParameterException(cl, "give either --histogram-series, files or --synthetic, not several");
        }
        for (String other : List.of("--keep-timestamps", "--series", "--product-key")) {
            if (cl.getParseResult().hasMatchedOption(other)) {
                throw new ParameterException(
                        cl, other + " is a flag of point records; --histogram-series sends OTLP histograms");
            }
        }
        if (source.pointsPerSeries < 1) {
            throw new ParameterException(cl, "--points-per-series must be >= 1, got " + source.pointsPerSeries);
        }
        long interval = source.sourceInterval.toMillis();
        if (interval < 1) {
            throw new ParameterException(cl, "--source-interval must be at least 1ms, got " + source.sourceInterval);
        }
        for (Long t : new Long[] {source.timestampMs, source.nowMs}) {
            if (t != null && t < SourceOptions.MIN_TIMESTAMP_MS) {
                throw new ParameterException(
                        cl, "--timestamp/--now " + t + " looks like seconds; give epoch milliseconds");
            }
        }
        if (source.instance != null && source.instance.isEmpty()) {
            throw new ParameterException(cl, "--instance must not be empty");
        }
        long now = source.nowMs != null ? source.nowMs : clock.millis();
        long newest = source.timestampMs != null ? source.timestampMs : SyntheticInput.alignedNow(now, interval);
        try {
            return new LatencyHistograms(
                    histogramSeries, source.pointsPerSeries, source.instance(), newest, interval, HISTOGRAM_SEED);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, e.getMessage(), e);
        }
    }

    private String describe(LatencyHistograms h) {
        return String.format(
                Locale.ROOT,
                "%d OTLP exponential histogram points of %s (%d series x %d points, %s apart, newest at %d);"
                        + " the writer reads them with --input-format otlp",
                h.size(),
                LatencyHistograms.METRIC,
                histogramSeries,
                source.pointsPerSeries,
                SourceOptions.format(source.sourceInterval),
                h.timestampMs(source.pointsPerSeries - 1));
    }

    /** {@code h}'s OTLP records, {@code --points-per-record} data points to a record. */
    private Iterator<Outgoing> histogramRecords(LatencyHistograms h) {
        Iterator<LatencyHistograms.Record> it = h.records(pointsPerRecord);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Outgoing next() {
                LatencyHistograms.Record r = it.next();
                return new Outgoing(keyed ? r.key().getBytes(StandardCharsets.UTF_8) : null, r.value(), r.points());
            }
        };
    }

    private void send(Producer<byte[], byte[]> producer, Iterator<Outgoing> records, Stats stats, long start) {
        long sent = 0;
        while (records.hasNext() && stats.failed.get() == null) { // stop at the first failed send
            if (rate > 0) {
                long due = start + (long) (sent * 1e9 / rate);
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
            Outgoing record = records.next();
            byte[] value = record.value();
            byte[] key = record.key();
            int nPoints = record.points();
            int nBytes = value.length + (key == null ? 0 : key.length);
            producer.send(new ProducerRecord<>(topic, key, value), (metadata, exception) -> {
                if (exception == null) {
                    stats.records.incrementAndGet();
                    stats.bytes.addAndGet(nBytes);
                    stats.points.addAndGet(nPoints);
                } else {
                    stats.failures.incrementAndGet();
                    stats.failed.compareAndSet(null, exception);
                }
            });
            sent++;
        }
    }

    /** The progress line every 5 s: what Kafka acknowledged in the window, and a word when it acknowledged nothing yet. */
    private final class Progress {
        private long windowStart;
        private long windowRecords;
        private long windowBytes;
        private long windowPoints;

        Progress(long start) {
            this.windowStart = start;
        }

        synchronized void print(Stats stats, PrintWriter err) {
            long now = System.nanoTime();
            long r = stats.records.get();
            long b = stats.bytes.get();
            long p = stats.points.get();
            String waiting = r == 0
                    ? "; none acknowledged yet: waiting for the brokers at " + bootstrapServers
                            + " (a send gives up after max.block.ms / delivery.timeout.ms)"
                    : "";
            err.println(summary(r - windowRecords, b - windowBytes, p - windowPoints, (now - windowStart) / 1e9)
                    + String.format(
                            Locale.ROOT,
                            " (last %.1f s; %d records sent in total%s)",
                            (now - windowStart) / 1e9,
                            r,
                            waiting));
            err.flush();
            windowStart = now;
            windowRecords = r;
            windowBytes = b;
            windowPoints = p;
        }
    }

    /** {@code N records sent, X records/sec (Y MB/sec), points=P}, MB = 2^20 bytes as in kafka-producer-perf-test. */
    static String summary(long records, long bytes, long points, double seconds) {
        double s = Math.max(seconds, 1e-9);
        return String.format(
                Locale.ROOT,
                "%d records sent, %.1f records/sec (%.2f MB/sec), points=%d",
                records,
                records / s,
                bytes / s / (1024.0 * 1024.0),
                points);
    }

    private static final class Stats {
        final AtomicLong records = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong points = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final AtomicReference<Exception> failed = new AtomicReference<>();
    }
}
