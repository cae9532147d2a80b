package io.tsdbwriter.decode.prometheus;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.FamilyMetadata;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.LineDecoder;
import io.tsdbwriter.decode.PointExemplars;
import io.tsdbwriter.decode.PointHistograms;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.Utf8;

/**
 * Reads Prometheus text exposition format 0.0.4 (Prometheus docs, "Exposition formats"), as VictoriaMetrics'
 * {@code /api/v1/import/prometheus} does ({@code lib/protoparser/prometheus}), through the format's one tokenizer
 * {@link ExpositionLine}: one sample per line,
 * {@code name[{label="value",…}] value [timestamp]}; many lines per record.
 * <ul>
 *   <li>lines whose first non-blank character is {@code #} ({@code HELP}, {@code TYPE}, comments) hold no sample;
 *       {@code # TYPE name type}, {@code # HELP name text} (its {@code \\} and {@code \n} resolved) and
 *       {@code # UNIT name unit} of well-formed UTF-8 are kept per family ({@link DecodedPoints#families}), for remote
 *       write's metadata; any other comment is skipped;</li>
 *   <li>an OpenMetrics exemplar after the value and timestamp, {@code # {labels} value [timestamp]} with the
 *       {@code #} after a blank, is checked and kept apart ({@link io.tsdbwriter.decode.PointExemplars}: remote write
 *       sends it; never the sample's labels or value); a line whose exemplar
 *       does not follow that grammar is {@link DecodeError#INVALID_LINE} (VictoriaMetrics reads exemplars
 *       otherwise, and wrongly on a line without labels: see {@link ExpositionLine});</li>
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

    /** The format's one tokenizer; the decoder adds the copy into the arena and the number parsing. */
    private final ExpositionLine line = new ExpositionLine();
    /** A second tokenizer, for an exemplar read again when its classic histogram is added (a later line). */
    private final ExpositionLine exemplarLine = new ExpositionLine();

    private final ClassicHistogramGroups classic = new ClassicHistogramGroups(this);
    /** This record's {@link PointHistograms#classicCustomBuckets()}. */
    private boolean convertClassic;

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
        int i = ExpositionLine.blanks(b, from, to);
        return i == to || b[i] == '#';
    }

    @Override
    protected boolean skip(byte[] b, int from, int to, DecodedPoints out) {
        if (!skip(b, from, to)) {
            return false;
        }
        int i = ExpositionLine.blanks(b, from, to);
        if (i < to && b[i] == '#') {
            if (convertClassic) {
                classic.close();
            }
            metadata(b, ExpositionLine.blanks(b, i + 1, to), to, out, convertClassic ? classic : null);
        }
        return true;
    }

    @Override
    protected void startRecord(byte[] value, DecodedPoints out, Rejections rejections) {
        convertClassic = out.histograms().classicCustomBuckets();
        if (convertClassic) {
            classic.start(value, out, rejections);
        }
    }

    @Override
    protected void endRecord(DecodedPoints out, Rejections rejections) {
        if (convertClassic) {
            classic.finish();
        }
    }

    /**
     * Keeps a {@code HELP}, {@code TYPE} or {@code UNIT} line {@code b[i, to)} (after its {@code #}) in the families, and
     * tells {@code classic} (when not null) the family and type of a {@code TYPE} line.
     */
    private static void metadata(byte[] b, int i, int to, DecodedPoints out, ClassicHistogramGroups classic) {
        if (to - i < 6 || !isBlank(b[i + 4])) {
            return;
        }
        int kind = b[i] == 'H' && b[i + 1] == 'E' && b[i + 2] == 'L' && b[i + 3] == 'P'
                ? 'H'
                : b[i] == 'T' && b[i + 1] == 'Y' && b[i + 2] == 'P' && b[i + 3] == 'E'
                        ? 'T'
                        : b[i] == 'U' && b[i + 1] == 'N' && b[i + 2] == 'I' && b[i + 3] == 'T' ? 'U' : 0;
        if (kind == 0) {
            return;
        }
        int ns = ExpositionLine.blanks(b, i + 5, to);
        int ne = ns;
        while (ne < to && !isBlank(b[ne])) {
            ne++;
        }
        int ts = ExpositionLine.blanks(b, ne, to);
        int te = to;
        while (te > ts && isBlank(b[te - 1])) {
            te--;
        }
        if (kind == 'T' && classic != null) {
            classic.type(ns, ne, ts, te);
        }
        if (ne == ns || !Utf8.isValid(b, ns, to)) {
            return;
        }
        FamilyMetadata f = out.families();
        int k = f.family(b, ns, ne - ns);
        if (te == ts) {
            return;
        }
        if (kind == 'H') {
            f.setHelp(k, b, ts, te - ts);
        } else if (kind == 'T') {
            f.setType(k, b, ts, te - ts);
        } else {
            f.setUnit(k, b, ts, te - ts);
        }
    }

    private static boolean isBlank(byte c) {
        return c == ' ' || c == '\t';
    }

    @Override
    protected DecodeError decodeLine(
            byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        ExpositionLine l = line;
        if (l.scan(b, from, to) != ExpositionLine.Kind.SAMPLE) {
            return switch (l.problem()) {
                case EMPTY_METRIC -> fail(DecodeError.INVALID_METRIC, l.detail());
                case NO_VALUE -> fail(DecodeError.INVALID_VALUE, l.detail());
                case LABELS, NAME_ONLY, EXEMPLAR -> fail(DecodeError.INVALID_LINE, l.detail());
            };
        }
        if (l.exemplar() >= 0 && !exemplarNumbers(b, l.exemplarTokens())) {
            return fail(DecodeError.INVALID_LINE, "exemplar value or timestamp is not a number");
        }
        int p = out.begin();
        for (int i = 0, n = l.labelCount(); i < n; i++) {
            int vs = l.valueStart(i);
            int ve = l.valueEnd(i);
            if (ve == vs) {
                continue; // a label with an empty value is no label (VictoriaMetrics drops it too)
            }
            int nameOff = out.copy(b, l.nameStart(i), l.nameEnd(i) - l.nameStart(i));
            int valueOff;
            int valueLen;
            if (!l.escaped(i)) {
                valueLen = ve - vs;
                valueOff = out.copy(b, vs, valueLen);
            } else {
                byte[] a = out.arenaForWrite(ve - vs);
                int w0 = out.arenaLength();
                valueLen = ExpositionLine.unescape(b, vs, ve, a, w0) - w0;
                valueOff = out.commitArena(valueLen);
            }
            out.addLabel(p, nameOff, l.nameEnd(i) - l.nameStart(i), valueOff, valueLen);
        }
        int metricLength = l.metricEnd() - l.metricStart();
        out.setMetric(p, out.copy(b, l.metricStart(), metricLength), metricLength);
        if (!numbers.parseDouble(b, l.valueFrom(), l.valueTo())) {
            return fail(DecodeError.INVALID_VALUE, "value is not a float");
        }
        double value = numbers.doubleValue();
        long ts = kafkaTimestampMs;
        if (l.hasTimestamp()) {
            if (!numbers.parseDouble(b, l.timestampFrom(), l.timestampTo())
                    || !Double.isFinite(numbers.doubleValue())) {
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
        if (rejections.skips(value)) {
            out.truncate(p);
            nonFinite(rejections, value);
            return null;
        }
        out.set(p, ts, value);
        out.canonicalize(p);
        if (convertClassic) {
            DecodeError late = implausible(out, p, rejections);
            if (late != null) {
                return late;
            }
            if (classic.series(p, from, to, lineNumber, l.exemplar() >= 0)) {
                return null; // taken into a classic histogram
            }
        }
        if (l.exemplar() >= 0) {
            keepExemplar(b, l.exemplarTokens(), p, ts, out.exemplars());
        } else {
            out.exemplars().none(p);
        }
        return null;
    }

    /**
     * Keeps the exemplar of the line {@code b[from, to)} (a sample line with one) as point {@code p}'s, {@code pointTs}
     * its timestamp when it has none: a classic histogram's, added after its lines.
     */
    void exemplarOf(byte[] b, int from, int to, int p, long pointTs, PointExemplars e) {
        exemplarLine.scan(b, from, to);
        keepExemplar(b, exemplarLine.exemplarTokens(), p, pointTs, e);
    }

    /**
     * Keeps point {@code p}'s exemplar (its grammar checked by {@link ExemplarTokens#scan}): its labels, value and
     * timestamp (OpenMetrics seconds, a float, into ms; the point's {@code pointTs} when it has none).
     */
    private void keepExemplar(byte[] b, ExemplarTokens x, int p, long pointTs, PointExemplars e) {
        e.begin(p);
        int to = x.labelsClose();
        for (int s = x.labelsOpen() + 1; ; ) {
            while (s < to && (b[s] == ',' || isBlank(b[s]))) {
                s++;
            }
            if (s >= to) {
                break;
            }
            int eq = s;
            while (b[eq] != '=') {
                eq++;
            }
            int nameTo = eq;
            while (isBlank(b[nameTo - 1])) {
                nameTo--;
            }
            int q = eq + 1;
            while (b[q] != '"') {
                q++;
            }
            int close = q + 1;
            boolean escaped = false;
            for (; b[close] != '"'; close++) {
                if (b[close] == '\\') {
                    escaped = true;
                    close++;
                }
            }
            e.label(b, s, nameTo - s, q + 1, close - q - 1, escaped);
            s = close + 1;
        }
        numbers.parseDouble(b, x.valueFrom(), x.valueTo());
        double value = numbers.doubleValue();
        long ts = pointTs;
        if (x.hasTimestamp() && numbers.parseDouble(b, x.timestampFrom(), x.timestampTo())) {
            ts = Math.round(numbers.doubleValue() * 1000);
        }
        e.end(value, ts);
    }

    /** Whether the exemplar's value and timestamp are numbers (it is read only to find where the sample ends). */
    private boolean exemplarNumbers(byte[] b, ExemplarTokens x) {
        return numbers.parseDouble(b, x.valueFrom(), x.valueTo())
                && (!x.hasTimestamp() || numbers.parseDouble(b, x.timestampFrom(), x.timestampTo()));
    }
}
