package io.tsdbwriter.tenant;

/**
 * What a receiver accepts as a tenant: tenants follow the receiver. A VictoriaMetrics cluster's path carries
 * {@code accountID[:projectID]} (numbers); a remote write receiver takes the tenant as text in a request header
 * (Grafana Mimir's and Cortex's tenant ID rules; Thanos receive takes any header value, so the same rules are safe
 * there). Stateless, thread-safe.
 */
public enum TenantSyntax {
    /**
     * VictoriaMetrics cluster's {@code accountID[:projectID]} (the "URL format" section of its documentation): each
     * 1..10 decimal digits with a value of at most {@value #MAX_ID} (Go's {@code strconv.ParseUint(s, 10, 32)}, as
     * VictoriaMetrics parses it); projectID 0 when absent.
     */
    ACCOUNT_ID,
    /**
     * A tenant ID as Grafana Mimir and Cortex accept it ("About tenant IDs" in Mimir's documentation): 1..150
     * characters of {@code 0-9 a-z A-Z ! - _ . * ' ( )}, neither {@code .} nor {@code ..}, not {@code __mimir_cluster}.
     */
    TEXT;

    /** Largest accountID or projectID of {@link #ACCOUNT_ID}: 2^32 − 1. */
    public static final long MAX_ID = 0xFFFF_FFFFL;

    /** Longest {@link #TEXT} tenant, in characters. */
    public static final int MAX_TEXT_LENGTH = 150;

    /** The syntax of the tenants an output takes: the import API's cluster path or a remote write header. */
    public static TenantSyntax of(boolean remoteWrite) {
        return remoteWrite ? TEXT : ACCOUNT_ID;
    }

    /** Why {@code text} is not a tenant in this syntax (one phrase, safe to log), or null when it is one. */
    public String invalid(String text) {
        if (text == null || text.isEmpty()) {
            return "empty tenant";
        }
        String bad = this == ACCOUNT_ID ? invalidAccountId(text) : invalidText(text);
        return bad == null ? null : "'" + printable(text) + "' is not a tenant " + describe() + " (" + bad + ")";
    }

    /** The syntax in a few words, for flags' messages. */
    public String describe() {
        return this == ACCOUNT_ID ? "accountID[:projectID]" : "ID (Mimir's tenant ID characters)";
    }

    private static String invalidAccountId(String text) {
        int colon = text.indexOf(':');
        String bad = invalidPart(colon < 0 ? text : text.substring(0, colon), "accountID");
        if (bad == null && colon >= 0) {
            bad = invalidPart(text.substring(colon + 1), "projectID");
        }
        return bad;
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

    private static String invalidText(String text) {
        if (text.length() > MAX_TEXT_LENGTH) {
            return "at most " + MAX_TEXT_LENGTH + " characters";
        }
        if (text.equals(".") || text.equals("..")) {
            return "'.' and '..' are not tenants";
        }
        if (text.equals("__mimir_cluster")) {
            return "__mimir_cluster is reserved";
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok = (c >= '0' && c <= '9')
                    || (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || "!-_.*'()".indexOf(c) >= 0;
            if (!ok) {
                return "only 0-9 a-z A-Z and ! - _ . * ' ( )";
            }
        }
        return null;
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
}
