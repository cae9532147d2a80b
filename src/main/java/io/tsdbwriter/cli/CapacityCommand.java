package io.tsdbwriter.cli;

import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.capacity.reads.ReadLoadSettings;
import io.tsdbwriter.capacity.search.CapacityPage;
import io.tsdbwriter.capacity.search.CapacitySearch;
import io.tsdbwriter.capacity.search.SeriesSchedule;
import io.tsdbwriter.capacity.search.TargetSearches;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.InputRate;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.BundledScrapes;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tsdb-writer capacity}: the highest input a writer and its target sustain, found with a live step load, and
 * what binds there. The logic is in {@link CapacitySearch} and {@link io.tsdbwriter.tsdbmetrics.Bottleneck}; this class
 * only maps flags.
 */
@Command(
        name = "capacity",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Find the maximum sustainable samples/min of a writer and its TSDB, and name the bottleneck.",
            "Steps at a rising input rate (or M), each a writer process on a fresh topic, until one misses "
                    + "--min-efficiency or --max-p99-latency or its lag grows. Local stack: scripts/capacity.sh."
        })
public final class CapacityCommand implements Callable<Integer> {

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
            description = "The writers' --vm-url, single node or vminsert (default: ${DEFAULT-VALUE})")
    String vmUrl;

    @picocli.CommandLine.Mixin
    WriterProcessOptions writers = new WriterProcessOptions();

    @picocli.CommandLine.Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @picocli.CommandLine.Mixin
    KafkaClientOptions kafkaClient = new KafkaClientOptions();

    @picocli.CommandLine.Mixin
    PlacementOptions placement = new PlacementOptions();

    @picocli.CommandLine.Mixin
    QueryLoadOptions queryLoad = new QueryLoadOptions();

    @picocli.CommandLine.Mixin
    TargetOptions several = new TargetOptions();

    @Option(
            names = "--output",
            defaultValue = "import",
            paramLabel = "import|remote-write",
            description = "The writers' protocol: import or remote-write (default: ${DEFAULT-VALUE})")
    String output;

    @Option(
            names = "--remote-write-url",
            paramLabel = "URL",
            description = "The writers' whole remote write URL with --output remote-write")
    String remoteWriteUrl;

    @Option(
            names = "--remote-write-version",
            defaultValue = "1",
            paramLabel = "1|2",
            description = "The writers' Remote-Write message: 1 or 2 (default: ${DEFAULT-VALUE})")
    String remoteWriteVersion;

    @Option(
            names = "--target-metrics-url",
            paramLabel = "URL",
            description = "A /metrics page of the target read each step (repeatable) (default: the --vm-url host's)")
    List<String> targetMetricsUrls = new ArrayList<>();

    @Option(
            names = {"--topic-prefix", DeprecatedNames.CAPACITY_TOPIC},
            paramLabel = "PREFIX",
            description = "Prefix of the topics the search creates (default: tsdb-writer-capacity-<time>)")
    String topic;

    @Option(
            names = "--partitions",
            defaultValue = "1",
            paramLabel = "N",
            description = "Partitions of each topic (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(
            names = "--vary",
            defaultValue = "rate",
            paramLabel = "rate|time-multiplier",
            description = "What rises step by step: the input rate, or M (default: ${DEFAULT-VALUE})")
    String vary;

    @Option(
            names = {"--start-input-rate", DeprecatedNames.CAPACITY_START_RATE},
            defaultValue = "100%",
            paramLabel = "R|PCT%",
            description =
                    "First step's points/s, or PCT%% of a writer's measured throughput (default: ${DEFAULT-VALUE})")
    String startRate;

    @Option(
            names = "--step-factor",
            defaultValue = "1.25",
            paramLabel = "F",
            description = "Each step's rate (or M) is the previous one's × F, > 1 (default: ${DEFAULT-VALUE})")
    double stepFactor;

    @Option(
            names = "--step-duration",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "How long each step's input runs, warm-up included (default: ${DEFAULT-VALUE})")
    Duration stepDuration;

    @Option(
            names = "--warm-up",
            defaultValue = "15s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Unmeasured start of each step, < --step-duration (default: ${DEFAULT-VALUE})")
    Duration warmUp;

    @Option(
            names = "--max-steps",
            defaultValue = "7",
            paramLabel = "N",
            description = "Rising steps at most, refinement not counted (default: ${DEFAULT-VALUE})")
    int maxSteps;

    @Option(
            names = "--time-budget",
            defaultValue = "8m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "No step starts that would end later than this after the first; 0 = none (default: ${DEFAULT-VALUE})")
    Duration timeBudget;

    @Option(
            names = "--refine-steps",
            defaultValue = "1",
            paramLabel = "N",
            description = "Steps between the last good and the first bad step (default: ${DEFAULT-VALUE})")
    int refineSteps;

    @Option(
            names = "--min-efficiency",
            defaultValue = "99%",
            paramLabel = "PCT%",
            description = "A step passes with written/expected at least this (default: ${DEFAULT-VALUE})")
    String minEfficiency;

    @Option(
            names = "--max-p99-latency",
            defaultValue = "5s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "A step passes with its p99 write latency at most this (default: ${DEFAULT-VALUE})")
    Duration maxP99Latency;

    @Option(
            names = "--time-multiplier",
            defaultValue = "1",
            paramLabel = "M",
            description = "The writers' M (with --vary time-multiplier: the first step's) (default: ${DEFAULT-VALUE})")
    int timeMultiplier;

    @Option(
            names = "--instance-multiplier",
            defaultValue = "1",
            paramLabel = "N",
            description = "The writers' N (default: ${DEFAULT-VALUE})")
    int instanceMultiplier;

    @Option(
            names = "--churn-interval",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "The writers' --churn-interval: search at a fixed series churn (default: no churn)")
    Duration churnInterval;

    @Option(
            names = "--series-mode",
            defaultValue = "steady",
            paramLabel = "steady|gradual|double-halve|spike",
            description = "Series kept active: steady, gradual, double-halve or spike (default: ${DEFAULT-VALUE})")
    String seriesMode;

    @Option(
            names = "--series-change-interval",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "T of --series-mode, >= 1s (default: ${DEFAULT-VALUE})")
    Duration seriesChangeInterval;

    @Option(
            names = "--spike-multiplier",
            defaultValue = "4",
            paramLabel = "F",
            description = "The series factor of --series-mode spike's spikes, > 1 (default: ${DEFAULT-VALUE})")
    double spikeMultiplier;

    @Option(
            names = "--max-hourly-series",
            defaultValue = "0",
            paramLabel = "SERIES",
            description =
                    "The writers' new series per UTC hour, past it dropped and counted; 0 = none (default: ${DEFAULT-VALUE})")
    long maxHourlySeries;

    @Option(
            names = "--max-daily-series",
            defaultValue = "0",
            paramLabel = "SERIES",
            description =
                    "The writers' new series per UTC day, as --max-hourly-series; 0 = none (default: ${DEFAULT-VALUE})")
    long maxDailySeries;

    @Option(
            names = "--parallelism",
            defaultValue = "3",
            paramLabel = "P",
            description = "The writers' --parallelism (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--max-concurrent-writes",
            defaultValue = "auto",
            converter = Converters.PermitsConverter.class,
            paramLabel = "auto|PERMITS",
            description =
                    "The writers' write permits (concurrent write requests); auto as run (default: ${DEFAULT-VALUE})")
    int maxConcurrentWrites;

    @Option(
            names = "--batch-samples",
            defaultValue = "10000",
            paramLabel = "SAMPLES",
            description = "The writers' --batch-samples (default: ${DEFAULT-VALUE})")
    int batchSamples;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Directory of *.prom node_exporter scrapes, replicated across instances (default: "
                    + BundledScrapes.DESCRIPTION
                    + ")")
    Path dataDir;

    @Option(
            names = {"--points-per-pass", DeprecatedNames.CAPACITY_RECORDS},
            defaultValue = "1000000",
            paramLabel = "POINTS",
            description = "Points of one pass over the scrapes (sets the series count) (default: ${DEFAULT-VALUE})")
    long records;

    @Option(
            names = "--histogram-series",
            defaultValue = "0",
            paramLabel = "S",
            description =
                    "Feed S series of OTLP exponential latency histograms beside each step's points (as produce --histogram-series; a topic of their own, read with --topic-format …=otlp), a data point per series each 60 s of the points' sample time; 0 = none (default: ${DEFAULT-VALUE})")
    int histogramSeries;

    @Option(
            names = "--probe-records",
            defaultValue = "500000",
            paramLabel = "R",
            description = "With a PCT%% --start-input-rate: the probe's backlog (default: ${DEFAULT-VALUE})")
    long probeRecords;

    @Option(
            names = {"--step-drain-timeout", DeprecatedNames.CAPACITY_DRAIN_TIMEOUT},
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "After each step's input, wait at most this for the writer (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    @Option(names = "--csv", paramLabel = "FILE", description = "Write the steps as CSV")
    Path csv;

    @Option(names = "--chart", paramLabel = "FILE.png", description = "Draw the steps as a PNG chart")
    Path chart;

    @Option(
            names = "--report",
            paramLabel = "DIR",
            description = "Write capacity-report.html and capacity-report.md into DIR")
    Path report;

    @Option(
            names = "--work-dir",
            defaultValue = "target/capacity",
            paramLabel = "DIR",
            description = "Each step's writer log and summary go here (default: ${DEFAULT-VALUE})")
    Path workDir;

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<SearchTarget> targets = several.targets(spec); // empty without --target
        if (several.sideBySide && targets.isEmpty()) {
            throw bad("--side-by-side searches several --target at the same time: give at least two");
        }
        CapacitySearch.Vary v =
                switch (vary) {
                    case "rate" -> CapacitySearch.Vary.RATE;
                    case "time-multiplier" -> CapacitySearch.Vary.TIME_MULTIPLIER;
                    default -> throw bad("--vary must be rate or time-multiplier, got '" + vary + "'");
                };
        InputRate start;
        try {
            start = InputRate.parse(startRate);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage().replace("--input-rate", "--start-input-rate"));
        }
        double minEff = parseRatio("--min-efficiency", minEfficiency);
        if (!(stepFactor > 1) || Double.isInfinite(stepFactor)) {
            throw bad("--step-factor must be > 1, got " + stepFactor);
        }
        if (stepDuration.isZero() || warmUp.compareTo(stepDuration) >= 0) {
            throw bad("--warm-up (" + warmUp + ") must be shorter than --step-duration (" + stepDuration + ")");
        }
        if (maxSteps < 1 || refineSteps < 0 || partitions < 1 || batchSamples < 1 || records < 1 || probeRecords < 1) {
            throw bad("--max-steps, --partitions, --batch-samples, --points-per-pass and --probe-records must be >= 1,"
                    + " --refine-steps >= 0");
        }
        if (histogramSeries < 0) {
            throw bad("--histogram-series must be >= 0, got " + histogramSeries);
        }
        if (parallelism < 1 || maxConcurrentWrites < 0) {
            throw bad("--parallelism must be >= 1, --max-concurrent-writes >= 0");
        }
        if (report != null && Files.exists(report) && !Files.isDirectory(report)) {
            throw bad("--report must be a directory (it writes " + CapacityPage.HTML_FILE + " and "
                    + CapacityPage.MARKDOWN_FILE + " there), got the file " + report);
        }
        List<String> seriesLimitArgs;
        try {
            writers.checkWriterLimits(List.of(timeMultiplier), List.of(instanceMultiplier));
            seriesLimitArgs = seriesLimitArgs(maxHourlySeries, maxDailySeries, instanceMultiplier);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        try {
            new WriteTarget(vmUrl);
            for (String u : targetMetricsUrls) {
                new WriteTarget(u);
            }
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        List<String> outputArgs;
        ReadLoadSettings reads;
        String readBackUrl;
        try {
            Output out = Output.parse(output);
            outputArgs = outputArgs(out, RemoteWriteVersion.parse(remoteWriteVersion));
            reads = targets.isEmpty() ? queryLoad.settings(vmUrl, out != Output.IMPORT) : null;
            readBackUrl = queryLoad.readBackUrl(vmUrl, out != Output.IMPORT); // each --target: its own
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        } catch (IOException e) {
            throw bad("--queries: cannot read " + e.getMessage());
        }
        List<TargetSearches.Planned> planned = TargetOptions.plan(spec, targets, queryLoad); // empty without --target
        TargetOptions.SideBySidePlan side =
                several.sideBySide ? TargetOptions.sideBySidePlan(spec, planned, placement, bootstrapServers) : null;
        SeriesSchedule series;
        try {
            series = new SeriesSchedule(SeriesSchedule.Mode.parse(seriesMode), seriesChangeInterval, spikeMultiplier);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        // the TSDB's processes: the targets' pages when given, else the endpoint the writers write to
        List<String> tsdbUrls = !targets.isEmpty()
                ? targets.stream().map(SearchTarget::metricsUrl).distinct().toList()
                : !targetMetricsUrls.isEmpty()
                        ? targetMetricsUrls.stream().distinct().toList()
                        : List.of(remoteWriteUrl != null ? remoteWriteUrl : vmUrl);
        CpuPinning.Plan plan = placement.plan(spec, tsdbUrls, bootstrapServers);
        SourceFeed feed = SourceFeed.real(
                WriterProcessOptions.promFiles(spec, dataDir), records, "node", System.currentTimeMillis());
        if (series.mode() != SeriesSchedule.Mode.STEADY && feed.instances() < 2) {
            throw bad("--series-mode " + seriesMode + " needs at least 2 instances: --points-per-pass of at least "
                    + 2 * feed.pointsPerInstance() + " (2 x the " + feed.pointsPerInstance()
                    + " points of the scrapes), got " + records);
        }
        Path jar = writers.jar(spec);
        List<String> java = WriterProcessOptions.javaCommand();
        String prefix = topic != null ? topic : "tsdb-writer-capacity-" + System.currentTimeMillis() / 1000;
        // every writer takes the same Kafka client and VictoriaMetrics auth/TLS settings as this command
        List<String> runArgs = new ArrayList<>(writers.runArgs(kafkaClient, vmHttp));
        runArgs.addAll(outputArgs);
        runArgs.addAll(seriesLimitArgs);
        if (churnInterval != null) {
            if (churnInterval.toMillis() < 1000) {
                throw bad("--churn-interval must be >= 1s, got " + churnInterval.toMillis() + "ms");
            }
            runArgs.addAll(List.of("--churn-interval", churnInterval.toMillis() + "ms"));
        }
        CapacitySearch.Settings settings = CapacitySearch.Settings.builder()
                .bootstrapServers(bootstrapServers)
                .vmUrl(vmUrl)
                .targetMetricsUrls(targetMetricsUrls)
                .topicPrefix(prefix)
                .partitions(partitions)
                .feed(feed)
                .startRate(start)
                .stepFactor(stepFactor)
                .stepDuration(stepDuration)
                .warmUp(warmUp)
                .maxSteps(maxSteps)
                .refineSteps(refineSteps)
                .vary(v)
                .timeMultiplier(timeMultiplier)
                .instanceMultiplier(instanceMultiplier)
                .parallelism(parallelism)
                .writePermits(maxConcurrentWrites)
                .batchSamples(batchSamples)
                .segmentSize(writers.segmentSize)
                .minEfficiency(minEff)
                .maxP99(maxP99Latency)
                .probeRecords(probeRecords)
                .drainTimeout(drainTimeout)
                .csv(csv)
                .chart(chart)
                .report(report)
                .workDir(workDir.toAbsolutePath())
                .jar(jar)
                .javaCommand(java)
                .writerJvmOptions(writers.writerJvmOptions)
                .extraRunArgs(runArgs)
                .commandLine(WriterProcessOptions.commandLine(spec))
                .timeBudget(timeBudget)
                .kafkaClient(kafkaClient.toConfig(bootstrapServers))
                .vmHttp(vmHttp.toConfig())
                .seriesSchedule(series)
                .placement(plan)
                .reads(reads)
                .readBackUrl(readBackUrl)
                .histogramSeries(histogramSeries)
                .build();
        if (planned.isEmpty()) {
            return new CapacitySearch(settings, System.out).run();
        }
        return side == null
                ? new TargetSearches(settings, planned, System.out).run()
                : new TargetSearches(settings, side.planned(), System.out, side.rest()).run();
    }

    /** The writers' protocol flags: none for the import API; the URL (checked as run checks it) and version for remote write. */
    private List<String> outputArgs(Output out, RemoteWriteVersion version) {
        if (out == Output.IMPORT) {
            if (remoteWriteUrl != null) {
                throw new IllegalArgumentException("--remote-write-url needs --output remote-write");
            }
            return List.of();
        }
        if (remoteWriteUrl == null) {
            throw new IllegalArgumentException("--output remote-write needs --remote-write-url URL");
        }
        WriteTarget.remoteWrite(remoteWriteUrl);
        return List.of(
                "--output",
                "remote-write",
                "--remote-write-url",
                remoteWriteUrl,
                "--remote-write-version",
                version.flag());
    }

    /**
     * The writers' series limit flags: {@code --max-hourly-series N} and {@code --max-daily-series N} for each limit
     * above 0, none without a limit. Checked as {@code run} checks them, so a writer never refuses them.
     *
     * @throws IllegalArgumentException a limit outside 0..{@value SeriesLimiter#MAX_LIMIT}, or above 0 and below the
     *     writers' N (the flag, its value and the bound)
     */
    static List<String> seriesLimitArgs(long maxHourly, long maxDaily, int instanceMultiplier) {
        List<String> args = new ArrayList<>();
        addSeriesLimit(args, "--max-hourly-series", maxHourly, instanceMultiplier);
        addSeriesLimit(args, "--max-daily-series", maxDaily, instanceMultiplier);
        return args;
    }

    private static void addSeriesLimit(List<String> args, String flag, long max, int instanceMultiplier) {
        if (max < 0 || max > SeriesLimiter.MAX_LIMIT) {
            throw new IllegalArgumentException(
                    flag + " must be in 0.." + SeriesLimiter.MAX_LIMIT + " (0 = no limit), got " + max);
        }
        if (max > 0 && max < instanceMultiplier) {
            throw new IllegalArgumentException(
                    flag + " " + max + " is below --instance-multiplier " + instanceMultiplier
                            + ": a series' N instance variants are admitted together, so none would be written");
        }
        if (max > 0) {
            args.addAll(List.of(flag, Long.toString(max)));
        }
    }

    /** {@code 99%}, {@code 99.5%} or {@code 0.99} → a ratio in (0, 1]. */
    private double parseRatio(String flag, String text) {
        String t = text.trim();
        boolean pct = t.endsWith("%");
        try {
            double v = Double.parseDouble(pct ? t.substring(0, t.length() - 1) : t);
            double r = pct || v > 1 ? v / 100 : v;
            if (r > 0 && r <= 1) {
                return r;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw bad(String.format(Locale.ROOT, "%s must be a percentage in (0, 100%%], e.g. 99%%, got '%s'", flag, text));
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
