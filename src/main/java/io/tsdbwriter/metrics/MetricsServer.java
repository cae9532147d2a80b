package io.tsdbwriter.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * Serves {@code /metrics} (Prometheus text exposition from Micrometer), {@code /health/live} and
 * {@code /health/ready} (200 when ready, 503 otherwise) with the JDK's HTTP server. Thread-safe; idempotent close.
 */
public final class MetricsServer implements AutoCloseable {

    private final HttpServer server;

    /**
     * @param address address to bind (0.0.0.0 = every interface)
     * @param port    port to bind; 0 picks a free one
     * @param ready readiness: true once the writer is consuming
     * @throws IOException when the port cannot be bound
     */
    public MetricsServer(String address, int port, PrometheusMeterRegistry registry, BooleanSupplier ready)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext(
                "/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/health/live", ex -> respond(ex, 200, "text/plain", "OK\n"));
        server.createContext("/health/ready", ex -> {
            boolean ok = ready.getAsBoolean();
            respond(ex, ok ? 200 : 503, "text/plain", ok ? "OK\n" : "not ready\n");
        });
        server.start();
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
