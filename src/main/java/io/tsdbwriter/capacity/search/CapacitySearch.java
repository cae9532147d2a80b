package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.reads.HttpRangeQueries;
import io.tsdbwriter.capacity.reads.ReadLoadSettings;
import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.HistogramShare;
import io.tsdbwriter.lab.InputRate;
import io.tsdbwriter.lab.KafkaFeeder;
import io.tsdbwriter.lab.Machine;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.lab.VmProbe;
import io.tsdbwriter.lab.WriterCellRunner;
import io.tsdbwriter.produce.LatencyHistograms;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.InsertCapacityProbe;
import io.tsdbwriter.tsdbmetrics.MetricsScraper;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.PrintStream;
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
import okhttp3.OkHttpClient;

/**
 * {@code tsdb-writer capacity}: a live step-load search for the highest input a writer and its target sustain, and
 * what binds there (DESIGN §9).
 *
 * <p>Each step runs its own writer process ({@link StepRunner}: {@code java -jar <jar> run}, as the bench's cells do, so
 * its CPU is its own) on a fresh topic with a fresh group, its {@code /metrics} on a free loopback port. The producer feeds the
 * topic with the bench's real points ({@link SourceFeed#cycle()}: one endless iterator over the whole search, so no
 * sample repeats) at the step's rate for the step duration. After the warm-up, every sample interval it reads the
 * writer's {@code /metrics} and every target's; the measured window gives expected and written samples/min
 * (least-squares slopes of the counters), efficiency, write latency p50/p99 and permit wait (from the histograms'
 * growth), the consumer-lag trend, the writer's CPU (its process's CPU time), the targets' CPU and concurrent inserts,
 * and the {@link Bottleneck} verdict. Then the input stops, the writer catches up (at most the drain timeout) and gets
 * SIGTERM; what it did not write counts as lost.
 *
 * <p>A step passes when efficiency ≥ the minimum, p99 ≤ the maximum and the lag does not grow (its least-squares
 * growth over the window exceeds neither 1 % of the records produced in the window nor 5 s of input). The rate rises
 * by the step factor until the first failing step; then {@code refineSteps} steps at the geometric mean of the last
 * good and the first bad rate narrow it down. When the first step fails already, the rate steps down (by the factor
 * squared) until a step passes. With {@link Vary#TIME_MULTIPLIER} the input rate stays fixed and M rises
 * (at least by one per step) up to the largest M a writer accepts (3600, fewer when M × N would pass 1,000,000); a step
 * there that passes ends the search with "reached the maximum time multiplier …" ({@link StepClimb}). The capacity is
 * the highest sustained samples/min of a passing step (written, at most
 * what the input demanded: a writer draining its warm-up backlog writes more); the verdict is the
 * failing step's nearest that capacity.
 *
 * <p>Not thread-safe; one search per instance.
 */
public final class CapacitySearch {

    /** What rises step by step. */
    public enum Vary {
        RATE,
        TIME_MULTIPLIER
    }

