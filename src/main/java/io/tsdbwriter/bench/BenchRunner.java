package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.Figures;
import io.tsdbwriter.lab.FreshReceiver;
import io.tsdbwriter.lab.HistogramShare;
import io.tsdbwriter.lab.InputRate;
import io.tsdbwriter.lab.KafkaFeeder;
import io.tsdbwriter.lab.Machine;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.lab.SystemCpu;
import io.tsdbwriter.lab.VmProbe;
import io.tsdbwriter.lab.WriterCellRunner;
import io.tsdbwriter.metrics.AotCacheStatus;
import io.tsdbwriter.produce.LatencyHistograms;
import io.tsdbwriter.produce.OtlpPointRecords;
import io.tsdbwriter.produce.OtlpScrapeRecords;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.tsdbmetrics.InsertCapacityProbe;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * {@code tsdb-writer bench}: pre-loads a topic, measures each batch shape's ceiling, runs every grid cell as its own
 * writer process, and prints the table; writes CSV and a PNG chart. Progress lines go to {@code out} as it runs.
 * Not thread-safe; one run per instance.
 */
public final class BenchRunner {

    /**
     * Everything a run needs (the flags of {@code bench}); built with {@link #builder()}, which names each value.
     *
     * @param bootstrapServers Kafka bootstrap servers ({@code --bootstrap-servers}); required
     * @param vmUrl the VictoriaMetrics base URL the ceilings post to and the cells' default target ({@code --vm-url}); required
     * @param topic the backlog topic (pre-loaded unless it exists); live topics are {@code <topic>-live-<cell>}; required
     * @param partitions partitions of the topics the run creates, ≥ 1; default 1
     * @param cells the grid, in run order; ≥ 1 cell; required
     * @param feed the source points of the backlog, the ceilings' bodies and the live input; required
     * @param sourceIntervalMs interval of the source points in milliseconds; default 60 000
     * @param inputRate {@code --input-rate}: the live cells' input rate; null = backlog cells only (default)
     * @param duration how long a live cell produces ({@code --live-duration}); default 60 s
     * @param liveGrace how long a live cell's writer may take after its input ends ({@code --live-grace}); default 1 s
     * @param ceilingSeconds how long a ceiling posts ({@code --ceiling-seconds}); default 10 s
     * @param ceilingPoolBytes bytes of pre-serialized bodies a ceiling posts from at most ({@code --ceiling-pool}); default 256 MiB
     * @param writePermits concurrent requests of the ceilings and the writers; ≤ 0 = read the target's
     *     {@code vm_concurrent_insert_capacity}; default 0
     * @param batchSamples samples per request, ≥ 1; default 10 000
     * @param segmentSize the writers' {@code --segment-size} in offsets, ≥ 1; default 50 000
     * @param csv where the results go as CSV; null = none (default)
     * @param chart where the results go as a PNG chart; null = none (default)
     * @param workDir the directory of the cells' logs, summaries and receivers' data (absolute); required
     * @param jar the writer's jar that every cell runs; required
     * @param javaCommand the {@code java} command line a cell starts with; required
     * @param writerJvmOptions JVM options of every writer; default none
     * @param extraRunArgs further {@code run} arguments of every writer; default none
     * @param cellTimeout longest a cell's writer may run ({@code --cell-timeout}); default 15 min
     * @param settleMax longest wait for a receiver's ingestion to settle ({@code --settle-timeout}); default 30 s
     * @param commandLine the {@code bench} command line, printed with the table; required
     * @param kafkaClient settings of every Kafka client of the run; required
     * @param vmHttp authentication and TLS of the requests to {@code vmUrl}; required
     * @param remoteWriteUrl the receiver of remote write shapes without a {@code --remote-write-url} of their own; required
     * @param placement the CPUs of the writers, the TSDB and Kafka ({@code CpuPinning}); required
     * @param prometheusBinary {@code --prometheus-binary}: a Prometheus of their own for remote-write-2 shapes; null = none (default)
     * @param victoriaMetricsBinary {@code --victoria-metrics-binary}: a VictoriaMetrics of their own for the default
     *     receiver's shapes; null = none (default)
     * @param prometheusOutOfOrderWindow the out-of-order window of those Prometheus
     *     ({@code --prometheus-out-of-order-window}); default 30 d
     * @param otlpRecords the topics it produces carry OTLP records and every writer reads {@code --input-format otlp}
     *     before its {@code extraRunArgs}: the backlog one record per scrape ({@code produce --record-format otlp}),
     *     the live topics one point per record; default false: JSON point records
     * @param readBackRelay after each backlog cell with M = N = 1 on a receiver of its own, count the samples that
     *     receiver holds ({@link StoredSamples}) into the cell's summary ({@link RelayPeers#READ_BACK_FIELD}); default false
     * @param histogramSeries {@code --histogram-series}: S series of OTLP exponential latency histograms produced once
     *     beside the backlog to {@code <topic>-histograms} ({@link HistogramShare}), covering the points' sample span, and
     *     read by every cell with {@code --topic-format <topic>-histograms=otlp}; ≥ 0, 0 = none (default)
     */
    public record Settings(
            String bootstrapServers,
            String vmUrl,
            String topic,
            int partitions,
            List<BenchCell> cells,
            SourceFeed feed,
            long sourceIntervalMs,
            InputRate inputRate,
            Duration duration,
            Duration liveGrace,
            Duration ceilingSeconds,
            long ceilingPoolBytes,
            int writePermits,
            int batchSamples,
            long segmentSize,
            Path csv,
            Path chart,
            Path workDir,
            Path jar,
            List<String> javaCommand,
            List<String> writerJvmOptions,
            List<String> extraRunArgs,
            Duration cellTimeout,
            Duration settleMax,
            String commandLine,
            KafkaClientConfig kafkaClient,
            HttpAuthConfig vmHttp,
            String remoteWriteUrl,
            CpuPinning.Plan placement,
            Path prometheusBinary,
            Path victoriaMetricsBinary,
            Duration prometheusOutOfOrderWindow,
            boolean otlpRecords,
            boolean readBackRelay,
            int histogramSeries) {

        /**
         * @throws NullPointerException naming a required value that is null
         * @throws IllegalArgumentException naming a value out of range
         */
        public Settings {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(vmUrl, "vmUrl");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(cells, "cells");
            Objects.requireNonNull(feed, "feed");
            Objects.requireNonNull(duration, "duration");
            Objects.requireNonNull(liveGrace, "liveGrace");
            Objects.requireNonNull(ceilingSeconds, "ceilingSeconds");
            Objects.requireNonNull(workDir, "workDir");
            Objects.requireNonNull(jar, "jar");
            Objects.requireNonNull(javaCommand, "javaCommand");
            Objects.requireNonNull(writerJvmOptions, "writerJvmOptions");
            Objects.requireNonNull(extraRunArgs, "extraRunArgs");
            Objects.requireNonNull(cellTimeout, "cellTimeout");
            Objects.requireNonNull(settleMax, "settleMax");
            Objects.requireNonNull(commandLine, "commandLine");
            Objects.requireNonNull(kafkaClient, "kafkaClient");
            Objects.requireNonNull(vmHttp, "vmHttp");
            Objects.requireNonNull(remoteWriteUrl, "remoteWriteUrl");
            Objects.requireNonNull(placement, "placement");
            Objects.requireNonNull(prometheusOutOfOrderWindow, "prometheusOutOfOrderWindow");
            cells = List.copyOf(cells);
            javaCommand = List.copyOf(javaCommand);
            writerJvmOptions = List.copyOf(writerJvmOptions);
            extraRunArgs = List.copyOf(extraRunArgs);
            require(!cells.isEmpty(), "cells must not be empty");
            require(partitions >= 1, "partitions must be >= 1, got " + partitions);
            require(batchSamples >= 1, "batchSamples must be >= 1, got " + batchSamples);
            require(segmentSize >= 1, "segmentSize must be >= 1, got " + segmentSize);
            require(histogramSeries >= 0, "histogramSeries must be >= 0, got " + histogramSeries);
        }

        /** A builder with the defaults above; {@link Builder#build()} validates. */
        public static Builder builder() {
            return new Builder();
        }

        /**
         * The TSDB that the shape's ceiling and each of its cells get of their own ({@link FreshReceiver}), or null when
         * they share the run's: a Prometheus for remote-write-2 shapes ({@code --prometheus-binary}), a VictoriaMetrics
         * for import and remote write 1.0 shapes of the default receiver ({@code --victoria-metrics-binary}).
         */
        FreshReceiver.Kind freshReceiver(BenchCell.Shape shape) {
            if (BenchCell.REMOTE_WRITE_2.equals(shape.output())) {
                return prometheusBinary != null ? FreshReceiver.Kind.PROMETHEUS : null;
            }
            return victoriaMetricsBinary != null && shape.receiver() == null
                    ? FreshReceiver.Kind.VICTORIA_METRICS
                    : null;
        }

        /**
         * The encoder of the live topics' record values: OTLP or JSON point records, one point each (the backlog topic's
         * OTLP records hold one scrape each).
         */
        public Function<SourcePoint, byte[]> recordEncoder() {
            return otlpRecords ? p -> OtlpPointRecords.encode(List.of(p)) : PointRecords::encode;
        }

        /**
         * The writers' further {@code run} arguments: {@code --input-format otlp} when {@link #otlpRecords}, then
         * {@link #extraRunArgs}.
         */
        List<String> writerRunArgs() {
            if (!otlpRecords) {
                return extraRunArgs;
            }
            List<String> args = new ArrayList<>(List.of("--input-format", "otlp"));
            args.addAll(extraRunArgs);
            return args;
        }

        /**
         * The run arguments of the grid's writers: {@link #writerRunArgs()}, then, with a histogram share, the histogram
         * topic read as OTLP ({@link HistogramShare#writerArgs}).
         */
        List<String> cellRunArgs() {
            if (histogramSeries == 0) {
                return writerRunArgs();
            }
            List<String> args = new ArrayList<>(writerRunArgs());
            args.addAll(HistogramShare.writerArgs(topic));
            return args;
        }

        /** The binary of {@code kind}. */
        Path binary(FreshReceiver.Kind kind) {
            return kind == FreshReceiver.Kind.PROMETHEUS ? prometheusBinary : victoriaMetricsBinary;
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }

        /**
         * Names each value of {@link Settings}; the defaults are those of the type's parameters (the flags' defaults),
         * the rest is null until set. Not thread-safe; one instance per run.
         */
        public static final class Builder {
            private String bootstrapServers;
            private String vmUrl;
            private String topic;
            private int partitions = 1;
            private List<BenchCell> cells;
            private SourceFeed feed;
            private long sourceIntervalMs = 60_000;
            private InputRate inputRate;
            private Duration duration = Duration.ofSeconds(60);
            private Duration liveGrace = Duration.ofSeconds(1);
            private Duration ceilingSeconds = Duration.ofSeconds(10);
            private long ceilingPoolBytes = 256L << 20;
            private int writePermits;
            private int batchSamples = 10_000;
            private long segmentSize = 50_000;
            private Path csv;
            private Path chart;
            private Path workDir;
            private Path jar;
            private List<String> javaCommand;
            private List<String> writerJvmOptions = List.of();
            private List<String> extraRunArgs = List.of();
            private Duration cellTimeout = Duration.ofMinutes(15);
            private Duration settleMax = Duration.ofSeconds(30);
            private String commandLine;
            private KafkaClientConfig kafkaClient;
            private HttpAuthConfig vmHttp;
            private String remoteWriteUrl;
            private CpuPinning.Plan placement;
            private Path prometheusBinary;
            private Path victoriaMetricsBinary;
            private Duration prometheusOutOfOrderWindow = Duration.ofDays(30);
            private boolean otlpRecords;
            private boolean readBackRelay;
            private int histogramSeries;

            private Builder() {}

            /** @see Settings#bootstrapServers() */
            public Builder bootstrapServers(String bootstrapServers) {
                this.bootstrapServers = bootstrapServers;
                return this;
            }

            /** @see Settings#vmUrl() */
            public Builder vmUrl(String vmUrl) {
                this.vmUrl = vmUrl;
                return this;
            }

            /** @see Settings#topic() */
            public Builder topic(String topic) {
                this.topic = topic;
                return this;
            }

            /** @see Settings#partitions() */
            public Builder partitions(int partitions) {
                this.partitions = partitions;
                return this;
            }

            /** @see Settings#cells() */
            public Builder cells(List<BenchCell> cells) {
                this.cells = cells;
                return this;
            }

            /** @see Settings#feed() */
            public Builder feed(SourceFeed feed) {
                this.feed = feed;
                return this;
            }

            /** @see Settings#sourceIntervalMs() */
            public Builder sourceIntervalMs(long sourceIntervalMs) {
                this.sourceIntervalMs = sourceIntervalMs;
                return this;
            }

            /** @see Settings#inputRate() */
            public Builder inputRate(InputRate inputRate) {
                this.inputRate = inputRate;
                return this;
            }

            /** @see Settings#duration() */
            public Builder duration(Duration duration) {
                this.duration = duration;
                return this;
            }

            /** @see Settings#liveGrace() */
            public Builder liveGrace(Duration liveGrace) {
                this.liveGrace = liveGrace;
                return this;
            }

            /** @see Settings#ceilingSeconds() */
            public Builder ceilingSeconds(Duration ceilingSeconds) {
                this.ceilingSeconds = ceilingSeconds;
                return this;
            }

            /** @see Settings#ceilingPoolBytes() */
            public Builder ceilingPoolBytes(long ceilingPoolBytes) {
                this.ceilingPoolBytes = ceilingPoolBytes;
                return this;
            }

            /** @see Settings#writePermits() */
            public Builder writePermits(int writePermits) {
                this.writePermits = writePermits;
                return this;
            }

            /** @see Settings#batchSamples() */
            public Builder batchSamples(int batchSamples) {
                this.batchSamples = batchSamples;
                return this;
            }

            /** @see Settings#segmentSize() */
            public Builder segmentSize(long segmentSize) {
                this.segmentSize = segmentSize;
                return this;
            }

            /** @see Settings#csv() */
            public Builder csv(Path csv) {
                this.csv = csv;
                return this;
            }

            /** @see Settings#chart() */
            public Builder chart(Path chart) {
                this.chart = chart;
                return this;
            }

            /** @see Settings#workDir() */
            public Builder workDir(Path workDir) {
                this.workDir = workDir;
                return this;
            }

            /** @see Settings#jar() */
            public Builder jar(Path jar) {
                this.jar = jar;
                return this;
            }

            /** @see Settings#javaCommand() */
            public Builder javaCommand(List<String> javaCommand) {
                this.javaCommand = javaCommand;
                return this;
            }

            /** @see Settings#writerJvmOptions() */
            public Builder writerJvmOptions(List<String> writerJvmOptions) {
                this.writerJvmOptions = writerJvmOptions;
                return this;
            }

            /** @see Settings#extraRunArgs() */
            public Builder extraRunArgs(List<String> extraRunArgs) {
                this.extraRunArgs = extraRunArgs;
                return this;
            }

            /** @see Settings#cellTimeout() */
            public Builder cellTimeout(Duration cellTimeout) {
                this.cellTimeout = cellTimeout;
                return this;
            }

            /** @see Settings#settleMax() */
            public Builder settleMax(Duration settleMax) {
                this.settleMax = settleMax;
                return this;
            }

            /** @see Settings#commandLine() */
            public Builder commandLine(String commandLine) {
                this.commandLine = commandLine;
                return this;
            }

            /** @see Settings#kafkaClient() */
            public Builder kafkaClient(KafkaClientConfig kafkaClient) {
                this.kafkaClient = kafkaClient;
                return this;
            }

            /** @see Settings#vmHttp() */
            public Builder vmHttp(HttpAuthConfig vmHttp) {
                this.vmHttp = vmHttp;
                return this;
            }

            /** @see Settings#remoteWriteUrl() */
            public Builder remoteWriteUrl(String remoteWriteUrl) {
                this.remoteWriteUrl = remoteWriteUrl;
                return this;
            }

            /** @see Settings#placement() */
            public Builder placement(CpuPinning.Plan placement) {
                this.placement = placement;
                return this;
            }

            /** @see Settings#prometheusBinary() */
            public Builder prometheusBinary(Path prometheusBinary) {
                this.prometheusBinary = prometheusBinary;
                return this;
            }

            /** @see Settings#victoriaMetricsBinary() */
            public Builder victoriaMetricsBinary(Path victoriaMetricsBinary) {
                this.victoriaMetricsBinary = victoriaMetricsBinary;
                return this;
            }

            /** @see Settings#prometheusOutOfOrderWindow() */
            public Builder prometheusOutOfOrderWindow(Duration prometheusOutOfOrderWindow) {
                this.prometheusOutOfOrderWindow = prometheusOutOfOrderWindow;
                return this;
            }

            /** @see Settings#otlpRecords() */
            public Builder otlpRecords(boolean otlpRecords) {
                this.otlpRecords = otlpRecords;
                return this;
            }

            /** @see Settings#readBackRelay() */
            public Builder readBackRelay(boolean readBackRelay) {
                this.readBackRelay = readBackRelay;
                return this;
            }

            /** @see Settings#histogramSeries() */
            public Builder histogramSeries(int histogramSeries) {
                this.histogramSeries = histogramSeries;
                return this;
            }

            /**
             * The settings of the values set.
             *
             * @throws NullPointerException naming a required value not set
             * @throws IllegalArgumentException naming a value out of range
             */
            public Settings build() {
                return new Settings(
                        bootstrapServers,
                        vmUrl,
                        topic,
                        partitions,
                        cells,
                        feed,
                        sourceIntervalMs,
                        inputRate,
                        duration,
                        liveGrace,
                        ceilingSeconds,
                        ceilingPoolBytes,
                        writePermits,
                        batchSamples,
                        segmentSize,
                        csv,
                        chart,
                        workDir,
                        jar,
                        javaCommand,
                        writerJvmOptions,
                        extraRunArgs,
                        cellTimeout,
                        settleMax,
                        commandLine,
                        kafkaClient,
                        vmHttp,
                        remoteWriteUrl,
                        placement,
                        prometheusBinary,
                        victoriaMetricsBinary,
                        prometheusOutOfOrderWindow,
                        otlpRecords,
                        readBackRelay,
                        histogramSeries);
            }
        }
    }

