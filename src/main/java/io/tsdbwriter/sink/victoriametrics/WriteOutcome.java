package io.tsdbwriter.sink.victoriametrics;

/**
 * The result of one import request, as classified by {@link ResponseClassifier}.
 *
 * @param kind         what to do next
 * @param status       HTTP status code, or 0 when there was no response (I/O error, timeout)
 * @param retryAfterMs delay asked for by a {@code Retry-After} header, or -1
 * @param detail       short text for logs (response body excerpt or exception message)
 */
public record WriteOutcome(Kind kind, int status, long retryAfterMs, String detail) {

    /** Classification of an outcome (DESIGN §6 response policy). */
    public enum Kind {
        /** 2xx: the samples are accepted (buffered by VictoriaMetrics). */
        SUCCESS,
        /** 429, 5xx, other unexpected statuses, I/O errors and timeouts: retry with backoff. */
        RETRYABLE,
        /** 400, 413, 415: the body itself is refused; retrying cannot help. */
        REJECTED
    }

    /** The {@code status} tag of the write-requests meter: the code, or {@code io} without a response. */
    public String statusTag() {
        return status == 0 ? (detail != null && detail.contains("timeout") ? "timeout" : "io") : Integer.toString(status);
    }

    /** True for {@link Kind#SUCCESS}. */
    public boolean isSuccess() {
        return kind == Kind.SUCCESS;
    }
}
