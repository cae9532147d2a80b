package io.tsdbwriter.write;

import java.util.List;

/**
 * Told how a submitted batch ended. Exactly one method is called once per batch, on the writer's virtual thread;
 * implementations must be thread-safe and must not block for long.
 *
 * @param <S> a point's source, as in {@link WriteBatch}
 * @param <O> the batch creator's handle, as in {@link WriteBatch}
 */
public interface WriteListener<S, O> {

    /**
     * A source point VictoriaMetrics refused even alone (400/413/415).
     *
     * @param source   the point's source
     * @param samples  its samples
     * @param outcome  the refusal
     * @param endpoint the write endpoint that refused it
     */
    record Rejection<S>(S source, int samples, WriteOutcome outcome, WriteTarget endpoint) {
        /**
         * Adds to {@code out} every point of {@code batch} refused with {@code outcome} by {@code endpoint}, each with
         * its own samples.
         */
        static <S> void each(
                WriteBatch<S, ?> batch, WriteOutcome outcome, WriteTarget endpoint, List<Rejection<S>> out) {
            for (int i = 0; i < batch.points(); i++) {
                out.add(new Rejection<>(batch.source(i), batch.samples(i), outcome, endpoint));
            }
        }
    }

    /** VictoriaMetrics answered 2xx for the whole batch. */
    void written(WriteBatch<S, O> batch);

    /**
     * VictoriaMetrics refused the batch as not retryable; it was split until the refused points were isolated.
     * Every point not listed in {@code rejections} was written.
     */
    void rejected(WriteBatch<S, O> batch, List<Rejection<S>> rejections);

    /** Retries ran out under {@link OnWriteFailure#DEAD_LETTER}: nothing of the batch is known to be written. */
    void gaveUp(WriteBatch<S, O> batch, WriteOutcome outcome);

    /** The writer stopped before the batch got an answer it could act on: its offsets must stay uncommitted. */
    void abandoned(WriteBatch<S, O> batch);

    /**
     * Asked when a batch queued by {@link OrderedLanes} comes to its turn (on the lane's thread) and before every
     * attempt of its write, retries and split halves included (on the write thread): true when its creator no longer
     * wants it written (the partition was rewound after a TSDB restart, or revoked; its offsets frozen), and then it is
     * reported {@link #abandoned} without that attempt, so a rewind's re-reads never follow a stale write on the lane
     * and no retry of a write sent before a restart lands after it. Must be cheap, thread-safe and must not block. The
     * default: false.
     */
    default boolean stale(WriteBatch<S, O> batch) {
        return false;
    }
}
