package io.tsdbwriter.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The HTTP side of a single-node VictoriaMetrics at a base URL, shared by the local process ({@link VictoriaMetrics})
 * and the container ({@link ContainerVictoriaMetrics}): health, force-flush, export, import, GET. See
 * {@link VictoriaMetrics}'s class doc for what a flush does and does not guarantee.
 *
 * <p>Holds one {@link HttpClient}, replaced by {@link #renew()} when the server (re)starts (pooled connections to the
 * previous process are dead). Thread-safe; a call racing a renewal may fail with an I/O error.
 */
final class VmHttp implements AutoCloseable {

    private final String url;
    private volatile HttpClient http = newHttpClient();

    VmHttp(String url) {
        this.url = url;
    }

    /** The base URL (no trailing slash). */
    String url() {
        return url;
    }

    /** Replaces the client with a fresh one and closes the old. */
    void renew() {
        HttpClient old = http;
        http = newHttpClient();
        old.close();
    }

    /**
     * Polls {@code /health} every 50 ms until it answers 200 {@code OK} (then null), {@code alive} turns false (then
     * {@code "exited"}) or {@code timeout} passes (then {@code "not healthy after <timeout> (<last answer>)"}).
     */
    String awaitHealthy(Duration timeout, BooleanSupplier alive) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer yet";
        while (alive.getAsBoolean()) {
            try {
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create(url + "/health"))
                                .timeout(Duration.ofSeconds(2))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200 && health.body().trim().equals("OK")) {
                    return null;
                }
                last = health.statusCode() + " " + health.body();
            } catch (IOException e) {
                last = e.toString();
            }
            if (Instant.now().isAfter(deadline)) {
                return "not healthy after " + timeout + " (" + last + ")";
            }
            Thread.sleep(50);
        }
        return "exited";
    }

    /** GET {@code /internal/force_flush}: converts buffered rows into searchable parts. */
    void forceFlush() {
        HttpResponse<String> response = get("/internal/force_flush");
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("force_flush answered " + response.statusCode() + ": " + response.body());
        }
    }

    /** GET {@code /api/v1/export?match[]=<match>&start=0&end=<now+2d>}: the non-blank JSON lines, one per series. */
    List<String> export(String match) {
        long end = Instant.now().plus(Duration.ofDays(2)).getEpochSecond();
        HttpResponse<String> response = get("/api/v1/export?match%5B%5D="
                + URLEncoder.encode(match, StandardCharsets.UTF_8) + "&start=0&end=" + end);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("export answered " + response.statusCode() + ": " + response.body());
        }
        return response.body().lines().filter(line -> !line.isBlank()).toList();
    }

    /** Force-flushes and exports until {@code done} accepts the lines or the timeout passes; the last export either way. */
    List<String> awaitExport(String match, Predicate<List<String>> done, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            forceFlush();
            List<String> lines = export(match);
            if (done.test(lines) || Instant.now().isAfter(deadline)) {
                return lines;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return lines;
            }
        }
    }

    /** POSTs JSON lines to {@code /api/v1/import}; the HTTP status (204 when accepted into the buffer). */
    int importLines(String jsonLines) {
        return send(HttpRequest.newBuilder(URI.create(url + "/api/v1/import"))
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(jsonLines, StandardCharsets.UTF_8))
                        .build())
                .statusCode();
    }

    /** GET {@code url + pathAndQuery}. */
    HttpResponse<String> get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    }

    @Override
    public void close() {
        http.close();
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + request.method() + " " + request.uri(), e);
        }
    }

    private static HttpClient newHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }
}
