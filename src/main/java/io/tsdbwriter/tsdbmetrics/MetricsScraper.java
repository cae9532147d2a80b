package io.tsdbwriter.tsdbmetrics;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Reads {@code /metrics} pages (the writer's, and the targets': vminsert, vmstorage, single-node VictoriaMetrics) into
 * {@link PromSnapshot}s. A page that cannot be read is {@code null}: the figures that need it become unknown, never
 * guessed. Thread-safe (OkHttp is).
 */
public final class MetricsScraper {

    private final OkHttpClient http;
    /**
     * Pages that answered 404: there is none, so they are not asked again (a probe every 2 s would load a receiver
     * that records every request).
     */
    private final Set<String> absent = ConcurrentHashMap.newKeySet();

    /** @param http a client to derive from (its auth interceptors apply); each read times out after {@code timeout} */
    public MetricsScraper(OkHttpClient http, Duration timeout) {
        this.http = http.newBuilder()
                .callTimeout(timeout)
                .retryOnConnectionFailure(true)
                .build();
    }

    /** The page at {@code url}, or null when it cannot be read; a page that answered 404 once is not asked again. */
    public PromSnapshot scrape(String url) {
        if (absent.contains(url)) {
            return null;
        }
        Request req = new Request.Builder().url(url).get().build();
        try (Response resp = http.newCall(req).execute()) {
            if (resp.code() == 404) {
                absent.add(url);
            }
            if (!resp.isSuccessful() || resp.body() == null) {
                return null;
            }
            return PromSnapshot.parse(resp.body().string(), System.nanoTime());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Every page, in order; null entries where unreadable. */
    public List<PromSnapshot> scrapeAll(List<String> urls) {
        List<PromSnapshot> out = new ArrayList<>(urls.size());
        for (String u : urls) {
            out.add(scrape(u));
        }
        return out;
    }
}
