package io.tsdbwriter.decode.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Utf8;
import java.io.IOException;

/**
 * Decodes a Kafka record value into points by the record contract of DESIGN §2: UTF-8 JSON, one point object or
 * an array of point objects, with {@code metric} (Prometheus metric name), {@code timestamp} (epoch
 * milliseconds, integer, ≥ 10^11), {@code value} (JSON number), optional {@code dimensions} (object of string
 * label values; names {@code [a-zA-Z_][a-zA-Z0-9_]*} not starting with {@code __}; empty values dropped) and
 * optional {@code productKey} (becomes label {@code productKey}). Unknown fields are ignored.
 *
 * <p>A record is accepted or rejected whole: if any point in it breaks a rule, no point of it is returned and
 * the {@link DecodeError} says why (the record is then counted, logged and dead-lettered by the caller).
 *
 * <p>Two paths, one result. A {@link FastPointScanner} decodes the common record (the known fields only, strings
 * without escapes) straight from the UTF-8 bytes into {@link DecodedPoints}' arena; whatever it does not take
 * on — an escape, an unknown field, any error — is decoded by Jackson's streaming parser (strict JSON, RFC 8259:
 * no NaN/Infinity, no comments, duplicate keys rejected), which also names the rejection. The fast path accepts
 * only records Jackson accepts and yields the same points (checked by {@code PointDecoderFastPathTest}).
 *
 * <p>Not thread-safe: one decoder per consuming thread (it reuses its buffers).
 */
public final class PointDecoder {

    /** Timestamps below this look like seconds, not milliseconds (10^11 ms is March 1973). */
    public static final long MIN_TIMESTAMP_MS = 100_000_000_000L;
    /** Label that {@code productKey} becomes. */
    public static final String PRODUCT_KEY_LABEL = "productKey";

    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final int maxRecordBytes;
    private final boolean fastPath;
    private final FastPointScanner fast = new FastPointScanner();
    private String lastErrorDetail = "";

    /** @param maxRecordBytes records larger than this are rejected as {@link DecodeError#TOO_LARGE} (≥ 1) */
    public PointDecoder(int maxRecordBytes) {
        this(maxRecordBytes, true);
    }

