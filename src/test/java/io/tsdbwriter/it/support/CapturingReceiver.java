package io.tsdbwriter.it.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.xerial.snappy.Snappy;

/**
 * A remote write receiver that records every request it gets, on loopback, for the conformance tests (issue 53 item
 * 6): method, path, headers, body, arrival time; the answer is the {@link Responder}'s. A write it answers 2xx to is
 * not stored anywhere: the test reads what was sent, not what a TSDB made of it. It answers a Remote-Write 2.0
 * request's 2xx with {@code X-Prometheus-Remote-Write-Samples-Written} (the samples it carried), as the specification
 * requires of a receiver. Thread-safe.
 */
public final class CapturingReceiver implements AutoCloseable {

    /** One request as it arrived. {@code body} is the snappy-decompressed message, or null when it did not decompress. */
    public record Request(
            long arrivedNanos, String method, String path, Map<String, String> headers, byte[] raw, byte[] body) {
        /** A header by name, case-insensitive; null when absent. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** An answer: status, headers. */
    public record Answer(int status, Map<String, String> headers) {
        /** {@code status} without headers. */
        public static Answer of(int status) {
            return new Answer(status, Map.of());
        }
    }

    /** Chooses the answer to a request; {@code index} counts the requests before it. */
    @FunctionalInterface
    public interface Responder {
        Answer answer(Request request, int index);
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile Responder responder = (r, i) -> Answer.of(204);
    private final boolean v2;

    /** @param v2 answer as a Remote-Write 2.0 receiver (the samples-written header on every 2xx) */
    public CapturingReceiver(boolean v2) throws IOException {
        this.v2 = v2;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    /** Sets how requests from now on are answered. */
    public CapturingReceiver answering(Responder r) {
        this.responder = r;
        return this;
    }

    /** {@code http://127.0.0.1:<port>/api/v1/write}. */
    public String writeUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write";
    }

    /** Every request so far, in arrival order. */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange x) throws IOException {
        long at = System.nanoTime();
        byte[] raw;
        try (InputStream in = x.getRequestBody()) {
            raw = in.readAllBytes();
        }
        Map<String, String> headers = new TreeMap<>();
        x.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        byte[] body;
        try {
            body = raw.length == 0 ? new byte[0] : Snappy.uncompress(raw);
        } catch (IOException e) {
            body = null;
        }
        Request r = new Request(at, x.getRequestMethod(), x.getRequestURI().getPath(), Map.copyOf(headers), raw, body);
        int index;
        synchronized (requests) {
            index = requests.size();
            requests.add(r);
        }
        Answer a = responder.answer(r, index);
        a.headers().forEach((k, v) -> x.getResponseHeaders().add(k, v));
        if (v2 && a.status() / 100 == 2 && body != null) {
            x.getResponseHeaders().add("X-Prometheus-Remote-Write-Samples-Written", Long.toString(samplesV2(body)));
        }
        x.sendResponseHeaders(a.status(), -1);
        x.close();
    }

    private static long samplesV2(byte[] body) {
        try {
            long n = 0;
            for (RemoteWriteBodies.Series s : RemoteWriteBodies.decodeV2(body).series()) {
                n += s.samples().size();
            }
            return n;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The time series of a request's body, decoded as Remote-Write {@code version} 1 or 2. */
    public static List<RemoteWriteBodies.Series> series(Request r, int version) throws IOException {
        if (r.body() == null || r.body().length == 0) {
            return List.of();
        }
        return version == 2 ? RemoteWriteBodies.decodeV2(r.body()).series() : RemoteWriteBodies.decode(r.body());
    }

    /** The POSTs that carry at least one series (not the writer's empty probes), in arrival order. */
    public List<Request> writes(int version) throws IOException {
        List<Request> out = new ArrayList<>();
        for (Request r : requests) {
            if (r.method().equals("POST") && !series(r, version).isEmpty()) {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