    /**
     * Everything a search needs (the flags of {@code capacity}); {@code seriesSchedule} null = steady; {@code reads} null
     * without a read load; {@code readBackUrl} the query API's base its read-back pass reads ({@link ReadBackExact},
     * {@link ReadBackCount}),
     * null when the target has none. Build it by name with {@link #builder()} (each field's default and range are on
     * {@link Builder}). Immutable when its lists are.
     */
    public record Settings(
            String bootstrapServers,
            String vmUrl,
            List<String> targetMetricsUrls,
            String topicPrefix,
            int partitions,
            SourceFeed feed,
            InputRate startRate,
            double stepFactor,
            Duration stepDuration,
            Duration warmUp,
            int maxSteps,
            int refineSteps,
            Vary vary,
            int timeMultiplier,
            int instanceMultiplier,
            int parallelism,
            int writePermits,
            int batchSamples,
            long segmentSize,
            double minEfficiency,
            Duration maxP99,
            long probeRecords,
            Duration drainTimeout,
            Path csv,
            Path chart,
            Path report,
            Path workDir,
            Path jar,
            List<String> javaCommand,
            List<String> writerJvmOptions,
            List<String> extraRunArgs,
            String commandLine,
            Duration timeBudget,
            KafkaClientConfig kafkaClient,
            HttpAuthConfig vmHttp,
            SeriesSchedule seriesSchedule,
            CpuPinning.Plan placement,
            ReadLoadSettings reads,
            String readBackUrl,
            int histogramSeries) {

        /**
         * These settings for one of several targets: its URL as the writers' {@code --vm-url} and its protocol flags
         * after {@code extraRunArgs}, its {@code /metrics}, the topic prefix {@code <prefix>-<NAME>}, the work directory
         * {@code <work-dir>/<NAME>}, the report directory {@code <report>/<NAME>}, the CSV and chart files
         * {@code <stem>-<NAME>.<ext>} beside the given ones, {@code targetReads} as its read load (null: none) and its
         * {@link SearchTarget#readBackUrl()}.
         */
        public Settings forTarget(SearchTarget t, ReadLoadSettings targetReads) {
            return forTarget(t, targetReads, placement);
        }

        /** As {@link #forTarget(SearchTarget, ReadLoadSettings)} with {@code targetPlacement} in place of the command's. */
        public Settings forTarget(SearchTarget t, ReadLoadSettings targetReads, CpuPinning.Plan targetPlacement) {
            List<String> runArgs = new ArrayList<>(extraRunArgs);
            runArgs.addAll(t.writerArgs());
            return toBuilder()
                    .vmUrl(t.searchUrl())
                    .targetMetricsUrls(List.of(t.metricsUrl()))
                    .topicPrefix(topicPrefix + "-" + t.name())
                    .csv(named(csv, t.name()))
                    .chart(named(chart, t.name()))
                    .report(report == null ? null : report.resolve(t.name()))
                    .workDir(workDir.resolve(t.name()))
                    .extraRunArgs(List.copyOf(runArgs))
                    .placement(targetPlacement)
                    .reads(targetReads)
                    .readBackUrl(t.readBackUrl())
                    .build();
        }

        /** {@link #maxP99()} in seconds: a step passes with its write p99 at most this. */
        public double maxP99Seconds() {
            return maxP99.toMillis() / 1000.0;
        }

        /** Whether a time budget holds ({@link #timeBudget()} neither null nor zero). */
        public boolean budgeted() {
            return timeBudget != null && !timeBudget.isZero();
        }

        /** Whether the writers match their permits to the target's insert capacity ({@link #writePermits()} ≤ 0). */
        public boolean automaticWritePermits() {
            return writePermits <= 0;
        }

        /** The writers' {@code --max-concurrent-writes}: {@link #writePermits()}, 0 (automatic) when it is not positive. */
        public int writersMaxConcurrentWrites() {
            return Math.max(0, writePermits);
        }

        /** The points a step at {@code pointsPerSecond} feeds over {@link #stepDuration()}, rounded up. */
        public long pointsPerStep(double pointsPerSecond) {
            return (long) Math.ceil(pointsPerSecond * stepDuration.toMillis() / 1000.0);
        }

        /**
         * The passes over the {@link #feed()} the backlog probe takes ({@link #probeRecords()} rounded up to whole
         * passes) when the start rate is relative, else 0: the steps' schedule starts past them, so no sample repeats.
         */
        public long probePasses() {
            return startRate.relative() ? (probeRecords + feed.records() - 1) / feed.records() : 0;
        }

        /** {@code dir/stem.ext} → {@code dir/stem-NAME.ext}; null stays null. */
        static Path named(Path file, String name) {
            if (file == null) {
                return null;
            }
            String f = file.getFileName().toString();
            int dot = f.lastIndexOf('.');
            String n = dot > 0 ? f.substring(0, dot) + "-" + name + f.substring(dot) : f + "-" + name;
            return file.resolveSibling(n);
        }

        /** A builder with every field at its default (see {@link Builder}). */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding these values, to change some. */
        public Builder toBuilder() {
            Builder b = new Builder();
            b.bootstrapServers = bootstrapServers;
            b.vmUrl = vmUrl;
            b.targetMetricsUrls = targetMetricsUrls;
            b.topicPrefix = topicPrefix;
            b.partitions = partitions;
            b.feed = feed;
            b.startRate = startRate;
            b.stepFactor = stepFactor;
            b.stepDuration = stepDuration;
            b.warmUp = warmUp;
            b.maxSteps = maxSteps;
            b.refineSteps = refineSteps;
            b.vary = vary;
            b.timeMultiplier = timeMultiplier;
            b.instanceMultiplier = instanceMultiplier;
            b.parallelism = parallelism;
            b.writePermits = writePermits;
            b.batchSamples = batchSamples;
            b.segmentSize = segmentSize;
            b.minEfficiency = minEfficiency;
            b.maxP99 = maxP99;
            b.probeRecords = probeRecords;
            b.drainTimeout = drainTimeout;
            b.csv = csv;
            b.chart = chart;
            b.report = report;
            b.workDir = workDir;
            b.jar = jar;
            b.javaCommand = javaCommand;
            b.writerJvmOptions = writerJvmOptions;
            b.extraRunArgs = extraRunArgs;
            b.commandLine = commandLine;
            b.timeBudget = timeBudget;
            b.kafkaClient = kafkaClient;
            b.vmHttp = vmHttp;
            b.seriesSchedule = seriesSchedule;
            b.placement = placement;
            b.reads = reads;
            b.readBackUrl = readBackUrl;
            b.histogramSeries = histogramSeries;
            return b;
        }

        /**
         * Builds {@link Settings} by name. Every default is {@code capacity}'s flag default (e.g. step factor 1.25, 60 s steps
         * with a 15 s warm-up, 7 steps and 1 refinement, M = N = 1, 3 readers, automatic write permits, 99 % efficiency, p99 at
         * most 5 s, an 8 min time budget, placement shared); the lists default to empty and the feed, jar, Kafka and HTTP client
         * settings, output files, series schedule, read load and read-back URL to null. Not thread-safe.
         */
        public static final class Builder {
            private String bootstrapServers = "localhost:9092";
            private String vmUrl = "http://localhost:8428";
            private List<String> targetMetricsUrls = List.of();
            private String topicPrefix = "tsdb-writer-capacity";
            private int partitions = 1;
            private SourceFeed feed = null;
            private InputRate startRate = new InputRate(1, true);
            private double stepFactor = 1.25;
            private Duration stepDuration = Duration.ofSeconds(60);
            private Duration warmUp = Duration.ofSeconds(15);
            private int maxSteps = 7;
            private int refineSteps = 1;
            private Vary vary = Vary.RATE;
            private int timeMultiplier = 1;
            private int instanceMultiplier = 1;
            private int parallelism = 3;
            private int writePermits = 0;
            private int batchSamples = 10_000;
            private long segmentSize = 50_000;
            private double minEfficiency = 0.99;
            private Duration maxP99 = Duration.ofSeconds(5);
            private long probeRecords = 500_000;
            private Duration drainTimeout = Duration.ofSeconds(60);
            private Path csv = null;
            private Path chart = null;
            private Path report = null;
            private Path workDir = Path.of("target", "capacity");
            private Path jar = null;
            private List<String> javaCommand = List.of();
            private List<String> writerJvmOptions = List.of();
            private List<String> extraRunArgs = List.of();
            private String commandLine = "tsdb-writer capacity";
            private Duration timeBudget = Duration.ofMinutes(8);
            private KafkaClientConfig kafkaClient = null;
            private HttpAuthConfig vmHttp = null;
            private SeriesSchedule seriesSchedule = null;
            private CpuPinning.Plan placement = CpuPinning.Plan.SHARED;
            private ReadLoadSettings reads = null;
            private String readBackUrl = null;
            private int histogramSeries = 0;

            private Builder() {}

            /** The Kafka brokers ({@code --bootstrap-servers}). */
            public Builder bootstrapServers(String value) {
                this.bootstrapServers = value;
                return this;
            }

            /** The writers' {@code --vm-url}. */
            public Builder vmUrl(String value) {
                this.vmUrl = value;
                return this;
            }

            /** The targets' {@code /metrics} pages; empty: the {@code --vm-url} host's. */
            public Builder targetMetricsUrls(List<String> value) {
                this.targetMetricsUrls = value;
                return this;
            }

            /** Each step's topic is {@code <prefix>-<step>}. */
            public Builder topicPrefix(String value) {
                this.topicPrefix = value;
                return this;
            }

            /** Partitions of each step's topic, >= 1. */
            public Builder partitions(int value) {
                this.partitions = value;
                return this;
            }

            /** The points fed; needed to run a search. */
            public Builder feed(SourceFeed value) {
                this.feed = value;
                return this;
            }

            /** The first step's rate; relative: a share of the probed backlog rate. */
            public Builder startRate(InputRate value) {
                this.startRate = value;
                return this;
            }

            /** The rate (or M) rises by this factor a step, > 1. */
            public Builder stepFactor(double value) {
                this.stepFactor = value;
                return this;
            }

            /** How long each step feeds its writer. */
            public Builder stepDuration(Duration value) {
                this.stepDuration = value;
                return this;
            }

            /** The start of each step that is not measured, shorter than the step. */
            public Builder warmUp(Duration value) {
                this.warmUp = value;
                return this;
            }

            /** Rising steps at most, >= 1. */
            public Builder maxSteps(int value) {
                this.maxSteps = value;
                return this;
            }

            /** Steps between the last good and the first bad rate, >= 0. */
            public Builder refineSteps(int value) {
                this.refineSteps = value;
                return this;
            }

            /** What rises step by step. */
            public Builder vary(Vary value) {
                this.vary = value;
                return this;
            }

            /** M of the writers (the first M when M rises). */
            public Builder timeMultiplier(int value) {
                this.timeMultiplier = value;
                return this;
            }

            /** N of the writers. */
            public Builder instanceMultiplier(int value) {
                this.instanceMultiplier = value;
                return this;
            }

            /** The writers' {@code --parallelism}, >= 1. */
            public Builder parallelism(int value) {
                this.parallelism = value;
                return this;
            }

            /** The writers' {@code --max-concurrent-writes}; 0 or less: automatic. */
            public Builder writePermits(int value) {
                this.writePermits = value;
                return this;
            }

            /** The writers' {@code --batch-samples}, >= 1. */
            public Builder batchSamples(int value) {
                this.batchSamples = value;
                return this;
            }

            /** The writers' {@code --segment-size}. */
            public Builder segmentSize(long value) {
                this.segmentSize = value;
                return this;
            }

            /** A step passes at this efficiency or more, in (0, 1]. */
            public Builder minEfficiency(double value) {
                this.minEfficiency = value;
                return this;
            }

            /** A step passes with its write p99 at most this. */
            public Builder maxP99(Duration value) {
                this.maxP99 = value;
                return this;
            }

            /** Records of the backlog probe a relative start rate is a share of, >= 1. */
            public Builder probeRecords(long value) {
                this.probeRecords = value;
                return this;
            }

            /** How long a writer may catch up after its step. */
            public Builder drainTimeout(Duration value) {
                this.drainTimeout = value;
                return this;
            }

            /** The steps as CSV here, or null. */
            public Builder csv(Path value) {
                this.csv = value;
                return this;
            }

            /** The steps as a PNG chart here, or null. */
            public Builder chart(Path value) {
                this.chart = value;
                return this;
            }

            /** The report directory, or null. */
            public Builder report(Path value) {
                this.report = value;
                return this;
            }

            /** Each step's writer log and summary go here. */
            public Builder workDir(Path value) {
                this.workDir = value;
                return this;
            }

            /** The jar the writers run from. */
            public Builder jar(Path value) {
                this.jar = value;
                return this;
            }

            /** The command that starts a JVM. */
            public Builder javaCommand(List<String> value) {
                this.javaCommand = value;
                return this;
            }

            /** The writers' JVM options. */
            public Builder writerJvmOptions(List<String> value) {
                this.writerJvmOptions = value;
                return this;
            }

            /** Arguments after every writer's {@code run}. */
            public Builder extraRunArgs(List<String> value) {
                this.extraRunArgs = value;
                return this;
            }

            /** The command line, as the report prints it. */
            public Builder commandLine(String value) {
                this.commandLine = value;
                return this;
            }

            /** No step starts that would end after this; null or zero: no budget. */
            public Builder timeBudget(Duration value) {
                this.timeBudget = value;
                return this;
            }

            /** The producer's and admin's Kafka client settings. */
            public Builder kafkaClient(KafkaClientConfig value) {
                this.kafkaClient = value;
                return this;
            }

            /** Authentication and TLS towards the target. */
            public Builder vmHttp(HttpAuthConfig value) {
                this.vmHttp = value;
                return this;
            }

            /** How the series change during a step; null: steady. */
            public Builder seriesSchedule(SeriesSchedule value) {
                this.seriesSchedule = value;
                return this;
            }

            /** Where the processes run. */
            public Builder placement(CpuPinning.Plan value) {
                this.placement = value;
                return this;
            }

            /** The read load, or null for none. */
            public Builder reads(ReadLoadSettings value) {
                this.reads = value;
                return this;
            }

            /** The query API's base the read-back pass counts on, or null. */
            public Builder readBackUrl(String value) {
                this.readBackUrl = value;
                return this;
            }

            /**
             * Series of OTLP exponential histograms fed beside each step's points ({@link StepHistograms}), >= 0; 0:
             * none.
             */
            public Builder histogramSeries(int value) {
                this.histogramSeries = value;
                return this;
            }

            /**
             * Checks what a search cannot run without, as {@code capacity} checks its flags.
             *
             * @throws NullPointerException when a URL, the topic prefix, a list, the work directory or the placement is null
             * @throws IllegalArgumentException when a count or a factor is out of its range, or the warm-up is not shorter
             *     than the step
             */
            public Builder validate() {
                Objects.requireNonNull(bootstrapServers, "bootstrapServers");
                Objects.requireNonNull(vmUrl, "vmUrl");
                Objects.requireNonNull(topicPrefix, "topicPrefix");
                Objects.requireNonNull(targetMetricsUrls, "targetMetricsUrls");
                Objects.requireNonNull(javaCommand, "javaCommand");
                Objects.requireNonNull(writerJvmOptions, "writerJvmOptions");
                Objects.requireNonNull(extraRunArgs, "extraRunArgs");
                Objects.requireNonNull(workDir, "workDir");
                Objects.requireNonNull(placement, "placement");
                Objects.requireNonNull(vary, "vary");
                if (!(stepFactor > 1) || Double.isInfinite(stepFactor)) {
                    throw new IllegalArgumentException("stepFactor must be > 1, got " + stepFactor);
                }
                if (stepDuration.isZero() || warmUp.compareTo(stepDuration) >= 0) {
                    throw new IllegalArgumentException(
                            "warmUp (" + warmUp + ") must be shorter than stepDuration (" + stepDuration + ")");
                }
                if (maxSteps < 1
                        || refineSteps < 0
                        || partitions < 1
                        || batchSamples < 1
                        || probeRecords < 1
                        || parallelism < 1
                        || histogramSeries < 0) {
                    throw new IllegalArgumentException(
                            "maxSteps, partitions, batchSamples, probeRecords and parallelism"
                                    + " must be >= 1, refineSteps and histogramSeries >= 0");
                }
                if (!(minEfficiency > 0 && minEfficiency <= 1)) {
                    throw new IllegalArgumentException("minEfficiency must be in (0, 1], got " + minEfficiency);
                }
                return this;
            }

            /**
             * The settings, after {@link #validate()}.
             *
             * @throws NullPointerException     as {@link #validate()}
             * @throws IllegalArgumentException as {@link #validate()}
             */
            public Settings build() {
                validate();
                return new Settings(
                        bootstrapServers,
                        vmUrl,
                        targetMetricsUrls,
                        topicPrefix,
                        partitions,
                        feed,
                        startRate,
                        stepFactor,
                        stepDuration,
                        warmUp,
                        maxSteps,
                        refineSteps,
                        vary,
                        timeMultiplier,
                        instanceMultiplier,
                        parallelism,
                        writePermits,
                        batchSamples,
                        segmentSize,
                        minEfficiency,
                        maxP99,
                        probeRecords,
                        drainTimeout,
                        csv,
                        chart,
                        report,
                        workDir,
                        jar,
                        javaCommand,
                        writerJvmOptions,
                        extraRunArgs,
                        commandLine,
                        timeBudget,
                        kafkaClient,
                        vmHttp,
                        seriesSchedule,
                        placement,
                        reads,
                        readBackUrl,
                        histogramSeries);
            }
        }
    }

