package io.tsdbwriter.lab;

import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalDouble;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Reads VictoriaMetrics' own {@code /metrics}: its CPU time ({@code process_cpu_seconds_total}), its version, its
 * insert capacity, and waits for it to settle (background merges done) after a cell. Thread-safe.
 */
public final class VmProbe {

    /** VictoriaMetrics counts as settled when it used less than this many cores over {@link #SETTLE_WINDOW}. */
    static final double SETTLED_CORES = 0.05;

    static final Duration SETTLE_WINDOW = Duration.ofSeconds(1);

    private final OkHttpClient http;
    /** The page read: the endpoint's host's {@code /metrics}, or the one given. */
    private final String metricsUrl;

    /**
     * @param http a client to derive from; the probe retries on connection failures (VictoriaMetrics closes
     *             keep-alive connections that stayed idle while a long cell ran)
     */
    public VmProbe(OkHttpClient http, WriteTarget endpoint) {
        this(http, endpoint.metricsUrl());
    }

    /**
     * A probe of the page {@code metricsUrl} (a receiver whose {@code /metrics} is not on its write URL's host and
     * port: Thanos receive's HTTP address, {@code capacity --target …,metrics-url=…}).
     */
    public VmProbe(OkHttpClient http, String metricsUrl) {
        this.http = http.newBuilder().retryOnConnectionFailure(true).build();
        this.metricsUrl = metricsUrl;
    }

    /** The {@code /metrics} page (three attempts). @throws IOException when it cannot be read */
    String metrics() throws IOException {
        Request req = new Request.Builder().url(metricsUrl).get().build();
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try (Response resp = http.newCall(req).execute()) {
                if (!resp.isSuccessful() || resp.body() == null) {
                    throw new IOException(metricsUrl + " answered " + resp.code());
                }
                return resp.body().string();
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    /** VictoriaMetrics' CPU-seconds so far. @throws IOException when unreadable */
    public double cpuSeconds() throws IOException {
        OptionalDouble v = PromText.value(metrics(), "process_cpu_seconds_total");
        if (v.isEmpty()) {
            throw new IOException(metricsUrl + " has no process_cpu_seconds_total");
        }
        return v.getAsDouble();
    }

    /**
     * {@code vm_app_version}'s version label; when empty (distribution builds such as Debian's leave it so), the
     * version of the {@code victoria-metrics} Debian package installed on this machine, marked as such (right for
     * the local stack, which runs that binary); else "unknown".
     */
    public String version() {
        try {
            String v = PromText.label(metrics(), "vm_app_version", "version");
            if (v != null && !v.isEmpty()) {
                return v;
            }
        } catch (IOException e) {
            return "unknown";
        }
        return DpkgVersion.of("victoria-metrics")
                .map(d -> d + " (Debian package)")
                .orElse("unknown");
    }

    /**
     * Waits until VictoriaMetrics' CPU use drops below {@link #SETTLED_CORES} over {@link #SETTLE_WINDOW}, at most
     * {@code max}; returns its CPU-seconds then.
     */
    public double settle(Duration max) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        double last = cpuSeconds();
        while (true) {
            Thread.sleep(SETTLE_WINDOW.toMillis());
            double now = cpuSeconds();
            if (now - last < SETTLED_CORES * SETTLE_WINDOW.toMillis() / 1000.0 || System.nanoTime() > deadline) {
                return now;
            }
            last = now;
        }
    }

    /**
     * Asks the page's process to write what it buffers to its storage: {@code GET /internal/force_flush} on the
     * page's scheme, host and port (VictoriaMetrics single-node and vmstorage serve it, "Troubleshooting" of
     * VictoriaMetrics' docs; it returns once the buffered rows are in parts). One attempt, no retry.
     *
     * @return true on a 2xx; false when the process does not serve it (Prometheus, Thanos, a vminsert: 404) or did not
     *         answer
     */
    public boolean forceFlush() {
        HttpUrl page = HttpUrl.parse(metricsUrl);
        if (page == null) {
            return false;
        }
        HttpUrl url = page.newBuilder()
                .encodedPath("/internal/force_flush")
                .query(null)
                .build();
        try (Response resp =
                http.newCall(new Request.Builder().url(url).get().build()).execute()) {
            return resp.isSuccessful();
        } catch (IOException e) {
            return false;
        }
    }
}
