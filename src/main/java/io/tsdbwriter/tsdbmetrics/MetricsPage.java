package io.tsdbwriter.tsdbmetrics;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.Optional;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * One GET of a target's {@code /metrics} page for a probe that looks for one sample in it ({@link InsertCapacityProbe},
 * {@link RetentionProbe}): the page is read line by line as it arrives and the probe's parser stops where it found
 * what it looks for. Stateless; thread-safe.
 */
final class MetricsPage {

    /** Reads a page of Prometheus text exposition up to what it needs. */
    @FunctionalInterface
    interface Parser<T> {
        Optional<T> parse(BufferedReader page) throws IOException;
    }

    private MetricsPage() {}

    /**
     * @return what {@code parser} found, or empty when the page cannot be fetched (no answer, not 2xx, no body) or
     *         the parser found nothing or failed
     */
    static <T> Optional<T> read(OkHttpClient client, String metricsUrl, Parser<T> parser) {
        Request req = new Request.Builder().url(metricsUrl).get().build();
        try (Response resp = client.newCall(req).execute()) {
            if (!resp.isSuccessful() || resp.body() == null) {
                return Optional.empty();
            }
            try (BufferedReader r = new BufferedReader(resp.body().charStream())) {
                return parser.parse(r);
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
