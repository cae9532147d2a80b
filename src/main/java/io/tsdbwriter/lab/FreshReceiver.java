package io.tsdbwriter.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A TSDB started for one measurement of {@code bench}: a Prometheus ({@code --prometheus-binary}, for the remote-write-2
 * shapes) or a VictoriaMetrics single node ({@code --victoria-metrics-binary}, for the import and remote write 1.0 shapes)
 * on a free loopback port, with an empty data directory under the bench's work directory (its log beside it,
 * {@code <name>.log}), started under {@code taskset -c <tsdb CPUs>} when the TSDB is placed, so its {@code GOMAXPROCS}
 * fits its CPUs. {@link #close} kills it and deletes its data.
 *
 * <ul>
 *   <li>Prometheus: both protobuf messages accepted ({@code prometheus.WriteRequest} and
 *       {@code io.prometheus.write.v2.Request}, so the binary must be Prometheus 3.x),
 *       {@code storage.tsdb.out_of_order_time_window} 30 d (the bench's feed lies a week back, and at P &gt; 1 the
 *       readers' time ranges arrive out of order per series).</li>
 *   <li>VictoriaMetrics: the flags of the scripts' stack ({@code -retentionPeriod=100y -dedup.minScrapeInterval=1ms
 *       -search.disableCache -loggerLevel=ERROR}); import at {@code /api/v1/import}, remote write 1.0 at
 *       {@code /api/v1/write}.</li>
 * </ul>
 *
 * <p>Why a new one per measurement: every sample a cell or a ceiling writes is then a first write, series creation
 * included, so a cell and its ceiling do the same work per sample. A Prometheus that already holds a cell's samples
 * takes them again through its out-of-order path, which costs it ~1.8× a first write (docs/benchmarks-archive.md §10c,
 * {@code collectOOORecords}). A VictoriaMetrics shared by the whole run holds the history of every earlier cell, whose
 * merges and caches differ from one measurement to the next (§15g: its CPU per sample of the same ceiling moved from 0.43
 * to 0.60 CPU-s per million between runs).
 *
 * <p>Not thread-safe; one per measurement.
 */
public final class FreshReceiver implements AutoCloseable {

    /** Which TSDB: its command line, its readiness path, its process name. */
    public enum Kind {
        PROMETHEUS("prometheus", "/-/ready"),
        VICTORIA_METRICS("victoria-metrics", "/health");

        private final String label;
        private final String readyPath;

        Kind(String label, String readyPath) {
            this.label = label;
            this.readyPath = readyPath;
        }

        /** {@code prometheus}, {@code victoria-metrics}: the suffix of a measurement's directory and log. */
        public String label() {
            return label;
        }

        /** {@code Prometheus}, {@code VictoriaMetrics}: how progress lines name it. */
        public String displayName() {
            return this == PROMETHEUS ? "Prometheus" : "VictoriaMetrics";
        }
    }

    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Starts tried when the free port picked was taken before the TSDB bound it (each on a new port). */
    static final int START_ATTEMPTS = 3;

    static final Duration OUT_OF_ORDER_WINDOW = Duration.ofDays(30);

    private final Kind kind;
    private final Process process;
    private final Path dir;
    private final String url;

    private FreshReceiver(Kind kind, Process process, Path dir, String url) {
        this.kind = kind;
        this.process = process;
        this.dir = dir;
        this.url = url;
    }

    /**
     * Starts one in {@code <workDir>/<name>} and returns once its readiness path ({@code /-/ready}, {@code /health})
     * answers 200.
     *
     * @param tsdbCpus the TSDB's CPUs ({@code --tsdb-cpus}), or null when it is not placed
     * @throws IOException when it cannot be started or is not ready within {@link #START_TIMEOUT} (with its log's tail);
     *                     a port taken before it bound it is retried on a new port, {@link #START_ATTEMPTS} starts in all
     */
    public static FreshReceiver start(
            Kind kind, Path binary, Path workDir, String name, CpuList tsdbCpus, OkHttpClient http)
            throws IOException, InterruptedException {
        return start(kind, binary, workDir, name, tsdbCpus, http, OUT_OF_ORDER_WINDOW);
    }

