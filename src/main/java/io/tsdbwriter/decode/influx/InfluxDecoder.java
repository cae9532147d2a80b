package io.tsdbwriter.decode.influx;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads InfluxDB line protocol (InfluxDB 2 reference, "Line protocol"):
 * {@code measurement[,tag=value…] field=value[,field=value…] [timestamp]}, one line per row, many rows per record,
 * and names the samples exactly as VictoriaMetrics' own {@code /write} endpoint does with its default flags
 * ({@code app/vminsert/influx}, {@code lib/protoparser/influx}):
 * <ul>
 *   <li>each field is one sample of metric {@code <measurement>_<field key>} ({@code -influxMeasurementFieldSeparator=_},
 *       no {@code -influxSkipSingleField}, no {@code -influxSkipMeasurement}); an empty measurement gives the field
 *       key alone; tags are labels, a tag with an empty key or value is dropped; no {@code db} label (there is no
 *       {@code ?db=} query);</li>
 *   <li>escapes: a backslash before space, comma, {@code =} or backslash stands for that character in measurement,
 *       tag keys and values and field keys; any other backslash is kept;</li>
 *   <li>field values: {@code 12i} integer, {@code 12u} unsigned, {@code t T true True TRUE} = 1 and
 *       {@code f F false False FALSE} = 0, a float; a double-quoted string is read as a number when it is one and as
 *       0 otherwise (what VictoriaMetrics stores for it);</li>
 *   <li>the optional timestamp is an integer in {@code --influx-precision} units (ns by default), converted to ms
 *       by truncating division; none (or 0) means the record's Kafka timestamp;</li>
 *   <li>lines starting with {@code #} are comments.</li>
 * </ul>
 * Differences from VictoriaMetrics, on broken input only: an unquoted field value that is not a number rejects the
 * line (VictoriaMetrics stores 0), as does a negative timestamp; NaN and ±Inf values are skipped and counted
 * ({@link DecodeError#NON_FINITE_VALUE}): the import API carries finite values only.
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class InfluxDecoder extends LineDecoder {

    /** Timestamp units of {@code --influx-precision}. */
    public enum Precision {
        NS(1_000_000),
        US(1_000),
        MS(1),
        S(-1_000);

        /** Positive: divide by it to get ms; negative: multiply by its absolute value. */
        final long factor;

        Precision(long factor) {
            this.factor = factor;
        }

        /** Parses ns, us, ms or s (case-insensitive). */
        public static Precision parse(String value) {
            return switch (value == null ? "" : value.trim().toLowerCase(Locale.ROOT)) {
                case "ns", "n" -> NS;
                case "us", "u", "µs" -> US;
                case "ms" -> MS;
                case "s" -> S;
                default ->
                    throw new IllegalArgumentException(
                            "--influx-precision must be ns, us, ms or s, got '" + value + "'");
            };
        }
    }

    private final Precision precision;
    private boolean escapes;
    private boolean quoted;
    private int[] tagName = new int[16];
    private int[] tagNameLen = new int[16];
    private int[] tagValue = new int[16];
    private int[] tagValueLen = new int[16];
    private int tagCount;
    private int unescapedLength;

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param precision      unit of the lines' timestamps
     */
    public InfluxDecoder(int maxRecordBytes, Precision precision) {
        this(maxRecordBytes, precision, TimestampWindow.DEFAULT);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param precision      unit of the lines' timestamps
     * @param window         a line whose timestamp, converted to ms, lies outside it is refused as {@code implausible_timestamp}
     */
    public InfluxDecoder(int maxRecordBytes, Precision precision, TimestampWindow window) {
        super(maxRecordBytes, window);
        this.precision = precision;
    }

    @Override
    public InputFormat format() {
        return InputFormat.INFLUX;
    }

    @Override
    protected boolean skip(byte[] b, int from, int to) {
        return b[from] == '#';
    }

    @Override
    protected DecodeError decodeLine(
            byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        escapes = indexOf(b, from, to, '\\') >= 0;
        int space = nextUnescaped(b, from, to, ' ');
        if (space < 0) {
            return fail(DecodeError.INVALID_LINE, "no space between measurement and fields");
        }
        int rest = stripSpaces(b, space + 1, to);
        int comma = nextUnescaped(b, from, space, ',');
        int measurementEnd = comma < 0 ? space : comma;
        tagCount = 0;
        if (comma >= 0) {
            DecodeError e = tags(b, comma + 1, space, out);
            if (e != null) {
                return e;
            }
        }
        int measurement = unescape(b, from, measurementEnd, out);
        int measurementLength = unescapedLength;

        quoted = nextUnescaped(b, rest, to, '"') >= 0;
        int fieldsEnd = nextUnquoted(b, rest, to, ' ');
        long timestampMs = kafkaTimestampMs;
        if (fieldsEnd < 0) {
            fieldsEnd = to;
        } else {
            int ts = stripSpaces(b, fieldsEnd + 1, to);
            if (ts < to) {
                if (!numbers.parseLong(b, ts, to)) {
                    return fail(DecodeError.INVALID_TIMESTAMP, "timestamp is not an integer");
                }
                long t = numbers.longValue();
                if (t != 0) {
                    timestampMs = precision.factor > 0 ? t / precision.factor : t * -precision.factor;
                    if (timestampMs < 0) {
                        return fail(DecodeError.INVALID_TIMESTAMP, "negative timestamp " + t);
                    }
                }
            }
        }
        return fields(b, rest, fieldsEnd, measurement, measurementLength, timestampMs, out, rejections);
    }

    private DecodeError tags(byte[] b, int from, int to, DecodedPoints out) {
        int s = from;
        while (true) {
            int comma = nextUnescaped(b, s, to, ',');
            int end = comma < 0 ? to : comma;
            int eq = nextUnescaped(b, s, end, '=');
            if (eq < 0) {
                return fail(DecodeError.INVALID_LINE, "tag without '='");
            }
            int name = unescape(b, s, eq, out);
            int nameLength = unescapedLength;
            int value = unescape(b, eq + 1, end, out);
            int valueLength = unescapedLength;
            if (nameLength > 0 && valueLength > 0) {
                if (tagCount == tagName.length) {
                    int n = tagCount * 2;
                    tagName = Arrays.copyOf(tagName, n);
                    tagNameLen = Arrays.copyOf(tagNameLen, n);
                    tagValue = Arrays.copyOf(tagValue, n);
                    tagValueLen = Arrays.copyOf(tagValueLen, n);
                }
                tagName[tagCount] = name;
                tagNameLen[tagCount] = nameLength;
                tagValue[tagCount] = value;
                tagValueLen[tagCount] = valueLength;
                tagCount++;
            }
            if (comma < 0) {
                return null;
            }
            s = comma + 1;
        }
    }

    private DecodeError fields(
            byte[] b,
            int from,
            int to,
            int measurement,
            int measurementLength,
            long timestampMs,
            DecodedPoints out,
            Rejections rejections) {
        int s = from;
        while (true) {
            int comma = nextUnquoted(b, s, to, ',');
            int end = comma < 0 ? to : comma;
            int eq = nextUnescaped(b, s, end, '=');
            if (eq < 0) {
                return fail(DecodeError.INVALID_LINE, "field without '='");
            }
            if (eq == s) {
                return fail(DecodeError.INVALID_LINE, "empty field key");
            }
            DecodeError e = fieldValue(b, eq + 1, end);
            if (e != null) {
                return e;
            }
            double v = value;
            // the metric name: <measurement>_<field key> (or the key alone), built in the arena
            int keyLength = unescapedLengthOf(b, s, eq);
            int nameLength = (measurementLength > 0 ? measurementLength + 1 : 0) + keyLength;
            byte[] a = out.arenaForWrite(nameLength);
            int w = out.arenaLength();
            if (measurementLength > 0) {
                System.arraycopy(a, measurement, a, w, measurementLength);
                w += measurementLength;
                a[w++] = '_';
            }
            unescapeInto(b, s, eq, a, w);
            int name = out.commitArena(nameLength);
            if (rejections.skips(v)) {
                nonFinite(rejections, v);
            } else {
                int p = out.begin();
                out.setMetric(p, name, nameLength);
                for (int t = 0; t < tagCount; t++) {
                    out.addLabel(p, tagName[t], tagNameLen[t], tagValue[t], tagValueLen[t]);
                }
                out.set(p, timestampMs, v);
                out.canonicalize(p);
            }
            if (comma < 0) {
                return null;
            }
            s = comma + 1;
        }
    }

    /** Parses a field value into {@link #value} as VictoriaMetrics reads it. */
    private DecodeError fieldValue(byte[] b, int from, int to) {
        if (from >= to) {
            return fail(DecodeError.INVALID_VALUE, "empty field value");
        }
        if (quoted && b[from] == '"') {
            if (to - from < 2 || b[to - 1] != '"') {
                return fail(DecodeError.INVALID_VALUE, "string field value without closing quote");
            }
            // a string that reads as a number is that number; any other string is stored as 0 by VictoriaMetrics
            value = numbers.parseDouble(b, from + 1, to - 1) ? numbers.doubleValue() : 0;
            return null;
        }
        byte last = b[to - 1];
        if (last == 'i') {
            if (!numbers.parseLong(b, from, to - 1)) {
                return fail(DecodeError.INVALID_VALUE, "bad integer field value");
            }
            value = numbers.longValue();
            return null;
        }
        if (last == 'u') {
            if (!numbers.parseUnsigned(b, from, to - 1)) {
                return fail(DecodeError.INVALID_VALUE, "bad unsigned field value");
            }
            value = numbers.doubleValue();
            return null;
        }
        if (to - from <= 5) {
            if (isWord(b, from, to, "t")
                    || isWord(b, from, to, "T")
                    || isWord(b, from, to, "true")
                    || isWord(b, from, to, "True")
                    || isWord(b, from, to, "TRUE")) {
                value = 1;
                return null;
            }
            if (isWord(b, from, to, "f")
                    || isWord(b, from, to, "F")
                    || isWord(b, from, to, "false")
                    || isWord(b, from, to, "False")
                    || isWord(b, from, to, "FALSE")) {
                value = 0;
                return null;
            }
        }
        if (!numbers.parseDouble(b, from, to)) {
            return fail(DecodeError.INVALID_VALUE, "field value is not a number");
        }
        value = numbers.doubleValue();
        return null;
    }

    private double value;

    private static boolean isWord(byte[] b, int from, int to, String w) {
        if (to - from != w.length()) {
            return false;
        }
        for (int i = 0; i < w.length(); i++) {
            if (b[from + i] != w.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    // --- escapes, as VictoriaMetrics' nextUnescapedChar / nextUnquotedChar / unescapeTagValue ---

    private static int indexOf(byte[] b, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static int stripSpaces(byte[] b, int from, int to) {
        while (from < to && b[from] == ' ') {
            from++;
        }
        return from;
    }

    /** First {@code c} in {@code [from, to)} not preceded by an odd number of backslashes, or -1. */
    private int nextUnescaped(byte[] b, int from, int to, char c) {
        if (!escapes) {
            return indexOf(b, from, to, c);
        }
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                int slashes = 0;
                for (int k = i - 1; k >= from && b[k] == '\\'; k--) {
                    slashes++;
                }
                if ((slashes & 1) == 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** As {@link #nextUnescaped} outside double-quoted field values. */
    private int nextUnquoted(byte[] b, int from, int to, char c) {
        if (!quoted) {
            return nextUnescaped(b, from, to, c);
        }
        int s = from;
        while (true) {
            int n = nextUnescaped(b, s, to, c);
            if (n < 0) {
                return -1;
            }
            if (!inQuote(b, s, n)) {
                return n;
            }
            s = n + 1;
            n = nextUnescaped(b, s, to, '"');
            if (n < 0) {
                return -1;
            }
            s = n + 1;
        }
    }

    private boolean inQuote(byte[] b, int from, int to) {
        boolean in = false;
        int s = from;
        while (true) {
            int n = nextUnescaped(b, s, to, '"');
            if (n < 0) {
                return in;
            }
            in = !in;
            s = n + 1;
        }
    }

    /** Copies {@code b[from, to)} unescaped into the arena; returns its offset, length in {@link #unescapedLength}. */
    private int unescape(byte[] b, int from, int to, DecodedPoints out) {
        int len = unescapedLengthOf(b, from, to);
        byte[] a = out.arenaForWrite(len);
        unescapeInto(b, from, to, a, out.arenaLength());
        unescapedLength = len;
        return out.commitArena(len);
    }

    private int unescapedLengthOf(byte[] b, int from, int to) {
        if (!escapes) {
            return to - from;
        }
        int len = 0;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\' && i + 1 < to && isEscapable(b[i + 1])) {
                i++;
            }
            len++;
        }
        return len;
    }

    private void unescapeInto(byte[] b, int from, int to, byte[] a, int w) {
        if (!escapes) {
            System.arraycopy(b, from, a, w, to - from);
            return;
        }
        for (int i = from; i < to; i++) {
            if (b[i] == '\\' && i + 1 < to && isEscapable(b[i + 1])) {
                i++;
            }
            a[w++] = b[i];
        }
    }

    private static boolean isEscapable(byte c) {
        return c == ' ' || c == ',' || c == '=' || c == '\\';
    }
}
