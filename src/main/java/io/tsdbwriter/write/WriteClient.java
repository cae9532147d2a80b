package io.tsdbwriter.write;

import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.NoDelaySocketFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The write client: one shared {@link OkHttpClient} posting request bodies in the run's {@link Output} protocol —
 * JSON lines to {@code /api/v1/import} (VictoriaMetrics docs, "How to import data in JSON line format"), or
 * Prometheus Remote-Write 1.0 or 2.0 ({@link RemoteWriteVersion}: a snappy block-compressed protobuf {@code WriteRequest}
 * or {@code io.prometheus.write.v2.Request} with the specification's
 * headers) to a whole remote write URL. Both outputs are built by the same constructor, so every HTTP setting
 * (timeouts, pool, and the authentication/TLS settings) applies to both unchanged. Each call is synchronous and
 * meant to run on a virtual thread; it never throws for HTTP or I/O failures, it returns a {@link WriteOutcome}
 * classified by {@link ResponseClassifier} for the protocol. Thread-safe.
 */
public final class WriteClient implements AutoCloseable {

    private static final MediaType JSON_LINES = MediaType.get("application/stream+json");
    /** {@code X-Prometheus-Remote-Write-Version} of Remote-Write 1.0. */
    public static final String REMOTE_WRITE_VERSION = "0.1.0";

    private final OkHttpClient http;
    private final boolean gzip;
    private final Output output;
    private final SnappyBlock snappy;
    private final RemoteWriteVersion remoteWriteVersion;
    private final MediaType remoteWriteType;
    private final RequestBodyBuilder v2Body;
    /** The remote write request header that carries a batch's tenant ({@code --remote-write-tenant-header}). */
    private final String tenantHeader;

    /**
     * A body ready to send: {@code bytes[0, length)}, compressed once for all attempts of a batch.
     *
     * @param samples samples the body carries (what a Remote-Write 2.0 receiver must confirm), or -1 when unknown
     * @param tenant  the tenant it is written for ({@link WriteTarget#writeUrl(Tenant)}, the tenant header), or null
     */
    public record Payload(byte[] bytes, int length, SnappyBlock.Compressed pooled, long samples, Tenant tenant) {
        /** A payload whose sample count is not known (import bodies, tests). */
        public Payload(byte[] bytes, int length, SnappyBlock.Compressed pooled) {
            this(bytes, length, pooled, -1, null);
        }

        /** A payload of no tenant ({@code --tenant-from} not given). */
        public Payload(byte[] bytes, int length, SnappyBlock.Compressed pooled, long samples) {
            this(bytes, length, pooled, samples, null);
        }
    }

    /**
     * @param callTimeout   whole-request timeout; keep it above vminsert's {@code -insert.maxQueueDuration} (60 s)
     *                      so a queued request gets its 503 rather than being abandoned by us
     * @param maxIdle       idle connections kept per endpoint (the write permits)
     * @param gzip          compress bodies ({@code Content-Encoding: gzip})
     */
    public WriteClient(Duration callTimeout, int maxIdle, boolean gzip) {
        this(callTimeout, maxIdle, gzip, Output.IMPORT, HttpClientSecurity.of(HttpAuthConfig.NONE));
    }

    /**
     * As {@link #WriteClient(Duration, int, boolean)}, in the import protocol, with authentication and TLS applied
     * to every request of the client (imports and {@code /metrics} probes alike).
     *
     * @throws IllegalArgumentException when the TLS files cannot be read
     */
    public WriteClient(Duration callTimeout, int maxIdle, boolean gzip, HttpClientSecurity security) {
        this(callTimeout, maxIdle, gzip, Output.IMPORT, security);
    }

    /** As {@link #WriteClient(Duration, int, boolean)}, in the protocol {@code output}, without authentication or TLS settings. */
    public WriteClient(Duration callTimeout, int maxIdle, boolean gzip, Output output) {
        this(callTimeout, maxIdle, gzip, output, HttpClientSecurity.of(HttpAuthConfig.NONE));
    }

    /**
     * @param output   the protocol requests are sent in; {@link Output#REMOTE_WRITE} always compresses with snappy
     *                 ({@code gzip} must then be false)
     * @param security authentication and TLS applied to every request of the client (writes and {@code /metrics}
     *                 probes alike)
     * @throws IllegalArgumentException when gzip is asked for remote write, or the TLS files cannot be read
     */
    public WriteClient(Duration callTimeout, int maxIdle, boolean gzip, Output output, HttpClientSecurity security) {
        this(callTimeout, maxIdle, gzip, output, security, RemoteWriteVersion.V1, null);
    }

