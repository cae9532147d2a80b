package io.tsdbwriter.it.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A small HTTP fault proxy on a free loopback port in front of a real VictoriaMetrics: passes requests through,
 * or answers import requests with a status (503 as vminsert's queue timeout, 429 with Retry-After), or holds them
 * longer than the writer's call timeout. Only write requests are faulted — {@code /api/v1/import} and remote write
 * ({@code /api/v1/write}, {@code /api/v1/push}); {@code /metrics} and the rest always pass. Thread-safe; switch modes at
 * any time.
 */
public final class FaultProxy implements AutoCloseable {

    /** What the proxy does with an import request. */
    public sealed interface Mode permits Pass, Status, Slow, RejectContaining, Delay, RejectLabel, StoreThenStatus {}

    /** Forward unchanged. */
    public record Pass() implements Mode {}

    /** Answer {@code code} without forwarding; {@code retryAfterSeconds} ≥ 0 adds a Retry-After header. */
    public record Status(int code, int retryAfterSeconds) implements Mode {}

    /** Hold the request for {@code delay}, then answer 503 without forwarding. */
    public record Slow(Duration delay) implements Mode {}

    /** Answer 400 (as VictoriaMetrics does for a body it refuses) when the body contains {@code marker}; else pass. */
    public record RejectContaining(String marker) implements Mode {}

    /**
     * Answer 400 (as Prometheus and VictoriaMetrics do for data they refuse) when any series of the request carries
     * label {@code name="value"}; else pass. Remote write bodies are decoded (snappy, then the protobuf
     * {@code WriteRequest}, {@link RemoteWriteBodies}); import bodies are searched for {@code "name":"value"}.
     */
    public record RejectLabel(String name, String value) implements Mode {}

    /** Forward every import request after holding it for {@code delay} (a slow but healthy VictoriaMetrics). */
    public record Delay(Duration delay) implements Mode {}

    /**
     * Forward every import request (VictoriaMetrics stores it), then answer {@code code} instead of its answer: a writer
     * that has written but never hears so (a lost acknowledgement), counted as faulted.
     */
    public record StoreThenStatus(int code) implements Mode {}

    private final HttpServer server;
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String target;
    private final AtomicReference<Mode> mode = new AtomicReference<>(new Pass());
    private final AtomicInteger faulted = new AtomicInteger();
    private final AtomicInteger passed = new AtomicInteger();
    private final Map<Integer, AtomicInteger> injected = new ConcurrentHashMap<>();

    /** @param targetUrl the real VictoriaMetrics base URL, e.g. http://127.0.0.1:8428 */
    public FaultProxy(String targetUrl) throws IOException {
        this(targetUrl, 0);
    }

    /**
     * A proxy on a given loopback port: an endpoint that refused connections (nothing listened there, the port held
     * by a {@link FreePorts.Reservation}) and now answers.
     *
     * @param port the port to listen on; 0 for a free one
     */
    public FaultProxy(String targetUrl, int port) throws IOException {
        this.target = targetUrl.endsWith("/") ? targetUrl.substring(0, targetUrl.length() - 1) : targetUrl;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    /** The proxy's base URL. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Switches what import requests get from now on. */
    public void mode(Mode m) {
        mode.set(m);
    }

    /** Import requests answered with a fault so far. */
    public int faulted() {
        return faulted.get();
    }

    /**
     * Import requests the proxy answered itself with {@code status} so far ({@link Status}, {@link Slow}'s 503, the
     * 400 of {@link RejectContaining} and {@link RejectLabel}); answers VictoriaMetrics gave are not counted.
     */
    public int answered(int status) {
        AtomicInteger n = injected.get(status);
        return n == null ? 0 : n.get();
    }

    /** Import requests passed through so far. */
    public int passed() {
        return passed.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            String path = ex.getRequestURI().getPath();
            boolean isImport =
                    path.endsWith("/api/v1/import") || path.endsWith("/api/v1/write") || path.endsWith("/api/v1/push");
            Mode m = isImport ? mode.get() : new Pass();
            switch (m) {
                case Status s -> {
                    faulted.incrementAndGet();
                    if (s.retryAfterSeconds() >= 0) {
                        ex.getResponseHeaders().set("Retry-After", Integer.toString(s.retryAfterSeconds()));
                    }
                    inject(ex, s.code(), ("injected " + s.code() + "\n").getBytes());
                }
                case Slow s -> {
                    faulted.incrementAndGet();
                    try {
                        Thread.sleep(s.delay().toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    inject(ex, 503, "slow\n".getBytes());
                }
                case RejectContaining r -> {
                    if (new String(body, StandardCharsets.UTF_8).contains(r.marker())) {
                        faulted.incrementAndGet();
                        inject(ex, 400, "cannot parse: injected rejection\n".getBytes());
                    } else {
                        passed.incrementAndGet();
                        forward(ex, body);
                    }
                }
                case RejectLabel r -> {
                    if (carries(ex, body, r)) {
                        faulted.incrementAndGet();
                        inject(
                                ex,
                                400,
                                ("out of bounds: injected rejection of " + r.name() + "=" + r.value() + "\n")
                                        .getBytes());
                    } else {
                        passed.incrementAndGet();
                        forward(ex, body);
                    }
                }
                case Delay d -> {
                    try {
                        Thread.sleep(d.delay().toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    passed.incrementAndGet();
                    forward(ex, body);
                }
                case StoreThenStatus st -> {
                    faulted.incrementAndGet();
                    forwardOnly(ex, body);
                    send(ex, st.code(), ("stored, answered " + st.code() + "\n").getBytes());
                }
                case Pass p -> {
                    if (isImport) {
                        passed.incrementAndGet();
                    }
                    forward(ex, body);
                }
            }
        }
    }

    private static boolean carries(HttpExchange ex, byte[] body, RejectLabel r) throws IOException {
        if ("snappy".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
            for (RemoteWriteBodies.Series s : RemoteWriteBodies.decodeSnappy(body)) {
                if (r.value().equals(s.label(r.name()))) {
                    return true;
                }
            }
            return false;
        }
        return new String(body, StandardCharsets.UTF_8).contains("\"" + r.name() + "\":\"" + r.value() + "\"");
    }

    private void forward(HttpExchange ex, byte[] body) throws IOException {
        try {
            HttpResponse<byte[]> resp = client.send(request(ex, body), HttpResponse.BodyHandlers.ofByteArray());
            send(ex, resp.statusCode(), resp.body());
        } catch (IOException e) {
            send(ex, 502, ("proxy: " + e.getMessage() + "\n").getBytes());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            send(ex, 502, "proxy interrupted\n".getBytes());
        }
    }

    /** Sends the request on to the target and drops its answer (the caller answers). */
    private void forwardOnly(HttpExchange ex, byte[] body) {
        try {
            client.send(request(ex, body), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // not stored: the writer hears the caller's answer either way
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpRequest request(HttpExchange ex, byte[] body) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(target + ex.getRequestURI()))
                .timeout(Duration.ofSeconds(60))
                .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        String enc = ex.getRequestHeaders().getFirst("Content-Encoding");
        if (enc != null) {
            req.header("Content-Encoding", enc);
        }
        for (String h : new String[] {"Content-Type", "X-Prometheus-Remote-Write-Version", "User-Agent"}) {
            String v = ex.getRequestHeaders().getFirst(h);
            if (v != null) {
                req.header(h, v);
            }
        }
        return req.build();
    }

    private void inject(HttpExchange ex, int status, byte[] body) throws IOException {
        injected.computeIfAbsent(status, k -> new AtomicInteger()).incrementAndGet();
        send(ex, status, body);
    }

    private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        if (status == 204) {
            ex.sendResponseHeaders(204, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
