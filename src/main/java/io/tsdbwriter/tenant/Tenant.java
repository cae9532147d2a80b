package io.tsdbwriter.tenant;

/**
 * A tenant of a multi-tenant TSDB, as the receiver accepts it ({@link TenantSyntax}): {@code accountID[:projectID]}
 * for a VictoriaMetrics cluster's path ({@code /insert/<id>/prometheus}), text such as {@code team-a} for a remote
 * write tenant header ({@code X-Scope-OrgID}, {@code THANOS-TENANT}). {@link #id()} is the text as given: what the path
 * or the header carries. {@link #index()} is dense per {@link Tenants} registry (0, 1, …), so batches can be kept per
 * tenant in arrays. Immutable, thread-safe.
 *
 * @param id    the tenant as given, e.g. {@code 7}, {@code 7:3} or {@code team-a}
 * @param index this tenant's place in its registry
 */
public record Tenant(String id, int index) {

    /** Parses {@code text} in {@code syntax} with index {@code index}. @throws IllegalArgumentException when invalid */
    public static Tenant parse(String text, TenantSyntax syntax, int index) {
        String bad = syntax.invalid(text);
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
        return new Tenant(text, index);
    }

    /** At most 64 characters, control characters as '?': a tenant value from the data is safe to log. */
    static String printable(String s) {
        return TenantSyntax.printable(s);
    }

    @Override
    public String toString() {
        return id;
    }
}
