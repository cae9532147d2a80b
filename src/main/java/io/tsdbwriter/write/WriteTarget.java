package io.tsdbwriter.write;

import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.write.http.SafeUrl;
import java.net.URI;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One VictoriaMetrics write target (DESIGN §6). {@code baseUrl} is what the import path is appended to:
 * {@code http://vm:8428} for single-node or {@code http://vminsert:8480/insert/<accountID>/prometheus} for a
 * cluster. Its own {@code /metrics} (for {@code vm_concurrent_insert_capacity}) is at the root of the same host.
 * A {@code user:password@} in the given URL is taken out ({@link io.tsdbwriter.write.http.SafeUrl}): every URL this
 * class returns is without it, so it can be logged and used as a meter tag; the credentials reach requests through
 * {@link io.tsdbwriter.write.http.HttpClientSecurity}. Thread-safe.
 */
public final class WriteTarget {

    private final String baseUrl;
    private final String importUrl;
    private final String metricsUrl;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Whether each tenant's requests go to {@code <base>/insert/<tenant>/prometheus/api/v1/import}. */
    private final boolean tenantPath;

    private final ConcurrentHashMap<Tenant, String> tenantUrls = new ConcurrentHashMap<>();

    /** @throws IllegalArgumentException when {@code baseUrl} is not an absolute http(s) URL (the message shows no userinfo) */
    public WriteTarget(String baseUrl) {
        this(baseUrl, false, false);
    }

    /**
     * An import target that routes by tenant ({@code --tenant-from}): {@code baseUrl} is a VictoriaMetrics cluster's
     * vminsert (or a vmauth in front of it) without a path of its own, e.g. {@code http://vminsert:8480}, and a batch of
     * tenant {@code T} goes to {@code <base>/insert/T/prometheus/api/v1/import} (VictoriaMetrics cluster, "URL format").
     *
     * @throws IllegalArgumentException when the URL is not http(s), or already names a tenant ({@code /insert/…})
     */
    public static WriteTarget tenantRouted(String baseUrl) {
        return new WriteTarget(baseUrl, false, true);
    }

    /**
     * A remote write target given by its whole URL ({@code --remote-write-url}), e.g. VictoriaMetrics
     * {@code http://vm:8428/api/v1/write}, vminsert {@code http://vminsert:8480/insert/0/prometheus/api/v1/write},
     * Prometheus {@code http://prom:9090/api/v1/write}, Mimir {@code http://mimir/api/v1/push}: requests go to it
     * unchanged, and its capacity is read from {@code scheme://host:port/metrics} (VictoriaMetrics single-node and
     * vminsert serve {@code vm_concurrent_insert_capacity} there; other receivers do not, and get the fallback).
     *
     * @throws IllegalArgumentException when {@code url} is not an absolute http(s) URL
     */
    public static WriteTarget remoteWrite(String url) {
        return new WriteTarget(url, true, false);
    }

    private WriteTarget(String baseUrl, boolean wholeUrl, boolean tenantPath) {
        this.tenantPath = tenantPath;
        String b = SafeUrl.parse(baseUrl).url();
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        URI uri;
        String shown = SafeUrl.redact(b);
        try {
            uri = URI.create(b);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "invalid " + (wholeUrl ? "remote write" : "VictoriaMetrics") + " URL '" + shown + "'");
        }
        if (uri.getScheme() == null
                || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("invalid " + (wholeUrl ? "remote write" : "VictoriaMetrics") + " URL '"
                    + shown + "': expected http(s)://host[:port][/path]");
        }
        if (!wholeUrl
                && (uri.getPath().endsWith("/api/v1/import") || uri.getPath().endsWith("/api/v1/write"))) {
            throw new IllegalArgumentException("--vm-url is the base URL /api/v1/import is appended to: give '"
                    + shown.substring(0, shown.lastIndexOf("/api/v1/")) + "', not '" + shown + "'"
                    + (uri.getPath().endsWith("/api/v1/write")
                            ? " (remote write: --output remote-write --remote-write-url)"
                            : ""));
        }
        if (tenantPath && uri.getPath().contains("/insert/")) {
            throw new IllegalArgumentException(
                    "with --tenant-from, --vm-url is the vminsert base URL the tenant's path is appended to "
                            + "(/insert/<accountID>[:<projectID>]/prometheus): give '"
                            + shown.substring(0, shown.indexOf("/insert/"))
                            + "', not '" + shown + "'");
        }
        this.baseUrl = b;
        this.importUrl = wholeUrl ? b : b + "/api/v1/import";
        this.metricsUrl = uri.getScheme() + "://" + uri.getRawAuthority() + "/metrics";
    }

    /** The base URL as given, without userinfo and a trailing slash. */
    public String baseUrl() {
        return baseUrl;
    }

    /** {@code <base>/api/v1/import}. */
    public String importUrl() {
        return importUrl;
    }

    /** Where write requests go: {@link #importUrl()}, or the whole URL of a {@link #remoteWrite} target. */
    public String writeUrl() {
        return importUrl;
    }

    /**
     * Where the write requests of {@code tenant} go: {@link #writeUrl()}, or, for a {@link #tenantRouted} target, the
     * tenant's {@code <base>/insert/<tenant>/prometheus/api/v1/import} (built once per tenant).
     */
    public String writeUrl(Tenant tenant) {
        if (tenant == null || !tenantPath) {
            return importUrl;
        }
        return tenantUrls.computeIfAbsent(tenant, t -> baseUrl + "/insert/" + t.id() + "/prometheus/api/v1/import");
    }

    /** {@code scheme://host:port/metrics} of the target process (vminsert or single-node). */
    public String metricsUrl() {
        return metricsUrl;
    }

    /** Requests now in flight to this endpoint. */
    public int inFlight() {
        return inFlight.get();
    }

    void begin() {
        inFlight.incrementAndGet();
    }

    void end() {
        inFlight.decrementAndGet();
    }

    @Override
    public String toString() {
        return baseUrl;
    }
}
