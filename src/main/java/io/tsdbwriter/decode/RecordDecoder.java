package io.tsdbwriter.decode;

/**
 * The one seam between a Kafka record's bytes and the amplifier: decodes a record value of one
 * {@link InputFormat} into the {@link DecodedPoints} arena the amplifier and encoders read, and counts what it
 * refuses. Whatever the format, a point arrives as a metric name, labels (sorted, unique, non-empty values), an
 * epoch-millisecond timestamp and a finite value.
 *
 * <p>A decoder never throws for bad input: every malformed record or line becomes a counted {@link Rejections}
 * entry, and the valid points of the record (those not on a broken line) are left in {@code out}. That makes each
 * decoder a plain {@code decode(bytes, kafkaTimestamp, arena)} entry point for fuzzing.
 *
 * <p>Implementations are not thread-safe: one per consuming thread (they reuse buffers).
 */
public interface RecordDecoder {

    /** The format this decoder reads. */
    InputFormat format();

    /**
     * Decodes {@code value} into {@code out} (cleared first) and its refusals into {@code rejections} (cleared
     * first).
     *
     * @param value            the record value (null for a tombstone)
     * @param kafkaTimestampMs the record's Kafka timestamp in epoch ms: the timestamp of samples that carry none
     * @param out              receives the valid points
     * @param rejections       receives what was refused
     */
    void decode(byte[] value, long kafkaTimestampMs, DecodedPoints out, Rejections rejections);
}