    /**
     * A search's end: its result, the machine line it printed, the exit code of {@link #run()} and the targets' cost
     * figures ({@link CostFigures}: CPU per sample over the steps' measured windows, memory and disk from one reading
     * of the targets' pages after the last step) and its read-back pass ({@link ReadBack}).
     */
    public record Reported(Result result, String machine, int exitCode, CostFigures costs, ReadBack readBack) {}

    /**
     * The outcome: the steps, the capacity (NaN when no step passed), the verdict at the edge, and why the search
     * stopped short of a failing step when it had to ({@code ceiling}: the largest M passed; null otherwise), and the
     * noise the search assumed at its end ({@code noise}: one line, {@link EfficiencyNoise}).
     */
    public record Result(
            List<CapacityStep> steps,
            double capacityPerMinute,
            CapacityStep best,
            CapacityStep edge,
            long lost,
            String ceiling,
            String noise) {}

    private final Settings s;
    private final PrintStream out;
    private final MetricsScraper scraper;
    private final StepRunner stepRunner;
    private String machine = "-";
    /** The targets' pages read once after the last step (empty before). */
    private List<PromSnapshot> finalPages = List.of();
    /** The point times fed, probe and steps. */
    private final SampleSpan span = new SampleSpan();
    /** The read-back pass after the last step (null before). */
    private ReadBack readBack;

