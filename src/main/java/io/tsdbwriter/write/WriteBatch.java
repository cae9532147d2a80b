package io.tsdbwriter.write;

import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.wire.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One write request body — JSON lines for {@code /api/v1/import}, or the concatenated {@code TimeSeries} of a
 * Prometheus remote write {@code WriteRequest} (uncompressed; see {@link io.tsdbwriter.encode.SampleEncoder}) — and
 * for each source point the end of its chunk in the body, its sample count and its source, so that a batch the TSDB
 * refuses can be split until the refused points are isolated, and their sources dead-lettered. {@code origin} is
 * the creator's handle for acking the source offsets. The write path never looks inside either.
 *
 * @param <S> a point's source (the Kafka record, for the consumer; a test's label)
 * @param <O> the creator's handle (the Kafka consumer's pending acknowledgement)
 *
 * <p>Filled by one poll thread, then handed to one writer thread; never used by two threads at once.
 */
public final class WriteBatch<S, O> {

    private final ByteBuf body;
    /** Where the body's array goes back once the batch is done; null when it was not taken from one. */
    private BodyPool pool;

    private int samples;
    private int points;
    private int[] pointEnds;
    private int[] pointSamples;
    private final List<S> pointSources;
    /** Per point: the buckets of each of its native histograms, -1 for a point of samples; null while it has none. */
    private int[] pointBuckets;

    private int histograms;
    private long histogramBuckets;
    private O origin;
    /** The tenant every point of the batch belongs to ({@code --tenant-from}); null without routing. */
    private Tenant tenant;
    /** {@link #sentUnanswered()}; written and read on the batch's write thread. */
    private boolean sentUnanswered;
    /** {@link #recordTimeMs()}: the oldest of its points' records' times; Long.MAX_VALUE while none was added. */
    private long recordTimeMs = Long.MAX_VALUE;

    /** @param initialBytes initial body capacity */
    public WriteBatch(int initialBytes) {
        this(initialBytes, BatchCapacity.INITIAL_POINTS);
    }

    /**
     * @param initialBytes  initial body capacity
     * @param initialPoints initial number of source points (≥ 1) before the per-point arrays grow
     */
    public WriteBatch(int initialBytes, int initialPoints) {
        this(new ByteBuf(initialBytes), initialPoints, null);
    }

    /** A batch whose body array comes from {@code pool} and goes back there with {@link #recycle()}. */
    WriteBatch(BodyPool pool, int initialBytes, int initialPoints) {
        this(new ByteBuf(pool.take(Math.max(16, initialBytes))), initialPoints, pool);
    }

