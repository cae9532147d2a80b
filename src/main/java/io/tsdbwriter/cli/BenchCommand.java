package io.tsdbwriter.cli;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.bench.BenchGrid;
import io.tsdbwriter.bench.BenchRunner;
import io.tsdbwriter.bench.CollectorPeer;
import io.tsdbwriter.bench.PeerComparison;
import io.tsdbwriter.bench.RelayPeers.Peer;
import io.tsdbwriter.bench.TelegrafPeer;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CollectorProcess;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.InputRate;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.BundledScrapes;
import io.tsdbwriter.produce.SyntheticInput;
import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tsdb-writer bench}: the efficiency table, from one command, every figure measured side by side
 * in one run. The logic is in {@link io.tsdbwriter.bench}; this class only maps flags.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Benchmark the writer against a Kafka broker and VictoriaMetrics: the efficiency table beside VictoriaMetrics' ceiling.",
            "Each grid cell is a writer process on a pre-loaded topic; use an otherwise idle VictoriaMetrics. Local stack: "
                    + "scripts/bench.sh."
        })
public final class BenchCommand implements Callable<Integer> {

    /** {@code --log-format}: applied by {@link Main} before {@link #call()}. */
    @picocli.CommandLine.Mixin
    LogOptions logs = new LogOptions();

    @Spec
    CommandSpec spec;