    private final Settings s;
    private final PrintStream out;
    private final String runId = Long.toString(System.currentTimeMillis() / 1000, 36);
    /** Bytes of the backlog topic's log, once it is loaded; 0 when unknown (then no fetched ÷ topic figure). */
    private long topicBytes;
    /** Records of the backlog topic: the feed's points, or with OTLP records (one per scrape) the topic's records. */
    private long backlogRecords;
    /** The histogram share's records and samples, once produced ({@link #preloadHistograms}); none without one. */
    private HistogramShare.Fed histogramsFed = HistogramShare.Fed.NONE;

    public BenchRunner(Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
    }

    /** The results of a run. */
    public record Results(String machine, List<CeilingResult> ceilings, List<CellResult> cells) {}

    /** Runs the whole benchmark; returns 0 when every writer exited cleanly and wrote everything, else 1. */
    public int run() throws IOException, InterruptedException {
        Files.createDirectories(s.workDir());
        s.placement().apply(line -> progress("%s", line)); // before the feeder's and the ceiling's threads start
        WriteTarget endpoint = new WriteTarget(s.vmUrl());
        HttpClientSecurity security = HttpClientSecurity.of(s.vmHttp(), List.of(s.vmUrl()));
        try (WriteClient client = new WriteClient(Duration.ofSeconds(90), 64, false, security);
                KafkaFeeder kafka = new KafkaFeeder(s.kafkaClient(), s.recordEncoder())) {
            VmProbe vm = new VmProbe(client.http(), endpoint);
            int permits = s.writePermits();
            if (permits <= 0) {
                OptionalInt cap = InsertCapacityProbe.read(client.http(), endpoint.metricsUrl());
                permits = cap.orElse(8);
                progress(
                        "concurrency: %d write permits (%s)",
                        permits,
                        cap.isPresent()
                                ? InsertCapacityProbe.METRIC + " of " + endpoint.metricsUrl()
                                : "unreadable " + InsertCapacityProbe.METRIC + ", default");
            }
            String machine = Machine.line(vm.version());
            progress("machine: %s", machine);
            progress("input: %s", s.feed().description());

            boolean liveOnly = s.inputRate() != null && !s.inputRate().relative();
            if (!liveOnly) {
                preload(kafka);
                if (s.histogramSeries() > 0) {
                    histogramsFed = preloadHistograms(kafka);
                }
                topicBytes = kafka.logBytes(s.topic());
                progress(
                        "backlog: %,d bytes in the topic's log (the denominator of each cell's bytes fetched)",
                        topicBytes);
            }
            Function<BenchCell.Shape, CeilingMeter> meters = shape -> {
                if (!shape.remoteWrite()) {
                    return new CeilingMeter(endpoint, vm, s.settleMax(), security);
                }
                WriteTarget receiver =
                        WriteTarget.remoteWrite(shape.receiver() != null ? shape.receiver() : s.remoteWriteUrl());
                return new CeilingMeter(receiver, new VmProbe(client.http(), receiver), s.settleMax(), security);
            };
            WriterCellRunner runner = new WriterCellRunner(
                    WriterCellRunner.Settings.builder()
                            .javaCommand(s.javaCommand())
                            .jar(s.jar())
                            .jvmOptions(s.writerJvmOptions())
                            .bootstrapServers(s.bootstrapServers())
                            .vmUrl(s.vmUrl())
                            .writePermits(permits)
                            .batchSamples(s.batchSamples())
                            .segmentSize(s.segmentSize())
                            .extraRunArgs(s.cellRunArgs())
                            .workDir(s.workDir())
                            .cellTimeout(s.cellTimeout())
                            .settleMax(s.settleMax())
                            .remoteWriteUrl(s.remoteWriteUrl())
                            .placement(s.placement().placement())
                            .build(),
                    vm,
                    target -> new VmProbe(client.http(), target));
            List<CeilingResult> ceilings = new ArrayList<>();
            List<CellResult> results = new ArrayList<>();
            int total = s.cells().size() * (s.inputRate() == null ? 1 : (liveOnly ? 1 : 2));
            int done = 0;
            for (BenchCell.Shape shape : BenchGrid.shapes(s.cells())) {
                CeilingResult c;
                FreshReceiver.Kind fresh = s.freshReceiver(shape);
                if (fresh != null) {
                    try (FreshReceiver receiver = freshReceiver(fresh, "ceiling-" + (ceilings.size() + 1), client)) {
                        WriteTarget target = shape.remoteWrite()
                                ? WriteTarget.remoteWrite(receiver.remoteWriteUrl())
                                : new WriteTarget(receiver.url());
                        c = ceiling(
                                new CeilingMeter(target, new VmProbe(client.http(), target), s.settleMax(), security),
                                shape,
                                permits,
                                fresh);
                    }
                } else {
                    c = ceiling(meters.apply(shape), shape, permits, null);
                }
                ceilings.add(c);
                for (BenchCell cell : s.cells()) {
                    if (!cell.shape().equals(shape)) {
                        continue;
                    }
                    CellResult backlog = null;
                    if (!liveOnly) {
                        done++;
                        progress(
                                "[%d/%d] %s: consuming the backlog of %,d records ...",
                                done, total, cell.label(), backlogRecords);
                        String name = String.format(Locale.ROOT, "cell-%02d", done);
                        int index = done;
                        backlog = onItsReceiver(
                                cell,
                                name,
                                client,
                                target -> runner.backlog(
                                        target,
                                        s.topic(),
                                        group(index),
                                        name,
                                        backlogRecords + histogramsFed.records()));
                        backlog = withHistograms(backlog);
                        results.add(backlog);
                        report(done, total, backlog, c);
                        wire(name, backlog);
                    }
                    if (s.inputRate() != null) {
                        done++;
                        double rate = s.inputRate().pointsPerSecond(backlog == null ? 0 : backlog.pointsPerSecond());
                        int index = done;
                        CellResult live = onItsReceiver(
                                cell,
                                String.format(Locale.ROOT, "cell-%02d-live", done),
                                client,
                                target -> live(kafka, runner, target, rate, index, total));
                        results.add(live);
                        report(done, total, live, c);
                    }
                }
            }
            return finish(machine, ceilings, results);
        }
    }

