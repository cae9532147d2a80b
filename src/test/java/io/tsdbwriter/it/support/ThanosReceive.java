package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Thanos receive with its defaults (no out-of-order window: {@code --tsdb.out-of-order.time-window} 0s) as a remote
 * write receiver, and a Thanos query in front of it for the exact read-back through the Prometheus query API — both
 * the {@code thanos} binary that {@code scripts/lib.sh ensure_thanos} builds, on free loopback ports, the receiver on
 * the TSDB's CPUs. The query strips the receiver's external labels ({@code receive_replica}, {@code tenant_id}) as
 * replica labels, so the read-back sees the series as written. Thread-safe lifecycle (synchronized).
 */
public final class ThanosReceive implements Components.PrometheusEndpoint {

    /** Where {@code scripts/lib.sh ensure_thanos} puts the binary. */
    public static final Path BINARY = Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/thanos");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final List<FreePorts.Reservation> ports;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    private Process receive;
    private Process query;
    private boolean closed;

    private ThanosReceive(Path dir) {
        this.dir = dir;
        this.ports = FreePorts.reserve(5);
    }

    /** Null when the binary is built, else why the Thanos tests are skipped. */
    public static String unavailable() {
        return Files.isExecutable(BINARY) ? null : BINARY + " not built (scripts/lib.sh ensure_thanos)";
    }

    /** Starts the receiver and its query in {@code dir}; returns once both are ready. */
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
        List<String> r = new ArrayList<>(List.of(BINARY.toString(), "receive",
                "--tsdb.path=" + dir.resolve("receive-data"),
                "--grpc-address=127.0.0.1:" + port(0),
                "--http-address=127.0.0.1:" + port(1),
                "--remote-write.address=127.0.0.1:" + port(2),
                "--label=receive_replica=\"0\"",
                "--log.level=warn"));
        ChildProcesses.appendMarker(receiveLog, "starting " + String.join(" ", r));
        receive = ChildProcesses.start(ChildProcesses.onCpus(ChildProcesses.TSDB_CPUS, r), receiveLog, true);
        awaitReady(receive, "http://127.0.0.1:" + port(1) + "/-/ready", receiveLog);
        Path queryLog = dir.resolve("thanos-query.log");
        List<String> q = List.of(BINARY.toString(), "query",
                "--grpc-address=127.0.0.1:" + port(3),
                "--http-address=127.0.0.1:" + port(4),
                "--endpoint=127.0.0.1:" + port(0),
                "--query.replica-label=receive_replica",
                "--query.replica-label=tenant_id",
                "--log.level=warn");
        ChildProcesses.appendMarker(queryLog, "starting " + String.join(" ", q));
        query = ChildProcesses.start(q, queryLog, true);
        awaitReady(query, url() + "/-/ready", queryLog);
    }

    private void awaitReady(Process p, String readyUrl, Path log) {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        String last = "no answer yet";
        while (true) {
            if (!p.isAlive()) {
                throw new IllegalStateException("thanos exited with code " + p.exitValue() + "; " + ChildProcesses.tailMessage(log));
            }
            try {
                HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(readyUrl)).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() == 200) {
                    return;
                }
                last = res.statusCode() + " " + res.body();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for thanos", e);
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(readyUrl + " not ready after " + START_TIMEOUT + " (" + last + "); " + ChildProcesses.tailMessage(log));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for thanos", e);
            }
        }
    }

    /** The Thanos query's base URL (the Prometheus query API). */
    @Override
    public String url() {
        return "http://127.0.0.1:" + port(4);
    }

    /** The receiver's remote write URL, {@code http://127.0.0.1:<port>/api/v1/receive}. */
    @Override
    public String remoteWriteUrl() {
        return "http://127.0.0.1:" + port(2) + "/api/v1/receive";
    }

    @Override
    public VerificationResult readBack(String selector, ExpectedSamples expected) throws IOException, InterruptedException {
        return PrometheusServer.readBack(http, url(), selector, expected);
    }

    @Override
    public VerificationResult readBackWithin(String selector, ExpectedSamples expected, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            VerificationResult r;
            try {
                r = readBack(selector, expected);
            } catch (IOException e) { // the query may not have found its store yet
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
                continue;
            }
            if (r.passed() || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(500);
        }
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
            for (Process p : new Process[] {query, receive}) {
                if (p != null) {
                    ChildProcesses.terminate(p, Duration.ofSeconds(20));
                }
            }
        } finally {
            ports.forEach(FreePorts.Reservation::close);
            http.close();
        }
    }

    @Override
    public String toString() {
        return "ThanosReceive[" + remoteWriteUrl() + ", query " + url() + "]";
    }
}
