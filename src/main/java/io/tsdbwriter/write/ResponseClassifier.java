package io.tsdbwriter.write;

import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.http.SafeUrl;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import javax.net.ssl.SSLException;

/**
 * The one place that maps a write response to the response policy of DESIGN §6, per protocol:
 * <ul>
 *   <li>2xx: done.</li>
 *   <li>Configuration faults ({@link WriteOutcome.Kind#FAULT}): any 3xx (redirects are never followed: a POST would
 *       lose its body), 401, 403, 404, 405, 407, and without a response a TLS failure, an unknown host or a refused
 *       connection. The endpoint or the credentials are wrong, not the data: the batch is kept.</li>
 *   <li>Data refusal candidates ({@link WriteOutcome.Kind#REJECTED}): 400, 413, 415 for the import API (VictoriaMetrics
 *       docs, "How to import data in JSON line format"); for Prometheus Remote-Write 1.0 every other 4xx but 429 (the
 * specification: "4xx … MUST NOT retry"; 2.0 adds its own rules, {@link #classifyRemoteWrite2}). The writer then
 * sends an empty request: when that is refused too, the
 *       refusal does not depend on the data and it is a configuration fault after all (a wrong path prefix answered
 *       400 by VictoriaMetrics, an unknown token answered 400 by vmauth).</li>
 *   <li>Everything else (429, 5xx, other statuses, timeouts and other I/O errors): retryable, honouring
 *       {@code Retry-After} (RFC 9110 §10.2.3, seconds or an HTTP date).</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class ResponseClassifier {

    /** Longest Retry-After honoured; longer requests are capped here. */
    public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);
    /** Detail prefix of a TLS failure (the {@code tls} fault class). */
    static final String TLS = "TLS failure";
    /** Detail prefix of an unknown host (the {@code dns} fault class). */
    static final String DNS = "unknown host";
    /** Detail prefix of a refused connection (the {@code connect} fault class). */
    static final String CONNECT = "connection refused";

    private ResponseClassifier() {}

    /** As {@link #classify(Output, int, String, String, String)} without a {@code Location}. */
    public static WriteOutcome classify(Output output, int status, String retryAfter, String detail) {
        return classify(output, status, retryAfter, detail, null);
    }

    /**
     * Classifies a response for the run's output protocol.
     *
     * @param output     the protocol the request was sent in
     * @param status     HTTP status code
     * @param retryAfter the {@code Retry-After} header value, or null
     * @param detail     short text for logs (response body excerpt)
     * @param location   the {@code Location} header of a redirect, or null
     */
    public static WriteOutcome classify(Output output, int status, String retryAfter, String detail, String location) {
        if (status >= 300 && status < 400) {
            return new WriteOutcome(
                    WriteOutcome.Kind.FAULT,
                    status,
                    -1,
                    "redirect to " + (location == null ? "(no Location)" : SafeUrl.redact(location))
                            + ": writes never follow a redirect (the body would be lost); put that URL in the flag");
        }
        String hint = configurationHint(output, status);
        if (hint != null) {
            return new WriteOutcome(
                    WriteOutcome.Kind.FAULT,
                    status,
                    -1,
                    hint + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        }
        if (output == Output.REMOTE_WRITE && status >= 400 && status < 500 && status != 429) {
            return new WriteOutcome(WriteOutcome.Kind.REJECTED, status, -1, detail);
        }
        return importPolicy(status, retryAfter, detail);
    }

    /**
     * Classifies a Remote-Write 2.0 response (https://prometheus.io/docs/specs/remote_write_spec_2_0/, "Required
     * Written Response Headers", "Unsupported Media Type"), before the 1.0 rules of
     * {@link #classify(Output, int, String, String, String)}:
     * <ul>
     *   <li>415: a configuration fault — the receiver takes Remote-Write 1.0 only (Prometheus 3 without
     *       {@code io.prometheus.write.v2.Request} in {@code --web.remote-write-receiver.accepted-protobuf-messages});
     *       the writer does not fall back to 1.0 on its own: the batch is held and the line says to run with
     *       {@code --remote-write-version 1}.</li>
     *   <li>2xx for samples without {@code X-Prometheus-Remote-Write-Samples-Written}: a configuration fault — a
     *       1.0-only receiver that does not check {@code Content-Type} (Prometheus before 2.54) parses the 2.0 message as
     *       an empty 1.0 {@code WriteRequest} and answers 204 having written nothing (Prometheus' own sender treats it so).</li>
     *   <li>2xx confirming fewer samples than sent: a partial write is not a write — a data refusal
     *       ({@link WriteOutcome.Kind#REJECTED}): the batch is split and the samples the receiver keeps refusing are
     *       dead-lettered or counted refused, as for a 4xx; samples it wrote already are sent again with their halves,
     *       which a receiver takes as duplicates of the same value.</li>
     *   <li>2xx confirming every sample: success.</li>
     * </ul>
     *
     * @param samplesSent    samples the request carried, or -1 when unknown (the header is then not checked)
     * @param samplesWritten the {@code X-Prometheus-Remote-Write-Samples-Written} header (plus the
     *                       {@code -Histograms-Written} one: {@link RemoteWriteVersion#written}), or null
     */
    public static WriteOutcome classifyRemoteWrite2(
            int status, String retryAfter, String detail, String location, long samplesSent, String samplesWritten) {
        if (status == 415) {
            return new WriteOutcome(
                    WriteOutcome.Kind.FAULT,
                    status,
                    -1,
                    "the receiver does not take Remote-Write 2.0 "
                            + "(415 Unsupported Media Type): run with --remote-write-version 1, or let it accept "
                            + "io.prometheus.write.v2.Request (Prometheus 3: --web.remote-write-receiver.accepted-protobuf-messages)"
                            + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        }
        if (status >= 200 && status < 300 && samplesSent > 0) {
            if (samplesWritten == null || samplesWritten.isBlank()) {
                return new WriteOutcome(
                        WriteOutcome.Kind.FAULT,
                        status,
                        -1,
                        "a Remote-Write 1.0 receiver? (" + status
                                + " without " + RemoteWriteVersion.SAMPLES_WRITTEN_HEADER + " for " + samplesSent
                                + " samples: a 1.0 receiver reads a 2.0 message as an empty request and writes nothing); "
                                + "run with --remote-write-version 1");
            }
            long written;
            try {
                written = Long.parseLong(samplesWritten.trim());
            } catch (NumberFormatException e) {
                return new WriteOutcome(
                        WriteOutcome.Kind.FAULT,
                        status,
                        -1,
                        RemoteWriteVersion.SAMPLES_WRITTEN_HEADER + " is not a number ('" + samplesWritten
                                + "'): not a Remote-Write 2.0 receiver?");
            }
            if (written < samplesSent) {
                return new WriteOutcome(
                        WriteOutcome.Kind.REJECTED,
                        status,
                        -1,
                        "partial write: the receiver wrote " + written + " of " + samplesSent + " samples"
                                + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
            }
        }
        return classify(Output.REMOTE_WRITE, status, retryAfter, detail, location);
    }

    /** The likely cause of a configuration status, or null when the status is not one. */
    static String configurationHint(Output output, int status) {
        return switch (status) {
            case 401 ->
                "credentials? (Unauthorized: check --vm-basic-auth-*, --vm-bearer-token-file or the URL's user info)";
            case 403 -> "credentials? (Forbidden: the credentials may not write here)";
            case 407 -> "proxy credentials? (Proxy Authentication Required)";
            case 404 ->
                output == Output.REMOTE_WRITE
                        ? "receiver not enabled? wrong path? (Not Found: Prometheus needs --web.enable-remote-write-receiver; "
                                + "the flag takes the whole remote write URL, e.g. http://prom:9090/api/v1/write)"
                        : "wrong path prefix? (Not Found: --vm-url is the base /api/v1/import is appended to)";
            case 405 -> "wrong path? (Method Not Allowed: this URL does not take POST writes)";
            default -> null;
        };
    }

    /**
     * Classifies an import API response: {@link #classify(Output, int, String, String, String)} for
     * {@link Output#IMPORT} without a {@code Location}.
     *
     * @param status     HTTP status code
     * @param retryAfter the Retry-After header value, or null
     * @param detail     short text for logs
     */
    public static WriteOutcome classify(int status, String retryAfter, String detail) {
        return classify(Output.IMPORT, status, retryAfter, detail, null);
    }

    /** 2xx done; 400/413/415 refused; the rest retryable. The statuses of a configuration fault are decided before. */
    private static WriteOutcome importPolicy(int status, String retryAfter, String detail) {
        if (status >= 200 && status < 300) {
            return new WriteOutcome(WriteOutcome.Kind.SUCCESS, status, -1, detail);
        }
        if (status == 400 || status == 413 || status == 415) {
            return new WriteOutcome(WriteOutcome.Kind.REJECTED, status, -1, detail);
        }
        return new WriteOutcome(
                WriteOutcome.Kind.RETRYABLE, status, parseRetryAfterMs(retryAfter, System.currentTimeMillis()), detail);
    }

    /**
     * An outcome without a response: a TLS failure, an unknown host or a refused connection is a configuration fault
     * (nothing answers there, or not as configured); timeouts and other I/O errors are retryable.
     */
    public static WriteOutcome noResponse(Throwable error) {
        String msg = error.getClass().getSimpleName() + ": " + error.getMessage();
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return new WriteOutcome(
                        WriteOutcome.Kind.FAULT,
                        0,
                        -1,
                        TLS + " (" + msg + "): https vs http? check --vm-tls-ca-file, --vm-tls-server-name");
            }
            if (t instanceof UnknownHostException) {
                return new WriteOutcome(
                        WriteOutcome.Kind.FAULT, 0, -1, DNS + " (" + msg + "): check the host name in the URL");
            }
            if (t instanceof ConnectException) {
                return new WriteOutcome(
                        WriteOutcome.Kind.FAULT,
                        0,
                        -1,
                        CONNECT + " (" + msg + "): is the receiver running at this address and port?");
            }
        }
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
                ms = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME)
                                .toInstant()
                                .toEpochMilli()
                        - nowMs;
            } catch (DateTimeParseException e2) {
                return -1;
            }
        }
        return Math.max(0, Math.min(ms, MAX_RETRY_AFTER.toMillis()));
    }
}
