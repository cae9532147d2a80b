package io.tsdbwriter.write;

/**
 * The capacity a poll thread opens its next {@link WriteBatch} with: the largest batch it handed on so far plus an
 * eighth (from 64 KiB and 64 points), so that a batch's body and its per-point arrays are allocated once at their
 * final size instead of grown by doubling (the growth was ~12 % of the relay's allocated bytes, docs/benchmarks-archive.md
 * §12d). Body arrays come from a {@link BodyPool} and go back there when the writer is done with the batch.
 *
 * <p>Not thread-safe: one per poll thread.
 */
public final class BatchCapacity {

    /** Body bytes of the first batch. */
    public static final int INITIAL_BYTES = 64 * 1024;
    /** Source points of the first batch. */
    public static final int INITIAL_POINTS = 64;

    private final BodyPool pool;
    private int bytes = INITIAL_BYTES;
    private int points = INITIAL_POINTS;

    /** Batches whose bodies come from the process' {@link BodyPool}. */
    public BatchCapacity() {
        this(BodyPool.process());
    }

    /** Batches whose bodies come from {@code pool}. */
    public BatchCapacity(BodyPool pool) {
        this.pool = pool;
    }

    /** A new, empty batch of the learned capacity, its body array reused from the pool when one is kept there. */
    public <S, O> WriteBatch<S, O> open() {
        return new WriteBatch<>(pool, bytes, points);
    }

    /** Learns from a batch about to be handed on. */
    public void learn(WriteBatch<?, ?> batch) {
        int length = batch.body().length();
        bytes = Math.max(bytes, length + length / 8);
        points = Math.max(points, batch.points() + batch.points() / 8);
    }

    /** Body bytes the next batch opens with. */
    int bytes() {
        return bytes;
    }

    /** Source points the next batch opens with. */
    int points() {
        return points;
    }
}