    /**
     * The shape's ceiling: its receiver alone ingesting pre-serialized bodies of the shape in the shape's protocol,
     * {@code permits} at once; into a receiver of its own ({@code fresh}, first writes) or the run's (null).
     */
    private CeilingResult ceiling(CeilingMeter meter, BenchCell.Shape shape, int permits, FreshReceiver.Kind fresh)
            throws IOException, InterruptedException {
        boolean firstWrites = fresh != null;
        progress(
                "ceiling %s: serializing up to %d MiB of %s bodies (%d samples each) ...",
                shape.label(), s.ceilingPoolBytes() >> 20, shape.output(), s.batchSamples());
        List<CeilingMeter.Body> bodies = CeilingMeter.serialize(
                s.feed().iterator(), shape, s.sourceIntervalMs(), s.batchSamples(), s.ceilingPoolBytes());
        if (firstWrites) {
            progress(
                    "ceiling %s: %d bodies into a %s of its own; each posted at most once (first writes, as the cells'), from %d"
                            + " concurrent requests for at most %s ...",
                    shape.label(), bodies.size(), fresh.displayName(), permits, human(s.ceilingSeconds()));
        } else {
            progress(
                    "ceiling %s: %d bodies; posting each once (unmeasured: registers the series), then round-robin from %d"
                            + " concurrent requests for %s ...",
                    shape.label(), bodies.size(), permits, human(s.ceilingSeconds()));
        }
        CeilingResult c = meter.measure(shape, bodies, permits, s.ceilingSeconds(), firstWrites);
        bodies = null; // the pool (up to --ceiling-pool-mib) may go before the writer cells
        progress(
                "ceiling %s: %s samples/s (%s samples/min), %s %.2f CPU-s per million samples, %d failed requests; load %.2f",
                shape.label(),
                millions(c.samplesPerSecond()),
                Figures.count(c.perMinute()),
                firstWrites ? fresh.displayName() : shape.remoteWrite() ? "the receiver" : "VictoriaMetrics",
                c.vmCpuPerMillion(),
                c.failures(),
                SystemCpu.loadAverage());
        System.gc();
        return c;
    }

