package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Thanos receive with its defaults (no out-of-order window: {@code --tsdb.out-of-order.time-window} 0s) as a remote
 * write receiver — the {@code thanos} binary that {@code scripts/lib.sh ensure_thanos} builds, on free loopback
 * ports, on the TSDB's CPUs. The exact read-back stops the receiver cleanly and opens its default tenant's TSDB (a
 * Prometheus TSDB: WAL and blocks) in a Prometheus 3, whose query API reads every sample back — one process, no store
 * discovery, and the series carry no external labels there ({@code receive_replica}, {@code tenant_id} are the
 * StoreAPI's), so they read back as written. Thread-safe lifecycle (synchronized).
 */
public final class ThanosReceive implements Components.PrometheusEndpoint {

    /** Where {@code scripts/lib.sh ensure_thanos} puts the binary. */
    public static final Path BINARY = Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/thanos");

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final List<FreePorts.Reservation> ports;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private Process receive;
    /** The Prometheus 3 opened on the receiver's TSDB once it stopped (the read-back), or null. */
    private PrometheusServer reader;
    /** The Prometheus 3 opened on each other tenant's TSDB ({@link #readBackTenant}). */
    private final Map<String, PrometheusServer> tenantReaders = new HashMap<>();

    private boolean closed;

    private ThanosReceive(Path dir) {
        this.dir = dir;
        this.ports = FreePorts.reserve(3);
    }

    /** Null when the binary (and the Prometheus 3 of the read-back) is built, else why the Thanos tests are skipped. */
    public static String unavailable() {
        if (!GoBuilds.built(PrometheusServer.CURRENT_BINARY)) {
            return PrometheusServer.CURRENT_BINARY
                    + " not built (scripts/lib.sh ensure_prometheus_current): it reads Thanos receive's TSDB back";
        }
        return GoBuilds.built(BINARY) ? null : BINARY + " not built (scripts/lib.sh ensure_thanos)";
    }

    /** Starts the receiver in {@code dir}; returns once it is ready. */
    public static synchronized ThanosReceive start(Path dir) {
        ThanosReceive t = new ThanosReceive(dir.toAbsolutePath());
        try {
            Files.createDirectories(t.dir);
            t.launch();
            return t;
        } catch (IOException e) {
            t.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    private int port(int i) {
        return ports.get(i).port();
    }

    private synchronized void launch() {
        Path receiveLog = dir.resolve("thanos-receive.log");
        List<String> r = new ArrayList<>(List.of(
                BINARY.toString(),
                "receive",
                "--tsdb.path=" + dir.resolve("receive-data"),
                "--grpc-address=127.0.0.1:" + port(0),
                "--http-address=127.0.0.1:" + port(1),
                "--remote-write.address=127.0.0.1:" + port(2),
                "--label=receive_replica=\"0\"",
                "--log.level=warn"));
        ChildProcesses.appendMarker(receiveLog, "starting " + String.join(" ", r));
        receive = ChildProcesses.start(ChildProcesses.onCpus(ChildProcesses.TSDB_CPUS, r), receiveLog, true);
        PrometheusServer.awaitReady(http, receive, "thanos receive", url(), START_TIMEOUT, receiveLog);
    }

    /** The receiver's HTTP address (its /metrics, /-/ready). */
    @Override
    public String url() {
        return "http://127.0.0.1:" + port(1);
    }

    /** The receiver's remote write URL, {@code http://127.0.0.1:<port>/api/v1/receive}. */
    @Override
    public String remoteWriteUrl() {
        return "http://127.0.0.1:" + port(2) + "/api/v1/receive";
    }

    /**
     * Stops the receiver (SIGTERM: it closes its TSDB) and reads its default tenant's TSDB back through a Prometheus 3
     * opened on it; later calls read from that Prometheus again.
     */
    @Override
    public synchronized VerificationResult readBack(String selector, ExpectedSamples expected)
            throws IOException, InterruptedException {
        return reader().readBack(selector, expected);
    }

    @Override
    public synchronized VerificationResult readBackWithin(String selector, ExpectedSamples expected, Duration timeout)
            throws IOException, InterruptedException {
        return reader().readBackWithin(selector, expected, timeout);
    }

    private PrometheusServer reader() throws IOException {
        if (reader == null) {
            reader = open("default-tenant");
        }
        return reader;
    }

    /**
     * {@link #readBack} of one tenant's TSDB: Thanos receive keeps a TSDB per tenant ({@code <tsdb.path>/<tenant>}, the
     * value of its {@code THANOS-TENANT} header; the StoreAPI adds it as the {@code tenant_id} external label), which is
     * opened in a Prometheus 3 of its own once the receiver stopped.
     */
    public synchronized VerificationResult readBackTenant(
            String tenant, String selector, ExpectedSamples expected, Duration timeout)
            throws IOException, InterruptedException {
        PrometheusServer r = tenantReaders.get(tenant);
        if (r == null) {
            r = open(tenant);
            tenantReaders.put(tenant, r);
        }
        return r.readBackWithin(selector, expected, timeout);
    }

    /** Stops the receiver (once) and opens the TSDB of {@code tenant} in a Prometheus 3. */
    private PrometheusServer open(String tenant) throws IOException {
        if (receive != null && receive.isAlive()) {
            ChildProcesses.terminate(receive, Duration.ofSeconds(30));
        }
        Path readDir = dir.resolve("read-back-" + tenant.replace(':', '_'));
        Files.createDirectories(readDir);
        Path data = dir.resolve("receive-data").resolve(tenant);
        if (!Files.isDirectory(data)) {
            throw new IOException("Thanos receive left no TSDB of tenant " + tenant + " in " + data);
        }
        Files.move(data, readDir.resolve("prom-data"));
        return PrometheusServer.startCurrent(readDir, null);
    }

    /** Crash: kill -9 of the receiver. */
    @Override
    public synchronized void kill() {
        if (receive != null) {
            ChildProcesses.kill(receive);
        }
    }

    @Override
    public synchronized void restart() {
        throw new UnsupportedOperationException("not needed by the Thanos tests");
    }

    /** Stops both processes and frees the ports. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (receive != null) {
                ChildProcesses.terminate(receive, Duration.ofSeconds(20));
            }
            if (reader != null) {
                reader.close();
            }
            tenantReaders.values().forEach(PrometheusServer::close);
        } finally {
            ports.forEach(FreePorts.Reservation::close);
            http.close();
        }
    }

    @Override
    public String toString() {
        return "ThanosReceive[" + remoteWriteUrl() + "]";
    }
}
