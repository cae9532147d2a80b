package io.tsdbwriter.sink.victoriametrics;

/**
 * Told how a submitted batch ended. Called once per batch, on the writer's virtual thread; implementations must
 * be thread-safe and quick (no blocking I/O).
 */
public interface WriteListener {

    /** VictoriaMetrics answered 2xx. */
    void written(ImportBatch batch);

    /** VictoriaMetrics refused the body as not retryable (400/413/415). */
    void rejected(ImportBatch batch, WriteOutcome outcome);

    /** Retries ran out under {@link OnWriteFailure#DEAD_LETTER}. */
    void gaveUp(ImportBatch batch, WriteOutcome outcome);

    /** The writer stopped before the batch got an answer it could act on: its offsets must stay uncommitted. */
    void abandoned(ImportBatch batch);
}
