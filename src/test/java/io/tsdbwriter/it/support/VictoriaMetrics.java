package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A real single-node VictoriaMetrics ({@code /usr/bin/victoria-metrics}, the Debian package, 1.79.5 here) running as a
 * child process. {@code -Dtsdbwriter.vm.binary} selects another build: the failsafe execution {@code vm-current}
 * (pom.xml) runs the VictoriaMetrics-dependent scenarios again against today's release (v1.150.0, built by
 * {@code scripts/lib.sh ensure_victoria_metrics_current}); {@code tsdbwriter.vm.version} names the version.
 *
 * <p>What it starts: {@code victoria-metrics -httpListenAddr=127.0.0.1:<port> -storageDataPath=<workDir>/vm-data
 * -retentionPeriod=100y -dedup.minScrapeInterval=1ms -search.disableCache -loggerLevel=ERROR <extraFlags...>}, with
 * stdout+stderr appended to {@code <workDir>/victoria-metrics.log}. The binary can be overridden with
 * {@code -Dtsdbwriter.vm.binary=/path}. An existing {@code vm-data} directory is reused.
 *
 * <p>Ports: one free loopback port reserved with {@link FreePorts}; {@link #url()} is {@code http://127.0.0.1:<port>}.
 * It is kept across {@link #stop()}, {@link #kill()} and {@link #restart()} (same data dir too) and released by
 * {@link #close()}.
 *
 * <p>Read-your-writes: a 204 from {@code /api/v1/import} means buffered. {@link #forceFlush()} calls
 * {@code /internal/force_flush}, but in 1.79.5 that is not a strict barrier: shortly after a (re)start the first
 * samples sometimes become visible only up to ~1 s after the flush (and without a flush, after ~10 s). Use
 * {@link #awaitExport(String, Predicate, Duration)} when a test must see what it wrote. {@link #export(String)} asks
 * for the whole time range ({@code start=0}, {@code end=now+2d}): VictoriaMetrics' default end is "now", which would
 * hide samples with timestamps in the near future.
 *
 * <p>Process hygiene as for {@link KafkaBroker}: {@code setpriv --pdeathsig KILL} when available, a shutdown hook, and
 * {@link #close()}.
 *
 * <p>Thread-safety: lifecycle methods are synchronized; the HTTP helpers may be called from any thread (a call racing
 * a restart may fail with an I/O error).
 */
public final class VictoriaMetrics implements Components.VmEndpoint {

    /** The Debian package's binary. */
    public static final String DEFAULT_BINARY = "/usr/bin/victoria-metrics";

    private static final Duration START_TIMEOUT =
            Duration.parse(System.getProperty("tsdbwriter.vm.startTimeout", "PT1M"));
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;

    private final Path binary;
    private final Path dataDir;
    private final Path logFile;
    private final List<String> extraFlags;
    private final FreePorts.Reservation port;
    private final String url;
    private final VmHttp http;
    private Process process;
    private boolean closed;

    private VictoriaMetrics(Path binary, Path workDir, FreePorts.Reservation port, List<String> extraFlags) {
        this.binary = binary;
        this.dataDir = workDir.resolve("vm-data");
        this.logFile = workDir.resolve("victoria-metrics.log");
        this.port = port;
        this.extraFlags = List.copyOf(extraFlags);
        this.url = "http://127.0.0.1:" + port.port();
        this.http = new VmHttp(url);
    }

    /**
     * Starts VictoriaMetrics with its data in {@code <workDir>/vm-data} and returns once {@code /health} answers
     * {@code OK}. {@code extraFlags} are appended to the command line, e.g. {@code -promscrape.config=/path}.
     *
     * @throws IllegalStateException when the binary is missing (with the apt-get command to install it) or the
     *     server does not become healthy (with the tail of its log)
     */
    public static VictoriaMetrics start(Path workDir, String... extraFlags) {
        Path binary = Path.of(System.getProperty("tsdbwriter.vm.binary", DEFAULT_BINARY));
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(
                    "VictoriaMetrics binary " + binary + " not found: install it with "
                            + "`apt-get install -y victoria-metrics` (scripts/test.sh does) or point -Dtsdbwriter.vm.binary at one");
        }
        return start(binary, workDir, extraFlags);
    }

    /**
     * Today's VictoriaMetrics, built by {@code scripts/lib.sh ensure_victoria_metrics_current} (may be missing: check
     * {@link #CURRENT_BINARY}).
     */
    public static final Path CURRENT_BINARY =
            Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/victoria-metrics");

    /**
     * As {@link #start(Path, String...)} with today's build ({@link #CURRENT_BINARY}) whatever {@code tsdbwriter.vm.binary}
     * says: for features the Debian build lacks (its OpenTelemetry endpoint).
     *
     * @throws IllegalStateException when it is not built
     */
    public static VictoriaMetrics startCurrent(Path workDir, String... extraFlags) {
        if (!GoBuilds.built(CURRENT_BINARY)) {
            throw new IllegalStateException(
                    CURRENT_BINARY + " not built: scripts/test.sh builds it (ensure_victoria_metrics_current)");
        }
        return start(CURRENT_BINARY, workDir, extraFlags);
    }

    private static VictoriaMetrics start(Path binary, Path workDir, String... extraFlags) {
        Path dir = workDir.toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            VictoriaMetrics vm = new VictoriaMetrics(binary, dir, FreePorts.reserve(), List.of(extraFlags));
            long logOffset = ChildProcesses.size(vm.logFile);
            try {
                synchronized (vm) {
                    vm.launchAndAwait();
                }
                return vm;
            } catch (RuntimeException e) {
                last = e;
                vm.close();
                String log = ChildProcesses.readFrom(vm.logFile, logOffset);
                if (!log.contains("address already in use")) {
                    throw e;
                }
            }
        }
        throw last;
    }

    /** Base URL, {@code http://127.0.0.1:<port>} (no trailing slash). */
    public String url() {
        return url;
    }

    /** The HTTP port. */
    public int port() {
        return port.port();
    }

    /** {@code -storageDataPath}. */
    public Path dataDir() {
        return dataDir;
    }

    /** stdout+stderr of every start, appended. */
    public Path logFile() {
        return logFile;
    }

    /** True while the process is alive. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Pid of the current process. */
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("victoria-metrics not started");
        }
        return process.pid();
    }

    /** GET {@code /internal/force_flush}: converts buffered rows into searchable parts (see the class doc). */
    public void forceFlush() {
        http.forceFlush();
    }

    /**
     * GET {@code /api/v1/export?match[]=<match>&start=0&end=<now+2d>}: the JSON lines, one per series, exactly as
     * VictoriaMetrics prints them. Does not flush first. {@code match} is a series selector such as {@code x},
     * {@code {__name__="x",a="b"}} or {@code {__name__=~".+"}}.
     */
    public List<String> export(String match) {
        return http.export(match);
    }

    /**
     * Force-flushes and exports until {@code done} accepts the exported lines, or the timeout passes; returns the last
     * export either way (assert on it).
     */
    public List<String> awaitExport(String match, Predicate<List<String>> done, Duration timeout) {
        return http.awaitExport(match, done, timeout);
    }

    /**
     * POSTs JSON lines to {@code /api/v1/import} and returns the HTTP status (204 when accepted into the buffer).
     */
    public int importLines(String jsonLines) {
        return http.importLines(jsonLines);
    }

    /** GET {@code url() + pathAndQuery}, e.g. {@code /metrics}. */
    public HttpResponse<String> get(String pathAndQuery) {
        return http.get(pathAndQuery);
    }

    /** Graceful stop: SIGTERM (VictoriaMetrics flushes to disk), waits up to 30 s (then kill -9). No-op when not running. */
    public synchronized void stop() {
        if (process != null) {
            ChildProcesses.terminate(process, STOP_TIMEOUT);
        }
    }

    /** Crash: kill -9 and wait until the process is gone. Port and data are kept. */
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.kill(process);
        }
    }

    /** Starts again on the same port with the same data dir (stopping it cleanly first if it runs); waits for health. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("victoria-metrics closed");
        }
        stop();
        launchAndAwait();
    }

    /** Stops the process cleanly and releases the port; data stay in the work dir. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            port.close();
            http.close();
        }
    }

    @Override
    public String toString() {
        return "VictoriaMetrics[" + url + ", " + dataDir + "]";
    }

    // ----------------------------------------------------------------------------------------------------------------

    private void launchAndAwait() {
        List<String> cmd = new ArrayList<>(List.of(
                binary.toString(),
                "-httpListenAddr=127.0.0.1:" + port.port(),
                "-storageDataPath=" + dataDir,
                "-retentionPeriod=100y",
                "-dedup.minScrapeInterval=1ms",
                "-search.disableCache",
                "-loggerLevel=ERROR"));
        cmd.addAll(extraFlags);
        ChildProcesses.appendMarker(logFile, "starting " + String.join(" ", cmd));
        http.renew(); // pooled connections to the previous process are dead
        process = ChildProcesses.start(ChildProcesses.onCpus(ChildProcesses.TSDB_CPUS, cmd), logFile, true);
        String unhealthy;
        try {
            unhealthy = http.awaitHealthy(START_TIMEOUT, process::isAlive);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ChildProcesses.kill(process);
            throw new IllegalStateException("interrupted while waiting for victoria-metrics", e);
        }
        if (unhealthy == null) {
            return;
        }
        if (!process.isAlive()) {
            throw new IllegalStateException("victoria-metrics exited with code " + process.exitValue()
                    + " while starting on " + url + "; " + ChildProcesses.tailMessage(logFile));
        }
        ChildProcesses.kill(process);
        throw new IllegalStateException(
                "victoria-metrics on " + url + " " + unhealthy + "; " + ChildProcesses.tailMessage(logFile));
    }
}