    /** Runs a cell as the grid has it; a cell's run, against the receiver it is given. */
    @FunctionalInterface
    private interface CellRun {
        CellResult run(BenchCell cell) throws IOException, InterruptedException;
    }

    /**
     * Runs {@code cell}: as it is, or, when its shape gets a receiver of its own ({@link Settings#freshReceiver}),
     * against a new TSDB ({@code <name>-prometheus}, {@code <name>-victoria-metrics}) started for it and stopped after
     * it; the result names the grid's cell either way.
     */
    private CellResult onItsReceiver(BenchCell cell, String name, WriteClient client, CellRun run)
            throws IOException, InterruptedException {
        FreshReceiver.Kind fresh = s.freshReceiver(cell.shape());
        if (fresh == null) {
            return run.run(cell);
        }
        try (FreshReceiver receiver = freshReceiver(fresh, name, client)) {
            CellResult r = run.run(cell.withReceiver(cell.remoteWrite() ? receiver.remoteWriteUrl() : receiver.url()))
                    .withCell(cell);
            boolean relay = s.readBackRelay() && cell.timeMultiplier() == 1 && cell.instanceMultiplier() == 1;
            if (!r.live() && (relay || s.histogramSeries() > 0)) {
                readBack(name, receiver, r.samplesWritten(), client);
            }
            return r;
        }
    }

