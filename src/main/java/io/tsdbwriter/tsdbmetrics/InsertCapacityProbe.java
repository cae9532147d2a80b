package io.tsdbwriter.tsdbmetrics;

import io.tsdbwriter.decode.Numbers;
import io.tsdbwriter.decode.prometheus.ExpositionLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;
import okhttp3.OkHttpClient;

/**
 * Reads {@code vm_concurrent_insert_capacity} from a VictoriaMetrics process's {@code /metrics}: the size of its
 * insert concurrency limiter ({@code -maxConcurrentInserts}; 2 × cores in current releases, 4 × cores in 1.79).
 * Requests beyond it queue inside vminsert for up to {@code -insert.maxQueueDuration}, so the writer matches its
 * write permits to it (VictoriaMetrics {@code lib/writeconcurrencylimiter}). Stateless; thread-safe.
 */
public final class InsertCapacityProbe {

    /** The gauge read. */
    public static final String METRIC = "vm_concurrent_insert_capacity";

    private InsertCapacityProbe() {}

    /**
     * @param metricsUrl the target's {@code /metrics} ({@code WriteTarget.metricsUrl()})
     * @return the capacity, or empty when the page cannot be read or does not export the gauge
     */
    public static OptionalInt read(OkHttpClient client, String metricsUrl) {
        return MetricsPage.read(client, metricsUrl, r -> {
                    OptionalInt v = parse(r);
                    return v.isPresent() ? Optional.of(v.getAsInt()) : Optional.empty();
                })
                .map(OptionalInt::of)
                .orElse(OptionalInt.empty());
    }

    /** Finds the gauge in Prometheus text exposition (the format's one tokenizer, {@link ExpositionLine}). */
    static OptionalInt parse(BufferedReader r) throws IOException {
        ExpositionLine scanner = new ExpositionLine();
        Numbers numbers = new Numbers();
        String line;
        while ((line = r.readLine()) != null) {
            if (!line.startsWith(METRIC)) {
                continue; // most lines: no bytes to scan
            }
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            if (scanner.scan(b, 0, b.length) != ExpositionLine.Kind.SAMPLE
                    || !ExpositionLine.text(b, scanner.metricStart(), scanner.metricEnd())
                            .equals(METRIC)) {
                continue;
            }
            if (!numbers.parseDouble(b, scanner.valueFrom(), scanner.valueTo())) {
                return OptionalInt.empty();
            }
            double d = numbers.doubleValue();
            if (d >= 1 && d < 1_000_000) {
                return OptionalInt.of((int) d);
            }
        }
        return OptionalInt.empty();
    }
}
