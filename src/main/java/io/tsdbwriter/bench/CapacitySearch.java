package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.capacity.Bottleneck;
import io.tsdbwriter.capacity.MetricsScraper;
import io.tsdbwriter.capacity.PromSnapshot;
import io.tsdbwriter.capacity.TargetFigures;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.write.InsertCapacityProbe;
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
        this.scraper = new MetricsScraper(security().configure(new okhttp3.OkHttpClient.Builder()).build(), Duration.ofSeconds(5));
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
        return finish(r);
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
                OptionalInt cap = InsertCapacityProbe.read(client.http(), endpoint);
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
            int m = s.timeMultiplier();
            List<CapacityStep> steps = new ArrayList<>();
            CapacityStep good = null;
            CapacityStep bad = null;
            int index = 0;
            long searchStart = System.nanoTime();
            while (index < s.maxSteps()) {
                if (overBudget(searchStart, index)) {
                    break;
                }
                index++;
                CapacityStep st = step(kafka, runner, targets, points, index, false, rate, m);
                steps.add(st);
                if (!st.passed()) {
                    bad = st;
                    if (good != null) {
                        break;
                    }
                    // the first step failed already: step down (by the factor squared) until one passes
                    if (s.vary() == Vary.RATE) {
                        rate /= s.stepFactor() * s.stepFactor();
                    } else if (m > 1) {
                        m = Math.max(1, (int) Math.floor(m / (s.stepFactor() * s.stepFactor())));
                    } else {
                        break;
                    }
                    progress("[%d] failed with no passing step yet: stepping down", index);
                    continue;
                }
                good = st;
                if (bad != null) {
                    break; // stepped down to a passing step: the bracket is found
                }
                if (s.vary() == Vary.RATE) {
                    rate *= s.stepFactor();
                } else {
                    m = Math.max(m + 1, (int) Math.round(m * s.stepFactor()));
                }
            }
            if (bad == null) {
                progress("no step failed within %d step%s: the capacity is above the last step", index, index == 1 ? "" : "s");
            }
            for (int k = 0; bad != null && good != null && k < s.refineSteps() && !overBudget(searchStart, index); k++) {
                double r2 = rate;
                int m2 = m;
                if (s.vary() == Vary.RATE) {
                    r2 = Math.sqrt(good.inputPointsPerSecond() * bad.inputPointsPerSecond());
                } else {
                    if (bad.timeMultiplier() - good.timeMultiplier() < 2) {
                        break;
                    }
                    m2 = (good.timeMultiplier() + bad.timeMultiplier()) / 2;
                }
                index++;
                CapacityStep st = step(kafka, runner, targets, points, index, true, r2, m2);
                steps.add(st);
                if (st.passed()) {
                    good = st;
                } else {
                    bad = st;
                }
            }
            CapacityStep best = null;
            long lost = 0;
            for (CapacityStep st : steps) {
                lost += Math.max(0, st.lost());
                if (st.passed() && (best == null || sustained(st) > sustained(best))) {
                    best = st;
                }
            }
            return new Result(List.copyOf(steps), best == null ? Double.NaN : sustained(best), best,
                    bad != null ? bad : (steps.isEmpty() ? null : steps.get(steps.size() - 1)), lost);
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

    private CapacityStep step(KafkaFeeder kafka, WriterCellRunner runner, List<String> targets, Iterator<SourcePoint> source, int index,
                              boolean refine, double rate, int m) throws IOException, InterruptedException {
        BenchCell cell = cell(m);
        long mn = cell.samplesPerPoint();
        String name = String.format(Locale.ROOT, "step-%02d", index);
        String topic = s.topicPrefix() + "-" + name;
        kafka.create(topic, s.partitions());
        progress("[%s%s] M=%d: %,.0f points/s (%s samples/min expected) for %s (warm-up %s) to %s ...", index, refine ? " refine" : "", m,
                rate, BenchTable.count(rate * mn * 60), human(s.stepDuration()), human(s.warmUp()), topic);
        int port = freePort();
        Path summary = s.workDir().resolve(name + ".json");
        Path log = s.workDir().resolve(name + ".log");
        Files.deleteIfExists(summary);
        List<String> cmd = runner.command(cell, topic, group(name), summary, false, port);
        Files.writeString(log, "# " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        current = p;
        String writerMetrics = "http://127.0.0.1:" + port + "/metrics";
        try {
            WriterCellRunner.awaitReady(p, log);
            AtomicLong taken = new AtomicLong();
            Iterator<SourcePoint> counted = new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return source.hasNext();
                }

                @Override
                public SourcePoint next() {
                    taken.incrementAndGet();
                    return source.next();
                }
            };
            long t0 = System.nanoTime();
            long deadline = t0 + s.stepDuration().toNanos();
            long max = (long) Math.ceil(rate * s.stepDuration().toMillis() / 1000.0);
            AtomicReference<Object> produced = new AtomicReference<>();
            Thread producer = Thread.ofPlatform().name("capacity-producer").start(() -> {
                try {
                    produced.set(kafka.produce(topic, counted, max, rate, () -> System.nanoTime() > deadline));
                } catch (RuntimeException e) {
                    produced.set(e);
                }
            });
            Thread.sleep(s.warmUp().toMillis());
            double cpu0 = cpuSeconds(p);
            double sys0 = SystemCpu.busySeconds();
            long sysT0 = System.nanoTime();
            PromSnapshot w0 = scraper.scrape(writerMetrics);
            List<PromSnapshot> t0s = scraper.scrapeAll(targets);
            long window = deadline - System.nanoTime();
            long interval = Math.max(500_000_000L, Math.min(2_000_000_000L, window / 10));
            List<double[]> written = new ArrayList<>();   // {seconds, samples written}
            List<double[]> expected = new ArrayList<>();  // {seconds, samples expected}
            List<double[]> lag = new ArrayList<>();
            double permitsSum = 0;
            double permitsCap = Double.NaN;
            int permitsN = 0;
            double insertsSum = 0;
            int insertsN = 0;
            double insertsCap = Double.NaN;
            PromSnapshot w1 = w0;
            List<PromSnapshot> t1s = t0s;
            double cpu1 = cpu0;
            long start = System.nanoTime();
            while (true) {
                PromSnapshot w = scraper.scrape(writerMetrics);
                List<PromSnapshot> ts = scraper.scrapeAll(targets);
                double sec = (System.nanoTime() - start) / 1e9;
                expected.add(new double[] {sec, taken.get() * (double) mn});
                if (w != null) {
                    w1 = w;
                    cpu1 = cpuSeconds(p);
                    written.add(new double[] {sec, w.sum("tsdbwriter_samples_written_total")});
                    double l = w.sum("tsdbwriter_consumer_lag_records");
                    if (!Double.isNaN(l)) {
                        lag.add(new double[] {sec, l});
                    }
                    double in = w.sum("tsdbwriter_write_permits_in_use");
                    if (!Double.isNaN(in)) {
                        permitsSum += in;
                        permitsN++;
                        permitsCap = w.sum("tsdbwriter_write_permits_capacity");
                    }
                }
                double ic = TargetFigures.sum(ts, TargetFigures.INSERT_CURRENT);
                if (!Double.isNaN(ic)) {
                    insertsSum += ic;
                    insertsN++;
                    insertsCap = TargetFigures.sum(ts, TargetFigures.INSERT_CAPACITY);
                }
                if (ts.stream().anyMatch(t -> t != null)) {
                    t1s = ts;
                }
                if (System.nanoTime() + interval > deadline) {
                    break;
                }
                Thread.sleep(interval / 1_000_000);
            }
            double machineShare = (SystemCpu.busySeconds() - sys0) / ((System.nanoTime() - sysT0) / 1e9)
                    / Runtime.getRuntime().availableProcessors();
            producer.join();
            if (produced.get() instanceof RuntimeException e) {
                throw e;
            }
            long producedPoints = ((KafkaFeeder.Sent) produced.get()).acked.get();
            double wallStep = (System.nanoTime() - t0) / 1e9;
            // the measured figures
            double expectedRate = slope(expected);
            double writtenRate = slope(written);
            double efficiency = expectedRate > 0 && written.size() >= 2 ? writtenRate / expectedRate : Double.NaN;
            double windowSec = expected.size() >= 2 ? expected.get(expected.size() - 1)[0] - expected.get(0)[0] : Double.NaN;
            double lagSlope = slope(lag);
            double producedInWindow = expectedRate / mn * windowSec;
            boolean lagGrowing = lag.size() >= 3 && lagSlope * windowSec > Math.max(0.01 * producedInWindow, 5 * rate);
            double p50 = Double.NaN;
            double p99 = Double.NaN;
            double wait = Double.NaN;
            double writerCpu = Double.NaN;
            if (w0 != null && w1 != null && w1 != w0) {
                p50 = PromSnapshot.quantile(0.5, "tsdbwriter_write_latency_seconds", w0, w1);
                p99 = PromSnapshot.quantile(0.99, "tsdbwriter_write_latency_seconds", w0, w1);
                double n = w1.sum("tsdbwriter_write_permit_wait_seconds_count") - w0.sum("tsdbwriter_write_permit_wait_seconds_count");
                wait = n > 0 ? (w1.sum("tsdbwriter_write_permit_wait_seconds_sum") - w0.sum("tsdbwriter_write_permit_wait_seconds_sum")) / n * 1000 : 0;
                writerCpu = (cpu1 - cpu0) / ((w1.nanos() - w0.nanos()) / 1e9);
            }
            double[] tcpu = TargetFigures.busiestCpu(t0s, t1s);
            double slow = TargetFigures.slowInsertRatio(t0s, t1s);
            double permitsAvg = permitsN > 0 ? permitsSum / permitsN : Double.NaN;
            double insertsAvg = insertsN > 0 ? insertsSum / insertsN : Double.NaN;
            Bottleneck.Evidence ev = new Bottleneck.Evidence(efficiency, s.minEfficiency(), lag.size() >= 3 ? (lagGrowing ? 1 : 0) : Double.NaN,
                    writerCpu, Runtime.getRuntime().availableProcessors(), permitsAvg, permitsCap, insertsAvg, insertsCap, tcpu[0], tcpu[1], slow, machineShare);
            Bottleneck.Verdict verdict = Bottleneck.attribute(ev);
            boolean passed = efficiency >= s.minEfficiency() && !(p99 > s.maxP99().toMillis() / 1000.0) && !lagGrowing;
            // drain: the writer catches up with what was produced, then stops cleanly
            long goal = producedPoints * mn;
            long drainEnd = System.nanoTime() + s.drainTimeout().toNanos();
            double writtenNow = 0;
            while (System.nanoTime() < drainEnd) {
                PromSnapshot w = scraper.scrape(writerMetrics);
                writtenNow = w == null ? writtenNow : w.sum("tsdbwriter_samples_written_total");
                if (writtenNow >= goal) {
                    break;
                }
                Thread.sleep(250);
            }
            if (writtenNow < goal) {
                progress("[%s] the writer did not catch up within %s: %,.0f of %,d samples written", index, human(s.drainTimeout()), writtenNow, goal);
            }
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
            }
            long writtenTotal = 0;
            if (Files.exists(summary)) {
                JsonNode j = new ObjectMapper().readTree(summary.toFile());
                writtenTotal = j.path("samples_written").asLong() + j.path("samples_dead_lettered").asLong();
            }
            long lost = goal - writtenTotal;
            CapacityStep st = new CapacityStep(index, refine, m, rate, expectedRate * 60, writtenRate * 60, efficiency, p50, p99, wait,
                    lag.isEmpty() ? Double.NaN : lag.get(0)[1], lag.isEmpty() ? Double.NaN : lag.get(lag.size() - 1)[1], lagGrowing, writerCpu,
                    tcpu[0], tcpu[1], insertsAvg, insertsCap, SystemCpu.loadAverage(), passed, verdict, lost, producedPoints);
            progress("[%s%s] %s: written %s/min of %s/min (efficiency %s), p99 %s s, lag %s, writer CPU %s cores; %s;"
                            + " step %.0f s, %,d points produced, %s", index, refine ? " refine" : "", passed ? "PASS" : "FAIL",
                    BenchTable.count(st.writtenPerMinute()), BenchTable.count(st.expectedPerMinute()), BenchTable.percent(efficiency),
                    fmt(p99), lagGrowing ? "growing" : "steady", fmt(writerCpu), verdict, wallStep, producedPoints,
                    lost == 0 ? "nothing lost" : lost + " samples NOT written (exit " + p.exitValue() + ")");
            return st;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            current = null;
        }
    }

    private int finish(Result r) throws IOException {
        out.println();
        out.println("machine: " + machine);
        out.println("command: " + s.commandLine());
        out.println();
        out.print(CapacityTable.format(r.steps()));
        out.println();
        if (r.best() == null) {
            out.println("capacity: below the first step (no step passed); lower --start-rate");
        } else {
            out.printf(Locale.ROOT, "capacity: %s samples/min sustained (step %d%s: %,.0f points/s x M=%d x N=%d, efficiency %s, p99 %s s)%n",
                    BenchTable.count(r.capacityPerMinute()), r.best().index(), r.best().refine() ? " refine" : "", r.best().inputPointsPerSecond(),
                    r.best().timeMultiplier(), s.instanceMultiplier(), BenchTable.percent(r.best().efficiency()), fmt(r.best().p99Seconds()));
        }
        if (r.edge() != null) {
            out.println((r.edge().passed() ? "verdict (last step, capacity not reached): " : "verdict (failing step " + r.edge().index() + ", the nearest above the capacity): ")
                    + r.edge().verdict());
        }
        out.println("lost: " + (r.lost() == 0 ? "nothing (every produced sample was written)" : r.lost() + " samples not written"));
        if (s.csv() != null) {
            Path parent = s.csv().toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(s.csv(), CapacityTable.csv(r.steps()), StandardCharsets.UTF_8);
            out.println("csv:   " + s.csv());
        }
        if (s.chart() != null) {
            try {
                CapacityChart.write(s.chart(), "tsdb-writer capacity: " + (r.best() == null ? "no passing step"
                        : BenchTable.count(r.capacityPerMinute()) + " samples/min") + (r.edge() == null ? "" : ", limited by "
                        + r.edge().verdict().resource().label()), machine, r.steps());
                out.println("chart: " + s.chart());
            } catch (IOException | RuntimeException | Error e) {
                out.println("chart: not drawn (" + e + ")");
            }
        }
        out.flush();
        return r.best() != null && r.lost() == 0 ? 0 : 1;
    }

    /**
     * What a passing step sustained: its written samples/min, but no more than its input demanded (a writer that
     * drained a backlog from its warm-up wrote more than the input sustains).
     */
    static double sustained(CapacityStep st) {
        return Math.min(st.writtenPerMinute(), st.expectedPerMinute());
    }

    /** Least-squares slope of y over x; NaN with fewer than two points. */
    static double slope(List<double[]> xy) {
        int n = xy.size();
        if (n < 2) {
            return Double.NaN;
        }
        double sx = 0;
        double sy = 0;
        for (double[] p : xy) {
            sx += p[0];
            sy += p[1];
        }
        double mx = sx / n;
        double my = sy / n;
        double num = 0;
        double den = 0;
        for (double[] p : xy) {
            num += (p[0] - mx) * (p[1] - my);
            den += (p[0] - mx) * (p[0] - mx);
        }
        return den > 0 ? num / den : Double.NaN;
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

    private static String fmt(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "-";
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
