package io.tsdbwriter.tenant;

/**
 * A tenant of a multi-tenant TSDB, in VictoriaMetrics cluster's syntax {@code accountID[:projectID]} (the "URL format"
 * section of the VictoriaMetrics cluster documentation): each an unsigned 32-bit decimal, projectID 0 when absent.
 * {@link #id()} is the text as given: what a VictoriaMetrics cluster path ({@code /insert/<id>/prometheus}) and a
 * remote write tenant header ({@code X-Scope-OrgID}, {@code THANOS-TENANT}) carry. {@link #index()} is dense per
 * {@link Tenants} registry (0, 1, …), so batches can be kept per tenant in arrays. Immutable, thread-safe.
 *
 * @param id        the tenant as given, e.g. {@code 7} or {@code 7:3}
 * @param accountId 0..4294967295
 * @param projectId 0..4294967295
 * @param index     this tenant's place in its registry
 */
public record Tenant(String id, long accountId, long projectId, int index) {

    /** Largest accountID or projectID: 2^32 − 1. */
    public static final long MAX_ID = 0xFFFF_FFFFL;

    /**
     * Why {@code text} is not a tenant, or null when it is one: {@code accountID[:projectID]}, each 1..10 decimal
     * digits with value ≤ {@value #MAX_ID} (Go's {@code strconv.ParseUint(s, 10, 32)}, as VictoriaMetrics parses it).
     */
    public static String invalid(String text) {
        if (text == null || text.isEmpty()) {
            return "empty tenant";
        }
        int colon = text.indexOf(':');
        String account = colon < 0 ? text : text.substring(0, colon);
        String bad = invalidPart(account, "accountID");
        if (bad == null && colon >= 0) {
            bad = invalidPart(text.substring(colon + 1), "projectID");
        }
        return bad == null ? null : "'" + printable(text) + "' is not a tenant accountID[:projectID] (" + bad + ")";
    }

    /** Parses {@code text} ({@link #invalid}) with index {@code index}. @throws IllegalArgumentException when invalid */
    public static Tenant parse(String text, int index) {
        String bad = invalid(text);
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
        int colon = text.indexOf(':');
        return colon < 0
                ? new Tenant(text, Long.parseLong(text), 0, index)
                : new Tenant(
                        text,
                        Long.parseLong(text.substring(0, colon)),
                        Long.parseLong(text.substring(colon + 1)),
                        index);
    }

    private static String invalidPart(String s, String what) {
        if (s.isEmpty() || s.length() > 10) {
            return what + " must be 1 to 10 decimal digits";
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return what + " must be decimal digits";
            }
        }
        return Long.parseLong(s) > MAX_ID ? what + " must be at most " + MAX_ID : null;
    }

    /** At most 64 characters, control characters as '?': a tenant value from the data is safe to log. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 64));
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
        return s.length() > 64 ? b.append('…').toString() : b.toString();
    }

    @Override
    public String toString() {
        return id;
    }
}