    @Option(
            names = "--bootstrap-servers",
            defaultValue = "localhost:9092",
            paramLabel = "HOST:PORT[,…]",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE})")
    String bootstrapServers;

    @Option(
            names = "--vm-url",
            defaultValue = "http://localhost:8428",
            paramLabel = "URL",
            description = "VictoriaMetrics base URL; its /metrics must be reachable (default: ${DEFAULT-VALUE})")
    String vmUrl;

    @picocli.CommandLine.Mixin
    WriterProcessOptions writers = new WriterProcessOptions();

    @picocli.CommandLine.Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @picocli.CommandLine.Mixin
    KafkaClientOptions kafkaClient = new KafkaClientOptions();

    @picocli.CommandLine.Mixin
    PlacementOptions placement = new PlacementOptions();

    @Option(
            names = "--parallelism",
            defaultValue = "1,3,6",
            paramLabel = "P[,P…]",
            description = "The writers' --parallelism: readers per partition (default: ${DEFAULT-VALUE})")
    String parallelism;

    @Option(
            names = "--time-multiplier",
            defaultValue = "1,6,12",
            paramLabel = "M[,M…]",
            description = "Time multipliers (default: ${DEFAULT-VALUE})")
    String timeMultipliers;

    @Option(
            names = "--instance-multiplier",
            defaultValue = "1",
            paramLabel = "N[,N…]",
            description = "Instance multipliers (default: ${DEFAULT-VALUE})")
    String instanceMultipliers;

    @Option(
            names = "--write-mode",
            defaultValue = "async,sync",
            paramLabel = "async|sync[,…]",
            description = "Write modes: async and/or sync (the baseline) (default: ${DEFAULT-VALUE})")
    String writeModes;

    @Option(
            names = "--output",
            defaultValue = "import",
            paramLabel = "import|remote-write|remote-write-2[,…]",
            description = "Write protocols: import, remote-write, remote-write-2 (default: ${DEFAULT-VALUE})")
    String outputs;

    @Option(
            names = "--remote-write-url",
            paramLabel = "URL",
            description = "Remote write URL(s) of the remote-write cells (default: <vm-url>/api/v1/write)")
    List<String> remoteWriteUrls = new ArrayList<>();

    @Option(
            names = "--prometheus-binary",
            paramLabel = "FILE",
            description =
                    "Prometheus 3.x started anew for each remote-write-2 cell (default: cells go to --remote-write-url)")
    Path prometheusBinary;

    @Option(
            names = "--prometheus-out-of-order-window",
            defaultValue = "30d",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Out-of-order window of the Prometheus of --prometheus-binary (default: ${DEFAULT-VALUE})")
    Duration prometheusOutOfOrderWindow;

    @Option(
            names = "--victoria-metrics-binary",
            paramLabel = "FILE",
            description =
                    "VictoriaMetrics started anew for each import and remote-write cell (default: cells go to --vm-url)")
    Path victoriaMetricsBinary;

    @Option(
            names = "--source",
            defaultValue = "real",
            paramLabel = "real|synthetic",
            description = "Backlog: real node_exporter scrapes or synthetic series (default: ${DEFAULT-VALUE})")
    String source;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description =
                    "With --source real: directory of *.prom scrapes (default: " + BundledScrapes.DESCRIPTION + ")")
    Path dataDir;

    @Option(
            names = "--series",
            defaultValue = "10000",
            paramLabel = "S",
            description = "With --source synthetic: series (default: ${DEFAULT-VALUE})")
    int series;

    @Option(
            names = "--records",
            defaultValue = "1000000",
            paramLabel = "R",
            description = "Backlog size in records, one point each (default: ${DEFAULT-VALUE})")
    long records;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            description =
                    "Backlog topic; created and pre-loaded when missing (default: a new tsdb-writer-bench-<time>)")
    String topic;

    @Option(
            names = "--partitions",
            defaultValue = "1",
            paramLabel = "N",
            description = "Partitions of the topics the bench creates; P is per partition (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(
            names = "--share-processes",
            paramLabel = "K[,K…]",
            description = "Also run the first --parallelism's cells as K processes in one share group (default: none)")
    String shareProcesses;

    @Option(
            names = "--share-parallelism",
            defaultValue = "1",
            paramLabel = "P",
            description = "Share consumers per process of the share cells (default: ${DEFAULT-VALUE})")
    int shareParallelism;

    @Option(
            names = "--histogram-series",
            defaultValue = "0",
            paramLabel = "S",
            description =
                    "Backlog: also S series of OTLP exponential latency histograms over the points' sample span (as produce --histogram-series), in <topic>-histograms, which every cell reads with --topic-format …=otlp; 0 = none (default: ${DEFAULT-VALUE})")
    int histogramSeries;

    @Option(
            names = "--input-rate",
            paramLabel = "R|PCT%",
            description =
                    "Live mode: produce R points/s (or PCT%% of the cell's backlog capacity) (default: backlog only)")
    String inputRate;

    @Option(
            names = {"--live-duration", DeprecatedNames.BENCH_DURATION},
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Live mode: how long input is produced (default: ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--live-grace",
            defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Live mode: time after the input stops before the writer gets SIGTERM (default: ${DEFAULT-VALUE})")
    Duration liveGrace;

    @Option(
            names = "--ceiling-seconds",
            defaultValue = "10s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Measured window of each ceiling, after one unmeasured pass over its bodies (default: ${DEFAULT-VALUE})")
    Duration ceilingSeconds;

    @Option(
            names = "--ceiling-pool",
            defaultValue = "256MiB",
            converter = Converters.SizeConverter.class,
            paramLabel = "SIZE",
            description = "Pre-serialized bodies the ceiling cycles through, at most (default: ${DEFAULT-VALUE})")
    long ceilingPool;

    @Option(
            names = "--max-concurrent-writes",
            defaultValue = "auto",
            converter = Converters.PermitsConverter.class,
            paramLabel = "auto|PERMITS",
            description = "Write permits (concurrent write requests) of every writer and the ceiling (default: auto)")
    int maxConcurrentWrites;

    @Option(
            names = "--batch-samples",
            defaultValue = "10000",
            paramLabel = "SAMPLES",
            description = "Samples per write request, writer and ceiling (default: ${DEFAULT-VALUE})")
    int batchSamples;

    @Option(
            names = "--source-interval",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Interval of the source points (synthetic spacing; base of M) (default: ${DEFAULT-VALUE})")
    Duration sourceInterval;

    @Option(names = "--csv", paramLabel = "FILE", description = "Write the results as CSV")
    Path csv;

    @Option(names = "--chart", paramLabel = "FILE.png", description = "Draw the results as a PNG chart")
    Path chart;

    @Option(
            names = "--work-dir",
            defaultValue = "target/bench",
            paramLabel = "DIR",
            description = "Each writer's log and summary go here (default: ${DEFAULT-VALUE})")
    Path workDir;

    @Option(
            names = "--cell-timeout",
            defaultValue = "15m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "A writer still running after this is stopped and its cell marked failed (default: ${DEFAULT-VALUE})")
    Duration cellTimeout;

    @Option(
            names = "--settle-timeout",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "After each cell, wait at most this for VictoriaMetrics to go idle (default: ${DEFAULT-VALUE})")
    Duration settleTimeout;

    @Option(
            names = "--peer",
            paramLabel = "telegraf|otelcol[,…]",
            description =
                    "After the grid, run these relay peers over the same points (repeatable): telegraf, otelcol (the OpenTelemetry Collector; the topic then holds OTLP records and the cells read --input-format otlp) (default: none)")
    List<String> peers = new ArrayList<>();

    @Option(
            names = "--floor",
            description = "After the grid, read the topic with a bare Kafka consumer: the relay's floor")
    boolean floor;

    @Option(
            names = "--telegraf-binary",
            paramLabel = "FILE",
            description = "Telegraf for --peer telegraf (default: $" + TelegrafPeer.BINARY_ENV
                    + ", else the one scripts/lib.sh builds, else telegraf on the PATH)")
    Path telegrafBinary;

    @Option(
            names = "--otelcol-binary",
            paramLabel = "FILE",
            description = "OpenTelemetry Collector for --peer otelcol (default: $" + CollectorProcess.BINARY_ENV
                    + ", else the one scripts/lib.sh builds, else otelcol on the PATH)")
    Path otelcolBinary;

    @Override
    public Integer call() throws IOException, InterruptedException {
        Map<Peer, Path> peerBinaries = peerBinaries();
        if (prometheusBinary != null && !Files.isExecutable(prometheusBinary)) {
            throw new ParameterException(
                    spec.commandLine(), "--prometheus-binary " + prometheusBinary + ": not an executable file");
        }
        if (victoriaMetricsBinary != null && !Files.isExecutable(victoriaMetricsBinary)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--victoria-metrics-binary " + victoriaMetricsBinary + ": not an executable file");
        }
        List<BenchCell> cells = BenchGrid.cells(
                BenchGrid.parsePositiveInts("--parallelism", parallelism, RunConfig.MAX_PARALLELISM),
                BenchGrid.parsePositiveInts(
                        "--time-multiplier", timeMultipliers, AmplificationPlan.MAX_TIME_MULTIPLIER),
                BenchGrid.parsePositiveInts(
                        "--instance-multiplier", instanceMultipliers, AmplificationPlan.MAX_INSTANCE_MULTIPLIER),
                BenchGrid.parseWriteModes(writeModes),
                BenchGrid.parseOutputs(outputs),
                remoteWriteUrls);
        for (String url : remoteWriteUrls) {
            try {
                WriteTarget.remoteWrite(url);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--remote-write-url: " + e.getMessage());
            }
        }
        if (shareProcesses != null) {
            if (inputRate != null) {
                throw new ParameterException(
                        spec.commandLine(), "--share-processes runs backlog cells only: not with --input-rate");
            }
            if (shareParallelism < 1 || shareParallelism > RunConfig.MAX_PARALLELISM) {
                throw new ParameterException(
                        spec.commandLine(), "--share-parallelism must be 1.." + RunConfig.MAX_PARALLELISM);
            }
            cells = BenchGrid.withShareCells(
                    cells, BenchGrid.parsePositiveInts("--share-processes", shareProcesses, 64), shareParallelism);
        }
        checkHistogramSeries(peerBinaries);
        InputRate rate = inputRate == null ? null : InputRate.parse(inputRate);
        if (records < 1) {
            throw new ParameterException(spec.commandLine(), "--records must be >= 1");
        }
        if (partitions < 1 || batchSamples < 1) {
            throw new ParameterException(spec.commandLine(), "--partitions and --batch-samples must be >= 1");
        }
        try {
            writers.checkWriterLimits(
                    cells.stream().map(BenchCell::timeMultiplier).distinct().toList(),
                    cells.stream().map(BenchCell::instanceMultiplier).distinct().toList());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        new WriteTarget(vmUrl);
        // the TSDB's processes: VictoriaMetrics at --vm-url (the ceilings) and every remote write receiver
        List<String> tsdbUrls = new ArrayList<>(List.of(vmUrl));
        tsdbUrls.addAll(remoteWriteUrls);
        CpuPinning.Plan plan = placement.plan(spec, tsdbUrls.stream().distinct().toList(), bootstrapServers);
        SourceFeed feed =
                switch (source) {
                    case "real" ->
                        SourceFeed.real(
                                WriterProcessOptions.promFiles(spec, dataDir),
                                records,
                                "node",
                                System.currentTimeMillis());
                    case "synthetic" ->
                        SourceFeed.synthetic(
                                series,
                                records,
                                SyntheticInput.alignedNow(System.currentTimeMillis(), sourceInterval.toMillis()),
                                sourceInterval.toMillis());
                    default ->
                        throw new ParameterException(
                                spec.commandLine(), "--source must be real or synthetic, got '" + source + "'");
                };
        Path jar = writers.jar(spec);
        List<String> java = WriterProcessOptions.javaCommand();
        String t = topic != null ? topic : "tsdb-writer-bench-" + System.currentTimeMillis() / 1000;
        String commandLine = WriterProcessOptions.commandLine(spec);
        List<String> runArgs = writers.runArgs(kafkaClient, vmHttp);
        BenchRunner.Settings settings = BenchRunner.Settings.builder()
                .bootstrapServers(bootstrapServers)
                .vmUrl(vmUrl)
                .topic(t)
                .partitions(partitions)
                .cells(cells)
                .feed(feed)
                .sourceIntervalMs(sourceInterval.toMillis())
                .inputRate(rate)
                .duration(duration)
                .liveGrace(liveGrace)
                .ceilingSeconds(ceilingSeconds)
                .ceilingPoolBytes(ceilingPool)
                .writePermits(maxConcurrentWrites)
                .batchSamples(batchSamples)
                .segmentSize(writers.segmentSize)
                .csv(csv)
                .chart(chart)
                .workDir(workDir.toAbsolutePath())
                .jar(jar)
                .javaCommand(java)
                .writerJvmOptions(writers.writerJvmOptions)
                .extraRunArgs(runArgs)
                .cellTimeout(cellTimeout)
                .settleMax(settleTimeout)
                .commandLine(commandLine)
                .kafkaClient(kafkaClient.toConfig(bootstrapServers))
                .vmHttp(vmHttp.toConfig())
                .remoteWriteUrl(
                        remoteWriteUrls.isEmpty()
                                ? vmUrl.replaceAll("/+$", "") + "/api/v1/write"
                                : remoteWriteUrls.get(0))
                .placement(plan)
                .prometheusBinary(prometheusBinary == null ? null : prometheusBinary.toAbsolutePath())
                .victoriaMetricsBinary(victoriaMetricsBinary == null ? null : victoriaMetricsBinary.toAbsolutePath())
                .prometheusOutOfOrderWindow(prometheusOutOfOrderWindow)
                .otlpRecords(peerBinaries.containsKey(Peer.OTELCOL))
                .readBackRelay(!peerBinaries.isEmpty())
                .histogramSeries(histogramSeries)
                .build();
        int rc = new BenchRunner(settings, System.out).run();
        return peerBinaries.isEmpty() && !floor
                ? rc
                : Math.max(rc, new PeerComparison(settings, peerBinaries, floor, System.out).run());
    }

    /**
     * {@code --histogram-series}: ≥ 0; a share goes with the backlog cells alone (not with {@code --input-rate}) and
     * not with the relay comparison ({@code --peer}, {@code --floor}), whose peers read the points alone.
     */
    private void checkHistogramSeries(Map<Peer, Path> peerBinaries) {
        if (histogramSeries < 0) {
            throw new ParameterException(spec.commandLine(), "--histogram-series must be >= 0, got " + histogramSeries);
        }
        if (histogramSeries == 0) {
            return;
        }
        if (inputRate != null) {
            throw new ParameterException(
                    spec.commandLine(), "--histogram-series feeds the backlog cells only: not with --input-rate");
        }
        if (!peerBinaries.isEmpty() || floor) {
            throw new ParameterException(
                    spec.commandLine(), "--histogram-series: not with --peer or --floor (they relay the points alone)");
        }
    }

    /** The binary of each {@code --peer}, located now so that a missing one is a usage error before the grid runs. */
    private Map<Peer, Path> peerBinaries() {
        Set<Peer> wanted;
        try {
            wanted = Peer.parse(peers);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Map<Peer, Path> binaries = new LinkedHashMap<>();
        if (wanted.contains(Peer.TELEGRAF)) {
            binaries.put(
                    Peer.TELEGRAF,
                    TelegrafPeer.locate(telegrafBinary)
                            .orElseThrow(
                                    () -> new ParameterException(
                                            spec.commandLine(),
                                            "--peer telegraf: no executable Telegraf ("
                                                    + (telegrafBinary != null
                                                            ? telegrafBinary
                                                            : "$" + TelegrafPeer.BINARY_ENV
                                                                    + ", ~/.cache/tsdb-writer/bin/telegraf, PATH")
                                                    + "); build it with scripts/lib.sh ensure_telegraf or give --telegraf-binary")));
        }
        if (wanted.contains(Peer.OTELCOL)) {
            binaries.put(
                    Peer.OTELCOL,
                    CollectorPeer.locate(otelcolBinary)
                            .orElseThrow(
                                    () -> new ParameterException(
                                            spec.commandLine(),
                                            "--peer otelcol: no executable OpenTelemetry Collector ("
                                                    + (otelcolBinary != null
                                                            ? otelcolBinary
                                                            : "$" + CollectorProcess.BINARY_ENV
                                                                    + ", ~/.cache/tsdb-writer/bin/otelcol, PATH")
                                                    + "); build it with scripts/lib.sh ensure_otelcol or give --otelcol-binary")));
        }
        return binaries;
    }
}
