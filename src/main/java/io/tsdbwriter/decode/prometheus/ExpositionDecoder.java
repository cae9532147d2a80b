package io.tsdbwriter.decode.prometheus;

import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;

/**
 * Reads Prometheus text exposition format 0.0.4 (Prometheus docs, "Exposition formats"), as VictoriaMetrics'
 * {@code /api/v1/import/prometheus} does ({@code lib/protoparser/prometheus}): one sample per line,
 * {@code name[{label="value",…}] value [timestamp]}; many lines per record.
 * <ul>
 *   <li>lines whose first non-blank character is {@code #} ({@code HELP}, {@code TYPE}, comments) are skipped, and
 *       so is anything after a {@code #} behind the labels (an exemplar);</li>
 *   <li>label values are double-quoted with the escapes {@code \\}, {@code \"} and {@code \n} (any other backslash
 *       is kept as it is); a trailing comma inside the braces is allowed; labels with an empty value are dropped;</li>
 *   <li>the value is a Go float ({@code 1.5e-05}, {@code NaN}, {@code +Inf}); NaN and ±Inf samples are skipped and
 *       counted ({@link DecodeError#NON_FINITE_VALUE}), as the import API carries finite values only;</li>
 *   <li>the optional timestamp is in epoch milliseconds (one within ±2^31 is read as OpenMetrics seconds, as
 *       VictoriaMetrics does); without one the sample takes the record's Kafka timestamp.</li>
 * </ul>
 * Metric and label names are taken as written (VictoriaMetrics does not check them either).
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class ExpositionDecoder extends LineDecoder {

    /** @param maxRecordBytes larger records are rejected whole */
    public ExpositionDecoder(int maxRecordBytes) {
        super(maxRecordBytes);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param window         a line with a sample outside it is refused as {@code implausible_timestamp}
     */
    public ExpositionDecoder(int maxRecordBytes, TimestampWindow window) {
        super(maxRecordBytes, window);
    }

    @Override
    public InputFormat format() {
        return InputFormat.PROMETHEUS;
    }

    @Override
    protected boolean skip(byte[] b, int from, int to) {
        int i = blanks(b, from, to);
        return i == to || b[i] == '#';
    }

    @Override
    protected DecodeError decodeLine(byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        int s = blanks(b, from, to);
        int brace = indexOf(b, s, to, '{');
        int metricEnd;
        int p = out.begin();
        if (brace >= 0) {
            metricEnd = trimEnd(b, s, brace);
            s = labels(b, brace + 1, to, out, p);
            if (s < 0) {
                return DecodeError.INVALID_LINE;
            }
        } else {
            metricEnd = s;
            while (metricEnd < to && b[metricEnd] != ' ' && b[metricEnd] != '\t') {
                metricEnd++;
            }
            if (metricEnd == to) {
                return fail(DecodeError.INVALID_LINE, "no value");
            }
        }
        int metricStart = blanks(b, from, to);
        if (metricEnd <= metricStart) {
            return fail(DecodeError.INVALID_METRIC, "empty metric name");
        }
        out.setMetric(p, out.copy(b, metricStart, metricEnd - metricStart), metricEnd - metricStart);
        int v = blanks(b, brace >= 0 ? s : metricEnd, to);
        int end = indexOf(b, v, to, '#');
        end = trimEnd(b, v, end < 0 ? to : end);
        if (v == end) {
            return fail(DecodeError.INVALID_VALUE, "no value");
        }
        int vEnd = v;
        while (vEnd < end && b[vEnd] != ' ' && b[vEnd] != '\t') {
            vEnd++;
        }
        if (!numbers.parseDouble(b, v, vEnd)) {
            return fail(DecodeError.INVALID_VALUE, "value is not a float");
        }
        double value = numbers.doubleValue();
        long ts = kafkaTimestampMs;
        int t = blanks(b, vEnd, end);
        if (t < end) {
            if (!numbers.parseDouble(b, t, end) || !Double.isFinite(numbers.doubleValue())) {
                return fail(DecodeError.INVALID_TIMESTAMP, "timestamp is not a number");
            }
            double d = numbers.doubleValue();
            if (d >= -(1L << 31) && d < (1L << 31)) {
                d *= 1000; // OpenMetrics seconds, as VictoriaMetrics reads them
            }
            ts = (long) d;
            if (ts < 0) {
                return fail(DecodeError.INVALID_TIMESTAMP, "negative timestamp");
            }
        }
        if (!Double.isFinite(value)) {
            out.truncate(p);
            nonFinite(rejections, value);
            return null;
        }
        out.set(p, ts, value);
        out.canonicalize(p);
        return null;
    }

    /** Reads {@code label="value",…}} from {@code s}; returns the index after the closing brace, or -1. */
    private int labels(byte[] b, int s, int to, DecodedPoints out, int p) {
        while (true) {
            s = blanks(b, s, to);
            if (s < to && b[s] == '}') {
                return s + 1;
            }
            int eq = indexOf(b, s, to, '=');
            if (eq < 0) {
                fail(DecodeError.INVALID_LINE, "label without '='");
                return -1;
            }
            int nameEnd = trimEnd(b, s, eq);
            if (nameEnd == s) {
                fail(DecodeError.INVALID_LINE, "empty label name");
                return -1;
            }
            int q = blanks(b, eq + 1, to);
            if (q >= to || b[q] != '"') {
                fail(DecodeError.INVALID_LINE, "label value not quoted");
                return -1;
            }
            // closing quote: the first '"' not escaped
            int close = q + 1;
            boolean escaped = false;
            while (close < to && b[close] != '"') {
                if (b[close] == '\\') {
                    escaped = true;
                    close++;
                }
                close++;
            }
            if (close >= to) {
                fail(DecodeError.INVALID_LINE, "label value without closing quote");
                return -1;
            }
            if (close > q + 1) {
                int nameOff = out.copy(b, s, nameEnd - s);
                int valueOff;
                int valueLen;
                if (!escaped) {
                    valueLen = close - q - 1;
                    valueOff = out.copy(b, q + 1, valueLen);
                } else {
                    byte[] a = out.arenaForWrite(close - q - 1);
                    int w = out.arenaLength();
                    int w0 = w;
                    for (int i = q + 1; i < close; i++) {
                        byte c = b[i];
                        if (c == '\\' && i + 1 < close) {
                            byte e = b[++i];
                            if (e == 'n') {
                                a[w++] = '\n';
                            } else if (e == '\\' || e == '"') {
                                a[w++] = e;
                            } else {
                                a[w++] = '\\';
                                a[w++] = e;
                            }
                        } else {
                            a[w++] = c;
                        }
                    }
                    valueLen = w - w0;
                    valueOff = out.commitArena(valueLen);
                }
                out.addLabel(p, nameOff, nameEnd - s, valueOff, valueLen);
            }
            s = blanks(b, close + 1, to);
            if (s < to && b[s] == '}') {
                return s + 1;
            }
            if (s >= to || b[s] != ',') {
                fail(DecodeError.INVALID_LINE, "no ',' or '}' after a label");
                return -1;
            }
            s++;
        }
    }

    private static int indexOf(byte[] b, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static int blanks(byte[] b, int from, int to) {
        while (from < to && (b[from] == ' ' || b[from] == '\t')) {
            from++;
        }
        return from;
    }

    private static int trimEnd(byte[] b, int from, int to) {
        while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) {
            to--;
        }
        return to;
    }
}