    /** The samples a relay cell's own receiver holds, into the cell's summary and a progress line. */
    private void readBack(String name, FreshReceiver receiver, long written, WriteClient client)
            throws InterruptedException {
        Path summary = s.workDir().resolve(name + ".json");
        try {
            StoredSamples.Counted counted =
                    new StoredSamples(client.http()).countByName(receiver.url(), written, PeerComparison.SETTLE);
            long stored = counted.total();
            progress(
                    "%s: %,d samples read back from its %s (%,d written)",
                    name, stored, receiver.kind().displayName(), written);
            long histogramSamples = counted.of(HistogramShare::isHistogramName);
            if (s.histogramSeries() > 0) {
                progress(
                        "%s: %,d of them the histograms' (%s)",
                        name,
                        histogramSamples,
                        receiver.kind() == FreshReceiver.Kind.PROMETHEUS
                                ? "native histograms, one sample each"
                                : "vmrange bucket series, _count and _sum");
            }
            if (Files.exists(summary)) {
                ObjectMapper json = new ObjectMapper();
                var tree = (ObjectNode) json.readTree(summary.toFile());
                tree.put(RelayPeers.READ_BACK_FIELD, stored);
                if (s.histogramSeries() > 0) {
                    tree.put(HISTOGRAMS_READ_BACK_FIELD, histogramSamples);
                }
                json.writeValue(summary.toFile(), tree);
            }
        } catch (IOException e) {
            progress("%s: not read back (%s)", name, e.getMessage());
        }
    }

