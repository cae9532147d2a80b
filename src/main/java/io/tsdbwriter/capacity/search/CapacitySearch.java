package io.tsdbwriter.capacity.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.bench.BenchCell;
import io.tsdbwriter.bench.BenchRunner;
import io.tsdbwriter.bench.BenchTable;
import io.tsdbwriter.bench.CellResult;
import io.tsdbwriter.bench.InputRate;
import io.tsdbwriter.bench.KafkaFeeder;
import io.tsdbwriter.bench.SourceFeed;
import io.tsdbwriter.bench.SystemCpu;
import io.tsdbwriter.bench.VmProbe;
import io.tsdbwriter.bench.WriterCellRunner;
import io.tsdbwriter.capacity.Bottleneck;
import io.tsdbwriter.capacity.MetricsScraper;
import io.tsdbwriter.capacity.PromSnapshot;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.capacity.InsertCapacityProbe;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.WriteClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.net.InetAddress;
import java.time.LocalTime;
import okhttp3.OkHttpClient;

/**
 * {@code tsdb-writer capacity}: a live step-load search for the highest input a writer and its target sustain, and
 * what binds there (DESIGN §9).
 *
 * <p>Each step runs its own writer process ({@code java -jar <jar> run}, as the bench's cells do, so its CPU is its
 * own) on a fresh topic with a fresh group, its {@code /metrics} on a free loopback port. The producer feeds the
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
 * (at least by one per step). The capacity is the highest sustained samples/min of a passing step (written, at most
 * what the input demanded: a writer draining its warm-up backlog writes more); the verdict is the
 * failing step's nearest that capacity.
 *
 * <p>Not thread-safe; one search per instance.
 */
public final class CapacitySearch {

    /** What rises step by step. */
    public enum Vary {
        RATE, TIME_MULTIPLIER
    }

    /** Everything a search needs (the flags of {@code capacity}). */
    public record Settings(String bootstrapServers, String vmUrl, List<String> targetMetricsUrls, String topicPrefix, int partitions,
                           SourceFeed feed, InputRate startRate, double stepFactor, Duration stepDuration, Duration warmUp, int maxSteps,
                           int refineSteps, Vary vary, int timeMultiplier, int instanceMultiplier, int parallelism, int writePermits,
                           int batchSamples, long segmentSize, double minEfficiency, Duration maxP99, long probeRecords,
                           Duration drainTimeout, Path csv, Path chart, Path workDir, Path jar, List<String> javaCommand,
                           List<String> writerJvmOptions, List<String> extraRunArgs, String commandLine, Duration timeBudget,
                           KafkaClientConfig kafkaClient, HttpAuthConfig vmHttp) {
    }

    /** The outcome: the steps, the capacity (NaN when no step passed) and the verdict at the edge. */
    public record Result(List<CapacityStep> steps, double capacityPerMinute, CapacityStep best, CapacityStep edge, long lost) {
    }

    private final Settings s;
    private final PrintStream out;
    private final String runId = Long.toString(System.currentTimeMillis() / 1000, 36);
    private final MetricsScraper scraper;
    private volatile Process current;
    private String machine = "-";

