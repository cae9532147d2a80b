package io.tsdbwriter.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs one grid cell as its own writer process, {@code java [jvm options] -jar <jar> run ...}, so that its CPU time
 * and heap are its own, and reads its {@code --summary-json}. Around it, measures VictoriaMetrics' CPU (from the
 * writer's start until VictoriaMetrics settles after it) and the machine's. Not thread-safe; one cell at a time.
 */
public final class WriterCellRunner {

    /** The longest unmeasured start of a live cell's ingest delay ({@link #liveWarmUp}): 15 s, the search's warm-up. */
    static final Duration LIVE_WARM_UP = Duration.ofSeconds(15);

    /** What every cell's writer gets; built with {@link #builder()}, which names each value. */
    public record Settings(
            List<String> javaCommand,
            Path jar,
            List<String> jvmOptions,
            String bootstrapServers,
            String vmUrl,
            int writePermits,
            int batchSamples,
            long segmentSize,
            List<String> extraRunArgs,
            Path workDir,
            Duration cellTimeout,
            Duration settleMax,
            String remoteWriteUrl,
            Placement placement) {
        /** A builder that names every value. */
        public static Builder builder() {
            return new Builder();
        }

        /**
         * Names each value of {@link Settings}; the JVM options and the extra run arguments start empty, the rest null
         * or 0 until set. Not thread-safe.
         */
        public static final class Builder {
            private List<String> javaCommand;
            private Path jar;
            private List<String> jvmOptions = List.of();
            private String bootstrapServers;
            private String vmUrl;
            private int writePermits;
            private int batchSamples;
            private long segmentSize;
            private List<String> extraRunArgs = List.of();
            private Path workDir;
            private Duration cellTimeout;
            private Duration settleMax;
            private String remoteWriteUrl;
            private Placement placement;

            private Builder() {}

            /** @see Settings#javaCommand() */
            public Builder javaCommand(List<String> javaCommand) {
                this.javaCommand = javaCommand;
                return this;
            }

            /** @see Settings#jar() */
            public Builder jar(Path jar) {
                this.jar = jar;
                return this;
            }

            /** @see Settings#jvmOptions() */
            public Builder jvmOptions(List<String> jvmOptions) {
                this.jvmOptions = jvmOptions;
                return this;
            }

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

            /** @see Settings#extraRunArgs() */
            public Builder extraRunArgs(List<String> extraRunArgs) {
                this.extraRunArgs = extraRunArgs;
                return this;
            }

            /** @see Settings#workDir() */
            public Builder workDir(Path workDir) {
                this.workDir = workDir;
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

            /** @see Settings#remoteWriteUrl() */
            public Builder remoteWriteUrl(String remoteWriteUrl) {
                this.remoteWriteUrl = remoteWriteUrl;
                return this;
            }

            /** @see Settings#placement() */
            public Builder placement(Placement placement) {
                this.placement = placement;
                return this;
            }

            /** The Settings of the values set. */
            public Settings build() {
                return new Settings(
                        javaCommand,
                        jar,
                        jvmOptions,
                        bootstrapServers,
                        vmUrl,
                        writePermits,
                        batchSamples,
                        segmentSize,
                        extraRunArgs,
                        workDir,
                        cellTimeout,
                        settleMax,
                        remoteWriteUrl,
                        placement);
            }
        }
    }

    /** A live cell's input: called once the writer is ready; returns the points produced (blocks for the window). */
    @FunctionalInterface
    public interface LiveInput {
        /** @return the points produced */
        long produce() throws InterruptedException;
    }

    private final Settings s;
    private final VmProbe vm;
    /**
     * The receiver a cell names ({@link BenchCell#receiver}) by its endpoint: its own {@code /metrics}, the CPU of
     * Prometheus or VictoriaMetrics.
     */
    private final Function<WriteTarget, VmProbe> receivers;

    private volatile Process current;
    private volatile List<Process> shareProcesses = List.of();

    public WriterCellRunner(Settings settings, VmProbe vm, Function<WriteTarget, VmProbe> receivers) {
        this.s = settings;
        this.vm = vm;
        this.receivers = receivers;
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            Process p = current;
                            if (p != null && p.isAlive()) {
                                p.destroyForcibly();
                            }
                            shareProcesses.forEach(Process::destroyForcibly);
                        },
                        "bench-writer-reaper"));
    }

    /** The writer's command line for a cell. */
    List<String> command(BenchCell cell, String topic, String groupId, Path summary, boolean stopAtEnd) {
        return command(cell, topic, groupId, summary, stopAtEnd, -1);
    }

    /**
     * The writer's command line for a cell, its {@code /metrics} on {@code metricsPort} (-1 = off; capacity reads it);
     * under {@code taskset -c <writer CPUs>} when the settings' placement has writer CPUs. A mutable list.
     */
    public List<String> command(
            BenchCell cell, String topic, String groupId, Path summary, boolean stopAtEnd, int metricsPort) {
        List<String> cmd = new ArrayList<>(s.javaCommand());
        cmd.addAll(aotCacheOption(s.jar(), s.jvmOptions(), Runtime.version().feature()));
        cmd.addAll(s.jvmOptions());
        cmd.addAll(List.of(
                "-jar",
                s.jar().toString(),
                "run",
                "--bootstrap-servers",
                s.bootstrapServers(),
                "--topic",
                topic,
                "--group-id",
                groupId,
                "--vm-url",
                vmUrl(cell),
                "--time-multiplier",
                Integer.toString(cell.timeMultiplier()),
                "--instance-multiplier",
                Integer.toString(cell.instanceMultiplier()),
                "--parallelism",
                Integer.toString(cell.parallelism()),
                "--write-mode",
                cell.writeMode(),
                "--max-concurrent-writes",
                Integer.toString(s.writePermits()),
                "--batch-samples",
                Integer.toString(s.batchSamples()),
                "--segment-size",
                Long.toString(s.segmentSize()),
                "--metrics-port",
                Integer.toString(metricsPort),
                "--metrics-address",
                "127.0.0.1",
                "--report-interval",
                "10s",
                "--summary-json",
                summary.toString()));
        if (stopAtEnd) {
            cmd.add("--stop-at-end");
        }
        if (cell.remoteWrite()) {
            cmd.addAll(List.of(
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    remoteWriteUrl(cell),
                    "--remote-write-version",
                    cell.remoteWriteVersion()));
        }
        cmd.addAll(s.extraRunArgs());
        return new ArrayList<>(s.placement().writerCommand(cmd)); // taskset -c <writer CPUs> java …, when placed
    }

    /**
     * {@code -XX:AOTCache=<jar without .jar>.aot} when that file exists (built by {@code scripts/aot-cache.sh}), the
     * writers' JDK is 25 or later ({@code javaFeature}: the bench starts them with its own java) and the JVM options
     * name no AOT cache themselves; otherwise nothing. A stale cache costs nothing but its benefit: the JVM starts
     * without it ({@code -Xlog:aot=off} silences the JVM's own lines about it) and the writer logs one line.
     */
    public static List<String> aotCacheOption(Path jar, List<String> jvmOptions, int javaFeature) {
        String name = jar.getFileName().toString();
        Path cache = jar.resolveSibling((name.endsWith(".jar") ? name.substring(0, name.length() - 4) : name) + ".aot");
        boolean named = jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:AOTCache") || o.startsWith("-XX:AOTMode"));
        return javaFeature >= 25 && !named && Files.isRegularFile(cache)
                ? List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off")
                : List.of();
    }

    private String remoteWriteUrl(BenchCell cell) {
        return cell.receiver() != null ? cell.receiver() : s.remoteWriteUrl();
    }

    /** {@code --vm-url}: an import cell's own VictoriaMetrics when it names one, else the settings'. */
    private String vmUrl(BenchCell cell) {
        return !cell.remoteWrite() && cell.receiver() != null ? cell.receiver() : s.vmUrl();
    }

    /** The TSDB whose CPU a cell's figures take: its receiver's, or the settings' VictoriaMetrics. */
    private VmProbe probe(BenchCell cell) {
        if (cell.remoteWrite()) {
            return receivers.apply(WriteTarget.remoteWrite(remoteWriteUrl(cell)));
        }
        return cell.receiver() != null ? receivers.apply(new WriteTarget(cell.receiver())) : vm;
    }

    /** Runs a backlog cell: the writer consumes the whole topic with a fresh group and exits. */
    public CellResult backlog(BenchCell cell, String topic, String groupId, String name)
            throws IOException, InterruptedException {
        return run(cell, topic, groupId, name, null, Duration.ZERO);
    }

    /**
     * Runs a backlog cell of either mode; a share-mode cell ({@link BenchCell#shareMode()}) as its K writer processes in
     * one fresh share group, until their {@code tsdbwriter_share_acknowledgements_total} (accept + reject) reach
     * {@code records}, then SIGTERM to each. Its figures: points, samples and CPU summed over the processes, peak heap
     * the largest, elapsed from the first process's share consumers starting until the last record was acknowledged
     * (a segments cell's elapsed runs from its writer's start to its end); the summed summary is written to
     * {@code <name>.json} like a segments cell's.
     */
    public CellResult backlog(BenchCell cell, String topic, String groupId, String name, long records)
            throws IOException, InterruptedException {
        return cell.shareMode() ? share(cell, topic, groupId, name, records) : backlog(cell, topic, groupId, name);
    }

    private static final String ACCEPTED = "tsdbwriter_share_acknowledgements_total{type=\"accept\"}";
    private static final String REJECTED = "tsdbwriter_share_acknowledgements_total{type=\"reject\"}";

    private CellResult share(BenchCell cell, String topic, String groupId, String name, long records)
            throws IOException, InterruptedException {
        int k = cell.shareProcesses();
        VmProbe vm = probe(cell);
        List<Process> processes = new ArrayList<>();
        List<Path> summaries = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        double vm0 = vm.cpuSeconds();
        double sys0 = SystemCpu.busySeconds();
        okhttp3.OkHttpClient http = new okhttp3.OkHttpClient.Builder()
                .callTimeout(Duration.ofSeconds(2))
                .build();
        long t0 = -1;
        long t1;
        long acknowledged = 0;
        int exit = 0;
        try {
            for (int i = 0; i < k; i++) {
                Path summary = s.workDir().resolve(name + "-" + i + ".json");
                Path log = s.workDir().resolve(name + "-" + i + ".log");
                Files.deleteIfExists(summary);
                int port = freePort();
                List<String> cmd = command(cell, topic, groupId, summary, false, port);
                cmd.addAll(List.of("--consumer-mode", "share"));
                Files.writeString(log, "# " + String.join(" ", SafeUrl.redactArgs(cmd)) + "\n", StandardCharsets.UTF_8);
                Process p = ChildProcess.of(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
                processes.add(p);
                summaries.add(summary);
                logs.add(log);
                ports.add(port);
                shareProcesses = List.copyOf(processes);
            }
            long deadline = System.nanoTime() + s.cellTimeout().toNanos();
            while (true) {
                long now = System.nanoTime();
                if (t0 < 0) {
                    for (Path log : logs) {
                        if (Files.readString(log, StandardCharsets.UTF_8).contains("share consumer(s) on")) {
                            t0 = now;
                            break;
                        }
                    }
                }
                long sum = 0;
                for (int port : ports) {
                    String page = metricsPage(http, port);
                    sum += (long) (PromText.value(page, ACCEPTED).orElse(0)
                            + PromText.value(page, REJECTED).orElse(0));
                }
                acknowledged = sum;
                if (acknowledged >= records || processes.stream().anyMatch(p -> !p.isAlive()) || now > deadline) {
                    t1 = now;
                    break;
                }
                Thread.sleep(200);
            }
            processes.forEach(Process::destroy); // SIGTERM: each drains, acknowledges, writes its summary
            for (Process p : processes) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor();
                    exit = -1;
                } else if (p.exitValue() != 0 && exit == 0) {
                    exit = p.exitValue();
                }
            }
        } finally {
            processes.forEach(p -> {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            });
            shareProcesses = List.of();
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
        if (acknowledged < records && exit == 0) {
            exit = -1; // timed out or a process ended early: the cell failed
        }
        double vm1 = vm.settle(s.settleMax());
        double sys1 = SystemCpu.busySeconds();
        ObjectMapper json = new ObjectMapper();
        long points = 0;
        long expected = 0;
        long written = 0;
        long requestBytes = 0;
        long histograms = 0;
        long buckets = 0;
        long heap = 0;
        double cpu = 0;
        for (Path summary : summaries) {
            if (!Files.exists(summary)) {
                cpu = Double.NaN;
                exit = exit == 0 ? 1 : exit;
                continue;
            }
            JsonNode j = json.readTree(summary.toFile());
            points += j.path("points").asLong();
            expected += j.path("samples_expected").asLong();
            written += j.path("samples_written").asLong();
            requestBytes += j.path("request_bytes").asLong();
            histograms += j.path("histograms_written").asLong();
            buckets += j.path("histogram_buckets_written").asLong();
            heap = Math.max(heap, j.path("peak_heap_bytes").asLong());
            cpu += j.path("cpu_seconds").asDouble(Double.NaN);
        }
        double elapsed = t0 < 0 ? Double.NaN : (t1 - t0) / 1e9;
        var merged = json.createObjectNode()
                .put("consumer_mode", "share")
                .put("processes", k)
                .put("points", points)
                .put("samples_expected", expected)
                .put("samples_written", written)
                .put("request_bytes", requestBytes)
                .put("histograms_written", histograms)
                .put("histogram_buckets_written", buckets)
                .put("elapsed_seconds", elapsed)
                .put("cpu_seconds", cpu)
                .put("peak_heap_bytes", heap)
                .put("records_acknowledged", acknowledged);
        json.writerWithDefaultPrettyPrinter()
                .writeValue(s.workDir().resolve(name + ".json").toFile(), merged);
        double other = sys1 - sys0 - cpu - (vm1 - vm0);
        return CellResult.builder()
                .cell(cell)
                .live(false)
                .exitCode(exit)
                .points(points)
                .samplesExpected(expected)
                .samplesWritten(written)
                .seconds(elapsed)
                .writerCpuSeconds(cpu)
                .vmCpuSeconds(vm1 - vm0)
                .peakHeapBytes(heap)
                .otherCpuSeconds(other)
                .loadAverage(SystemCpu.loadAverage())
                .inputPointsPerSecond(Double.NaN)
                .histograms(new CellResult.Histograms(0, histograms, buckets))
                .build();
    }

    /**
     * The unmeasured start of a live cell's ingest delay: {@link #LIVE_WARM_UP}, or a quarter of a shorter input
     * window. The batches of the writer's start (its JIT, its first requests) are its start's delay, not the steady
     * state's.
     */
    static Duration liveWarmUp(Duration window) {
        Duration quarter = window.dividedBy(4);
        return quarter.compareTo(LIVE_WARM_UP) < 0 ? quarter : LIVE_WARM_UP;
    }

    /**
     * A live cell's ingest delay over its steady state, as the capacity search's steps measure it: the writer's
     * histogram read from its {@code /metrics} once the warm-up has passed (on a virtual thread) and again at the input's
     * end plus the grace, just before SIGTERM ({@link IngestDelays#between}); the whole run's summary when either
     * reading failed.
     */
    private static final class SteadyDelays {
        private final okhttp3.OkHttpClient http = new okhttp3.OkHttpClient.Builder()
                .callTimeout(Duration.ofSeconds(5))
                .build();
        private final int port;
        private final Thread warm;
        private volatile PromSnapshot atWarmUp;
        private PromSnapshot atEnd;

        SteadyDelays(int port, Duration warmUp) {
            this.port = port;
            this.warm = Thread.ofVirtual().name("bench-warm-up-reading").start(() -> {
                try {
                    Thread.sleep(warmUp);
                    atWarmUp = read();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        void end() throws InterruptedException {
            warm.join();
            atEnd = read();
        }

        /** The steady state's delays, or the whole run's from {@code summary} when a reading failed. */
        IngestDelays delaysOr(JsonNode summary) {
            IngestDelays steady = IngestDelays.between(atWarmUp, atEnd);
            return steady.measured() ? steady : IngestDelays.ofSummary(summary);
        }

        private PromSnapshot read() {
            String page = metricsPage(http, port);
            return page.isEmpty() ? null : PromSnapshot.parse(page, System.nanoTime());
        }
    }

    private static String metricsPage(okhttp3.OkHttpClient http, int port) {
        try (okhttp3.Response r = http.newCall(new okhttp3.Request.Builder()
                        .url("http://127.0.0.1:" + port + "/metrics")
                        .build())
                .execute()) {
            return r.isSuccessful() && r.body() != null ? r.body().string() : "";
        } catch (IOException e) {
            return ""; // not up yet, or gone
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return ss.getLocalPort();
        }
    }

    /**
     * Runs a live cell: the writer tails an empty topic; once it is ready, {@code input} produces for the window;
     * {@code grace} after the window the writer gets SIGTERM (it drains and commits) and its counters are read.
     */
    public CellResult live(
            BenchCell cell, String topic, String groupId, String name, LiveInput input, Duration window, Duration grace)
            throws IOException, InterruptedException {
        return run(cell, topic, groupId, name, new Live(input, window, grace), window);
    }

    private record Live(LiveInput input, Duration window, Duration grace) {}

    private CellResult run(BenchCell cell, String topic, String groupId, String name, Live live, Duration window)
            throws IOException, InterruptedException {
        Path summary = s.workDir().resolve(name + ".json");
        Path log = s.workDir().resolve(name + ".log");
        Files.deleteIfExists(summary);
        int metricsPort = live == null ? -1 : freePort();
        List<String> cmd = command(cell, topic, groupId, summary, live == null, metricsPort);
        Files.writeString(log, "# " + String.join(" ", SafeUrl.redactArgs(cmd)) + "\n", StandardCharsets.UTF_8);
        VmProbe vm = probe(cell);
        double vm0 = vm.cpuSeconds();
        double sys0 = SystemCpu.busySeconds();
        Process p = ChildProcess.of(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        current = p;
        long producedPoints = 0;
        double windowSeconds = Double.NaN;
        SteadyDelays steady = null;
        int exit;
        try {
            if (live != null) {
                awaitReady(p, log);
                long t0 = System.nanoTime();
                steady = new SteadyDelays(metricsPort, liveWarmUp(window));
                producedPoints = live.input().produce();
                windowSeconds = (System.nanoTime() - t0) / 1e9;
                Thread.sleep(live.grace().toMillis());
                steady.end();
                p.destroy(); // SIGTERM: stop reading, drain, commit, write the summary
            }
            if (!p.waitFor(s.cellTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor();
                }
                exit = -1;
            } else {
                exit = p.exitValue();
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            current = null;
        }
        double vm1 = vm.settle(s.settleMax());
        double sys1 = SystemCpu.busySeconds();
        JsonNode j = Files.exists(summary) ? new ObjectMapper().readTree(summary.toFile()) : null;
        if (j == null) {
            return CellResult.builder()
                    .cell(cell)
                    .live(live != null)
                    .exitCode(exit == 0 ? 1 : exit)
                    .points(0)
                    .samplesExpected(0)
                    .samplesWritten(0)
                    .seconds(Double.NaN)
                    .writerCpuSeconds(Double.NaN)
                    .vmCpuSeconds(vm1 - vm0)
                    .peakHeapBytes(0)
                    .otherCpuSeconds(Double.NaN)
                    .loadAverage(SystemCpu.loadAverage())
                    .inputPointsPerSecond(Double.NaN)
                    .build();
        }
        long points = j.path("points").asLong();
        long written = j.path("samples_written").asLong();
        double cpu = j.path("cpu_seconds").asDouble(Double.NaN);
        long heap = j.path("peak_heap_bytes").asLong();
        double other = sys1 - sys0 - cpu - (vm1 - vm0);
        if (live == null) {
            return CellResult.builder()
                    .cell(cell)
                    .live(false)
                    .exitCode(exit)
                    .points(points)
                    .samplesExpected(j.path("samples_expected").asLong())
                    .samplesWritten(written)
                    .seconds(j.path("write_seconds")
                            .asDouble(j.path("elapsed_seconds").asDouble(Double.NaN))) // not the durability wait
                    .writerCpuSeconds(cpu)
                    .vmCpuSeconds(vm1 - vm0)
                    .peakHeapBytes(heap)
                    .otherCpuSeconds(other)
                    .loadAverage(SystemCpu.loadAverage())
                    .inputPointsPerSecond(Double.NaN)
                    .delays(IngestDelays.ofSummary(j))
                    .histograms(histogramsOf(j))
                    .build();
        }
        long expected = producedPoints * cell.samplesPerPoint();
        return CellResult.builder()
                .cell(cell)
                .live(true)
                .exitCode(exit)
                .points(points)
                .samplesExpected(expected)
                .samplesWritten(written)
                .seconds(windowSeconds)
                .writerCpuSeconds(cpu)
                .vmCpuSeconds(vm1 - vm0)
                .peakHeapBytes(heap)
                .otherCpuSeconds(other)
                .loadAverage(SystemCpu.loadAverage())
                .inputPointsPerSecond(producedPoints / windowSeconds)
                .delays(steady != null ? steady.delaysOr(j) : IngestDelays.ofSummary(j))
                .histograms(histogramsOf(j))
                .build();
    }

    /** The native histograms and buckets a writer's summary says it wrote. */
    private static CellResult.Histograms histogramsOf(JsonNode summary) {
        return new CellResult.Histograms(
                0,
                summary.path("histograms_written").asLong(),
                summary.path("histogram_buckets_written").asLong());
    }

    /** Waits until the writer has logged that it runs (its consumers are about to start), at most 60 s. */
    public static void awaitReady(Process p, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && p.isAlive()) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            if (text.contains("assigned ")) {
                return;
            }
            Thread.sleep(50);
        }
        if (!p.isAlive()) {
            throw new IOException("the writer exited before it was ready; see " + log);
        }
        throw new IOException("the writer was not ready after 60 s; see " + log);
    }
}