    /** A TSDB of its own for one measurement, {@code <name>-<kind>}, on the TSDB's CPUs ({@link FreshReceiver}). */
    private FreshReceiver freshReceiver(FreshReceiver.Kind kind, String name, WriteClient client)
            throws IOException, InterruptedException {
        String full = name + "-" + kind.label();
        FreshReceiver r = FreshReceiver.start(
                kind,
                s.binary(kind),
                s.workDir(),
                full,
                s.placement().placement().tsdbCpus(),
                client.http(),
                s.prometheusOutOfOrderWindow());
        progress("%s: a new %s (%s) at %s", full, kind.displayName(), s.binary(kind), r.url());
        return r;
    }

    /**
     * The summary field of the samples of the histogram share read back from a cell's receiver of its own (beside
     * {@link RelayPeers#READ_BACK_FIELD}, which counts them too).
     */
    public static final String HISTOGRAMS_READ_BACK_FIELD = "histogram_samples_read_back";

    /**
     * Produces the histogram share to {@code <topic>-histograms} once, covering the feed's sample span; a topic that
     * exists is used as it is (its records counted, the samples they hold unknown: -1).
     */
    private HistogramShare.Fed preloadHistograms(KafkaFeeder kafka) throws InterruptedException {
        String topic = HistogramShare.topic(s.topic());
        if (kafka.exists(topic)) {
            long size = kafka.size(topic);
            progress("histograms: topic %s exists with %,d records: using it as it is (not pre-loading)", topic, size);
            return new HistogramShare.Fed(size, -1, -1);
        }
        kafka.create(topic, s.partitions());
        var histograms = HistogramShare.covering(
                s.histogramSeries(), s.feed().newestMs(), s.feed().spanMs());
        progress(
                "histograms: producing %,d series of %s (OTLP exponential histograms), one data point per series every"
                        + " %d s of the points' sample time (%,d data points), to %s, read with --topic-format %s=otlp ...",
                s.histogramSeries(),
                LatencyHistograms.METRIC,
                HistogramShare.INTERVAL_MS / 1000,
                histograms.size(),
                topic,
                topic);
        HistogramShare.Fed fed = HistogramShare.produce(kafka, topic, histograms, s.histogramSeries());
        progress(
                "histograms: %,d records, %,d data points: %,d samples before M x N as native histograms, %,d as vmrange"
                        + " bucket series",
                fed.records(), fed.points(), fed.samples(true), fed.samples(false));
        return fed;
    }