    private WriteBatch(ByteBuf body, int initialPoints, BodyPool pool) {
        int points = Math.max(initialPoints, 1);
        this.body = body;
        this.pool = pool;
        this.pointEnds = new int[points];
        this.pointSamples = new int[points];
        this.pointSources = new ArrayList<>(points);
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
    public void addPoint(int pointSamples, S source) {
        if (points == pointEnds.length) {
            int n = points * 2;
            pointEnds = Arrays.copyOf(pointEnds, n);
            this.pointSamples = Arrays.copyOf(this.pointSamples, n);
        }
        pointEnds[points] = body.length();
        this.pointSamples[points] = pointSamples;
        pointSources.add(source);
        points++;
        samples += pointSamples;
    }

    /**
     * Marks the point {@link #addPoint added} last as native histograms: each of its samples one histogram of
     * {@code buckets} buckets. Only histogram points pay for it.
     */
    public void histogramPoint(int buckets) {
        if (pointBuckets == null) {
            pointBuckets = new int[pointEnds.length];
            Arrays.fill(pointBuckets, -1);
        } else if (pointBuckets.length < pointEnds.length) {
            int from = pointBuckets.length;
            pointBuckets = Arrays.copyOf(pointBuckets, pointEnds.length);
            Arrays.fill(pointBuckets, from, pointBuckets.length, -1);
        }
        int i = points - 1;
        if (pointBuckets[i] < 0) {
            histograms += pointSamples[i];
        } else {
            histogramBuckets -= (long) pointSamples[i] * pointBuckets[i];
        }
        pointBuckets[i] = buckets;
        histogramBuckets += (long) pointSamples[i] * buckets;
    }

    /** Native histograms in the body (each also one of {@link #samples()}). */
    public int histograms() {
        return histograms;
    }

    /** Buckets of the native histograms in the body. */
    public long histogramBuckets() {
        return histogramBuckets;
    }

    /** The source of point {@code i}. */
    public S source(int i) {
        return pointSources.get(i);
    }

    /** The samples of point {@code i}. */
    public int samples(int i) {
        return pointSamples[i];
    }

    /**
     * The time its ingest delay is measured from ({@link io.tsdbwriter.metrics.IngestDelay}), in epoch milliseconds: the
     * oldest of the times given to {@link #recordTime} (its records' Kafka timestamps, or their read times);
     * {@link Long#MAX_VALUE} when none was given.
     */
    public long recordTimeMs() {
        return recordTimeMs;
    }

    /** A point's record time (epoch milliseconds): the batch keeps the oldest. One comparison; per point, not per sample. */
    public void recordTime(long ms) {
        if (ms < recordTimeMs) {
            recordTimeMs = ms;
        }
    }

    /**
     * True once an attempt to write this batch (or the batch it was split from) got no answer after it was sent (an I/O
     * error or a timeout, not a refused connection): the receiver may have stored it, so a retry's refusal of its
     * samples as out of order or duplicate can be that attempt's repeat (DESIGN §4). Set by the writer.
     */
    public boolean sentUnanswered() {
        return sentUnanswered;
    }

    void sentUnanswered(boolean unanswered) {
        this.sentUnanswered |= unanswered;
    }

    /**
     * A new batch holding points {@code [from, to)} (bytes copied; same origin, {@link #sentUnanswered()} and
     * {@link #recordTimeMs()}).
     */
    public WriteBatch<S, O> slice(int from, int to) {
        int start = from == 0 ? 0 : pointEnds[from - 1];
        int end = pointEnds[to - 1];
        int n = to - from;
        WriteBatch<S, O> b = new WriteBatch<>(end - start, n);
        b.body.put(body.array(), start, end - start);
        for (int i = 0; i < n; i++) {
            b.pointEnds[i] = pointEnds[from + i] - start;
            b.pointSamples[i] = pointSamples[from + i];
            b.pointSources.add(pointSources.get(from + i));
            b.samples += pointSamples[from + i];
            if (pointBuckets != null && from + i < pointBuckets.length && pointBuckets[from + i] >= 0) {
                b.points = i + 1;
                b.histogramPoint(pointBuckets[from + i]);
            }
        }
        b.points = n;
        b.origin = origin;
        b.tenant = tenant;
        b.sentUnanswered = sentUnanswered;
        b.recordTimeMs = recordTimeMs;
        return b;
    }

    /**
     * The writer is done with this batch (written, refused or given up: nothing will send, retry or split it again):
     * a body array taken from a {@link BodyPool} goes back to it, and the body is empty from then on. The points'
     * sources, counts and origin stay. Idempotent; nothing for a batch not made from a pool.
     */
    public void recycle() {
        BodyPool p = pool;
        if (p != null) {
            pool = null;
            p.give(body.detach());
        }
    }

    /** True when nothing was encoded. */
    public boolean isEmpty() {
        return samples == 0;
    }

    /** The creator's handle (offsets to ack). */
    public O origin() {
        return origin;
    }

    /** The tenant of every point in the batch (a batch never mixes tenants), or null without tenant routing. */
    public Tenant tenant() {
        return tenant;
    }

    /** Sets the batch's tenant (before its first point). */
    public void tenant(Tenant t) {
        this.tenant = t;
    }

    /** Sets the creator's handle. */
    public void origin(O o) {
        this.origin = o;
    }
}
