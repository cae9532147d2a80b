package io.tsdbwriter.deadletter;

import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.RetryPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends records the writer cannot deliver to the dead-letter topic (DESIGN §2), with headers naming where they came
 * from and why: {@value #H_TOPIC}, {@value #H_PARTITION}, {@value #H_OFFSET}, {@value #H_TIMESTAMP} (the source
 * record's timestamp, epoch ms), {@value #H_REASON} (a decode-error tag, {@code vm_rejected} or
 * {@code write_failed}), {@value #H_ERROR} (detail, at most 1000 chars) and {@value #H_SIZE} (the source value's
 * size in bytes).
 *
 * <p><b>Whole or stub.</b> A record whose key, value and headers fit the dead-letter limit — the smaller of the
 * topic's {@code max.message.bytes} (read with the Admin client at start) and the producer's
 * {@code max.request.size} ({@code --max-record-bytes} + {@value #HEADER_ALLOWANCE_BYTES} bytes for headers) — is
 * sent whole (key and value bytes unchanged). A larger one is sent as a <i>stub</i>: the same headers plus
 * {@value #H_TRUNCATED}{@code =true}, the value cut to what fits (a prefix), the key dropped when longer than
 * {@value #MAX_STUB_KEY_BYTES} bytes. The original stays addressable in the source topic by its coordinates. Should
 * the producer or broker still answer {@code RecordTooLargeException}, the record goes again as a stub, then as a
 * stub with an empty value.
 *
 * <p><b>Failures never loop and never recurse.</b> Every re-send is scheduled on one retry thread (never from the
 * producer callback itself). Retriable producer errors (the producer already retried within
 * {@code delivery.timeout.ms}) are sent again up to {@link RetryPolicy#maxRetries()} times with the policy's
 * exponential backoff. Any other failure (authorization, unknown or missing topic, invalid config, too large even
 * as an empty stub, retries exhausted) leaves the record <i>stuck</i>: one clear line per reason (topic, error,
 * what to fix), a {@code tsdbwriter_dead_letter_failures_total{reason}} count, the {@link FailureListener} told,
 * and its source offset never acked, so its partition's watermark (and commit) stays below it. A stuck record is
 * tried again every {@link RetryPolicy#maxBackoff()} (the topic is looked up again first when it was missing) and
 * un-sticks when that succeeds.
 *
 * <p><b>The writer never creates topics.</b> The topic is checked with the Admin client before the producer is
 * made; nothing is sent to a topic not seen to exist (a producer's metadata request could auto-create it).
 *
 * <p>{@code onStored} runs once the dead-letter topic acknowledged the record (acks=all, idempotent producer).
 *
 * <p>Its parts: {@link Letter} (one record on its way: its attempts, and the record it goes as, whole or stub),
 * {@link SendFailure} (a failure's reason tag and what to fix) and {@link DeadLetterTopicCheck} (the topic check);
 * this class keeps the producer and the steps of getting a letter into the topic (send, retry, stuck, probe, close).
 * Thread-safe: {@link #send} may be called from any thread; re-sends and probes run on the one retry thread.
 */
public final class DeadLetterQueue implements AutoCloseable {

    public static final String H_TOPIC = "tsdbwriter.source.topic";
    public static final String H_PARTITION = "tsdbwriter.source.partition";
    public static final String H_OFFSET = "tsdbwriter.source.offset";
    public static final String H_TIMESTAMP = "tsdbwriter.source.timestamp";
    public static final String H_SIZE = "tsdbwriter.source.size";
    public static final String H_REASON = "tsdbwriter.reason";
    public static final String H_ERROR = "tsdbwriter.error";
    public static final String H_TRUNCATED = "tsdbwriter.truncated";

    /** Added to {@code --max-record-bytes} for the producer's {@code max.request.size}: headers and framing. */
    public static final int HEADER_ALLOWANCE_BYTES = 16 * 1024;
    /** A stub keeps the source key only up to this size. */
    public static final int MAX_STUB_KEY_BYTES = 1024;

    private static final Logger log = LoggerFactory.getLogger(DeadLetterQueue.class);

    /** Told when a record gets stuck (cannot be dead-lettered); called on a producer or retry thread, must not block. */
    @FunctionalInterface
    public interface FailureListener {
        /** @param reason the failure's tag (as in the meter); @param line the logged explanation */
        void stuck(String reason, String line);
    }

    private final String topic;
    private final int maxRequestSize;
    private final RetryPolicy retry;
    private final WriterMeters meters;
    private final FailureListener listener;
    private final Supplier<DeadLetterTopicCheck.TopicState> topicCheck;
    private final Function<Integer, Producer<byte[], byte[]>> producerFactory;
    private final Runnable onClose;
    private final ScheduledThreadPoolExecutor retries;
    private final Set<Letter> stuck = ConcurrentHashMap.newKeySet();
    private final Set<String> loggedReasons = ConcurrentHashMap.newKeySet();
    private final Object producerLock = new Object();
    private volatile Producer<byte[], byte[]> producer;
    private volatile int wholeLimit;
    private volatile String missingProblem;
    private volatile boolean closed;

    /**
     * Checks the topic with an Admin client (exists? {@code max.message.bytes}?) and, when it exists, makes the
     * producer. Blocks up to 30 s for the check. Nothing is thrown for a missing topic: the problem is logged now
     * (one line) and again as a stuck record when the first record needs the topic.
     *
     * @param clientProps    the common Kafka client settings (bootstrap.servers, security); copied, never changed
     * @param topic          the dead-letter topic (must exist: the writer never creates topics)
     * @param maxRecordBytes {@code --max-record-bytes}; the producer's {@code max.request.size} is this plus
     *                       {@value #HEADER_ALLOWANCE_BYTES}
     * @param retry          backoff for retriable send failures and the probe interval of stuck records
     * @param meters         where dead letters and failures are counted
     * @param listener       told when a record gets stuck
     */
    public DeadLetterQueue(
            Map<String, Object> clientProps,
            String topic,
            int maxRecordBytes,
            RetryPolicy retry,
            WriterMeters meters,
            FailureListener listener) {
        this(
                topic,
                maxRecordBytes,
                retry,
                meters,
                listener,
                new DeadLetterTopicCheck(clientProps, topic),
                maxRequestSize -> new KafkaProducer<>(producerProps(clientProps, maxRequestSize)));
    }

    /** As above with the topic check and producer injected (tests: a MockProducer). */
    DeadLetterQueue(
            String topic,
            int maxRecordBytes,
            RetryPolicy retry,
            WriterMeters meters,
            FailureListener listener,
            Supplier<DeadLetterTopicCheck.TopicState> topicCheck,
            Function<Integer, Producer<byte[], byte[]>> producerFactory) {
        this.topic = topic;
        this.maxRequestSize = (int) Math.min(Integer.MAX_VALUE, (long) maxRecordBytes + HEADER_ALLOWANCE_BYTES);
        this.retry = retry;
        this.meters = meters;
        this.listener = listener;
        this.topicCheck = topicCheck;
        this.producerFactory = producerFactory;
        this.onClose = topicCheck instanceof DeadLetterTopicCheck a ? a::close : () -> {};
        this.retries = new ScheduledThreadPoolExecutor(
                1, r -> Thread.ofPlatform().daemon().name("dead-letter-retry").unstarted(r));
        this.retries.setRemoveOnCancelPolicy(true);
        checkTopic(true);
    }

    static Map<String, Object> producerProps(Map<String, Object> clientProps, int maxRequestSize) {
        Map<String, Object> p = new HashMap<>(clientProps);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "tsdb-writer-dead-letter");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequestSize);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return p;
    }

    /** Looks the topic up; makes the producer once it exists. @return true when the producer is there */
    private boolean checkTopic(boolean atStart) {
        synchronized (producerLock) {
            if (producer != null) {
                return true;
            }
            DeadLetterTopicCheck.TopicState s = topicCheck.get();
            if (!s.exists()) {
                missingProblem = s.problem();
                if (atStart) {
                    log.error(
                            "dead-letter topic {}: {}; records that need it will stay uncommitted until it can be used"
                                    + " (create it, e.g. kafka-topics.sh --create --topic {}; the writer never creates topics)",
                            topic,
                            s.problem(),
                            topic);
                }
                return false;
            }
            wholeLimit = Math.min(s.maxMessageBytes(), maxRequestSize);
            producer = producerFactory.apply(maxRequestSize);
            if (atStart) {
                log.info(
                        "dead-letter topic {}: max.message.bytes={}, producer max.request.size={}: records up to {} bytes"
                                + " (with headers) go whole, larger ones as stubs",
                        topic,
                        s.maxMessageBytes(),
                        maxRequestSize,
                        wholeLimit);
            } else {
                log.info("dead-letter topic {} is there now (max.message.bytes={})", topic, s.maxMessageBytes());
            }
            missingProblem = null;
            return true;
        }
    }

    /** The dead-letter topic. */
    public String topic() {
        return topic;
    }

    /** Largest record (value + key + headers + framing, bytes) sent whole; 0 while the topic is not known. */
    public int wholeLimitBytes() {
        return wholeLimit;
    }

    /** Records that could not be dead-lettered and are being probed (their offsets stay uncommitted). */
    public int stuckRecords() {
        return stuck.size();
    }

    /**
     * Sends {@code source} to the dead-letter topic, whole or as a stub; {@code onStored} runs (on a producer thread)
     * once it is acknowledged. Never blocks on failures; never throws for a send failure.
     *
     * @param reason short reason tag; @param error human-readable detail (cut to 1000 chars)
     */
    public void send(ConsumerRecord<byte[], byte[]> source, String reason, String error, Runnable onStored) {
        attempt(new Letter(
                source,
                reason,
                error == null ? "" : error.length() > 1000 ? error.substring(0, 1000) : error,
                onStored));
    }

    private void attempt(Letter l) {
        if (closed) {
            return; // never acked: the source offset stays uncommitted
        }
        Producer<byte[], byte[]> p = producer;
        if (p == null) {
            fail(l, "unknown_topic", missingProblem, "create the topic (the writer never creates topics)");
            return;
        }
        ProducerRecord<byte[], byte[]> rec = l.record(topic, wholeLimit);
        try {
            p.send(rec, (md, ex) -> completed(l, ex));
        } catch (RuntimeException e) { // closed, interrupted, or a failure KafkaProducer throws instead of calling back
            completed(l, e);
        }
    }

    private void completed(Letter l, Exception ex) {
        if (ex == null) {
            if (l.stuck) {
                l.stuck = false;
                stuck.remove(l);
                log.info("dead-letter topic {}: record {} stored after all", topic, l.coordinates());
            }
            meters.deadLettered(l.stubLevel == 0 ? "whole" : "stub");
            l.onStored.run();
            return;
        }
        if (closed) {
            return;
        }
        if (ex instanceof RecordTooLargeException || ex instanceof RecordBatchTooLargeException) {
            if (l.stubLevel < 2) {
                l.stubLevel++;
                log.warn(
                        "dead-letter topic {}: record {} too large ({}); sending it as a stub",
                        topic,
                        l.coordinates(),
                        ex.getMessage());
                later(() -> attempt(l), 0);
                return;
            }
            fail(
                    l,
                    "too_large",
                    ex.toString(),
                    "raise the topic's max.message.bytes (and the producer's max.request.size)");
            return;
        }
        if (ex instanceof RetriableException) {
            if (l.retries < retry.maxRetries()) {
                int n = ++l.retries;
                long delay = retry.delayMs(n, -1);
                log.warn(
                        "dead-letter send of {} to {} failed ({}); retry {}/{} in {} ms",
                        l.coordinates(),
                        topic,
                        ex,
                        n,
                        retry.maxRetries(),
                        delay);
                later(() -> attempt(l), delay);
                return;
            }
            fail(
                    l,
                    "retries_exhausted",
                    ex.toString(),
                    "check that the brokers are reachable and the topic's partitions have in-sync leaders");
            return;
        }
        SendFailure f = SendFailure.of(ex);
        fail(l, f.reason(), ex.toString(), f.fix());
    }

    /** The record cannot be dead-lettered now: stuck, reported once per reason, probed every max backoff. */
    private void fail(Letter l, String reason, String error, String fix) {
        if (closed) {
            return;
        }
        String line =
                "dead-letter topic " + topic + ": cannot store record " + l.coordinates() + " (" + l.reason + "): "
                        + error + "; " + fix + ". Partition " + l.source.topic() + "-" + l.source.partition()
                        + " is held at offset " + l.source.offset()
                        + " (nothing past it is committed) and the record is tried again every "
                        + retry.maxBackoff().toMillis() + " ms";
        if (!l.stuck) {
            l.stuck = true;
            stuck.add(l);
            meters.deadLetterFailure(reason);
            if (loggedReasons.add(reason)) {
                log.error(line); // troubleshooting: cannot store record | is held at offset … (nothing past it is
                // committed) and the record is tried again every
            } else {
                log.warn("dead-letter topic {}: record {} stuck too ({})", topic, l.coordinates(), reason);
            }
            try {
                listener.stuck(reason, line);
            } catch (RuntimeException e) {
                log.warn("dead-letter failure listener failed", e);
            }
        }
        later(() -> probe(l), retry.maxBackoff().toMillis());
    }

    private void probe(Letter l) {
        if (closed) {
            return;
        }
        if (producer == null && !checkTopic(false)) {
            later(() -> probe(l), retry.maxBackoff().toMillis());
            return;
        }
        l.retries = retry.maxRetries(); // one try per probe
        l.stubLevel = Math.min(l.stubLevel, 1);
        attempt(l);
    }

    /** Runs {@code task} on the retry thread after {@code delayMs}: never on the caller's (callback's) stack. */
    private void later(Runnable task, long delayMs) {
        if (closed) {
            return;
        }
        try {
            retries.schedule(
                    () -> {
                        try {
                            task.run();
                        } catch (
                                Throwable
                                        t) { // a dying retry thread is a dying process: hand it to the uncaught handler
                            Thread.UncaughtExceptionHandler h = Thread.getDefaultUncaughtExceptionHandler();
                            if (h != null) {
                                h.uncaughtException(Thread.currentThread(), t);
                            } else {
                                log.error("dead-letter retry failed", t);
                            }
                        }
                    },
                    delayMs,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** Flushes what was sent, stops retries and probes, closes the producer and the Admin client. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        Producer<byte[], byte[]> p = producer;
        if (p != null) {
            p.flush();
        }
        closed = true;
        retries.shutdownNow();
        if (p != null) {
            p.close(Duration.ofSeconds(5));
        }
        onClose.run();
    }
}
