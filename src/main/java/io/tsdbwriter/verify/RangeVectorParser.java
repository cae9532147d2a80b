package io.tsdbwriter.verify;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import java.io.IOException;
import java.io.InputStream;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parses the answer of the Prometheus HTTP API's instant query ({@code /api/v1/query}) of a range-vector selector,
 * {@code {…}[WINDOW]}: {@code {"status":"success","data":{"resultType":"matrix","result":[{"metric":{…},"values":[[
 * 1795300857.123,"0.25"],…]},…]}}}, the raw samples of every selected series with their exact timestamps (seconds
 * with up to 3 decimals) and values (strings as Go's {@code strconv.FormatFloat} writes them, {@code NaN},
 * {@code +Inf}, {@code -Inf}; the shortest form that reads back as the same double). What Prometheus 2 and 3, Thanos
 * query and Mimir answer.
 *
 * <p>Each series goes to a {@link SeriesSink} as one call, its {@code __name__} apart, labels with an empty value left
 * out (as the export comparison does); samples at or before {@code afterMs} are dropped (Prometheus 2 includes a
 * sample exactly at the window's start, Prometheus 3 does not: consecutive windows then never read a sample twice).
 * A native histogram sample ({@code "histograms":[[ts,{…}],…]}) is passed with the value NaN: only floats are
 * compared. {@code warnings} and {@code infos} are ignored.
 *
 * <p>Errors: {@link IOException} for content that is not such an answer, a {@code resultType} other than
 * {@code matrix}, or {@code "status":"error"} (the message carries {@code errorType} and {@code error}).
 *
 * <p>Not thread-safe (reuses its buffers); one parse at a time.
 */
public final class RangeVectorParser {

    /** Receives the samples of one series; the arrays are reused after the call returns. */
    @FunctionalInterface
    public interface SeriesSink {
        /**
         * @param metric       the {@code __name__}, {@code ""} when the series has none
         * @param labels       the other labels, sorted
         * @param timestampsMs epoch ms, the first {@code count} used; {@code values} alongside
         */
        void accept(String metric, Map<String, String> labels, long[] timestampsMs, double[] values, int count);
    }

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private final TreeMap<String, String> labels = new TreeMap<>();
    private long[] ts = new long[64];
    private double[] vs = new double[64];
    private int n;

    /**
     * Parses one answer from {@code in} (read to its end, not closed).
     *
     * @param afterMs samples at or before this epoch ms are dropped ({@link Long#MIN_VALUE}: none)
     * @return the series passed to {@code sink}
     * @throws IOException when reading fails or the content is not a successful range-vector answer
     */
    public int parse(InputStream in, long afterMs, SeriesSink sink) throws IOException {
        try (JsonParser p = JSON.createParser(in)) {
            return parse(p, afterMs, sink);
        }
    }

    /** As {@link #parse(InputStream, long, SeriesSink)} on a string. */
    public int parse(String answer, long afterMs, SeriesSink sink) throws IOException {
        try (JsonParser p = JSON.createParser(answer)) {
            return parse(p, afterMs, sink);
        }
    }

    private int parse(JsonParser p, long afterMs, SeriesSink sink) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new IOException("the query answer is not a JSON object");
        }
        String status = null;
        String errorType = "";
        String error = "";
        String resultType = null;
        int series = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "status" -> status = p.getValueAsString();
                case "errorType" -> errorType = p.getValueAsString("");
                case "error" -> error = p.getValueAsString("");
                case "data" -> {
                    if (v != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        continue;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String dataField = p.currentName();
                        JsonToken dv = p.nextToken();
                        if ("resultType".equals(dataField)) {
                            resultType = p.getValueAsString();
                            requireMatrix(resultType);
                        } else if ("result".equals(dataField) && dv == JsonToken.START_ARRAY) {
                            JsonToken e;
                            while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                                if (e != JsonToken.START_OBJECT) {
                                    throw new IOException(
                                            "the query result holds " + e + " where a series was expected");
                                }
                                readSeries(p, afterMs, sink);
                                series++;
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("malformed query answer near " + t);
        }
        if (!"success".equals(status)) {
            throw new IOException("the query answered status " + status
                    + (errorType.isEmpty() ? "" : " (" + errorType + ")") + (error.isEmpty() ? "" : ": " + error));
        }
        if (series > 0 && resultType == null) {
            throw new IOException("the query answer has a result without a resultType");
        }
        return series;
    }

    private static void requireMatrix(String resultType) throws IOException {
        if (!"matrix".equals(resultType)) {
            throw new IOException("the query answered a " + resultType
                    + ", not a range vector (matrix): the query must be a range-vector selector {…}[WINDOW]");
        }
    }

    private void readSeries(JsonParser p, long afterMs, SeriesSink sink) throws IOException {
        String metric = "";
        labels.clear();
        n = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "metric" -> {
                    expect(v, JsonToken.START_OBJECT, "metric");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        String value = p.getValueAsString();
                        if ("__name__".equals(name)) {
                            metric = value == null ? "" : value;
                        } else if (value != null && !value.isEmpty()) {
                            labels.put(name, value);
                        }
                    }
                }
                case "values" -> readPairs(p, v, afterMs, false);
                case "histograms" -> readPairs(p, v, afterMs, true);
                default -> p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("malformed query series near " + t);
        }
        sink.accept(metric, labels, ts, vs, n);
    }

    /** Reads {@code [[ts, value], …]}; a histogram's value object is skipped and read as NaN. */
    private void readPairs(JsonParser p, JsonToken start, long afterMs, boolean histograms) throws IOException {
        String field = histograms ? "histograms" : "values";
        expect(start, JsonToken.START_ARRAY, field);
        JsonToken e;
        while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
            expect(e, JsonToken.START_ARRAY, field + " pair");
            JsonToken tt = p.nextToken();
            if (tt != JsonToken.VALUE_NUMBER_INT && tt != JsonToken.VALUE_NUMBER_FLOAT) {
                throw new IOException("a query sample's timestamp is " + tt + ", not a number");
            }
            long t = timestampMs(p);
            JsonToken vt = p.nextToken();
            double v;
            if (histograms) {
                p.skipChildren();
                v = Double.NaN;
            } else {
                v = switch (vt) {
                    case VALUE_STRING -> value(p.getText());
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                    default -> throw new IOException("a query sample's value is " + vt);
                };
            }
            if (p.nextToken() != JsonToken.END_ARRAY) {
                throw new IOException("a query sample is not a [timestamp, value] pair");
            }
            if (t <= afterMs) {
                continue;
            }
            if (n == ts.length) {
                ts = Arrays.copyOf(ts, n * 2);
                vs = Arrays.copyOf(vs, n * 2);
            }
            ts[n] = t;
            vs[n++] = v;
        }
    }

    /** Seconds with up to 3 decimals, as epoch ms; more decimals are rounded half-even. */
    private static long timestampMs(JsonParser p) throws IOException {
        try {
            return p.getDecimalValue()
                    .movePointRight(3)
                    .setScale(0, RoundingMode.HALF_EVEN)
                    .longValueExact();
        } catch (ArithmeticException e) {
            throw new IOException("a query sample's timestamp is out of range: " + p.getText());
        }
    }

    private static double value(String text) throws IOException {
        try {
            return PrometheusTextParser.parseValue(text);
        } catch (NumberFormatException e) {
            throw new IOException("a query sample's value is not a number: '"
                    + (text.length() > 100 ? text.substring(0, 100) + "…" : text) + "'");
        }
    }

    private static void expect(JsonToken actual, JsonToken wanted, String what) throws IOException {
        if (actual != wanted) {
            throw new IOException("query answer field '" + what + "' is " + actual + ", expected " + wanted);
        }
    }
}
