package io.tsdbwriter.deadletter;

import static io.tsdbwriter.deadletter.DeadLetterQueue.H_ERROR;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_OFFSET;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_PARTITION;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_REASON;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_SIZE;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_TIMESTAMP;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_TOPIC;
import static io.tsdbwriter.deadletter.DeadLetterQueue.H_TRUNCATED;
import static io.tsdbwriter.deadletter.DeadLetterQueue.MAX_STUB_KEY_BYTES;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * One record on its way to the dead-letter topic (DESIGN §2): the source record, why it goes, its attempts so far,
 * and the record it is sent as ({@link #record}) — whole when its key, value and headers fit the dead-letter limit,
 * else a stub (the headers plus {@value DeadLetterQueue#H_TRUNCATED}{@code =true}, the value cut to what fits, the
 * key dropped when longer than {@value DeadLetterQueue#MAX_STUB_KEY_BYTES} bytes), then a stub with an empty value.
 *
 * <p>Threading: mutated by one thread at a time — the sender, then the producer's callback, then the retry thread
 * ({@link DeadLetterQueue} hands it on, never shares it); its changing fields are volatile for those hand-overs.
 */
final class Letter {

    /** Upper bound of a record batch's and a record's own framing (v2 batch header 61 bytes, record ≤ 21 + varints). */
    static final int FRAMING_BYTES = 256;

    final ConsumerRecord<byte[], byte[]> source;
    final String reason;
    final String error;
    final Runnable onStored;
    volatile int retries;
    /** 0 whole, 1 stub cut to fit, 2 stub with an empty value. */
    volatile int stubLevel;

    volatile boolean stuck;

    Letter(ConsumerRecord<byte[], byte[]> source, String reason, String error, Runnable onStored) {
        this.source = source;
        this.reason = reason;
        this.error = error;
        this.onStored = onStored;
    }

    String coordinates() {
        return source.topic() + "-" + source.partition() + "@" + source.offset();
    }

    /**
     * The record to send to {@code topic}: whole when it fits {@code limit} (bytes, with headers and framing), else a
     * stub at this letter's stub level (a whole letter that does not fit becomes stub level 1).
     */
    ProducerRecord<byte[], byte[]> record(String topic, int limit) {
        ConsumerRecord<byte[], byte[]> s = source;
        byte[] value = s.value() == null ? new byte[0] : s.value();
        RecordHeaders h = new RecordHeaders();
        h.add(H_TOPIC, utf8(s.topic()));
        h.add(H_PARTITION, utf8(Integer.toString(s.partition())));
        h.add(H_OFFSET, utf8(Long.toString(s.offset())));
        h.add(H_TIMESTAMP, utf8(Long.toString(s.timestamp())));
        h.add(H_REASON, utf8(reason));
        h.add(H_ERROR, utf8(error));
        h.add(H_SIZE, utf8(Integer.toString(value.length)));
        if (stubLevel == 0 && estimate(s.key(), value.length, h) <= limit) {
            return new ProducerRecord<>(topic, null, s.key(), s.value(), h);
        }
        if (stubLevel == 0) {
            stubLevel = 1;
        }
        h.add(H_TRUNCATED, utf8("true"));
        byte[] key = s.key() != null && s.key().length <= MAX_STUB_KEY_BYTES ? s.key() : null;
        int room = stubLevel == 1 ? Math.max(0, limit - estimate(key, 0, h)) : 0;
        byte[] cut = Arrays.copyOf(value, Math.min(value.length, room));
        return new ProducerRecord<>(topic, null, key, cut, h);
    }

    /** Upper bound of a record's size in a batch of its own (bytes). */
    static int estimate(byte[] key, int valueLength, Iterable<Header> headers) {
        long n = FRAMING_BYTES + valueLength + (key == null ? 0 : key.length);
        for (Header h : headers) {
            n += 10 + h.key().length() * 3L + (h.value() == null ? 0 : h.value().length);
        }
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