    public CapacitySearch(Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
        // the targets' pages take the same authentication and TLS as the writes (DESIGN §6)
        this.scraper = new MetricsScraper(
                security().configure(new OkHttpClient.Builder()).build(), Duration.ofSeconds(5));
        this.stepRunner = new StepRunner(
                settings,
                scraper,
                out,
                settings.reads() == null
                        ? null
                        : new HttpRangeQueries(
                                security().configure(new OkHttpClient.Builder()).build(),
                                settings.reads().queryRangeUrl(),
                                settings.reads().timeout()),
                span);
    }

    /** Runs the search; returns 0 when a capacity was found and nothing was lost, 1 otherwise. */
    public int run() throws IOException, InterruptedException {
        return runReported().exitCode();
    }

    /**
     * Runs the search and prints and writes its report as {@link #run()} does; returns what it found.
     *
     * @throws IOException when the search cannot run (a receiver or Kafka unreachable, a writer that does not start)
     */
    public Reported runReported() throws IOException, InterruptedException {
        Result r = search();
        int code = CapacityReport.print(r, machine, s, out);
        // search() sets readBack before it returns
        return new Reported(
                r,
                machine,
                readBack.missing() ? 1 : code,
                CostFigures.of(stepRunner.targetCpu(), finalPages),
                readBack);
    }

