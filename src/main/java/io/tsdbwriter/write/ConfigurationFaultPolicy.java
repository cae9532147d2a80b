package io.tsdbwriter.write;

import java.util.Locale;

/**
 * What happens to a batch whose endpoint answers with a configuration fault's 4xx — 401, 403, 404, 405, 407, or a
 * 400/413 that an empty request gets too ({@code --on-configuration-fault}; DESIGN §6, §10).
 */
public enum ConfigurationFaultPolicy {
    /**
     * Keep the batch and try it again with backoff until the endpoint takes it (the default): the data stays in Kafka
     * until the operator fixes the flag. A deviation from the remote write specification, which says a sender MUST
     * NOT retry a 4xx but 429 (DESIGN §10).
     */
    HOLD,
    /**
     * The remote write specification's sender: a 4xx but 429 — a configuration fault's or a data refusal's — refuses its
     * batch whole at once: no empty request to tell the two apart, no split, no retry, and it never counts toward the
     * endpoint's circuit breaker; its records are dead-lettered with the reason when {@code --dead-letter-topic} is set,
     * else its samples are counted refused (lost; exit 3), and the next batch goes out at once. 429 and 5xx are retried
     * with backoff as under {@link #HOLD}. Answers without a status (TLS, DNS, a refused connection) and redirects are
     * held whatever this says.
     */
    REFUSE;

    /**
     * Whether this policy refuses an answer of status {@code fault}'s: {@link #REFUSE} and an HTTP 4xx (not a redirect,
     * nor no answer; the caller excludes 429, which is retryable).
     */
    boolean refuses(WriteOutcome fault) {
        return this == REFUSE && fault.status() >= 400 && fault.status() < 500;
    }

    /** The flag's spelling. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code hold} or {@code refuse}.
     *
     * @throws IllegalArgumentException naming the flag and the values for anything else
     */
    public static ConfigurationFaultPolicy parse(String value) {
        return switch (value == null ? "" : value.trim().toLowerCase(Locale.ROOT)) {
            case "hold" -> HOLD;
            case "refuse" -> REFUSE;
            default ->
                throw new IllegalArgumentException(
                        "--on-configuration-fault must be hold or refuse, got '" + value + "'");
        };
    }
}
