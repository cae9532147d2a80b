package io.tsdbwriter.decode;

import java.util.Locale;

/**
 * Why a Kafka record was rejected by the record contract (DESIGN §2). The {@link #tag()} is the {@code reason}
 * tag of the decode-error counter and the {@code reason} header of a dead-lettered record.
 */
public enum DecodeError {
    /** Record value is null or zero bytes (e.g. a tombstone). */
    EMPTY_RECORD,
    /** Record value is larger than {@code --max-record-bytes}. */
    TOO_LARGE,
    /** Bytes are not well-formed UTF-8 (RFC 3629), or a string escapes an unpaired UTF-16 surrogate. */
    INVALID_UTF8,
    /** Not parseable JSON (includes NaN/Infinity tokens, which are not JSON numbers). */
    INVALID_JSON,
    /** Top-level value (or an array element) is not a JSON object. */
    NOT_AN_OBJECT,
    /** Top-level array holds no point. */
    EMPTY_ARRAY,
    /** {@code metric} absent. */
    MISSING_METRIC,
    /** {@code metric} not a string matching {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
    INVALID_METRIC,
    /** {@code timestamp} absent. */
    MISSING_TIMESTAMP,
    /** {@code timestamp} not a JSON integer or negative. */
    INVALID_TIMESTAMP,
    /** {@code timestamp} below 10^11: looks like seconds, the contract is milliseconds. */
    TIMESTAMP_IN_SECONDS,
    /** {@code value} absent. */
    MISSING_VALUE,
    /** {@code value} not a JSON number (a string such as "NaN" included). */
    INVALID_VALUE,
    /** {@code dimensions} not an object of string values. */
    INVALID_DIMENSIONS,
    /** A label name not matching {@code [a-zA-Z_][a-zA-Z0-9_]*}. */
    INVALID_LABEL_NAME,
    /** A label name starting with {@code __} (reserved by Prometheus/VictoriaMetrics). */
    RESERVED_LABEL_NAME,
    /** {@code productKey} present but not a string. */
    INVALID_PRODUCT_KEY,
    /** A line (influx, prometheus, graphite, jsonline) that does not follow its format's syntax. */
    INVALID_LINE,
    /**
     * A sample whose value the output cannot carry, skipped ({@link Rejections.NonFinite}): NaN (a staleness marker
     * included) into the import API, which VictoriaMetrics answers 2xx and drops.
     */
    NON_FINITE_VALUE,
    /** A remote write body that is neither a snappy block nor a zstd frame, or does not decompress. */
    INVALID_COMPRESSION,
    /** A remote write body that is not a well-formed {@code WriteRequest}. */
    INVALID_PROTOBUF,
    /** A record that decodes cleanly but holds no sample (only comments, blank lines or series without samples). */
    NO_SAMPLES,
    /**
     * A timestamp outside the plausible window of epoch milliseconds ({@link io.tsdbwriter.decode.TimestampWindow}:
     * 2000-01-01 … now + 1 day by default): microseconds or nanoseconds sent as milliseconds, or a clock far off.
     */
    IMPLAUSIBLE_TIMESTAMP,
    /**
     * An OpenTelemetry sum or (exponential) histogram with delta aggregation temporality: the writer takes cumulative
     * data only (the Collector's {@code deltatocumulative} processor converts before Kafka).
     */
    UNSUPPORTED_TEMPORALITY,
    /**
     * An OpenTelemetry data point that cannot be mapped to samples: a histogram whose bucket counts are not its bounds
     * + 1 (or that has none), a metric without a name; with remote write output, an exponential histogram whose scale
     * is below −4 (no native histogram schema).
     */
    INVALID_DATA_POINT,
    /** With {@code --tenant-from}: a record (header) or series (label) without a tenant, and no {@code --default-tenant}. */
    MISSING_TENANT,
    /**
     * With {@code --tenant-from}: a tenant value the receiver would not take ({@code TenantSyntax}: numbers for a
     * cluster path, text for remote write).
     */
    INVALID_TENANT;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** Lower-case name used as a metric tag and header value, e.g. {@code invalid_metric}. */
    public String tag() {
        return tag;
    }
}