    /**
     * As above, a Prometheus with {@code outOfOrderWindow} ({@code storage.tsdb.out_of_order_time_window}; zero: none,
     * Prometheus' default, which refuses a series' older samples; {@code bench --prometheus-out-of-order-window}).
     */
    public static FreshReceiver start(
            Kind kind,
            Path binary,
            Path workDir,
            String name,
            CpuList tsdbCpus,
            OkHttpClient http,
            Duration outOfOrderWindow)
            throws IOException, InterruptedException {
        Path dir = workDir.resolve(name).toAbsolutePath();
        deleteTree(dir);
        Files.createDirectories(dir);
        if (kind == Kind.PROMETHEUS) {
            Files.writeString(dir.resolve("prometheus.yml"), config(outOfOrderWindow), StandardCharsets.UTF_8);
        }
        Path log = workDir.resolve(name + ".log").toAbsolutePath(); // kept beside the cells' logs
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            List<String> cmd =
                    kind == Kind.PROMETHEUS ? command(binary, dir, port) : victoriaMetricsCommand(binary, dir, port);
            Process p = ChildProcess.of(tsdbCpus == null ? cmd : Placement.startCommand(tsdbCpus, cmd))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            FreshReceiver fresh = new FreshReceiver(kind, p, dir, "http://127.0.0.1:" + port);
            try {
                fresh.awaitReady(http, log);
                return fresh;
            } catch (IOException e) {
                fresh.stop();
                if (attempt >= START_ATTEMPTS || !lostThePort(e)) {
                    throw e;
                }
                // another process took the port between freePort() and the bind: a new port
            } catch (InterruptedException | RuntimeException e) {
                fresh.stop();
                throw e;
            }
        }
    }

    /** True when a start failed because its port was taken (the log's tail says so). */
    static boolean lostThePort(IOException e) {
        return e.getMessage() != null && e.getMessage().toLowerCase(Locale.ROOT).contains("address already in use");
    }

    /** Prometheus' config file: no scrape targets, the out-of-order window {@link #OUT_OF_ORDER_WINDOW}. */
    static String config() {
        return config(OUT_OF_ORDER_WINDOW);
    }

    /** Prometheus' config file: no scrape targets, the out-of-order window (zero: none, Prometheus' default). */
    static String config(Duration outOfOrderWindow) {
        return "global:\n  scrape_interval: 1h\n  evaluation_interval: 1h\n"
                + (outOfOrderWindow.isZero()
                        ? ""
                        : "storage:\n  tsdb:\n    out_of_order_time_window: " + outOfOrderWindow.toSeconds() + "s\n");
    }

    /** Prometheus' command line for a data directory and a port. */
    static List<String> command(Path binary, Path dir, int port) {
        return new ArrayList<>(List.of(
                binary.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--storage.tsdb.retention.time=100y",
                "--web.listen-address=127.0.0.1:" + port,
                "--web.enable-remote-write-receiver",
                "--web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest",
                "--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request",
                "--log.level=warn"));
    }

    /** VictoriaMetrics' command line for a data directory and a port: the flags of the scripts' stack. */
    static List<String> victoriaMetricsCommand(Path binary, Path dir, int port) {
        return new ArrayList<>(List.of(
                binary.toString(),
                "-storageDataPath=" + dir.resolve("data"),
                "-httpListenAddr=127.0.0.1:" + port,
                "-retentionPeriod=100y",
                "-dedup.minScrapeInterval=1ms",
                "-search.disableCache",
                "-loggerLevel=ERROR"));
    }

    /** Which TSDB it is. */
    public Kind kind() {
        return kind;
    }

    /** Its base URL, {@code http://127.0.0.1:<port>} (VictoriaMetrics' {@code --vm-url}). */
    public String url() {
        return url;
    }

    private void awaitReady(OkHttpClient http, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Request ready = new Request.Builder().url(url + kind.readyPath).get().build();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(kind.label() + " exited with code " + process.exitValue() + ": " + tail(log));
            }
            try (Response r = http.newCall(ready).execute()) {
                if (r.code() == 200) {
                    return;
                }
                last = "HTTP " + r.code();
            } catch (IOException e) {
                last = e.getMessage();
            }
            Thread.sleep(100);
        }
        throw new IOException(kind.label() + " on " + url + " not ready after " + START_TIMEOUT.toSeconds() + " s ("
                + last + "): " + tail(log));
    }

    /** Its remote write URL, {@code http://127.0.0.1:<port>/api/v1/write}. */
    public String remoteWriteUrl() {
        return url + "/api/v1/write";
    }

    /** Kills it (SIGTERM, then SIGKILL after 10 s) and deletes its directory. */
    @Override
    public void close() throws IOException {
        stop();
        deleteTree(dir);
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