    /** A backlog cell's result with the samples of the histogram share among its expected ones (× M × N). */
    private CellResult withHistograms(CellResult r) {
        if (s.histogramSeries() == 0) {
            return r;
        }
        long samples = histogramsFed.samples(r.cell().remoteWrite());
        long expected = samples < 0 ? -1 : samples * r.cell().samplesPerPoint();
        CellResult.Histograms h = r.histograms().withSamples(expected);
        progress(
                "%s: %s of the samples expected the histograms'; %,d native histograms written, %,d buckets in them",
                r.cell().label(),
                expected < 0 ? "unknown how many" : String.format(Locale.ROOT, "%,d", expected),
                h.written(),
                h.buckets());
        return r.toBuilder().histograms(h).build();
    }

    private void preload(KafkaFeeder kafka) throws InterruptedException {
        backlogRecords = s.feed().records();
        if (kafka.exists(s.topic())) {
            long size = kafka.size(s.topic());
            progress("backlog: topic %s exists with %,d records: using it as it is (not pre-loading)", s.topic(), size);
            if (s.otlpRecords()) {
                backlogRecords = size;
            }
            return;
        }
        kafka.create(s.topic(), s.partitions());
        progress(
                "backlog: producing %,d %s to %s (%d partition%s) ...",
                s.feed().records(),
                s.otlpRecords() ? "points as OTLP records (one per scrape)" : "records (one point each)",
                s.topic(),
                s.partitions(),
                s.partitions() == 1 ? "" : "s");
        long t0 = System.nanoTime();
        KafkaFeeder.Sent sent = s.otlpRecords()
                ? kafka.produceValues(s.topic(), scrapeRecords(s.feed().iterator()), Long.MAX_VALUE, 0, () -> false)
                : kafka.produce(s.topic(), s.feed().iterator(), s.feed().records(), 0, () -> false);
        if (s.otlpRecords()) {
            backlogRecords = sent.ackedRecords();
        }
        double sec = (System.nanoTime() - t0) / 1e9;
        progress("backlog: %,d records (%.1f MiB) in %.1f s", sent.ackedRecords(), sent.bytesSent() / 1048576.0, sec);
    }

    /** The values of {@code points} as OTLP records, one per scrape ({@link OtlpScrapeRecords}). */
    static Iterator<byte[]> scrapeRecords(Iterator<SourcePoint> points) {
        Iterator<OtlpScrapeRecords.Record> records = new OtlpScrapeRecords().records(points);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return records.hasNext();
            }

