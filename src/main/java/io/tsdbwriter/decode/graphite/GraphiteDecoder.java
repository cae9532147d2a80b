package io.tsdbwriter.decode.graphite;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;

/**
 * Reads Graphite plaintext lines (Graphite docs, "Feeding in your data"; tags per "Graphite Tag Support"),
 * {@code path[;tag=value…] value [timestamp]}, as VictoriaMetrics' {@code -graphiteListenAddr} does
 * ({@code lib/protoparser/graphite}, default flags): fields are separated by blanks (space or tab); the path is the
 * metric name as written (dots kept); each {@code ;name=value} is a label, one with an empty name or value is
 * dropped; the value is a Go float; the timestamp is in Unix seconds (a fraction is cut off); a line without one, or
 * with {@code 0} or {@code -1}, takes the record's Kafka timestamp cut to whole seconds. NaN and ±Inf samples are
 * skipped and counted ({@link DecodeError#NON_FINITE_VALUE}).
 *
 * <p>Not thread-safe: one per consuming thread.
 */
public final class GraphiteDecoder extends LineDecoder {

    /** @param maxRecordBytes larger records are rejected whole */
    public GraphiteDecoder(int maxRecordBytes) {
        super(maxRecordBytes);
    }

    /**
     * @param maxRecordBytes larger records are rejected whole
     * @param window         a line with a sample outside it is refused as {@code implausible_timestamp}
     */
    public GraphiteDecoder(int maxRecordBytes, TimestampWindow window) {
        super(maxRecordBytes, window);
    }

    @Override
    public InputFormat format() {
        return InputFormat.GRAPHITE;
    }

    @Override
    protected boolean skip(byte[] b, int from, int to) {
        return trimEnd(b, from, to) == from;
    }

    // Longer than ~60 lines: one pass over the record's bytes, kept in one method on purpose (hot path): the cursor
    // and the parse state stay in locals, which the JIT keeps in registers; split into helpers they would go through
    // fields or return values per label. DecoderBenchmark guards its speed.
    @Override
    protected DecodeError decodeLine(
            byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        int end = trimEnd(b, from, to);
        int sep = lastBlank(b, from, end);
        if (sep < 0) {
            return fail(DecodeError.INVALID_LINE, "no blank between path and value");
        }
        int tsFrom = sep + 1;
        int tsTo = end;
        int head = trimEnd(b, from, sep);
        int sep2 = lastBlank(b, from, head);
        int pathFrom;
        int pathTo;
        int valueFrom;
        int valueTo;
        if (sep2 < 0) { // no timestamp
            pathFrom = blanks(b, from, head);
            pathTo = head;
            valueFrom = tsFrom;
            valueTo = tsTo;
            tsFrom = tsTo;
        } else {
            pathFrom = blanks(b, from, sep2);
            pathTo = trimEnd(b, pathFrom, sep2);
            valueFrom = sep2 + 1;
            valueTo = head;
        }
        long ts = kafkaTimestampMs / 1000 * 1000;
        if (tsFrom < tsTo) {
            if (!numbers.parseDouble(b, tsFrom, tsTo) || !Double.isFinite(numbers.doubleValue())) {
                return fail(DecodeError.INVALID_TIMESTAMP, "timestamp is not a number");
            }
            long seconds = (long) numbers.doubleValue();
            if (seconds != 0 && seconds != -1) {
                if (seconds < 0 || seconds > Long.MAX_VALUE / 1000) {
                    return fail(DecodeError.INVALID_TIMESTAMP, "timestamp out of range");
                }
                ts = seconds * 1000;
            }
        }
        if (!numbers.parseDouble(b, valueFrom, valueTo)) {
            return fail(DecodeError.INVALID_VALUE, "value is not a number");
        }
        double v = numbers.doubleValue();
        int semi = indexOf(b, pathFrom, pathTo, ';');
        int metricTo = semi < 0 ? pathTo : semi;
        if (metricTo == pathFrom) {
            return fail(DecodeError.INVALID_METRIC, "empty metric path");
        }
        if (rejections.skips(v)) {
            nonFinite(rejections, v);
            return null;
        }
        int p = out.begin();
        out.setMetric(p, out.copy(b, pathFrom, metricTo - pathFrom), metricTo - pathFrom);
        int s = semi;
        while (s >= 0) {
            int next = indexOf(b, s + 1, pathTo, ';');
            int tagTo = next < 0 ? pathTo : next;
            int eq = indexOf(b, s + 1, tagTo, '=');
            if (eq > s + 1 && eq + 1 < tagTo) {
                int nameOff = out.copy(b, s + 1, eq - s - 1);
                int valueOff = out.copy(b, eq + 1, tagTo - eq - 1);
                out.addLabel(p, nameOff, eq - s - 1, valueOff, tagTo - eq - 1);
            }
            s = next;
        }
        out.set(p, ts, v);
        out.canonicalize(p);
        return null;
    }

    private static int lastBlank(byte[] b, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (b[i] == ' ' || b[i] == '\t') {
                return i;
            }
        }
        return -1;
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