    /**
     * As {@link #WriteClient(Duration, int, boolean, Output, HttpClientSecurity)}, sending remote write in
     * {@code version}.
     *
     * @param version the Remote-Write message of {@link Output#REMOTE_WRITE} requests ({@code --remote-write-version})
     * @param v2Body  builds a 2.0 request from a batch's 1.0 body; required for {@link RemoteWriteVersion#V2}
     * @throws IllegalArgumentException also when version 2 comes without {@code v2Body}
     */
    public WriteClient(
            Duration callTimeout,
            int maxIdle,
            boolean gzip,
            Output output,
            HttpClientSecurity security,
            RemoteWriteVersion version,
            RequestBodyBuilder v2Body) {
        this(callTimeout, maxIdle, gzip, output, security, version, v2Body, "X-Scope-OrgID");
    }

    /**
     * As the 7-argument constructor, with the remote write header that carries a tenant ({@code --remote-write-tenant-header}:
     * {@code X-Scope-OrgID} for Mimir and Cortex, {@code THANOS-TENANT} for Thanos receive), sent on every remote write
     * request of a batch that has a tenant; import requests carry the tenant in their path instead.
     */
    public WriteClient(
            Duration callTimeout,
            int maxIdle,
            boolean gzip,
            Output output,
            HttpClientSecurity security,
            RemoteWriteVersion version,
            RequestBodyBuilder v2Body,
            String tenantHeader) {
        this.tenantHeader = Objects.requireNonNull(tenantHeader, "tenantHeader");
        this.remoteWriteVersion = Objects.requireNonNull(version, "version");
        if (version == RemoteWriteVersion.V2 && v2Body == null) {
            throw new IllegalArgumentException("Remote-Write 2.0 needs a request body builder");
        }
        this.v2Body = version == RemoteWriteVersion.V2 ? v2Body : null;
        this.remoteWriteType = MediaType.get(version.contentType());
        if (gzip && output == Output.REMOTE_WRITE) {
            throw new IllegalArgumentException(
                    "remote write bodies are snappy-compressed; --compression gzip applies to --output import only");
        }
        this.output = output;
        this.snappy = output == Output.REMOTE_WRITE ? new SnappyBlock(Math.max(8, maxIdle)) : null;
        this.http = security.configure(new OkHttpClient.Builder())
                // Nagle off: a body under one segment would otherwise wait for the receiver's delayed ACK (~40 ms)
                .socketFactory(new NoDelaySocketFactory())
                .connectTimeout(Duration.ofSeconds(5))
                .readTimeout(callTimeout)
                .writeTimeout(callTimeout)
                .callTimeout(callTimeout)
                .retryOnConnectionFailure(false)
                // a followed 301/302 turns the POST into a GET without its body, which the receiver answers 2xx:
                // samples counted as written and never stored. A redirect is a configuration fault (ResponseClassifier)
                .followRedirects(false)
                .followSslRedirects(false)
                .connectionPool(new ConnectionPool(Math.max(1, maxIdle), 5, TimeUnit.MINUTES))
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

    /** The protocol requests are sent in. */
    public Output output() {
        return output;
    }

    /** The Remote-Write message of remote write requests. */
    public RemoteWriteVersion remoteWriteVersion() {
        return remoteWriteVersion;
    }

    /**
     * Prepares the bytes to send for a body, once for every attempt: snappy-compressed for remote write (into a
     * pooled buffer: give it back with {@link #release}), gzip-compressed for import with gzip on, else the body.
     */
    public Payload prepare(ByteBuf body) {
        return prepare(body, -1);
    }

    /**
     * {@link #prepare(ByteBuf)} for a body of {@code samples} samples: a Remote-Write 2.0 request is built from it
     * (its symbol table) and its receiver's answer is checked against that count.
     */
    public Payload prepare(ByteBuf body, long samples) {
        return prepare(body, samples, null);
    }

    /** {@link #prepare(ByteBuf, long)} of a batch of {@code tenant} (null: none), which its requests are routed by. */
    public Payload prepare(ByteBuf body, long samples, Tenant tenant) {
        if (snappy != null) {
            ByteBuf wire = v2Body != null ? v2Body.build(body.array(), body.length()) : body;
            SnappyBlock.Compressed c = snappy.compress(wire.array(), wire.length());
            return new Payload(c.array(), c.length(), c, samples, tenant);
        }
        byte[] gz = payload(body);
        return gz != null
                ? new Payload(gz, gz.length, null, -1, tenant)
                : new Payload(body.array(), body.length(), null, -1, tenant);
    }

    /** Returns a payload's pooled buffer (if any) once its batch is done. */
    public void release(Payload p) {
        if (p != null && p.pooled() != null) {
            snappy.release(p.pooled());
        }
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
    public WriteOutcome post(WriteTarget endpoint, ByteBuf body, byte[] gzipped) {
        if (output == Output.REMOTE_WRITE) {
            Payload p = prepare(body);
            try {
                return post(endpoint, p);
            } finally {
                release(p);
            }
        }
        return post(
                endpoint,
                gzipped != null
                        ? new Payload(gzipped, gzipped.length, null)
                        : new Payload(body.array(), body.length(), null));
    }

    /**
     * Posts one prepared body ({@link #prepare}) to the endpoint's write URL with the protocol's headers: for remote
     * write {@code Content-Encoding: snappy}, the version's {@code Content-Type} and
     * {@code X-Prometheus-Remote-Write-Version} ({@code application/x-protobuf} and {@code 0.1.0} for 1.0,
     * {@code application/x-protobuf;proto=io.prometheus.write.v2.Request} and {@code 2.0.0} for 2.0) and
     * {@code User-Agent: tsdb-writer/<version>}. A 2.0 answer is checked against the payload's sample count
     * ({@link ResponseClassifier#classifyRemoteWrite2}). A payload with a tenant goes to the endpoint's URL of that tenant
     * ({@link WriteTarget#writeUrl(Tenant)}) and, in remote write, carries it in the tenant header.
     */
    public WriteOutcome post(WriteTarget endpoint, Payload payload) {
        Request.Builder req = new Request.Builder().url(endpoint.writeUrl(payload.tenant()));
        if (output == Output.REMOTE_WRITE && payload.tenant() != null) {
            req.header(tenantHeader, payload.tenant().id());
        }
        if (output == Output.REMOTE_WRITE) {
            req.post(RequestBody.create(payload.bytes(), remoteWriteType, 0, payload.length()))
                    .header("Content-Encoding", "snappy")
                    .header("X-Prometheus-Remote-Write-Version", remoteWriteVersion.versionHeader())
                    .header("User-Agent", USER_AGENT);
        } else {
            req.post(RequestBody.create(payload.bytes(), JSON_LINES, 0, payload.length()));
            if (gzip) {
                req.header("Content-Encoding", "gzip");
            }
        }
        endpoint.begin();
        try (Response resp = http.newCall(req.build()).execute()) {
            String detail = "";
            if (!resp.isSuccessful()) {
                ResponseBody b = resp.body();
                detail = b == null ? "" : excerpt(b.string());
            }
            if (output == Output.REMOTE_WRITE && remoteWriteVersion == RemoteWriteVersion.V2) {
                return ResponseClassifier.classifyRemoteWrite2(
                        resp.code(),
                        resp.header("Retry-After"),
                        detail,
                        resp.header("Location"),
                        payload.samples(),
                        RemoteWriteVersion.written(
                                resp.header(RemoteWriteVersion.SAMPLES_WRITTEN_HEADER),
                                resp.header(RemoteWriteVersion.HISTOGRAMS_WRITTEN_HEADER)));
            }
            return ResponseClassifier.classify(
                    output, resp.code(), resp.header("Retry-After"), detail, resp.header("Location"));
        } catch (InterruptedIOException e) {
            return ResponseClassifier.noResponse(new IOException("timeout: " + e.getMessage(), e));
        } catch (IOException | RuntimeException e) {
            return ResponseClassifier.noResponse(e);
        } finally {
            endpoint.end();
        }
    }

    /**
     * Posts an empty body (no sample) to the endpoint in the run's protocol: the writer's test of whether a refusal
     * depends on the data. VictoriaMetrics, Prometheus and Mimir accept an empty request with 2xx; an endpoint that
     * refuses it too is misconfigured (a wrong path prefix, an unknown token), not refusing the data.
     */
    public WriteOutcome probeEmpty(WriteTarget endpoint) {
        return probeEmpty(endpoint, null);
    }

    /** {@link #probeEmpty(WriteTarget)} as a request of {@code tenant} (its path or header; null: none). */
    public WriteOutcome probeEmpty(WriteTarget endpoint, Tenant tenant) {
        Payload p = prepare(EMPTY, 0, tenant);
        try {
            return post(endpoint, p);
        } finally {
            release(p);
        }
    }

    private static final ByteBuf EMPTY = new ByteBuf(16);

    /** {@code tsdb-writer/<version>} ({@code dev} when run from classes, not the jar). */
    public static final String USER_AGENT = "tsdb-writer/"
            + Objects.requireNonNullElse(WriteClient.class.getPackage().getImplementationVersion(), "dev");

    /**
     * The start of a response body, fit for a log line: at most 300 characters, and any credentials the endpoint
     * echoed back cut out (vmauth answers an unknown token with {@code cannot find the provided auth token "Bearer …"}).
     */
    static String excerpt(String s) {
        String t = ECHOED_CREDENTIALS.matcher(s.strip()).replaceAll("$1 ***");
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }

    private static final Pattern ECHOED_CREDENTIALS = Pattern.compile("(?i)\\b(Bearer|Basic)\\s+[^\\s\"'`,;)]+");

    @Override
    public void close() {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
