package io.tsdbwriter.tenant;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where a record's or a series' tenant comes from ({@code --tenant-from}, {@code --default-tenant},
 * {@code --remote-write-tenant-header}; docs/tenants.md). With {@link From#HEADER} the tenant is the value of a Kafka
 * record header, read once per record; with {@link From#LABEL} it is a label of the series, read once per series
 * <em>after</em> {@code --relabel-config} (so rules can set it, as vmagent's {@code vm_account_id}) and removed from
 * the series before it is written. A record or series without one gets {@link #defaultTenant()}, or, without a
 * default, is refused ({@code missing_tenant}); a value the receiver would not accept ({@link TenantSyntax}) is refused
 * ({@code invalid_tenant}). Immutable,
 * thread-safe; the {@link Tenants} registry it holds is shared by every reader of the process.
 *
 * @param from          where the tenant is read; {@link From#NONE}: no routing (the URL's static tenant, if any)
 * @param name          the header or label name (null with {@link From#NONE})
 * @param defaultTenant the tenant of what carries none, or null (then it is refused)
 * @param header        the remote write request header that carries the tenant (default {@value #DEFAULT_HEADER})
 * @param tenants       the registry of the tenants seen
 */
public record TenantRouting(From from, String name, Tenant defaultTenant, String header, Tenants tenants) {

    /** The remote write tenant header of Mimir, Cortex and Loki; Thanos receive's is {@value #THANOS_HEADER}. */
    public static final String DEFAULT_HEADER = "X-Scope-OrgID";
    /** Thanos receive's {@code --receive.tenant-header} default. */
    public static final String THANOS_HEADER = "THANOS-TENANT";
    /** No routing. */
    public static final TenantRouting NONE =
            new TenantRouting(From.NONE, null, null, DEFAULT_HEADER, new Tenants(TenantSyntax.ACCOUNT_ID));

    /** Where the tenant is read. */
    public enum From {
        NONE,
        HEADER,
        LABEL
    }

    public TenantRouting {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(tenants, "tenants");
        Objects.requireNonNull(header, "header");
    }

    /**
     * Parses the flags.
     *
     * @param tenantFrom    {@code header:NAME}, {@code label:NAME}, or null for none
     * @param defaultTenant a tenant in {@code syntax}, or null
     * @param header        the remote write tenant header name, or null for {@value #DEFAULT_HEADER}
     * @param syntax        what the receiver accepts as a tenant ({@link TenantSyntax#of})
     * @throws IllegalArgumentException naming the flag
     */
    public static TenantRouting parse(String tenantFrom, String defaultTenant, String header, TenantSyntax syntax) {
        Tenants tenants = new Tenants(syntax);
        String h = header == null ? DEFAULT_HEADER : header.trim();
        if (!h.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
            throw new IllegalArgumentException(
                    "--remote-write-tenant-header must be an HTTP header name, got '" + Tenant.printable(h) + "'");
        }
        if (tenantFrom == null || tenantFrom.isBlank()) {
            if (defaultTenant != null) {
                throw new IllegalArgumentException("--default-tenant needs --tenant-from header:NAME or label:NAME");
            }
            return new TenantRouting(From.NONE, null, null, h, tenants);
        }
        String s = tenantFrom.trim();
        int colon = s.indexOf(':');
        From from = colon < 0
                ? null
                : switch (s.substring(0, colon)) {
                    case "header" -> From.HEADER;
                    case "label" -> From.LABEL;
                    default -> null;
                };
        String name = colon < 0 ? "" : s.substring(colon + 1);
        if (from == null || name.isEmpty()) {
            throw new IllegalArgumentException(
                    "--tenant-from must be header:NAME or label:NAME, got '" + Tenant.printable(s) + "'");
        }
        if (from == From.LABEL && !name.matches("[a-zA-Z_][a-zA-Z0-9_.]*")) {
            throw new IllegalArgumentException(
                    "--tenant-from label:NAME needs a label name [a-zA-Z_][a-zA-Z0-9_.]*, got '"
                            + Tenant.printable(name) + "'");
        }
        Tenant def = null;
        if (defaultTenant != null) {
            String bad = syntax.invalid(defaultTenant.trim());
            if (bad != null) {
                throw new IllegalArgumentException("--default-tenant: " + bad);
            }
            def = tenants.of(defaultTenant.trim());
        }
        return new TenantRouting(from, name, def, h, tenants);
    }

    /** Whether requests are split by tenant. */
    public boolean routes() {
        return from != From.NONE;
    }

    /** Whether the tenant is a label of the series (read once per series, then removed). */
    public boolean byLabel() {
        return from == From.LABEL;
    }

    /**
     * The tenant of a header or label value (null or absent: the default). Returns null when refused; then
     * {@link #refusal(String)} says why.
     */
    public Tenant resolve(String value) {
        if (value == null) {
            return defaultTenant;
        }
        return tenants.syntax().invalid(value) == null ? tenants.of(value) : null;
    }

    /** {@link #resolve(String)} of a header's bytes (UTF-8; null: the header is absent). */
    public Tenant resolve(byte[] headerValue) {
        return resolve(headerValue == null ? null : new String(headerValue, StandardCharsets.UTF_8));
    }

    /** Whether a refusal of {@code value} ({@link #resolve} gave null) is {@code missing_tenant} rather than {@code invalid_tenant}. */
    public boolean missing(String value) {
        return value == null;
    }

    /** The detail of a refused value: what is missing or invalid, and where it was read. */
    public String refusal(String value) {
        String where = (from == From.HEADER ? "record header '" : "label '") + name + "'";
        return value == null
                ? "no " + where + " and no --default-tenant"
                : where + ": " + tenants.syntax().invalid(value);
    }
}
