package io.tsdbwriter.decode;

import java.util.Objects;

/**
 * The record loop of the line-based formats: a record value is UTF-8 text of lines ended by {@code \n} (a
 * trailing {@code \r} is dropped; the last line needs no end); empty lines are skipped, each other line is decoded
 * by {@link #decodeLine}. A broken line is counted and dropped with every point it had begun; the lines around it
 * are kept. Records empty or larger than the limit are rejected whole; a record without any sample counts as
 * {@link DecodeError#NO_SAMPLES}.
 *
 * <p>Not thread-safe.
 */
public abstract class LineDecoder implements RecordDecoder {

    private final int maxRecordBytes;
    /** 1-based number of the line being decoded. */
    protected int lineNumber;
    /** Set by {@link #decodeLine} when it returns a reason. */
    protected String detail = "";
    /** Number parsing shared by subclasses. */
    protected final Numbers numbers = new Numbers();

    private final TimestampWindow window;
    private final TimestampCheck timestamps;

    /** @param maxRecordBytes larger records are rejected as {@link DecodeError#TOO_LARGE} */
    protected LineDecoder(int maxRecordBytes) {
        this(maxRecordBytes, TimestampWindow.DEFAULT);
    }

    /**
     * @param maxRecordBytes larger records are rejected as {@link DecodeError#TOO_LARGE}
     * @param window         a line with a sample outside it is {@link DecodeError#IMPLAUSIBLE_TIMESTAMP}
     */
    protected LineDecoder(int maxRecordBytes, TimestampWindow window) {
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("max record bytes must be >= 1, got " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.window = Objects.requireNonNull(window, "window");
        this.timestamps = new TimestampCheck(window);
    }

    @Override
    public final void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections) {
        out.clear();
        rejections.clear();
        if (!admit(value, maxRecordBytes, rejections)) {
            return;
        }
        int n = value.length;
        int i = 0;
        lineNumber = 0;
        startRecord(value, out, rejections);
        while (i < n) {
            int end = i;
            boolean ascii = true;
            while (end < n && value[end] != '\n') {
                ascii &= value[end] >= 0;
                end++;
            }
            lineNumber++;
            int to = end > i && value[end - 1] == '\r' ? end - 1 : end;
            if (to > i && !skip(value, i, to, out)) {
                int before = out.count();
                DecodeError error;
                if (!ascii && !Utf8.isValid(value, i, to)) {
                    error = DecodeError.INVALID_UTF8;
                    detail = "not well-formed UTF-8";
                } else {
                    detail = "";
                    error = decodeLine(value, i, to, kafkaTimestampMs, out, rejections);
                    if (error == null) {
                        error = implausible(out, before, rejections);
                    }
                }
                if (error != null) {
                    out.truncate(before);
                    rejections.add(error, rejections.wantsDetail(error) ? "line " + lineNumber + ": " + detail : "");
                }
            }
            i = end + 1;
        }
        endRecord(out, rejections);
        if (out.count() == 0 && rejections.total() == 0) {
            rejections.add(DecodeError.NO_SAMPLES, "no sample in " + lineNumber + " line(s)");
        }
        out.updateJsonSafe();
    }

    /**
     * Called once a record is admitted, before its first line, with the buffers its lines are decoded into (a format
     * whose points depend on lines before them sets up here); the default does nothing.
     */
    protected void startRecord(byte[] value, DecodedPoints out, Rejections rejections) {}

    /**
     * Called after a record's last line, before a record without points counts as {@link DecodeError#NO_SAMPLES}: a
     * format holding points back until a later line adds them here; the default does nothing.
     */
    protected void endRecord(DecodedPoints out, Rejections rejections) {}

    /**
     * {@link DecodeError#IMPLAUSIBLE_TIMESTAMP} (with {@link #detail}) when a point from {@code from} on lies outside the
     * window, else null. The loop checks every line's points after {@link #decodeLine}; a format that moves a line's
     * point away there checks it first.
     */
    protected final DecodeError implausible(DecodedPoints out, int from, Rejections rejections) {
        for (int p = from, n = out.count(); p < n; p++) {
            long t = out.timestampMs(p);
            if (!timestamps.contains(t)) {
                return fail(
                        DecodeError.IMPLAUSIBLE_TIMESTAMP,
                        rejections.wantsDetail(DecodeError.IMPLAUSIBLE_TIMESTAMP) ? window.describe(t) : "");
            }
        }
        return null;
    }

    /** True for a line that holds no sample by the format's rules (a comment); the default skips none. */
    protected boolean skip(byte[] b, int from, int to) {
        return false;
    }

    /**
     * As {@link #skip(byte[], int, int)}, for a format whose skipped lines carry something kept in {@code out} (the
     * exposition's {@code # TYPE}, {@code # HELP}, {@code # UNIT}: {@link DecodedPoints#families}); the default
     * calls the three-argument form.
     */
    protected boolean skip(byte[] b, int from, int to, DecodedPoints out) {
        return skip(b, from, to);
    }

    /**
     * Decodes one line {@code b[from, to)} (not empty, no line end, well-formed UTF-8) into points of {@code out}.
     * A sample that is well-formed but not finite is counted in {@code rejections} by the line itself and skipped.
     *
     * @return null when the line is valid, else the reason (with {@link #detail} set); the caller drops the points
     *     the line had begun
     */
    protected abstract DecodeError decodeLine(
            byte[] b, int from, int to, long kafkaTimestampMs, DecodedPoints out, Rejections rejections);

    /**
     * The checks every format makes first: a null or empty value is {@link DecodeError#EMPTY_RECORD}, a value above
     * the limit {@link DecodeError#TOO_LARGE}.
     *
     * @return true when the record may be decoded
     */
    public static boolean admit(byte[] value, int maxRecordBytes, Rejections rejections) {
        if (value == null || value.length == 0) {
            rejections.add(DecodeError.EMPTY_RECORD, "record value is empty");
            return false;
        }
        if (value.length > maxRecordBytes) {
            rejections.add(DecodeError.TOO_LARGE, value.length + " bytes > max " + maxRecordBytes);
            return false;
        }
        return true;
    }

    /** Counts a skipped non-finite sample. */
    protected final void nonFinite(Rejections rejections, double v) {
        rejections.add(
                DecodeError.NON_FINITE_VALUE,
                rejections.wantsDetail(DecodeError.NON_FINITE_VALUE)
                        ? "line " + lineNumber + ": value " + v + " skipped"
                        : "");
    }

    /** Sets {@link #detail} and returns {@code reason}. */
    protected final DecodeError fail(DecodeError reason, String message) {
        detail = message;
        return reason;
    }
}
