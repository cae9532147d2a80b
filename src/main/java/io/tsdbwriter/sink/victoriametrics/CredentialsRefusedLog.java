package io.tsdbwriter.sink.victoriametrics;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one clear line for an endpoint that answers 401 Unauthorized or 403 Forbidden: a credentials problem, not an
 * outage. The batch is kept and retried like any failed write (the partition pauses and probes under
 * {@code --on-write-failure=pause}); the request is counted by status in {@code tsdbwriter_write_requests_total}.
 * Logged at most once per {@link #EVERY} per endpoint and status; the endpoint is printed without user info, so no
 * secret reaches the log. Thread-safe.
 */
final class CredentialsRefusedLog {

    private static final Logger log = LoggerFactory.getLogger(CredentialsRefusedLog.class);
    /** How often the line may repeat per endpoint and status. */
    static final Duration EVERY = Duration.ofMinutes(1);

    private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();

    /** True for the statuses this log is about. */
    static boolean isCredentialsStatus(int status) {
        return status == 401 || status == 403;
    }

    /** Logs the line when {@code status} is 401/403 and it was not logged for this endpoint and status within {@link #EVERY}. */
    void refused(VmEndpoint endpoint, int status) {
        if (!isCredentialsStatus(status)) {
            return;
        }
        String url = withoutUserInfo(endpoint.importUrl());
        String key = url + '|' + status;
        long now = System.nanoTime();
        Long last = lastLogged.get(key);
        if (last != null && now - last < EVERY.toNanos()) {
            return;
        }
        lastLogged.put(key, now);
        log.error("VictoriaMetrics {} answered {} {}: credentials, not an outage - check the write credentials for this endpoint; "
                        + "the data is kept, the partition pauses and probes until writes are accepted",
                url, status, status == 401 ? "Unauthorized" : "Forbidden");
    }

    static String withoutUserInfo(String url) {
        try {
            URI u = URI.create(url);
            if (u.getUserInfo() == null) {
                return url;
            }
            return new URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), null, null).toString();
        } catch (Exception e) {
            return "<endpoint>";
        }
    }
}