            @Override
            public byte[] next() {
                return records.next().value();
            }
        };
    }

    private CellResult live(
            KafkaFeeder kafka, WriterCellRunner runner, BenchCell cell, double rate, int index, int total)
            throws IOException, InterruptedException {
        String topic = s.topic() + "-live-" + index;
        kafka.create(topic, s.partitions());
        progress(
                "[%d/%d] %s live: producing %,.0f points/s%s to %s for %s while the writer runs ...",
                index,
                total,
                cell.label(),
                rate,
                s.inputRate().relative() ? " (" + s.inputRate() + ")" : "",
                topic,
                human(s.duration()));
        Iterator<SourcePoint> points = s.feed().cycle();
        long max = (long) Math.ceil(rate * s.duration().toMillis() / 1000.0);
        return runner.live(
                cell,
                topic,
                group(index),
                String.format(Locale.ROOT, "cell-%02d-live", index),
                () -> {
                    long deadline = System.nanoTime() + s.duration().toNanos();
                    return kafka.produce(topic, points, max, rate, () -> System.nanoTime() > deadline)
                            .ackedRecords();
                },
                s.duration(),
                s.liveGrace());
    }

    /**
     * Bytes on the wire per million samples written ({@code request_bytes}) and Kafka bytes received ÷ the topic's log
     * ({@code kafka_fetched_bytes}), from the writer's summary.
     */
    private void wire(String name, CellResult r) {
        Path summary = s.workDir().resolve(name + ".json");
        try {
            if (Files.exists(summary) && r.samplesWritten() > 0) {
                var figures = new ObjectMapper().readTree(summary.toFile());
                long bytes = figures.path("request_bytes").asLong();
                progress(
                        "%s: %,d request bytes on the wire, %.2f MB per million samples",
                        r.cell().label(), bytes, bytes / 1e6 / (r.samplesWritten() / 1e6));
                long fetched = figures.path("kafka_fetched_bytes").asLong();
                if (fetched > 0 && topicBytes > 0) {
                    progress(
                            "%s: Kafka: %,d bytes received = %.3f × the topic's log",
                            r.cell().label(), fetched, (double) fetched / topicBytes);
                }
                AotCacheStatus.State.ofLabel(figures.path("aot_cache").asText(""))
                        .filter(AotCacheStatus.State::warns)
                        .ifPresent(aot -> progress(
                                "%s: the writer's AOT cache was %s: its CPU includes the warm-up the cache saves",
                                r.cell().label(), aot.label()));
            }
        } catch (IOException e) {
            progress("%s: summary unreadable (%s)", r.cell().label(), e.getMessage());
        }
    }

    private String group(int index) {
        return "tsdb-writer-bench-" + runId + "-" + index;
    }

    private void report(int index, int total, CellResult r, CeilingResult ceiling) {
        progress(
                "[%d/%d] %s%s: %s samples/s written (%s/min of %s/min expected, efficiency %s), %s; %s of the ceiling; writer %s CPU-s/M,"
                        + " VM %s CPU-s/M, peak heap %s; exit %d; load %.2f, other CPU %.1f s",
                index,
                total,
                r.cell().label(),
                r.live() ? " live" : "",
                millions(r.samplesPerSecond()),
                Figures.count(r.actualPerMinute()),
                Figures.count(r.expectedPerMinute()),
                Figures.percent(r.efficiency()),
                r.delays().text(),
                Figures.percent(Ceilings.ratio(r, ceiling)),
                BenchTable.decimal(r.writerCpuPerMillion(), 2),
                BenchTable.decimal(r.vmCpuPerMillion(), 2),
                BenchTable.mebibytes(r.peakHeapBytes()),
                r.exitCode(),
                r.loadAverage(),
                r.otherCpuSeconds());
    }

    private int finish(String machine, List<CeilingResult> ceilings, List<CellResult> results) throws IOException {
        String placement = s.placement().placement().label();
        String table = BenchTable.format(placement, ceilings, results);
        out.println();
        out.println("machine: " + machine);
        out.println("placement: " + placement);
        out.println("command: " + s.commandLine());
        out.println();
        out.print(table);
        out.flush();
        if (s.csv() != null) {
            Path parent = s.csv().toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(s.csv(), BenchTable.csv(placement, ceilings, results), StandardCharsets.UTF_8);
            out.println("csv:   " + s.csv());
        }
        if (s.chart() != null) {
            try {
                BenchChart.write(
                        s.chart(),
                        "tsdb-writer bench: samples/s written vs. the VictoriaMetrics ceiling",
                        machine + "; placement " + placement,
                        ceilings,
                        results);
                out.println("chart: " + s.chart());
            } catch (IOException | RuntimeException | Error e) { // e.g. no fonts on a bare machine
                out.println("chart: not drawn (" + e + ")");
            }
        }
        out.flush();
        boolean ok = results.stream().allMatch(r -> r.ok() && (r.live() || r.samplesWritten() == r.samplesExpected()));
        return ok ? 0 : 1;
    }

    private void progress(String format, Object... args) {
        out.printf(
                Locale.ROOT, "%s bench: %s%n", LocalTime.now().withNano(0), String.format(Locale.ROOT, format, args));
        out.flush();
    }

    private static String millions(double perSecond) {
        return Double.isFinite(perSecond) ? String.format(Locale.ROOT, "%.2fM", perSecond / 1e6) : "–";
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
