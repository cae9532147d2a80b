package io.tsdbwriter.sink.victoriametrics;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * The one place that maps an import response to the response policy of DESIGN §6: 2xx done; 400/413/415 not
 * retryable; 429, 5xx and anything else retryable, honouring {@code Retry-After} (RFC 9110 §10.2.3, seconds or an
 * HTTP date). Stateless and thread-safe.
 */
public final class ResponseClassifier {

    /** Longest Retry-After honoured; longer requests are capped here. */
    public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

    private ResponseClassifier() {
    }

    /**
     * Classifies for the run's output protocol: the import API as {@link #classify(int, String, String)}; Prometheus
     * Remote-Write 1.0 per its specification — 2xx done, 429 and 5xx retryable (honouring Retry-After), every other
     * 4xx not retryable (the receiver refuses the data: split the batch, dead-letter what still fails).
     */
    public static WriteOutcome classify(io.tsdbwriter.encode.Output output, int status, String retryAfter, String detail) {
        if (output == io.tsdbwriter.encode.Output.REMOTE_WRITE && status >= 400 && status < 500 && status != 429) {
            return new WriteOutcome(WriteOutcome.Kind.REJECTED, status, -1, detail);
        }
        return classify(status, retryAfter, detail);
    }

    /**
     * @param status     HTTP status code
     * @param retryAfter the Retry-After header value, or null
     * @param detail     short text for logs
     */
    public static WriteOutcome classify(int status, String retryAfter, String detail) {
        if (status >= 200 && status < 300) {
            return new WriteOutcome(WriteOutcome.Kind.SUCCESS, status, -1, detail);
        }
        if (status == 400 || status == 413 || status == 415) {
            return new WriteOutcome(WriteOutcome.Kind.REJECTED, status, -1, detail);
        }
        return new WriteOutcome(WriteOutcome.Kind.RETRYABLE, status, parseRetryAfterMs(retryAfter, System.currentTimeMillis()), detail);
    }

    /** An outcome without a response: I/O error or timeout (retryable). */
    public static WriteOutcome noResponse(Throwable error) {
        String msg = error.getClass().getSimpleName() + ": " + error.getMessage();
        return new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 0, -1, msg);
    }

    /**
     * Parses a Retry-After value: delta-seconds or an IMF-fixdate.
     *
     * @return milliseconds to wait (capped at {@link #MAX_RETRY_AFTER}), or -1 when absent or unparseable
     */
    public static long parseRetryAfterMs(String value, long nowMs) {
        if (value == null || value.isBlank()) {
            return -1;
        }
        String v = value.trim();
        long ms;
        if (v.chars().allMatch(ch -> ch >= '0' && ch <= '9')) { // delay-seconds = 1*DIGIT
            ms = v.length() > 9 ? Long.MAX_VALUE : Long.parseLong(v) * 1000L;
        } else {
            try {
                ms = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli() - nowMs;
            } catch (DateTimeParseException e2) {
                return -1;
            }
        }
        return Math.max(0, Math.min(ms, MAX_RETRY_AFTER.toMillis()));
    }
}