    /** Authentication and TLS of every request to the --vm-url and --target-metrics-url hosts. */
    private HttpClientSecurity security() {
        List<String> urls = new ArrayList<>(s.targetMetricsUrls());
        urls.add(s.vmUrl());
        if (s.reads() != null) {
            urls.add(s.reads().queryRangeUrl());
        }
        if (s.readBackUrl() != null) {
            urls.add(s.readBackUrl());
        }
        return HttpClientSecurity.of(s.vmHttp(), urls);
    }

    /** Runs the search and returns its result (prints progress as it goes). */
    public Result search() throws IOException, InterruptedException {
        Files.createDirectories(s.workDir());
        s.placement().apply(line -> progress("%s", line)); // before the feeder's threads start
        progress("%s", budgetLine(s.timeBudget()));
        WriteTarget endpoint = new WriteTarget(s.vmUrl());
        // the pages given, else the --vm-url host's (both would count one process twice when they are the same)
        List<String> targets = s.targetMetricsUrls().isEmpty()
                ? List.of(endpoint.metricsUrl())
                : s.targetMetricsUrls().stream().distinct().toList();
        try (WriteClient client = new WriteClient(Duration.ofSeconds(30), 8, false, security());
                KafkaFeeder kafka = new KafkaFeeder(s.kafkaClient())) {
            VmProbe vm = new VmProbe(client.http(), targets.get(0)); // the first page given: a target's metrics-url
            if (s.automaticWritePermits()) {
                OptionalInt cap = InsertCapacityProbe.read(client.http(), targets.get(0));
                progress(
                        "write permits: automatic (%s)",
                        cap.isPresent()
                                ? InsertCapacityProbe.METRIC + " = " + cap.getAsInt()
                                : InsertCapacityProbe.METRIC + " unreadable: the writer falls back to its default");
            }
            machine = Machine.line(vm.version());
            progress("machine: %s", machine);
            progress("input: %s", s.feed().description());
            progress("series: %s", stepRunner.seriesDescription());
            if (stepRunner.histograms() != null) {
                progress("%s", histogramLine(stepRunner.histograms()));
            }
            progress(
                    "targets' /metrics: %s",
                    String.join(", ", targets.stream().map(SafeUrl::redact).toList()));
            if (s.reads() != null) {
                progress(
                        "read load: %s queries/s in each step's measured window, round-robin over %d range queries, to %s"
                                + " (timeout %s)",
                        fmt(s.reads().queriesPerSecond()),
                        s.reads().queries().size(),
                        SafeUrl.redact(s.reads().queryRangeUrl()),
                        human(s.reads().timeout()));
            }
            for (int i = 0; i < targets.size(); i++) {
                if (scraper.scrape(targets.get(i)) == null) {
                    progress(
                            "warning: %s is unreadable: figures that need it are unknown",
                            SafeUrl.redact(targets.get(i)));
                }
            }
            WriterCellRunner runner = new WriterCellRunner(
                    WriterCellRunner.Settings.builder()
                            .javaCommand(s.javaCommand())
                            .jar(s.jar())
                            .jvmOptions(s.writerJvmOptions())
                            .bootstrapServers(s.bootstrapServers())
                            .vmUrl(s.vmUrl())
                            .writePermits(s.writersMaxConcurrentWrites())
                            .batchSamples(s.batchSamples())
                            .segmentSize(s.segmentSize())
                            .extraRunArgs(s.extraRunArgs())
                            .workDir(s.workDir())
                            .cellTimeout(Duration.ofMinutes(10))
                            .settleMax(Duration.ofSeconds(5))
                            .remoteWriteUrl(null)
                            .placement(s.placement().placement())
                            .build(),
                    vm,
                    target -> vm);
            StepContext context =
                    new StepContext(kafka, runner, targets, span.track(s.feed().cycle()));
            double rate = s.startRate().relative()
                    ? stepRunner.probe(context) * s.startRate().value()
                    : s.startRate().value();
            SearchSteps steps = new SearchSteps(System.nanoTime());
            EfficiencyNoise noise = new EfficiencyNoise(s.minEfficiency(), s.maxP99Seconds());
            StepClimb order = new StepClimb(
                    s.vary(),
                    StepClimb.maxTimeMultiplier(s.instanceMultiplier()),
                    s.stepFactor(),
                    s.maxSteps(),
                    s.refineSteps(),
                    (index, refine, r, m) -> stepRunner.step(context, index, refine, r, m),
                    this::overBudget,
                    noise,
                    out);
            order.climb(steps, rate, s.timeMultiplier());
            if (steps.bad == null && steps.ceiling == null) {
                progress(
                        "no step failed within %d step%s: the capacity is above the last step",
                        steps.index, steps.index == 1 ? "" : "s");
            }
            order.refine(steps);
            List<String> flushed = targets.stream()
                    .filter(t -> new VmProbe(client.http(), t).forceFlush())
                    .toList();
            if (!flushed.isEmpty()) { // VictoriaMetrics: its buffered rows into parts, so the disk figure counts them
                progress(
                        "disk figure after /internal/force_flush on the host%s of %s",
                        flushed.size() == 1 ? "" : "s",
                        String.join(", ", flushed.stream().map(SafeUrl::redact).toList()));
            }
            finalPages = scraper.scrapeAll(targets); // the memory and disk figures' one reading (CostFigures)
            readBack = readBackPass(client.http());
            progress("%s", readBack.line());
            if (stepRunner.histograms() != null) {
                long[] h = stepRunner.histogramFigures();
                progress(
                        "histograms: %,d data points fed over the steps; %s",
                        h[0],
                        stepRunner.histograms().nativeHistograms()
                                ? String.format(
                                        Locale.ROOT,
                                        "%,d native histograms written (one sample each), %,d buckets in them",
                                        h[1],
                                        h[2])
                                : "written as vmrange bucket series, each bucket one of the samples written");
            }
            return steps.result();
        }
    }

