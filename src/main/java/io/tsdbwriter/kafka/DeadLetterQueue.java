package io.tsdbwriter.kafka;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends records the writer cannot deliver to the dead-letter topic, unchanged (key and value bytes), with headers
 * naming where they came from and why: {@value #H_TOPIC}, {@value #H_PARTITION}, {@value #H_OFFSET},
 * {@value #H_REASON} (a decode-error tag, {@code vm_rejected} or {@code write_failed}) and {@value #H_ERROR}.
 * The callback runs only once the dead-letter topic acknowledged the record (acks=all, idempotent producer); a
 * failed send is sent again, so the source offset is never acked before its record is safe.
 *
 * <p>Thread-safe (KafkaProducer is).
 */
public final class DeadLetterQueue implements AutoCloseable {

    public static final String H_TOPIC = "tsdbwriter.source.topic";
    public static final String H_PARTITION = "tsdbwriter.source.partition";
    public static final String H_OFFSET = "tsdbwriter.source.offset";
    public static final String H_REASON = "tsdbwriter.reason";
    public static final String H_ERROR = "tsdbwriter.error";

    private static final Logger log = LoggerFactory.getLogger(DeadLetterQueue.class);

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private volatile boolean closed;

    /**
     * @param clientProps the settings every Kafka client of the process shares (bootstrap.servers, security, …);
     *                    the producer's own settings below win
     * @param topic       the dead-letter topic (must exist or be auto-creatable)
     */
    public DeadLetterQueue(Map<String, Object> clientProps, String topic) {
        this.topic = topic;
        Map<String, Object> p = new HashMap<>(clientProps);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "tsdb-writer-dead-letter");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        this.producer = new KafkaProducer<>(p);
    }

    /** The dead-letter topic. */
    public String topic() {
        return topic;
    }

    /**
     * Sends {@code source} to the dead-letter topic; {@code onStored} runs once it is acknowledged.
     *
     * @param reason short reason tag; @param error human-readable detail
     */
    public void send(ConsumerRecord<byte[], byte[]> source, String reason, String error, Runnable onStored) {
        RecordHeaders h = new RecordHeaders();
        h.add(H_TOPIC, utf8(source.topic()));
        h.add(H_PARTITION, utf8(Integer.toString(source.partition())));
        h.add(H_OFFSET, utf8(Long.toString(source.offset())));
        h.add(H_REASON, utf8(reason));
        h.add(H_ERROR, utf8(error == null ? "" : error.length() > 1000 ? error.substring(0, 1000) : error));
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, null, source.key(), source.value(), h);
        sendUntilStored(rec, onStored);
    }

    private void sendUntilStored(ProducerRecord<byte[], byte[]> rec, Runnable onStored) {
        if (closed) {
            return; // not acked: the source offset stays uncommitted
        }
        producer.send(rec, (md, ex) -> {
            if (ex == null) {
                onStored.run();
            } else {
                log.warn("dead-letter send to {} failed ({}); sending again", topic, ex.toString());
                sendUntilStored(rec, onStored);
            }
        });
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Flushes what was sent and closes the producer. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        producer.flush();
        closed = true;
        producer.close();
    }
}
