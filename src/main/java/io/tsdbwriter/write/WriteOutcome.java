package io.tsdbwriter.write;

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
        /**
         * A data refusal candidate (import: 400, 413, 415; remote write: every 4xx but 429 and the configuration
         * statuses): the body itself is refused; retrying cannot help. The writer confirms that the refusal depends on
         * the data (an empty request is accepted) before it splits the batch.
         */
        REJECTED,
        /**
         * A configuration fault (DESIGN §6): any 3xx, 401, 403, 404, 405, 407, a TLS, DNS or connection-refused
         * failure, or a refusal that an empty request gets too. The endpoint or its credentials are wrong, not the
         * data: the batch is kept and probed until the endpoint accepts it; it is never split nor dead-lettered.
         */
        FAULT
    }

    /** The {@code status} tag of the write-requests meter: the code, or {@code io} without a response. */
    public String statusTag() {
        return status == 0
                ? (detail != null && detail.contains("timeout") ? "timeout" : "io")
                : Integer.toString(status);
    }

    /**
     * The {@code class} tag of the write-faults meter: {@code 3xx}, {@code 4xx}, {@code 5xx}, or for a fault without
     * a response {@code tls}, {@code dns}, {@code connect}, {@code io}.
     */
    public String statusClass() {
        if (status > 0) {
            return (status / 100) + "xx";
        }
        String d = detail == null ? "" : detail;
        if (d.startsWith(ResponseClassifier.TLS)) {
            return "tls";
        }
        if (d.startsWith(ResponseClassifier.DNS)) {
            return "dns";
        }
        return d.startsWith(ResponseClassifier.CONNECT) ? "connect" : "io";
    }

    /** A batch with no byte to send (relabeling dropped every point of it): written, without a request. */
    public static final WriteOutcome NOTHING_SENT = new WriteOutcome(Kind.SUCCESS, 204, 0, "nothing to send");

    /** True for {@link Kind#SUCCESS}. */
    public boolean isSuccess() {
        return kind == Kind.SUCCESS;
    }
}
