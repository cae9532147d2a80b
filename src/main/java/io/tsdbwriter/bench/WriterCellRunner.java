package io.tsdbwriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.tsdbwriter.write.http.SafeUrl;
import java.util.function.Function;

/**
 * Runs one grid cell as its own writer process, {@code java [jvm options] -jar <jar> run ...}, so that its CPU time
 * and heap are its own, and reads its {@code --summary-json}. Around it, measures VictoriaMetrics' CPU (from the
 * writer's start until VictoriaMetrics settles after it) and the machine's. Not thread-safe; one cell at a time.
 */
public final class WriterCellRunner {

    /** What every cell's writer gets. */
    public record Settings(List<String> javaCommand, Path jar, List<String> jvmOptions, String bootstrapServers, String vmUrl,
                    int writePermits, int batchSamples, long segmentSize, List<String> extraRunArgs, Path workDir,
                    Duration cellTimeout, Duration settleMax, String remoteWriteUrl) {
    }

    /** A live cell's input: called once the writer is ready; returns the points produced (blocks for the window). */
    @FunctionalInterface
    interface LiveInput {
        long produce() throws InterruptedException;
    }

    private final Settings s;
    private final VmProbe vm;
    /** The receiver of a remote-write cell by its URL (its own {@code /metrics}: CPU of Prometheus or VictoriaMetrics). */
    private final Function<String, VmProbe> remoteWriteReceiver;
    private volatile Process current;