    public CapacitySearch(Settings settings, PrintStream out) {
        this.s = settings;
        this.out = out;
        // the targets' pages take the same authentication and TLS as the writes (DESIGN §6)
        this.scraper = new MetricsScraper(security().configure(new OkHttpClient.Builder()).build(), Duration.ofSeconds(5));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = current;
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
        }, "capacity-writer-reaper"));
    }

    /** Runs the search; returns 0 when a capacity was found and nothing was lost, 1 otherwise. */
    public int run() throws IOException, InterruptedException {
        Result r = search();
        return CapacityReport.print(r, machine, s, out);
    }

    /** Authentication and TLS of every request to the --vm-url and --target-metrics-url hosts. */
    private HttpClientSecurity security() {
        List<String> urls = new ArrayList<>(s.targetMetricsUrls());
        urls.add(s.vmUrl());
        return HttpClientSecurity.of(s.vmHttp(), urls);
    }

    /** Runs the search and returns its result (prints progress as it goes). */
    public Result search() throws IOException, InterruptedException {
        Files.createDirectories(s.workDir());
        WriteTarget endpoint = new WriteTarget(s.vmUrl());
        // the pages given, else the --vm-url host's (both would count one process twice when they are the same)
        List<String> targets = s.targetMetricsUrls().isEmpty() ? List.of(endpoint.metricsUrl())
                : s.targetMetricsUrls().stream().distinct().toList();
        try (WriteClient client = new WriteClient(Duration.ofSeconds(30), 8, false, security());
             KafkaFeeder kafka = new KafkaFeeder(s.kafkaClient())) {
            VmProbe vm = new VmProbe(client.http(), endpoint);
            int permits = s.writePermits();
            if (permits <= 0) {
                OptionalInt cap = InsertCapacityProbe.read(client.http(), endpoint.metricsUrl());
                progress("write permits: automatic (%s)", cap.isPresent() ? InsertCapacityProbe.METRIC + " = " + cap.getAsInt()
                        : InsertCapacityProbe.METRIC + " unreadable: the writer falls back to its default");
            }
            machine = BenchRunner.machine(vm.version());
            progress("machine: %s", machine);
            progress("input: %s", s.feed().description());
            progress("targets' /metrics: %s", String.join(", ", targets));
            for (int i = 0; i < targets.size(); i++) {
                if (scraper.scrape(targets.get(i)) == null) {
                    progress("warning: %s is unreadable: figures that need it are unknown", targets.get(i));
                }
            }
            WriterCellRunner runner = new WriterCellRunner(new WriterCellRunner.Settings(s.javaCommand(), s.jar(), s.writerJvmOptions(),
                    s.bootstrapServers(), s.vmUrl(), Math.max(0, s.writePermits()), s.batchSamples(), s.segmentSize(), s.extraRunArgs(),
                    s.workDir(), Duration.ofMinutes(10), Duration.ofSeconds(5), null), vm, url -> vm);
            Iterator<SourcePoint> points = s.feed().cycle();
            double rate = s.startRate().relative() ? probe(kafka, runner, points) * s.startRate().value() : s.startRate().value();
            SearchSteps steps = new SearchSteps(new StepContext(kafka, runner, targets, points), System.nanoTime());
            climb(steps, rate, s.timeMultiplier());
            if (steps.bad == null) {
                progress("no step failed within %d step%s: the capacity is above the last step", steps.index, steps.index == 1 ? "" : "s");
            }
            refine(steps);
            return steps.result();
        }
    }

    /** What every step of one search shares. */
    record StepContext(KafkaFeeder kafka, WriterCellRunner runner, List<String> targets, Iterator<SourcePoint> points) {
    }

    /**
     * Raises the load by the step factor until the first failing step; when the first step fails already, lowers it
     * (by the factor squared) until one passes.
     */
    private void climb(SearchSteps steps, double rate, int m) throws IOException, InterruptedException {
        while (steps.index < s.maxSteps() && !overBudget(steps.startNanos, steps.index)) {
            steps.index++;
            CapacityStep st = step(steps.context, steps.index, false, rate, m);
            steps.all.add(st);
            if (!st.passed()) {
                steps.bad = st;
                if (steps.good != null) {
                    return;
                }
                // the first step failed already: step down (by the factor squared) until one passes
                if (s.vary() == Vary.RATE) {
                    rate /= s.stepFactor() * s.stepFactor();
                } else if (m > 1) {
                    m = Math.max(1, (int) Math.floor(m / (s.stepFactor() * s.stepFactor())));
                } else {
                    return;
                }
                progress("[%d] failed with no passing step yet: stepping down", steps.index);
                continue;
            }
            steps.good = st;
            if (steps.bad != null) {
                return; // stepped down to a passing step: the bracket is found
            }
            if (s.vary() == Vary.RATE) {
                rate *= s.stepFactor();
            } else {
                m = Math.max(m + 1, (int) Math.round(m * s.stepFactor()));
            }
        }
    }

    /** Narrows the bracket between the last passing and the first failing step ({@code refineSteps} steps at most). */
    private void refine(SearchSteps steps) throws IOException, InterruptedException {
        for (int k = 0; steps.bad != null && steps.good != null && k < s.refineSteps() && !overBudget(steps.startNanos, steps.index); k++) {
            double rate = steps.bad.inputPointsPerSecond();
            int m = steps.bad.timeMultiplier();
            if (s.vary() == Vary.RATE) {
                rate = Math.sqrt(steps.good.inputPointsPerSecond() * steps.bad.inputPointsPerSecond());
            } else {
                if (steps.bad.timeMultiplier() - steps.good.timeMultiplier() < 2) {
                    return;
                }
                m = (steps.good.timeMultiplier() + steps.bad.timeMultiplier()) / 2;
            }
            steps.index++;
            CapacityStep st = step(steps.context, steps.index, true, rate, m);
            steps.all.add(st);
            if (st.passed()) {
                steps.good = st;
            } else {
                steps.bad = st;
            }
        }
    }

    /** True (and says so) when one more step, as long as the average so far, would end after the time budget. */
    private boolean overBudget(long searchStart, int stepsDone) {
        if (s.timeBudget() == null || s.timeBudget().isZero()) {
            return false;
        }
        double elapsed = (System.nanoTime() - searchStart) / 1e9;
        double perStep = stepsDone == 0 ? s.stepDuration().toSeconds() + 15 : elapsed / stepsDone;
        if (elapsed + perStep > s.timeBudget().toSeconds()) {
            progress("time budget %s: no time for another step (%.0f s so far, ~%.0f s a step); --time-budget 0 lifts it",
                    human(s.timeBudget()), elapsed, perStep);
            return true;
        }
        return false;
    }

    /** Pre-loads a backlog, lets a writer consume it and returns the points/s it reached (the start rate's base). */
    private double probe(KafkaFeeder kafka, WriterCellRunner runner, Iterator<SourcePoint> points) throws IOException, InterruptedException {
        String topic = s.topicPrefix() + "-probe";
        kafka.create(topic, s.partitions());
        progress("probe: producing a backlog of %,d points to %s to estimate the writer's throughput ...", s.probeRecords(), topic);
        kafka.produce(topic, points, s.probeRecords(), 0, () -> false);
        CellResult r = runner.backlog(cell(s.timeMultiplier()), topic, group("probe"), "probe");
        double pps = r.points() / r.seconds();
        if (!r.ok() || !(pps > 0)) {
            throw new IllegalStateException("the probe's writer failed (exit " + r.exitCode() + "); see " + s.workDir().resolve("probe.log"));
        }
        progress("probe: %,.0f points/s (%s samples/min) on the backlog; start rate %s = %,.0f points/s", pps,
                BenchTable.count(pps * cell(s.timeMultiplier()).samplesPerPoint() * 60), s.startRate(), pps * s.startRate().value());
        return pps;
    }

    private BenchCell cell(int m) {
        return new BenchCell(s.parallelism(), m, s.instanceMultiplier(), "async");
    }

    /**
     * One step: a fresh topic, a writer process of its own, the input at {@code rate} points/s for the step duration;
     * after the warm-up the window is measured; then the writer catches up and stops, and what it did not write counts
     * as lost.
     */
    private CapacityStep step(StepContext ctx, int index, boolean refine, double rate, int m) throws IOException, InterruptedException {
        BenchCell cell = cell(m);
        long mn = cell.samplesPerPoint();
        String name = String.format(Locale.ROOT, "step-%02d", index);
        String topic = s.topicPrefix() + "-" + name;
        ctx.kafka().create(topic, s.partitions());
        progress("[%s%s] M=%d: %,.0f points/s (%s samples/min expected) for %s (warm-up %s) to %s ...", index, refine ? " refine" : "", m,
                rate, BenchTable.count(rate * mn * 60), human(s.stepDuration()), human(s.warmUp()), topic);
        int port = freePort();
        Path summary = s.workDir().resolve(name + ".json");
        Path log = s.workDir().resolve(name + ".log");
        Files.deleteIfExists(summary);
        List<String> cmd = new ArrayList<>(ctx.runner().command(cell, topic, group(name), summary, false, port));
        if (cmd.stream().noneMatch(a -> a.startsWith("--durability-window"))) {
            // a step is measured on acknowledgements and ends with SIGTERM, which would wait out the window every step
            // (design §10); --writer-arg --durability-window=auto restores it
            cmd.addAll(List.of("--durability-window", "0"));
        }
        Files.writeString(log, "# " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        current = p;
        String writerMetrics = "http://127.0.0.1:" + port + "/metrics";
        try {
            WriterCellRunner.awaitReady(p, log);
            long t0 = System.nanoTime();
            long deadline = t0 + s.stepDuration().toNanos();
            StepFeed feed = StepFeed.start(ctx.kafka(), topic, ctx.points(), rate,
                    (long) Math.ceil(rate * s.stepDuration().toMillis() / 1000.0), deadline);
            Thread.sleep(s.warmUp().toMillis());
            double sys0 = SystemCpu.busySeconds();
            long sysT0 = System.nanoTime();
            StepWindow window = measure(p, writerMetrics, ctx.targets(), feed, mn, deadline);
            double machineShare = (SystemCpu.busySeconds() - sys0) / ((System.nanoTime() - sysT0) / 1e9)
                    / Runtime.getRuntime().availableProcessors();
            long producedPoints = feed.awaitProduced();
            double wallStep = (System.nanoTime() - t0) / 1e9;
            boolean lagGrowing = window.lagGrowing(rate);
            double efficiency = window.efficiency();
            double p99 = window.latency(0.99);
            Bottleneck.Verdict verdict = Bottleneck.attribute(window.evidence(s.minEfficiency(), rate, machineShare));
            boolean passed = efficiency >= s.minEfficiency() && !(p99 > s.maxP99().toMillis() / 1000.0) && !lagGrowing;
            long goal = producedPoints * mn;
            drain(writerMetrics, goal, index);
            long lost = goal - stopAndCountWritten(p, summary);
            double[] tcpu = window.targetCpu();
            CapacityStep st = new CapacityStep(index, refine, m, rate, window.expectedRate() * 60, window.writtenRate() * 60, efficiency,
                    window.latency(0.5), p99, window.permitWaitMs(), window.lagFirst(), window.lagLast(), lagGrowing, window.writerCpuCores(),
                    tcpu[0], tcpu[1], window.insertsAvg(), window.insertsCapacity(), SystemCpu.loadAverage(), passed, verdict, lost, producedPoints);
            progress("[%s%s] %s: written %s/min of %s/min (efficiency %s), p99 %s s, lag %s, writer CPU %s cores; %s;"
                            + " step %.0f s, %,d points produced, %s", index, refine ? " refine" : "", passed ? "PASS" : "FAIL",
                    BenchTable.count(st.writtenPerMinute()), BenchTable.count(st.expectedPerMinute()), BenchTable.percent(efficiency),
                    fmt(p99), lagGrowing ? "growing" : "steady", fmt(st.writerCpuCores()), verdict, wallStep, producedPoints,
                    lost == 0 ? "nothing lost" : lost + " samples NOT written (exit " + p.exitValue() + ")");
            return st;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            current = null;
        }
    }

    /** Reads the writer's and the targets' pages every interval (a tenth of the window, 0.5–2 s) until the deadline. */
    private StepWindow measure(Process p, String writerMetrics, List<String> targets, StepFeed feed, long samplesPerPoint, long deadline)
            throws InterruptedException {
        double cpu0 = cpuSeconds(p);
        PromSnapshot w0 = scraper.scrape(writerMetrics);
        StepWindow window = new StepWindow(samplesPerPoint, w0, scraper.scrapeAll(targets), cpu0);
        long interval = Math.max(500_000_000L, Math.min(2_000_000_000L, (deadline - System.nanoTime()) / 10));
        long start = System.nanoTime();
        while (true) {
            PromSnapshot w = scraper.scrape(writerMetrics);
            List<PromSnapshot> ts = scraper.scrapeAll(targets);
            window.add((System.nanoTime() - start) / 1e9, feed.taken(), w, w == null ? Double.NaN : cpuSeconds(p), ts);
            if (System.nanoTime() + interval > deadline) {
                return window;
            }
            Thread.sleep(interval / 1_000_000);
        }
    }

    /** The writer catches up with what was produced ({@code goal} samples), up to the drain timeout. */
    private void drain(String writerMetrics, long goal, int index) throws InterruptedException {
        long drainEnd = System.nanoTime() + s.drainTimeout().toNanos();
        double writtenNow = 0;
        while (System.nanoTime() < drainEnd) {
            PromSnapshot w = scraper.scrape(writerMetrics);
            writtenNow = w == null ? writtenNow : w.sum("tsdbwriter_samples_written_total");
            if (writtenNow >= goal) {
                return;
            }
            Thread.sleep(250);
        }
        progress("[%s] the writer did not catch up within %s: %,.0f of %,d samples written", index, human(s.drainTimeout()), writtenNow, goal);
    }

    /** Stops the writer (SIGTERM, then a kill after a minute); the samples its summary says it stored. */
    private static long stopAndCountWritten(Process p, Path summary) throws IOException, InterruptedException {
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor();
        }
        if (!Files.exists(summary)) {
            return 0;
        }
        JsonNode j = new ObjectMapper().readTree(summary.toFile());
        return j.path("samples_written").asLong() + j.path("samples_dead_lettered").asLong();
    }

    /**
     * What a passing step sustained: its written samples/min, but no more than its input demanded (a writer that
     * drained a backlog from its warm-up wrote more than the input sustains).
     */
    static double sustained(CapacityStep st) {
        return Math.min(st.writtenPerMinute(), st.expectedPerMinute());
    }

    private static double cpuSeconds(Process p) {
        return p.toHandle().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }

    private static int freePort() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return ss.getLocalPort();
        }
    }

    private String group(String name) {
        return "tsdb-writer-capacity-" + runId + "-" + name;
    }

    private void progress(String format, Object... args) {
        out.printf(Locale.ROOT, "%s capacity: %s%n", LocalTime.now().withNano(0), String.format(Locale.ROOT, format, args));
        out.flush();
    }

    static String fmt(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "-";
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