    /**
     * The read-back pass: sample by sample ({@link ReadBackExact}) where it can run, else the count
     * ({@link ReadBackCount}), its source saying why it is not compared; the count alone without a query API.
     */
    private ReadBack readBackPass(OkHttpClient http) throws InterruptedException {
        long written = stepRunner.samplesWritten();
        if (s.readBackUrl() == null) {
            return new ReadBackCount(http).count(null, written, span);
        }
        ReadBackExact.Outcome exact = stepRunner.histograms() != null
                ? ReadBackExact.Outcome.not(ReadBackExact.HISTOGRAMS)
                : new ReadBackExact(http)
                        .compare(s.readBackUrl(), written, stepRunner.fed(), s.instanceMultiplier(), s.extraRunArgs());
        if (exact.readBack() != null) {
            return exact.readBack();
        }
        ReadBack count = new ReadBackCount(http).count(s.readBackUrl(), written, span);
        return new ReadBack(
                count.written(),
                count.readBack(),
                count.source() + " (not compared sample by sample: " + exact.whyNot() + ")");
    }

    /**
     * The histogram share as the search's start prints it: {@code histograms: 480 series of http.server.request.duration
     * (OTLP exponential histograms) beside the points, one data point per series every 60 s of the points' sample time,
     * on each step's topic <step topic>-histograms (--topic-format …=otlp); written as native histograms (one sample each)}.
     */
    static String histogramLine(StepHistograms h) {
        return String.format(
                Locale.ROOT,
                "histograms: %,d series of %s (OTLP exponential histograms) beside the points, one data point per series"
                        + " every %d s of the points' sample time, on each step's topic %s (--topic-format …=otlp);"
                        + " written as %s",
                h.series(),
                LatencyHistograms.METRIC,
                StepHistograms.INTERVAL_MS / 1000,
                HistogramShare.topic("<step topic>"),
                h.nativeHistograms()
                        ? "native histograms (one sample each)"
                        : "vmrange bucket series (_count, _sum and a sample per non-empty bucket)");
    }

