package io.tsdbwriter.sink.victoriametrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The VictoriaMetrics import client: one shared {@link OkHttpClient} posting JSON lines to
 * {@code /api/v1/import} (VictoriaMetrics docs, "How to import data in JSON line format"). Each call is
 * synchronous and meant to run on a virtual thread; it never throws for HTTP or I/O failures, it returns a
 * classified {@link WriteOutcome}. Thread-safe.
 */
public final class VmImportClient implements AutoCloseable {

    private static final MediaType JSON_LINES = MediaType.get("application/stream+json");

    private final OkHttpClient http;
    private final boolean gzip;

    /**
     * @param callTimeout   whole-request timeout; keep it above vminsert's {@code -insert.maxQueueDuration} (60 s)
     *                      so a queued request gets its 503 rather than being abandoned by us
     * @param maxIdle       idle connections kept per endpoint (the write permits)
     * @param gzip          compress bodies ({@code Content-Encoding: gzip})
     */
    public VmImportClient(Duration callTimeout, int maxIdle, boolean gzip) {
        this(callTimeout, maxIdle, gzip, io.tsdbwriter.sink.http.HttpClientSecurity.of(io.tsdbwriter.sink.http.HttpAuthConfig.NONE));
    }

    /**
     * As {@link #VmImportClient(Duration, int, boolean)}, with authentication and TLS applied to every request of the
     * client (imports and {@code /metrics} probes alike).
     *
     * @throws IllegalArgumentException when the TLS files cannot be read
     */
    public VmImportClient(Duration callTimeout, int maxIdle, boolean gzip, io.tsdbwriter.sink.http.HttpClientSecurity security) {
        this.http = security.configure(new OkHttpClient.Builder())
                .connectTimeout(Duration.ofSeconds(5))
                .readTimeout(callTimeout)
                .writeTimeout(callTimeout)
                .callTimeout(callTimeout)
                .retryOnConnectionFailure(false)
                .connectionPool(new ConnectionPool(Math.max(1, maxIdle), 5, java.util.concurrent.TimeUnit.MINUTES))
                .build();
        this.gzip = gzip;
    }

    /** The shared HTTP client (also used to read {@code /metrics}). */
    public OkHttpClient http() {
        return http;
    }

    /** Whether bodies are gzip-compressed. */
    public boolean gzip() {
        return gzip;
    }

    /** Prepares the bytes to send for a body (compressing once when gzip is on). */
    public byte[] payload(ByteBuf body) {
        if (!gzip) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length() / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            gz.write(body.array(), 0, body.length());
        } catch (IOException e) {
            throw new IllegalStateException("gzip into memory failed", e);
        }
        return out.toByteArray();
    }

    /**
     * Posts one body.
     *
     * @param gzipped the result of {@link #payload} when gzip is on, else null (the raw body is sent)
     */
    public WriteOutcome post(VmEndpoint endpoint, ByteBuf body, byte[] gzipped) {
        RequestBody rb = gzipped != null
                ? RequestBody.create(gzipped, JSON_LINES, 0, gzipped.length)
                : RequestBody.create(body.array(), JSON_LINES, 0, body.length());
        Request.Builder req = new Request.Builder().url(endpoint.importUrl()).post(rb);
        if (gzipped != null) {
            req.header("Content-Encoding", "gzip");
        }
        endpoint.begin();
        try (Response resp = http.newCall(req.build()).execute()) {
            String detail = "";
            if (!resp.isSuccessful()) {
                ResponseBody b = resp.body();
                detail = b == null ? "" : excerpt(b.string());
            }
            return ResponseClassifier.classify(resp.code(), resp.header("Retry-After"), detail);
        } catch (InterruptedIOException e) {
            return ResponseClassifier.noResponse(new IOException("timeout: " + e.getMessage(), e));
        } catch (IOException | RuntimeException e) {
            return ResponseClassifier.noResponse(e);
        } finally {
            endpoint.end();
        }
    }

    private static String excerpt(String s) {
        String t = s.strip();
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }

    @Override
    public void close() {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
