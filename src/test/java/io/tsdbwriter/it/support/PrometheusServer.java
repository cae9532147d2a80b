package io.tsdbwriter.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ExportComparison;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real Prometheus (Debian {@code /usr/bin/prometheus}, 2.42; or Prometheus 3, {@link #startCurrent}) as a remote
 * write receiver on a free loopback port:
 * {@code --web.enable-remote-write-receiver}, its own data directory ({@code <workDir>/prom-data}), log
 * {@code <workDir>/prometheus.log}, no scrape targets, and a config enabling the out-of-order window
 * ({@code storage.tsdb.out_of_order_time_window}, Prometheus ≥ 2.39) — amplified backfills with P > 1 arrive out of
 * order per series. Samples are read back with range-vector queries at the newest expected timestamp.
 *
 * <p>{@link #kill()} and {@link #restart()} crash it and start it again on the same port with the same data directory
 * (its WAL is replayed), for the durability scenarios.
 *
 * <p>Thread-safety: lifecycle methods are synchronized; queries may run from any thread (a query racing a restart may
 * fail with an I/O error).
 */
public final class PrometheusServer implements Components.PrometheusEndpoint {

    /** The Debian package's binary ({@code scripts/lib.sh ensure_prometheus} installs it). */
    public static final String DEFAULT_BINARY = "/usr/bin/prometheus";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path binary;
    private final Path workDir;
    private final Path logFile;
    private final FreePorts.Reservation port;
    private final String url;
    /** Replaced at every start: pooled connections to a killed process are dead. */
    private volatile HttpClient http = newHttpClient();

    private Process process;
    private boolean closed;

    private final boolean remoteWriteReceiver;
    private final List<String> extraFlags;

    /** Prometheus 3 built by {@code scripts/lib.sh ensure_prometheus_current} (the Remote-Write 2.0 receiver). */
    public static final Path CURRENT_BINARY =
            Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/prometheus");

    private PrometheusServer(
            Path binary,
            Path workDir,
            FreePorts.Reservation port,
            boolean remoteWriteReceiver,
            List<String> extraFlags) {
        this.binary = binary;
        this.remoteWriteReceiver = remoteWriteReceiver;
        this.extraFlags = List.copyOf(extraFlags);
        this.workDir = workDir;
        this.logFile = workDir.resolve("prometheus.log");
        this.port = port;
        this.url = "http://127.0.0.1:" + port.port();
    }

    /**
     * Starts Prometheus in {@code workDir} with {@code out_of_order_time_window} set to {@code outOfOrderWindow}
     * (null = not set) and returns once {@code /-/ready} answers 200.
     *
     * @throws IllegalStateException when the binary is missing or it does not become ready (with its log's tail)
     */
    public static PrometheusServer start(Path workDir, Duration outOfOrderWindow) {
        return start(workDir, outOfOrderWindow, true);
    }

    /**
     * As {@link #start(Path, Duration)}; {@code remoteWriteReceiver} false leaves out
     * {@code --web.enable-remote-write-receiver}, so {@code /api/v1/write} answers 404 (the receiver not enabled).
     */
    public static PrometheusServer start(Path workDir, Duration outOfOrderWindow, boolean remoteWriteReceiver) {
        Path binary = Path.of(System.getProperty("tsdbwriter.prometheus.binary", DEFAULT_BINARY));
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(
                    "Prometheus binary " + binary + " not found: install it with "
                            + "`apt-get install -y prometheus` (scripts/test.sh does) or point -Dtsdbwriter.prometheus.binary at one");
        }
        return start(binary, workDir, outOfOrderWindow, remoteWriteReceiver, List.of());
    }

    /**
     * Prometheus 3 ({@link #CURRENT_BINARY}) as a remote write receiver accepting the given protobuf messages
     * ({@code --web.remote-write-receiver.accepted-protobuf-messages}: {@code prometheus.WriteRequest},
     * {@code io.prometheus.write.v2.Request}).
     *
     * @throws IllegalStateException when the binary is missing or it does not become ready
     */
    public static PrometheusServer startCurrent(Path workDir, Duration outOfOrderWindow, String... acceptedMessages) {
        return startCurrent(workDir, outOfOrderWindow, List.of(), acceptedMessages);
    }

    /**
     * As {@link #startCurrent(Path, Duration, String...)} with {@code --enable-feature} set to {@code features}
     * ({@code exemplar-storage}, {@code type-and-unit-labels}, …; none when empty).
     */
    public static PrometheusServer startCurrent(
            Path workDir, Duration outOfOrderWindow, List<String> features, String... acceptedMessages) {
        if (!GoBuilds.built(CURRENT_BINARY)) {
            throw new IllegalStateException("Prometheus 3 binary " + CURRENT_BINARY
                    + " not found: scripts/test.sh builds it (ensure_prometheus_current)");
        }
        List<String> flags = new ArrayList<>();
        if (!features.isEmpty()) {
            flags.add("--enable-feature=" + String.join(",", features));
        }
        for (String m : acceptedMessages) {
            flags.add("--web.remote-write-receiver.accepted-protobuf-messages=" + m);
        }
        return start(CURRENT_BINARY, workDir, outOfOrderWindow, true, flags);
    }

    /**
     * Prometheus 3 ({@link #CURRENT_BINARY}) as a remote write receiver with {@code flags} added as they are
     * ({@code --web.enable-otlp-receiver}, {@code --web.remote-write-receiver.accepted-protobuf-messages=…}).
     *
     * @throws IllegalStateException when the binary is missing or it does not become ready
     */
    public static PrometheusServer startCurrentWith(Path workDir, Duration outOfOrderWindow, List<String> flags) {
        return startCurrentWith(workDir, outOfOrderWindow, flags, "");
    }

    /**
     * As {@link #startCurrentWith(Path, Duration, List)} with {@code config} appended to its configuration file: top-level
     * YAML sections other than {@code global} and {@code storage} ({@code "otlp:\n  convert_histograms_to_nhcb: true\n"}).
     */
    public static PrometheusServer startCurrentWith(
            Path workDir, Duration outOfOrderWindow, List<String> flags, String config) {
        if (!GoBuilds.built(CURRENT_BINARY)) {
            throw new IllegalStateException("Prometheus 3 binary " + CURRENT_BINARY
                    + " not found: scripts/test.sh builds it (ensure_prometheus_current)");
        }
        return start(CURRENT_BINARY, workDir, outOfOrderWindow, true, flags, config);
    }

    private static PrometheusServer start(
            Path binary,
            Path workDir,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            List<String> extraFlags) {
        return start(binary, workDir, outOfOrderWindow, remoteWriteReceiver, extraFlags, "");
    }

    private static PrometheusServer start(
            Path binary,
            Path workDir,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            List<String> extraFlags,
            String extraConfig) {
        Path dir = workDir.toAbsolutePath();
        PrometheusServer p = new PrometheusServer(binary, dir, FreePorts.reserve(), remoteWriteReceiver, extraFlags);
        try {
            Files.createDirectories(dir);
            String config = "global:\n  scrape_interval: 1h\n  evaluation_interval: 1h\n"
                    + (outOfOrderWindow == null
                            ? ""
                            : "storage:\n  tsdb:\n    out_of_order_time_window: " + outOfOrderWindow.toSeconds()
                                    + "s\n")
                    + extraConfig;
            Files.writeString(dir.resolve("prometheus.yml"), config);
            synchronized (p) {
                p.launchAndAwait();
            }
            return p;
        } catch (IOException e) {
            p.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    private static HttpClient newHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private void launchAndAwait() {
        List<String> cmd = new ArrayList<>(List.of(
                binary.toString(),
                "--config.file=" + workDir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + workDir.resolve("prom-data"),
                "--storage.tsdb.retention.time=100y",
                "--web.listen-address=127.0.0.1:" + port.port(),
                "--log.level=warn"));
        if (remoteWriteReceiver) {
            cmd.add("--web.enable-remote-write-receiver");
        }
        cmd.addAll(extraFlags);
        ChildProcesses.appendMarker(logFile, "starting " + String.join(" ", cmd));
        HttpClient old = http;
        http = newHttpClient();
        old.close();
        process = ChildProcesses.start(ChildProcesses.onCpus(ChildProcesses.TSDB_CPUS, cmd), logFile, true);
        awaitReady(http, process, "prometheus", url, START_TIMEOUT, logFile);
    }

    /**
     * Waits until {@code <url>/-/ready} answers 200 (Prometheus, Thanos); kills {@code process} and throws
     * {@link IllegalStateException} with its log's tail when it exits, is not ready within {@code timeout}, or the wait
     * is interrupted.
     */
    static void awaitReady(HttpClient http, Process process, String name, String url, Duration timeout, Path logFile) {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer yet";
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        name + " exited with code " + process.exitValue() + "; " + ChildProcesses.tailMessage(logFile));
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url + "/-/ready"))
                                .timeout(Duration.ofSeconds(2))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ChildProcesses.kill(process);
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
            if (Instant.now().isAfter(deadline)) {
                ChildProcesses.kill(process);
                throw new IllegalStateException(name + " on " + url + " not ready after " + timeout + " (" + last
                        + "); " + ChildProcesses.tailMessage(logFile));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ChildProcesses.kill(process);
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
        }
    }

    /** Base URL, {@code http://127.0.0.1:<port>}. */
    public String url() {
        return url;
    }

    /** The remote write receiver's URL, {@code <url>/api/v1/write}. */
    public String remoteWriteUrl() {
        return url + "/api/v1/write";
    }

    /** The log file. */
    public Path logFile() {
        return logFile;
    }

    /**
     * Reads every sample of the series matching {@code selector} (e.g. {@code {productKey="node"}}) with a
     * range-vector query {@code selector[range]} evaluated just after {@code expected}'s newest timestamp, and
     * compares them exactly with {@code expected} (as the VictoriaMetrics read-back does with its export).
     */
    public VerificationResult readBack(String selector, ExpectedSamples expected)
            throws IOException, InterruptedException {
        return readBack(http, url, selector, expected);
    }

    /**
     * {@link #readBack(String, ExpectedSamples)} through the Prometheus query API at {@code url} (Prometheus, or a Thanos
     * query in front of a receiver).
     */
    static VerificationResult readBack(HttpClient http, String url, String selector, ExpectedSamples expected)
            throws IOException, InterruptedException {
        long end = expected.maxTimestampMs() + 1;
        long rangeSeconds = (end - expected.minTimestampMs()) / 1000 + 60;
        String query = selector + "[" + rangeSeconds + "s]";
        String q = url + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&time="
                + new BigDecimal(end).movePointLeft(3).toPlainString();
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(q))
                        .timeout(Duration.ofSeconds(60))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw new IOException("query " + query + " answered " + r.statusCode() + ": " + r.body());
        }
        JsonNode root = JSON.readTree(r.body());
        ExportComparison comparison = new ExportComparison(expected, 0);
        for (JsonNode series : root.path("data").path("result")) {
            Map<String, String> labels = new TreeMap<>();
            String metric = "";
            for (Iterator<Map.Entry<String, JsonNode>> it =
                            series.path("metric").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("__name__")) {
                    metric = e.getValue().asText();
                } else {
                    labels.put(e.getKey(), e.getValue().asText());
                }
            }
            JsonNode values = series.path("values");
            long[] ts = new long[values.size()];
            double[] vs = new double[values.size()];
            for (int i = 0; i < values.size(); i++) {
                ts[i] = values.get(i).get(0).decimalValue().movePointRight(3).longValueExact();
                vs[i] = Double.parseDouble(values.get(i).get(1).asText());
            }
            comparison.acceptSeries(metric, labels, ts, vs, ts.length);
        }
        return comparison.result();
    }

    /** {@link #readBack} until it passes or {@code timeout} elapses; returns the last result. */
    public VerificationResult readBackWithin(String selector, ExpectedSamples expected, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            VerificationResult r = readBack(selector, expected);
            if (r.passed() || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(500);
        }
    }

    /** Crash: kill -9 and wait until the process is gone. Port and data directory are kept. */
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.kill(process);
        }
    }

    /**
     * Starts again on the same port with the same data directory and flags (stopping it cleanly first if it runs);
     * returns once {@code /-/ready} answers 200 (after its WAL replay).
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("prometheus closed");
        }
        if (process != null) {
            ChildProcesses.terminate(process, Duration.ofSeconds(20));
        }
        launchAndAwait();
    }

    /** Stops the process (SIGTERM, then kill) and releases the port. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process != null) {
                ChildProcesses.terminate(process, Duration.ofSeconds(20));
            }
        } finally {
            port.close();
            http.close();
        }
    }

    @Override
    public String toString() {
        return "Prometheus[" + url + ", " + workDir + "]";
    }
}
