package io.tsdbwriter.capacity.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.capacity.reads.QueryLoad;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import io.tsdbwriter.lab.ChildProcess;
import io.tsdbwriter.lab.CpuList;
import io.tsdbwriter.lab.Figures;
import io.tsdbwriter.lab.HistogramShare;
import io.tsdbwriter.lab.KafkaFeeder;
import io.tsdbwriter.lab.SystemCpu;
import io.tsdbwriter.lab.WriterCellRunner;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import io.tsdbwriter.tsdbmetrics.MetricsScraper;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import io.tsdbwriter.tsdbmetrics.ReadPath;
import io.tsdbwriter.tsdbmetrics.TargetFigures;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The writers of one {@link CapacitySearch}, run one at a time: the probe's, on a pre-loaded backlog, and each step's,
 * on a fresh topic with a fresh group, as a process of its own ({@code java -jar <jar> run}, as the bench's cells, so
 * its CPU is its own) with its {@code /metrics} on a free loopback port. A step feeds the topic at the step's rate for
 * the step duration ({@link StepFeed}), measures the window after the warm-up from the writer's and the targets' pages
 * ({@link StepWindow}) and judges it; then the input stops, the writer catches up (at most the drain timeout) and gets
 * SIGTERM, and what it did not write counts as lost. The search decides the loads; this class runs them. Under a
 * {@link SeriesSchedule} other than steady the steps' input is one {@link io.tsdbwriter.lab.SourceFeed#cycle(long,
 * java.util.function.LongUnaryOperator)} over the search, each scrape taking the instances the schedule gives at its
 * start, the schedule's clock restarting with each step's input; each step's {@link StepSeries} comes from the window.
 * A writer with a series limit (its page shows the limit's gauges when it is ready) has its dropped samples counted as
 * handled (in the efficiency, the drain and the lost samples) and its step a {@link StepLimit}, the targets' new series
 * read from the step's start to its end. With a histogram share ({@link StepHistograms}) a step's writer also reads the
 * step's histogram topic as OTLP, and the samples those records decode to count among the step's expected ones.
 *
 * <p>Not thread-safe: the search's thread only. The running step's process is also read by a JVM shutdown hook,
 * registered once per instance, which kills it so no writer outlives the command.
 */
final class StepRunner {

    private final CapacitySearch.Settings s;
    private final MetricsScraper scraper;
    private final PrintStream out;
    private final String runId = Long.toString(System.currentTimeMillis() / 1000, 36);
    private volatile Process current;
    private final SeriesSchedule schedule;
    /** The steps' input under a series schedule other than steady (null: the context's points); one cycle over the search. */
    private final Iterator<SourcePoint> scheduled;
    /** {@link System#nanoTime()} at the running step's input start: the schedule's time origin. */
    private volatile long scheduleOriginNanos = System.nanoTime();
    /** The read load ({@code --query-rate}), run in each step's measured window; null without one. */
    private final QueryLoad reads;

    private volatile StepFeed feed;
    /** The targets' CPU per sample written over every step's measured window (the search thread's). */
    private final CpuPerSamples targetCpu = new CpuPerSamples();
    /** {@link #samplesWritten()} (the search thread's). */
    private long samplesWritten;
    /** What the probe and the steps fed, for the exact read-back. */
    private final FedSamples fed;
    /** The histogram share fed beside each step's points ({@code --histogram-series}); null without one. */
    private final StepHistograms histograms;
    /** Over the steps so far: histogram data points fed, native histograms written and their buckets. */
    private long histogramPoints;

    private long histogramsWritten;
    private long histogramBucketsWritten;

    /**
     * @param scraper reads the writers' and the targets' {@code /metrics}
     * @param out     where the progress lines go
     * @param queries sends the read load's queries; null without a read load
     */
    StepRunner(
            CapacitySearch.Settings settings,
            MetricsScraper scraper,
            PrintStream out,
            QueryLoad.QueryCall queries,
            SampleSpan span) {
        this.s = settings;
        this.scraper = scraper;
        this.out = out;
        this.schedule = settings.seriesSchedule() == null ? SeriesSchedule.steady() : settings.seriesSchedule();
        long base = settings.feed().instances();
        // past the passes the probe's backlog took from the context's cycle, so no sample repeats
        long firstRound = settings.probePasses();
        this.fed = new FedSamples(settings.feed(), firstRound);
        this.histograms = settings.histogramSeries() > 0
                ? new StepHistograms(settings.histogramSeries(), HistogramShare.remoteWrite(settings.extraRunArgs()))
                : null;
        this.scheduled = schedule.mode() == SeriesSchedule.Mode.STEADY
                ? null
                : span.track(settings.feed()
                        .cycle(
                                firstRound,
                                fed.recording(n -> schedule.instances(
                                        base, (System.nanoTime() - scheduleOriginNanos) / 1_000_000))));
        // the queries' ranges end at the newest sample time the running step has fed (the data is a week old)
        this.reads = queries == null
                ? null
                : new QueryLoad(
                        settings.reads().queries(),
                        settings.reads().queriesPerSecond(),
                        queries,
                        QueryLoad.Pacer.system(),
                        () -> {
                            StepFeed f = feed;
                            return f == null ? System.currentTimeMillis() : f.newestMs();
                        },
                        settings.reads().timeout().toNanos());
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            Process p = current;
                            if (p != null && p.isAlive()) {
                                p.destroyForcibly();
                            }
                        },
                        "capacity-writer-reaper"));
    }

    /**
     * The probe before a search whose start rate is relative: pre-loads a backlog, lets a writer consume it and returns
     * the points/s it reached (the start rate's base).
     */
    double probe(CapacitySearch.StepContext ctx) throws IOException, InterruptedException {
        KafkaFeeder kafka = ctx.kafka();
        String topic = s.topicPrefix() + "-probe";
        kafka.create(topic, s.partitions());
        progress(
                "probe: producing a backlog of %,d points to %s to estimate the writer's throughput ...",
                s.probeRecords(), topic);
        fed.fed(
                false,
                kafka.produce(topic, ctx.points(), s.probeRecords(), 0, () -> false)
                        .ackedRecords(),
                s.timeMultiplier());
        CellResult r = ctx.runner().backlog(cell(s.timeMultiplier()), topic, group("probe"), "probe");
        samplesWritten += r.samplesWritten();
        double pps = r.points() / r.seconds();
        if (!r.ok() || !(pps > 0)) {
            throw new IllegalStateException("the probe's writer failed (exit " + r.exitCode() + "); see "
                    + s.workDir().resolve("probe.log"));
        }
        progress(
                "probe: %,.0f points/s (%s samples/min) on the backlog; start rate %s = %,.0f points/s",
                pps,
                Figures.count(pps * cell(s.timeMultiplier()).samplesPerPoint() * 60),
                s.startRate(),
                pps * s.startRate().value());
        return pps;
    }

    /** The samples the writers wrote (2xx, not dead-lettered) in the probe and the steps run so far. */
    long samplesWritten() {
        return samplesWritten;
    }

    /** What the probe and the steps run so far fed their writers. */
    FedSamples fed() {
        return fed;
    }

    /** The histogram share ({@code --histogram-series}), or null without one. */
    StepHistograms histograms() {
        return histograms;
    }

    /**
     * Over the steps run so far: the histogram data points fed, the native histograms the writers wrote (each one of
     * {@link #samplesWritten()}) and their buckets (the summaries' {@code histograms_written} and
     * {@code histogram_buckets_written}; 0 and 0 through the import API, which writes {@code vmrange} bucket series).
     */
    long[] histogramFigures() {
        return new long[] {histogramPoints, histogramsWritten, histogramBucketsWritten};
    }

    /** The targets' CPU over the measured windows of the steps run so far. */
    CpuPerSamples targetCpu() {
        return targetCpu;
    }

    /** The bench cell of one of this search's writers: M as given, the search's P and N, async writes. */
    private BenchCell cell(int m) {
        return new BenchCell(s.parallelism(), m, s.instanceMultiplier(), "async");
    }

    /**
     * One step: a fresh topic, a writer process of its own, the input at {@code rate} points/s for the step duration;
     * after the warm-up the window is measured; then the writer catches up and stops, and what it did not write counts
     * as lost.
     */
    CapacityStep step(CapacitySearch.StepContext ctx, int index, boolean refine, double rate, int m)
            throws IOException, InterruptedException {
        BenchCell cell = cell(m);
        long mn = cell.samplesPerPoint();
        String name = String.format(Locale.ROOT, "step-%02d", index);
        String topic = s.topicPrefix() + "-" + name;
        ctx.kafka().create(topic, s.partitions());
        if (histograms != null) {
            ctx.kafka().create(HistogramShare.topic(topic), s.partitions());
        }
        progress(
                "[%s%s] M=%d: %,.0f points/s (%s samples/min expected) for %s (warm-up %s) to %s ...",
                index,
                refine ? " refine" : "",
                m,
                rate,
                Figures.count(rate * mn * 60),
                CapacitySearch.human(s.stepDuration()),
                CapacitySearch.human(s.warmUp()),
                topic);
        int port = freePort();
        Path summary = s.workDir().resolve(name + ".json");
        Path log = s.workDir().resolve(name + ".log");
        Files.deleteIfExists(summary);
        List<String> cmd = new ArrayList<>(ctx.runner().command(cell, topic, group(name), summary, false, port));
        if (histograms != null) {
            cmd.addAll(HistogramShare.writerArgs(topic)); // a second topic, read as OTLP
        }
        if (cmd.stream().noneMatch(a -> a.startsWith("--durability-window"))) {
            // a step is measured on acknowledgements and ends with SIGTERM, which would wait out the window every step
            // (design §10); --writer-arg --durability-window=auto restores it
            cmd.addAll(List.of("--durability-window", "0"));
        }
        Files.writeString(log, "# " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        Process p = ChildProcess.of(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        current = p;
        String writerMetrics = "http://127.0.0.1:" + port + "/metrics";
        try {
            WriterCellRunner.awaitReady(p, log);
            // a series limit: the targets' new series over the whole step, from before its input
            List<PromSnapshot> targetsAtStepStart =
                    limited(scraper.scrape(writerMetrics)) ? scraper.scrapeAll(ctx.targets()) : null;
            long t0 = System.nanoTime();
            long deadline = t0 + s.stepDuration().toNanos();
            scheduleOriginNanos = t0;
            StepFeed feed = StepFeed.start(
                    ctx.kafka(),
                    topic,
                    scheduled != null ? scheduled : ctx.points(),
                    rate,
                    s.pointsPerStep(rate),
                    deadline);
            this.feed = feed;
            StepHistograms.Running hist = histograms == null
                    ? null
                    : histograms.start(ctx.kafka(), HistogramShare.topic(topic), feed, deadline);
            Thread.sleep(s.warmUp().toMillis());
            if (reads != null) {
                reads.start();
            }
            double sys0 = SystemCpu.busySeconds();
            long sysT0 = System.nanoTime();
            // the expected samples' counter: the points, and the samples (before M x N) of the histograms fed
            LongSupplier taken = hist == null ? feed::taken : () -> feed.taken() + hist.samples();
            StepWindow window = measure(p, writerMetrics, ctx.targets(), taken, mn, deadline);
            StepSeries series = window.series(activeSeries((System.nanoTime() - t0) / 1_000_000));
            targetCpu.add(window.targetsAtStart(), window.targetsLast(), window.samplesWritten());
            QueryLoad.Figures q = reads == null ? null : reads.stop();
            double machineShare = (SystemCpu.busySeconds() - sys0)
                    / ((System.nanoTime() - sysT0) / 1e9)
                    / SystemCpu
                            .cores(); // the machine's: /proc/stat sums them all, whatever CPUs this process is placed
            // on
            long producedPoints = feed.awaitProduced();
            long histogramSamples = hist == null ? 0 : hist.awaitProduced();
            fed.fed(scheduled != null, feed.taken(), m);
            double wallStep = (System.nanoTime() - t0) / 1e9;
            boolean lagGrowing = window.lagGrowing(rate);
            double efficiency = window.efficiency();
            double p99 = window.latency(0.99);
            ReadPath.ReadEvidence readEvidence = q == null
                    ? null
                    : new ReadPath.ReadEvidence(
                            q.started(),
                            q.errors(),
                            q.timeouts(),
                            q.p99Seconds(),
                            s.reads().maxP99Seconds(),
                            window.selectsAvg(),
                            window.selectsCapacity());
            Bottleneck.Verdict verdict =
                    ReadPath.attribute(window.evidence(s.minEfficiency(), rate, machineShare), readEvidence);
            // with a read load a step passes only when its reads pass too (docs/capacity.md "Read load")
            boolean passed = efficiency >= s.minEfficiency()
                    && !(p99 > s.maxP99Seconds())
                    && !lagGrowing
                    && (readEvidence == null || !readEvidence.failing());
            StepReads stepReads = q == null
                    ? null
                    : new StepReads(
                            q.offeredPerSecond(),
                            q.donePerSecond(),
                            q.p50Seconds(),
                            q.p90Seconds(),
                            q.p99Seconds(),
                            q.errors(),
                            q.timeouts(),
                            window.selectsAvg(),
                            window.selectsCapacity());
            long goal = (producedPoints + histogramSamples) * mn;
            drain(writerMetrics, goal, index);
            PromSnapshot writerAtEnd = targetsAtStepStart == null ? null : scraper.scrape(writerMetrics);
            List<PromSnapshot> targetsAtEnd = targetsAtStepStart == null ? null : scraper.scrapeAll(ctx.targets());
            long[] stored = stopAndCountWritten(p, summary);
            samplesWritten += stored[0];
            if (hist != null) {
                histogramPoints += hist.points();
                histogramsWritten += stored[3];
                histogramBucketsWritten += stored[4];
            }
            long lost = goal - stored[0] - stored[1] - stored[2];
            StepLimit limit = targetsAtStepStart == null
                    ? null
                    : new StepLimit(
                            stored[2],
                            admittedSeries(writerAtEnd),
                            TargetFigures.sum(targetsAtEnd, TargetFigures.NEW_SERIES)
                                    - TargetFigures.sum(targetsAtStepStart, TargetFigures.NEW_SERIES));
            double[] tcpu = window.targetCpu();
            CapacityStep st = CapacityStep.builder()
                    .index(index)
                    .refine(refine)
                    .timeMultiplier(m)
                    .inputPointsPerSecond(rate)
                    .expectedPerMinute(window.expectedRate() * 60)
                    .writtenPerMinute(window.writtenRate() * 60)
                    .efficiency(efficiency)
                    .p50Seconds(window.latency(0.5))
                    .p99Seconds(p99)
                    .permitWaitMs(window.permitWaitMs())
                    .lagStart(window.lagFirst())
                    .lagEnd(window.lagLast())
                    .lagGrowing(lagGrowing)
                    .writerCpuCores(window.writerCpuCores())
                    .targetCpuCores(tcpu[0])
                    .targetCores(tcpu[1])
                    .insertsCurrent(window.insertsAvg())
                    .insertsCapacity(window.insertsCapacity())
                    .loadAverage(SystemCpu.loadAverage())
                    .passed(passed)
                    .verdict(verdict)
                    .lost(lost)
                    .producedPoints(producedPoints + (hist == null ? 0 : hist.points()))
                    .reads(stepReads)
                    .series(series)
                    .noise(new StepNoise(window.halvesSpread(), Double.NaN, 0))
                    .delays(window.delays())
                    .limit(limit)
                    .build();
            progress(
                    "[%s%s] %s: written %s/min of %s/min (efficiency %s), p99 %s s, %s, lag %s, writer CPU %s cores;%s %s; %s;"
                            + " step %.0f s, %,d points produced%s, %s%s",
                    index,
                    refine ? " refine" : "",
                    passed ? "PASS" : "FAIL",
                    Figures.count(st.writtenPerMinute()),
                    Figures.count(st.expectedPerMinute()),
                    Figures.percent(efficiency),
                    CapacitySearch.fmt(p99),
                    st.delays().text(),
                    lagGrowing ? "growing" : "steady",
                    CapacitySearch.fmt(st.writerCpuCores()),
                    stepReads == null ? "" : " " + CapacityTable.reads(stepReads) + ";",
                    verdict,
                    seriesText(series),
                    wallStep,
                    producedPoints,
                    hist == null ? "" : histogramText(hist.points(), histogramSamples, stored[3], stored[4]),
                    lost == 0 ? "nothing lost" : lost + " samples NOT written (exit " + p.exitValue() + ")",
                    limit == null ? "" : "; " + limitText(limit));
            return st;
        } finally {
            if (reads != null && reads.running()) {
                reads.stop(); // the step failed to run: the read load idles until the next step
            }
            this.feed = null;
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            current = null;
        }
    }

    /**
     * The series the writers write at {@code elapsedMs} into a step by the schedule: active instances × the series of
     * one instance × N.
     */
    private double activeSeries(long elapsedMs) {
        return (double) schedule.instances(s.feed().instances(), elapsedMs)
                * s.feed().seriesPerInstance()
                * s.instanceMultiplier();
    }

    /** The schedule and the series it moves between, for the search's progress output. */
    String seriesDescription() {
        long instances = s.feed().instances();
        long perInstance = s.feed().seriesPerInstance();
        return String.format(
                Locale.ROOT,
                "%s; base %,d active series (%d instance(s) x %,d series x N=%d)",
                schedule.describe(),
                instances * perInstance * s.instanceMultiplier(),
                instances,
                perInstance,
                s.instanceMultiplier());
    }

    /** The series figures of the progress line. */
    static String seriesText(StepSeries series) {
        return String.format(
                Locale.ROOT,
                "series %,.0f active, %s new/s, %s slow inserts/s, %s tsid cache misses/s",
                series.activeSeries(),
                one(series.createdPerSecond()),
                one(series.slowInsertsPerSecond()),
                one(series.cacheMissesPerSecond()));
    }

    /**
     * The histogram share's figures of a step's progress line: {@code  (+ 1,200 histogram data points: 1,200 samples
     * before M x N; 1,200 native histograms written, 96,000 buckets)}.
     */
    static String histogramText(long points, long samples, long written, long buckets) {
        return String.format(
                Locale.ROOT,
                " (+ %,d histogram data points: %,d samples before M x N; %,d native histograms written, %,d buckets)",
                points,
                samples,
                written,
                buckets);
    }

    /** The series limit's figures of the progress line. */
    static String limitText(StepLimit limit) {
        return String.format(
                Locale.ROOT,
                "series limit: %,d samples dropped, %s series admitted, %s new series in the TSDB",
                limit.droppedSamples(),
                Double.isFinite(limit.admittedSeries())
                        ? String.format(Locale.ROOT, "%,.0f", limit.admittedSeries())
                        : "-",
                Double.isFinite(limit.tsdbNewSeries())
                        ? String.format(Locale.ROOT, "%,.0f", limit.tsdbNewSeries())
                        : "-");
    }

    /** Whether the writer of {@code page} runs with a series limit (it shows the limit's gauges); false when unread. */
    static boolean limited(PromSnapshot page) {
        return page != null
                && (!Double.isNaN(page.sum(HOURLY_LIMIT + "max_series"))
                        || !Double.isNaN(page.sum(DAILY_LIMIT + "max_series")));
    }

    /** The series the writer's limiter admitted in its window: the daily window's with a daily limit, else the hourly's. */
    static double admittedSeries(PromSnapshot page) {
        if (page == null) {
            return Double.NaN;
        }
        double daily = page.sum(DAILY_LIMIT + "current_series");
        return Double.isNaN(daily) ? page.sum(HOURLY_LIMIT + "current_series") : daily;
    }

    private static final String HOURLY_LIMIT = "tsdbwriter_hourly_series_limit_";
    private static final String DAILY_LIMIT = "tsdbwriter_daily_series_limit_";

    private static String one(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f", v) : "-";
    }

    /** Between two sample intervals, the targets' concurrent inserts are read this often (ns). */
    private static final long INSERTS_SAMPLE_NANOS = 200_000_000L;

    /**
     * Reads the writer's and the targets' pages every interval (a tenth of the window, 0.5–2 s) until the deadline (at
     * least twice while the window lasts), and the targets' concurrent inserts every 200 ms between
     * ({@link StepWindow#sampleInserts}).
     */
    private StepWindow measure(
            Process p,
            String writerMetrics,
            List<String> targets,
            LongSupplier taken,
            long samplesPerPoint,
            long deadline)
            throws InterruptedException {
        double cpu0 = cpuSeconds(p);
        PromSnapshot w0 = scraper.scrape(writerMetrics);
        CpuList tsdbCpus = s.placement().placement().tsdbCpus();
        StepWindow window = new StepWindow(samplesPerPoint, w0, scraper.scrapeAll(targets), cpu0)
                .targetCoresCap(tsdbCpus == null ? 0 : tsdbCpus.size());
        long interval = Math.max(500_000_000L, Math.min(2_000_000_000L, (deadline - System.nanoTime()) / 10));
        long start = System.nanoTime();
        for (int readings = 1; ; readings++) {
            PromSnapshot w = scraper.scrape(writerMetrics);
            List<PromSnapshot> ts = scraper.scrapeAll(targets);
            window.add(
                    (System.nanoTime() - start) / 1e9,
                    taken.getAsLong(),
                    w,
                    w == null ? Double.NaN : cpuSeconds(p),
                    ts);
            long next = System.nanoTime() + interval;
            if (next > deadline) {
                if (readings >= 2 || System.nanoTime() >= deadline) {
                    return window;
                }
                // a busy machine ate the window (slow pages): a second reading at its end still gives the rates
                next = deadline;
            }
            while (next - System.nanoTime() > INSERTS_SAMPLE_NANOS) {
                Thread.sleep(INSERTS_SAMPLE_NANOS / 1_000_000);
                window.sampleInserts(scraper.scrapeAll(targets));
            }
            Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
        }
    }

    /**
     * The writer catches up with what was produced ({@code goal} samples), up to the drain timeout: the samples it
     * wrote and those a series limit dropped (done with too: their records committed) reach the goal.
     */
    private void drain(String writerMetrics, long goal, int index) throws InterruptedException {
        long drainEnd = System.nanoTime() + s.drainTimeout().toNanos();
        double written = 0;
        double dropped = 0;
        while (System.nanoTime() < drainEnd) {
            PromSnapshot w = scraper.scrape(writerMetrics);
            if (w != null) {
                written = w.sum("tsdbwriter_samples_written_total");
                dropped = StepWindow.limitDropped(w);
            }
            if (written + dropped >= goal) {
                return;
            }
            Thread.sleep(250);
        }
        progress("%s", notCaughtUp(index, CapacitySearch.human(s.drainTimeout()), written, dropped, goal));
    }

    /**
     * The line of a writer that did not catch up within the drain timeout: the samples it wrote of the goal and, when
     * a series limit dropped some, those as dropped by the limit (handled, neither written nor lost) and what is
     * neither: {@code [3] the writer did not catch up within 60 s: 90,000 of 120,000 samples written, 18,252 dropped
     * by the series limit (handled), 11,748 neither}.
     */
    static String notCaughtUp(int index, String timeout, double written, double limitDropped, long goal) {
        String line = String.format(
                Locale.ROOT,
                "[%s] the writer did not catch up within %s: %,.0f of %,d samples written",
                index,
                timeout,
                written,
                goal);
        if (!(limitDropped > 0)) {
            return line;
        }
        return line
                + String.format(
                        Locale.ROOT,
                        ", %,.0f dropped by the series limit (handled), %,.0f neither",
                        limitDropped,
                        Math.max(0, goal - written - limitDropped));
    }

    /**
     * Stops the writer (SIGTERM, then a kill after a minute); the samples its summary says it wrote, those it
     * dead-lettered, those a series limit dropped, the native histograms it wrote and their buckets, in this order
     * (0 each without a summary).
     */
    private static long[] stopAndCountWritten(Process p, Path summary) throws IOException, InterruptedException {
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor();
        }
        if (!Files.exists(summary)) {
            return new long[] {0, 0, 0, 0, 0};
        }
        JsonNode j = new ObjectMapper().readTree(summary.toFile());
        return new long[] {
            j.path("samples_written").asLong(),
            j.path("samples_dead_lettered").asLong(),
            j.path("series_limit_dropped").asLong(),
            j.path("histograms_written").asLong(),
            j.path("histogram_buckets_written").asLong()
        };
    }

    private static double cpuSeconds(Process p) {
        return p.toHandle()
                .info()
                .totalCpuDuration()
                .map(d -> d.toNanos() / 1e9)
                .orElse(Double.NaN);
    }

    private static int freePort() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return ss.getLocalPort();
        }
    }

    /** The consumer group of one of this search's writers (a step's, the probe's): the search's run id and its name. */
    private String group(String name) {
        return "tsdb-writer-capacity-" + runId + "-" + name;
    }

    private void progress(String format, Object... args) {
        CapacitySearch.progress(out, format, args);
    }
}