    /**
     * @param fastPath false decodes every record with Jackson alone (the reference the fast path is tested
     *                 against)
     */
    PointDecoder(int maxRecordBytes, boolean fastPath) {
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("max record bytes must be >= 1, got " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.fastPath = fastPath;
    }

    /**
     * Decodes {@code value} into {@code out} (cleared first).
     *
     * @return null when every point is valid (then {@code out.count() ≥ 1}), otherwise the reason the record is
     *     rejected ({@code out} is then empty); {@link #lastErrorDetail()} describes it
     */
    public DecodeError decode(byte[] value, DecodedPoints out) {
        out.clear();
        lastErrorDetail = "";
        if (value == null || value.length == 0) {
            return fail(out, DecodeError.EMPTY_RECORD, "record value is empty");
        }
        if (value.length > maxRecordBytes) {
            return fail(out, DecodeError.TOO_LARGE, value.length + " bytes > max " + maxRecordBytes);
        }
        if (fastPath && fast.decode(value, out)) {
            return null; // the fast path checked UTF-8 as it scanned
        }
        if (!Utf8.isValid(value)) {
            return fail(out, DecodeError.INVALID_UTF8, "record value is not well-formed UTF-8");
        }
        out.clear();
        try (JsonParser parser = JSON.createParser(value)) {
            JsonToken first = parser.nextToken();
            DecodeError error;
            if (first == JsonToken.START_OBJECT) {
                error = decodePoint(parser, out);
            } else if (first == JsonToken.START_ARRAY) {
                error = null;
                JsonToken t;
                while (error == null && (t = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (t != JsonToken.START_OBJECT) {
                        error = detail(DecodeError.NOT_AN_OBJECT, "array element is " + t);
                    } else {
                        error = decodePoint(parser, out);
                    }
                }
                if (error == null && out.count() == 0) {
                    error = detail(DecodeError.EMPTY_ARRAY, "array holds no point");
                }
            } else {
                error = detail(DecodeError.NOT_AN_OBJECT, "top-level value is " + first);
            }
            if (error == null && parser.nextToken() != null) {
                error = detail(DecodeError.INVALID_JSON, "trailing content after the JSON value");
            }
            if (error != null) {
                out.clear();
            }
            return error;
        } catch (JsonProcessingException e) {
            String msg = e.getOriginalMessage();
            DecodeError reason =
                    msg != null && msg.contains("UTF-8") ? DecodeError.INVALID_UTF8 : DecodeError.INVALID_JSON;
            return fail(out, reason, firstLine(msg));
        } catch (IOException e) {
            return fail(out, DecodeError.INVALID_JSON, firstLine(e.getMessage()));
        }
    }

    /** Human-readable detail of the last rejection (empty after a success). */
    public String lastErrorDetail() {
        return lastErrorDetail;
    }

    // Longer than ~60 lines: the slow path's one JSON object read token by token in one method, as Jackson's streaming
    // API is used; it runs only for records the fast scanner declined.
    private DecodeError decodePoint(JsonParser parser, DecodedPoints out) throws IOException {
        int p = out.begin();
        String metric = null;
        boolean hasTimestamp = false;
        boolean hasValue = false;
        long ts = 0;
        double v = 0;
        String productKey = null;
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken vt = parser.nextToken();
            switch (field) {
                case "metric" -> {
                    if (vt != JsonToken.VALUE_STRING) {
                        return detail(DecodeError.INVALID_METRIC, "metric is " + vt);
                    }
                    metric = parser.getText();
                    if (!isMetricName(metric)) {
                        return detail(DecodeError.INVALID_METRIC, "invalid metric name '" + clip(metric) + "'");
                    }
                }
                case "timestamp" -> {
                    if (vt != JsonToken.VALUE_NUMBER_INT
                            || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        return detail(DecodeError.INVALID_TIMESTAMP, "timestamp is not an integer of epoch ms");
                    }
                    ts = parser.getLongValue();
                    if (ts < 0) {
                        return detail(DecodeError.INVALID_TIMESTAMP, "negative timestamp " + ts);
                    }
                    if (ts < MIN_TIMESTAMP_MS) {
                        return detail(
                                DecodeError.TIMESTAMP_IN_SECONDS,
                                "timestamp " + ts + " looks like seconds, expected ms");
                    }
                    hasTimestamp = true;
                }
                case "value" -> {
                    if (vt != JsonToken.VALUE_NUMBER_INT && vt != JsonToken.VALUE_NUMBER_FLOAT) {
                        return detail(
                                DecodeError.INVALID_VALUE,
                                "value is " + vt
                                        + (vt == JsonToken.VALUE_STRING ? " '" + clip(parser.getText()) + "'" : ""));
                    }
                    v = parser.getDoubleValue();
                    if (!Double.isFinite(v)) {
                        return detail(DecodeError.INVALID_VALUE, "value out of double range");
                    }
                    hasValue = true;
                }
                case "dimensions" -> {
                    if (vt == JsonToken.VALUE_NULL) {
                        break;
                    }
                    if (vt != JsonToken.START_OBJECT) {
                        return detail(DecodeError.INVALID_DIMENSIONS, "dimensions is " + vt);
                    }
                    DecodeError e = decodeDimensions(parser, out, p);
                    if (e != null) {
                        return e;
                    }
                }
                case "productKey" -> {
                    if (vt == JsonToken.VALUE_NULL) {
                        break;
                    }
                    if (vt != JsonToken.VALUE_STRING) {
                        return detail(DecodeError.INVALID_PRODUCT_KEY, "productKey is " + vt);
                    }
                    productKey = parser.getText();
                    if (Utf8.hasUnpairedSurrogate(productKey)) {
                        return detail(DecodeError.INVALID_UTF8, "productKey holds an unpaired surrogate escape");
                    }
                }
                default -> parser.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            return detail(DecodeError.INVALID_JSON, "unexpected " + t);
        }
        if (metric == null) {
            return detail(DecodeError.MISSING_METRIC, "no metric");
        }
        if (!hasTimestamp) {
            return detail(DecodeError.MISSING_TIMESTAMP, "no timestamp");
        }
        if (!hasValue) {
            return detail(DecodeError.MISSING_VALUE, "no value");
        }
        if (productKey != null && !productKey.isEmpty()) {
            out.addLabel(p, PRODUCT_KEY_LABEL, productKey); // added last: wins over a dimension of that name
        }
        int metricOff = out.copy(metric);
        out.setMetric(p, metricOff, out.lastLength());
        out.set(p, ts, v);
        out.canonicalize(p);
        return null;
    }

    private DecodeError decodeDimensions(JsonParser parser, DecodedPoints out, int p) throws IOException {
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken vt = parser.nextToken();
            if (!isLabelName(name)) {
                return detail(DecodeError.INVALID_LABEL_NAME, "invalid label name '" + clip(name) + "'");
            }
            if (name.startsWith("__")) {
                return detail(DecodeError.RESERVED_LABEL_NAME, "label name '" + clip(name) + "' starts with __");
            }
            if (vt == JsonToken.VALUE_NULL) {
                continue;
            }
            if (vt != JsonToken.VALUE_STRING) {
                return detail(DecodeError.INVALID_DIMENSIONS, "dimension '" + clip(name) + "' is " + vt);
            }
            String v = parser.getText();
            if (Utf8.hasUnpairedSurrogate(v)) {
                return detail(DecodeError.INVALID_UTF8, "dimension '" + name + "' holds an unpaired surrogate escape");
            }
            if (!v.isEmpty()) {
                out.addLabel(p, name, v);
            }
        }
        if (t != JsonToken.END_OBJECT) {
            return detail(DecodeError.INVALID_JSON, "unexpected " + t);
        }
        return null;
    }

    /** True when {@code s} matches {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
    public static boolean isMetricName(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || c == '_'
                    || c == ':'
                    || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code s} matches {@code [a-zA-Z_][a-zA-Z0-9_]*}. */
    public static boolean isLabelName(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok =
                    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private DecodeError detail(DecodeError reason, String message) {
        lastErrorDetail = message;
        return reason;
    }

    private DecodeError fail(DecodedPoints out, DecodeError reason, String message) {
        out.clear();
        return detail(reason, message);
    }

    private static String clip(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "…" : s;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unparseable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
