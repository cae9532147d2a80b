package io.tsdbwriter.decode.jsonline;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads VictoriaMetrics' JSON line format, what {@code /api/v1/export} writes and {@code /api/v1/import} reads
 * (VictoriaMetrics docs, "How to import data in JSON line format"): one series per line,
 * {@code {"metric":{"__name__":"m","label":"value",…},"values":[v,…],"timestamps":[t,…]}}, timestamps in epoch
 * milliseconds, as many values as timestamps; many lines per record. {@code __name__} is the metric name (a line
 * without one is rejected); labels with an empty value are dropped; a value may be a JSON number or one of the
 * strings VictoriaMetrics writes for non-finite values ({@code "NaN"}, {@code "Inf"}, {@code "-Inf"}) or null —
 * those samples are skipped and counted ({@link DecodeError#NON_FINITE_VALUE}). Other keys are ignored.
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class ExportLineDecoder extends LineDecoder {

    private static final JsonFactory JSON =
            JsonFactory.builder().disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();

    private double[] values = new double[64];
    private long[] timestamps = new long[64];
    private int[] labels = new int[64]; // nameOff, nameLen, valueOff, valueLen
    private int labelCount;

    /** @param maxRecordBytes larger records are rejected whole */
    public ExportLineDecoder(int maxRecordBytes) {
        super(maxRecordBytes);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param window         a line with a sample outside it is refused as {@code implausible_timestamp}
     */
    public ExportLineDecoder(int maxRecordBytes, TimestampWindow window) {
        super(maxRecordBytes, window);
    }

    @Override
    public InputFormat format() {
        return InputFormat.JSONLINE;
    }

    @Override
    protected boolean skip(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != ' ' && b[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    // Longer than ~60 lines: one pass over the record's bytes, kept in one method on purpose (hot path): the cursor
    // and the parse state stay in locals, which the JIT keeps in registers; split into helpers they would go through
    // fields or return values per label. DecoderBenchmark guards its speed.
    @Override
    protected DecodeError decodeLine(
            byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        try (JsonParser parser = JSON.createParser(b, from, to - from)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return fail(DecodeError.NOT_AN_OBJECT, "line is not a JSON object");
            }
            int metricOff = -1;
            int metricLen = 0;
            int valueCount = -1;
            int timestampCount = -1;
            labelCount = 0;
            JsonToken t;
            while ((t = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken vt = parser.nextToken();
                switch (field) {
                    case "metric" -> {
                        if (vt != JsonToken.START_OBJECT) {
                            return fail(DecodeError.INVALID_METRIC, "metric is not an object");
                        }
                        while (parser.nextToken() == JsonToken.FIELD_NAME) {
                            String name = parser.currentName();
                            if (parser.nextToken() != JsonToken.VALUE_STRING) {
                                return fail(DecodeError.INVALID_DIMENSIONS, "label '" + name + "' is not a string");
                            }
                            String value = parser.getText();
                            if (value.isEmpty()) {
                                continue;
                            }
                            if (name.equals("__name__")) {
                                metricOff = out.copy(value);
                                metricLen = out.lastLength();
                            } else if (!name.isEmpty()) {
                                if (labelCount * 4 == labels.length) {
                                    labels = Arrays.copyOf(labels, labels.length * 2);
                                }
                                labels[labelCount * 4] = out.copy(name);
                                labels[labelCount * 4 + 1] = out.lastLength();
                                labels[labelCount * 4 + 2] = out.copy(value);
                                labels[labelCount * 4 + 3] = out.lastLength();
                                labelCount++;
                            }
                        }
                    }
                    case "values" -> {
                        if (vt != JsonToken.START_ARRAY) {
                            return fail(DecodeError.INVALID_VALUE, "values is not an array");
                        }
                        valueCount = 0;
                        JsonToken e;
                        while ((e = parser.nextToken()) != JsonToken.END_ARRAY) {
                            double v;
                            if (e == JsonToken.VALUE_NUMBER_INT || e == JsonToken.VALUE_NUMBER_FLOAT) {
                                v = parser.getDoubleValue();
                            } else if (e == JsonToken.VALUE_NULL) {
                                v = Double.NaN;
                            } else if (e == JsonToken.VALUE_STRING) {
                                String s = parser.getText();
                                byte[] sb = s.getBytes(StandardCharsets.ISO_8859_1);
                                if (!numbers.parseDouble(sb, 0, sb.length)) {
                                    return fail(DecodeError.INVALID_VALUE, "value '" + s + "' is not a number");
                                }
                                v = numbers.doubleValue();
                            } else {
                                return fail(DecodeError.INVALID_VALUE, "value is " + e);
                            }
                            if (valueCount == values.length) {
                                values = Arrays.copyOf(values, valueCount * 2);
                            }
                            values[valueCount++] = v;
                        }
                    }
                    case "timestamps" -> {
                        if (vt != JsonToken.START_ARRAY) {
                            return fail(DecodeError.INVALID_TIMESTAMP, "timestamps is not an array");
                        }
                        timestampCount = 0;
                        JsonToken e;
                        while ((e = parser.nextToken()) != JsonToken.END_ARRAY) {
                            if (e != JsonToken.VALUE_NUMBER_INT
                                    || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                                return fail(DecodeError.INVALID_TIMESTAMP, "timestamp is not an integer of epoch ms");
                            }
                            long ts = parser.getLongValue();
                            if (ts < 0) {
                                return fail(DecodeError.INVALID_TIMESTAMP, "negative timestamp");
                            }
                            if (timestampCount == timestamps.length) {
                                timestamps = Arrays.copyOf(timestamps, timestampCount * 2);
                            }
                            timestamps[timestampCount++] = ts;
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT || parser.nextToken() != null) {
                return fail(DecodeError.INVALID_JSON, "not one JSON object");
            }
            if (metricOff < 0) {
                return fail(DecodeError.MISSING_METRIC, "no __name__");
            }
            if (valueCount < 0 || timestampCount < 0) {
                return fail(
                        valueCount < 0 ? DecodeError.MISSING_VALUE : DecodeError.MISSING_TIMESTAMP,
                        "no values or no timestamps");
            }
            if (valueCount != timestampCount) {
                return fail(DecodeError.INVALID_LINE, valueCount + " values but " + timestampCount + " timestamps");
            }
            for (int i = 0; i < valueCount; i++) {
                double v = values[i];
                if (rejections.skips(v)) {
                    nonFinite(rejections, v);
                    continue;
                }
                int p = out.begin();
                out.setMetric(p, metricOff, metricLen);
                for (int l = 0; l < labelCount; l++) {
                    out.addLabel(p, labels[l * 4], labels[l * 4 + 1], labels[l * 4 + 2], labels[l * 4 + 3]);
                }
                out.set(p, timestamps[i], v);
                out.canonicalize(p);
            }
            return null;
        } catch (IOException e) {
            String m = e.getMessage();
            int nl = m == null ? -1 : m.indexOf('\n');
            return fail(DecodeError.INVALID_JSON, m == null ? "unparseable" : nl < 0 ? m : m.substring(0, nl));
        }
    }
}
