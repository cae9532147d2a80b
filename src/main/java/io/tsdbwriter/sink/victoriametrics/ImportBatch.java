package io.tsdbwriter.sink.victoriametrics;

/**
 * One {@code /api/v1/import} request body under construction or in flight: JSON lines, the samples and source
 * points they carry, and an opaque {@code origin} the creator uses to ack the source offsets when the write ends.
 * Filled by one poll thread, then handed to one writer thread; never shared at the same time.
 */
public final class ImportBatch {

    private final ByteBuf body;
    private int samples;
    private int points;
    private Object origin;

    /** @param initialBytes initial body capacity */
    public ImportBatch(int initialBytes) {
        this.body = new ByteBuf(initialBytes);
    }

    /** The body: JSON lines, each ending in a newline. */
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

    /** Adds one encoded source point's sample count. */
    public void addPoint(int pointSamples) {
        samples += pointSamples;
        points++;
    }

    /** True when nothing was encoded. */
    public boolean isEmpty() {
        return samples == 0;
    }

    /** The creator's handle (offsets to ack, records to dead-letter). */
    public Object origin() {
        return origin;
    }

    /** Sets the creator's handle. */
    public void origin(Object o) {
        this.origin = o;
    }
}