    public WriterCellRunner(Settings settings, VmProbe vm, Function<String, VmProbe> remoteWriteReceiver) {
        this.s = settings;
        this.vm = vm;
        this.remoteWriteReceiver = remoteWriteReceiver;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = current;
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
        }, "bench-writer-reaper"));
    }

    /** The writer's command line for a cell. */
    List<String> command(BenchCell cell, String topic, String groupId, Path summary, boolean stopAtEnd) {
        return command(cell, topic, groupId, summary, stopAtEnd, -1);
    }

    /** The writer's command line for a cell, its {@code /metrics} on {@code metricsPort} (-1 = off; capacity reads it). */
    public List<String> command(BenchCell cell, String topic, String groupId, Path summary, boolean stopAtEnd, int metricsPort) {
        List<String> cmd = new ArrayList<>(s.javaCommand());
        cmd.addAll(aotCacheOption(s.jar(), s.jvmOptions(), Runtime.version().feature()));
        cmd.addAll(s.jvmOptions());
        cmd.addAll(List.of("-jar", s.jar().toString(), "run",
                "--bootstrap-servers", s.bootstrapServers(), "--topic", topic, "--group-id", groupId, "--vm-url", s.vmUrl(),
                "--time-multiplier", Integer.toString(cell.timeMultiplier()),
                "--instance-multiplier", Integer.toString(cell.instanceMultiplier()),
                "--parallelism", Integer.toString(cell.parallelism()), "--write-mode", cell.writeMode(),
                "--max-concurrent-writes", Integer.toString(s.writePermits()), "--batch-samples", Integer.toString(s.batchSamples()),
                "--segment-size", Long.toString(s.segmentSize()),
                "--metrics-port", Integer.toString(metricsPort), "--metrics-address", "127.0.0.1", "--report-interval", "10s", "--summary-json", summary.toString()));
        if (stopAtEnd) {
            cmd.add("--stop-at-end");
        }
        if (cell.remoteWrite()) {
            cmd.addAll(List.of("--output", "remote-write", "--remote-write-url", remoteWriteUrl(cell),
                    "--remote-write-version", cell.remoteWriteVersion()));
        }
        cmd.addAll(s.extraRunArgs());
        return cmd;
    }

    /**
     * {@code -XX:AOTCache=<jar without .jar>.aot} when that file exists (built by {@code scripts/aot-cache.sh}), the
     * writers' JDK is 25 or later ({@code javaFeature}: the bench starts them with its own java) and the JVM options
     * name no AOT cache themselves; otherwise nothing. A stale cache costs nothing but its benefit: the JVM starts
     * without it ({@code -Xlog:aot=off} silences the JVM's own lines about it) and the writer logs one line.
     */
    static List<String> aotCacheOption(Path jar, List<String> jvmOptions, int javaFeature) {
        String name = jar.getFileName().toString();
        Path cache = jar.resolveSibling((name.endsWith(".jar") ? name.substring(0, name.length() - 4) : name) + ".aot");
        boolean named = jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:AOTCache") || o.startsWith("-XX:AOTMode"));
        return javaFeature >= 25 && !named && Files.isRegularFile(cache)
                ? List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off") : List.of();
    }

    private String remoteWriteUrl(BenchCell cell) {
        return cell.receiver() != null ? cell.receiver() : s.remoteWriteUrl();
    }

    /** Runs a backlog cell: the writer consumes the whole topic with a fresh group and exits. */
    public CellResult backlog(BenchCell cell, String topic, String groupId, String name) throws IOException, InterruptedException {
        return run(cell, topic, groupId, name, null, Duration.ZERO);
    }

    /**
     * Runs a live cell: the writer tails an empty topic; once it is ready, {@code input} produces for the window;
     * {@code grace} after the window the writer gets SIGTERM (it drains and commits) and its counters are read.
     */
    CellResult live(BenchCell cell, String topic, String groupId, String name, LiveInput input, Duration window, Duration grace)
            throws IOException, InterruptedException {
        return run(cell, topic, groupId, name, new Live(input, window, grace), window);
    }

    private record Live(LiveInput input, Duration window, Duration grace) {
    }

    private CellResult run(BenchCell cell, String topic, String groupId, String name, Live live, Duration window)
            throws IOException, InterruptedException {
        Path summary = s.workDir().resolve(name + ".json");
        Path log = s.workDir().resolve(name + ".log");
        Files.deleteIfExists(summary);
        List<String> cmd = command(cell, topic, groupId, summary, live == null);
        Files.writeString(log, "# " + String.join(" ", SafeUrl.redactArgs(cmd)) + "\n", StandardCharsets.UTF_8);
        VmProbe vm = cell.remoteWrite() ? remoteWriteReceiver.apply(remoteWriteUrl(cell)) : this.vm;
        double vm0 = vm.cpuSeconds();
        double sys0 = SystemCpu.busySeconds();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        current = p;
        long producedPoints = 0;
        double windowSeconds = Double.NaN;
        int exit;
        try {
            if (live != null) {
                awaitReady(p, log);
                long t0 = System.nanoTime();
                producedPoints = live.input().produce();
                windowSeconds = (System.nanoTime() - t0) / 1e9;
                Thread.sleep(live.grace().toMillis());
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
            return new CellResult(cell, live != null, exit == 0 ? 1 : exit, 0, 0, 0, Double.NaN, Double.NaN, vm1 - vm0, 0,
                    Double.NaN, SystemCpu.loadAverage(), Double.NaN);
        }
        long points = j.path("points").asLong();
        long written = j.path("samples_written").asLong();
        double cpu = j.path("cpu_seconds").asDouble(Double.NaN);
        long heap = j.path("peak_heap_bytes").asLong();
        double other = sys1 - sys0 - cpu - (vm1 - vm0);
        if (live == null) {
            return new CellResult(cell, false, exit, points, j.path("samples_expected").asLong(), written,
                    j.path("elapsed_seconds").asDouble(Double.NaN), cpu, vm1 - vm0, heap, other, SystemCpu.loadAverage(), Double.NaN);
        }
        long expected = producedPoints * cell.samplesPerPoint();
        return new CellResult(cell, true, exit, points, expected, written, windowSeconds, cpu, vm1 - vm0, heap, other,
                SystemCpu.loadAverage(), producedPoints / windowSeconds);
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