    /** What every step of one search shares. */
    record StepContext(
            KafkaFeeder kafka, WriterCellRunner runner, List<String> targets, Iterator<SourcePoint> points) {}

    /**
     * The search's time budget as printed at its start: {@code time budget 8m: no step starts that would end after it
     * (--time-budget 0 lifts it)}, or {@code time budget: none (--time-budget 0)}.
     */
    static String budgetLine(Duration budget) {
        return budget == null || budget.isZero()
                ? "time budget: none (--time-budget 0)"
                : "time budget " + human(budget)
                        + ": no step starts that would end after it (--time-budget 0 lifts it)";
    }

    /** True (and says so) when one more step, as long as the average so far, would end after the time budget. */
    private boolean overBudget(long searchStart, int stepsDone) {
        if (!s.budgeted()) {
            return false;
        }
        double elapsed = (System.nanoTime() - searchStart) / 1e9;
        double perStep = stepsDone == 0 ? s.stepDuration().toSeconds() + 15 : elapsed / stepsDone;
        if (elapsed + perStep > s.timeBudget().toSeconds()) {
            progress(
                    "time budget %s: no time for another step (%.0f s so far, ~%.0f s a step); --time-budget 0 lifts it",
                    human(s.timeBudget()), elapsed, perStep);
            return true;
        }
        return false;
    }

    /**
     * What a passing step sustained: its written samples/min, but no more than its input demanded (a writer that
     * drained a backlog from its warm-up wrote more than the input sustains).
     */
    static double sustained(CapacityStep st) {
        return Math.min(st.writtenPerMinute(), st.expectedPerMinute());
    }

    private void progress(String format, Object... args) {
        progress(out, format, args);
    }

    /** One progress line on {@code out}: the local time, {@code capacity:}, the message; flushed at once. */
    static void progress(PrintStream out, String format, Object... args) {
        out.printf(
                Locale.ROOT,
                "%s capacity: %s%n",
                LocalTime.now().withNano(0),
                String.format(Locale.ROOT, format, args));
        out.flush();
    }

    static String fmt(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "-";
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
