package io.tsdbwriter.write;


import java.util.Arrays;

/**
 * One write request body — JSON lines for {@code /api/v1/import}, or the concatenated {@code TimeSeries} of a
 * Prometheus remote write {@code WriteRequest} (uncompressed; see {@link io.tsdbwriter.encode.SampleEncoder}) — and
 * for each source point the end of its chunk in the body, its sample count and an opaque reference to its source (the Kafka record), so that a batch VictoriaMetrics
 * refuses can be split until the refused points are isolated, and their sources dead-lettered. {@code origin} is
 * the creator's handle for acking the source offsets.
 *
 * <p>Filled by one poll thread, then handed to one writer thread; never used by two threads at once.
 */
public final class WriteBatch {

    private final ByteBuf body;
    private int samples;
    private int points;
    private int[] pointEnds = new int[64];
    private int[] pointSamples = new int[64];
    private Object[] pointSources = new Object[64];
    private Object origin;

    /** @param initialBytes initial body capacity */
    public WriteBatch(int initialBytes) {
        this.body = new ByteBuf(initialBytes);
    }

    /** The body: JSON lines each ending in a newline, or remote write {@code TimeSeries} entries. */
    public ByteBuf body() {
        return body;
    }

    /** Samples in the body. */
    public int samples() {
        return samples;
    }

    /** Source points in the body. */
    public int points() {
        return points;
    }

    /**
     * Records that the lines just appended to {@link #body()} belong to one source point.
     *
     * @param pointSamples samples in those lines
     * @param source       the point's source (e.g. its Kafka record), kept for dead-lettering
     */
    public void addPoint(int pointSamples, Object source) {
        if (points == pointEnds.length) {
            int n = points * 2;
            pointEnds = Arrays.copyOf(pointEnds, n);
            this.pointSamples = Arrays.copyOf(this.pointSamples, n);
            pointSources = Arrays.copyOf(pointSources, n);
        }
        pointEnds[points] = body.length();
        this.pointSamples[points] = pointSamples;
        pointSources[points] = source;
        points++;
        samples += pointSamples;
    }

    /** The source of point {@code i}. */
    public Object source(int i) {
        return pointSources[i];
    }

    /** A new batch holding points {@code [from, to)} (bytes copied; same origin). */
    public WriteBatch slice(int from, int to) {
        int start = from == 0 ? 0 : pointEnds[from - 1];
        int end = pointEnds[to - 1];
        int n = to - from;
        WriteBatch b = new WriteBatch(end - start);
        b.body.put(body.array(), start, end - start);
        b.pointEnds = new int[Math.max(n, 1)];
        b.pointSamples = new int[Math.max(n, 1)];
        b.pointSources = new Object[Math.max(n, 1)];
        for (int i = 0; i < n; i++) {
            b.pointEnds[i] = pointEnds[from + i] - start;
            b.pointSamples[i] = pointSamples[from + i];
            b.pointSources[i] = pointSources[from + i];
            b.samples += pointSamples[from + i];
        }
        b.points = n;
        b.origin = origin;
        return b;
    }

    /** True when nothing was encoded. */
    public boolean isEmpty() {
        return samples == 0;
    }

    /** The creator's handle (offsets to ack). */
    public Object origin() {
        return origin;
    }

    /** Sets the creator's handle. */
    public void origin(Object o) {
        this.origin = o;
    }
}
