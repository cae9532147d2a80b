package io.tsdbwriter.write;

/** What happens to a batch still failing after {@code --max-retries} (DESIGN §6). */
public enum OnWriteFailure {
    /** Keep the batch, hold its permit and keep probing until VictoriaMetrics takes it (the default). */
    PAUSE,
    /** Send the batch's source records to the dead-letter topic and move on. */
    DEAD_LETTER
}
