package io.tsdbwriter.write;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.OptionalInt;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Reads {@code vm_concurrent_insert_capacity} from a VictoriaMetrics process's {@code /metrics}: the size of its
 * insert concurrency limiter ({@code -maxConcurrentInserts}; 2 × cores in current releases, 4 × cores in 1.79).
 * Requests beyond it queue inside vminsert for up to {@code -insert.maxQueueDuration}, so the writer matches its
 * write permits to it (VictoriaMetrics {@code lib/writeconcurrencylimiter}). Stateless; thread-safe.
 */
public final class InsertCapacityProbe {

    /** The gauge read. */
    public static final String METRIC = "vm_concurrent_insert_capacity";

    private InsertCapacityProbe() {
    }

    /** @return the capacity, or empty when the endpoint cannot be reached or does not export the gauge */
    public static OptionalInt read(OkHttpClient client, WriteTarget endpoint) {
        Request req = new Request.Builder().url(endpoint.metricsUrl()).get().build();
        try (Response resp = client.newCall(req).execute()) {
            if (!resp.isSuccessful() || resp.body() == null) {
                return OptionalInt.empty();
            }
            try (BufferedReader r = new BufferedReader(resp.body().charStream())) {
                return parse(r);
            }
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    /** Finds the gauge in Prometheus text exposition. */
    static OptionalInt parse(BufferedReader r) throws IOException {
        String line;
        while ((line = r.readLine()) != null) {
            if (line.startsWith(METRIC) && line.length() > METRIC.length()
                    && (line.charAt(METRIC.length()) == ' ' || line.charAt(METRIC.length()) == '{')) {
                String v = line.substring(line.lastIndexOf(' ') + 1).trim();
                try {
                    double d = Double.parseDouble(v);
                    if (d >= 1 && d < 1_000_000) {
                        return OptionalInt.of((int) d);
                    }
                } catch (NumberFormatException e) {
                    return OptionalInt.empty();
                }
            }
        }
        return OptionalInt.empty();
    }
}
