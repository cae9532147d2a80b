package io.tsdbwriter.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dead-letter path with a MockProducer: whole or stub, bounded retries, stuck records, no recursion. */
class DeadLetterQueueTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WriterMeters meters = new WriterMeters(registry);
    private final List<String> stuck = new ArrayList<>();
    private final AtomicInteger producersMade = new AtomicInteger();
    private MockProducer<byte[], byte[]> producer =
            new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    private DeadLetterQueue dlq;

    @AfterEach
    void close() {
        if (dlq != null) {
            dlq.close();
        }
    }

    private DeadLetterQueue open(
            int maxRecordBytes,
            int topicMaxMessageBytes,
            int maxRetries,
            Duration maxBackoff,
            BooleanSupplier topicExists) {
        RetryPolicy retry = new RetryPolicy(maxRetries, Duration.ofMillis(1), maxBackoff, ms -> {});
        dlq = new DeadLetterQueue(
                "dlq",
                maxRecordBytes,
                retry,
                meters,
                (reason, line) -> {
                    synchronized (stuck) {
                        stuck.add(reason + ": " + line);
                    }
                },
                () -> topicExists.getAsBoolean()
                        ? new DeadLetterTopicCheck.TopicState(true, topicMaxMessageBytes, null)
                        : new DeadLetterTopicCheck.TopicState(false, 0, "the topic does not exist"),
                size -> {
                    producersMade.incrementAndGet();
                    return producer;
                });
        return dlq;
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
        return new ConsumerRecord<>(
                "src",
                2,
                offset,
                1795300857000L,
                TimestampType.CREATE_TIME,
                -1,
                value.length,
                null,
                value,
                new RecordHeaders(),
                Optional.empty());
    }

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static void await(BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(2);
        }
    }

    private double count(String name, String tag, String value) {
        var c = registry.find(WriterMeters.PREFIX + name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aRecordThatFitsGoesWholeWithItsCoordinatesAndOnStoredRunsOnlyOnceAcknowledged() throws Exception {
        open(1024 * 1024, 1_048_588, 3, Duration.ofSeconds(1), () -> true);
        AtomicBoolean stored = new AtomicBoolean();
        byte[] value = "{not json".getBytes(StandardCharsets.UTF_8);
        dlq.send(record(42, value), "invalid_json", "Unexpected character", () -> stored.set(true));
        assertThat(producer.history()).hasSize(1);
        assertThat(stored).isFalse();
        producer.completeNext();
        assertThat(stored).isTrue();
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertThat(r.topic()).isEqualTo("dlq");
        assertThat(r.value()).isEqualTo(value);
        assertThat(header(r, DeadLetterQueue.H_TOPIC)).isEqualTo("src");
        assertThat(header(r, DeadLetterQueue.H_PARTITION)).isEqualTo("2");
        assertThat(header(r, DeadLetterQueue.H_OFFSET)).isEqualTo("42");
        assertThat(header(r, DeadLetterQueue.H_TIMESTAMP)).isEqualTo("1795300857000");
        assertThat(header(r, DeadLetterQueue.H_REASON)).isEqualTo("invalid_json");
        assertThat(header(r, DeadLetterQueue.H_SIZE)).isEqualTo(Integer.toString(value.length));
        assertThat(header(r, DeadLetterQueue.H_TRUNCATED)).isNull();
        assertThat(count("dead.letters", "form", "whole")).isEqualTo(1);
    }

    @Test
    void aRecordLargerThanTheTopicAllowsGoesAsAStubCutToFit() throws Exception {
        open(1024 * 1024, 4000, 3, Duration.ofSeconds(1), () -> true);
        byte[] value = new byte[10_000];
        Arrays.fill(value, (byte) 'x');
        AtomicBoolean stored = new AtomicBoolean();
        dlq.send(record(7, value), "too_large", "10000 bytes > max", () -> stored.set(true));
        producer.completeNext();
        assertThat(stored).isTrue();
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertThat(header(r, DeadLetterQueue.H_TRUNCATED)).isEqualTo("true");
        assertThat(header(r, DeadLetterQueue.H_SIZE)).isEqualTo("10000");
        assertThat(header(r, DeadLetterQueue.H_OFFSET)).isEqualTo("7");
        assertThat(r.value().length).isPositive().isLessThan(4000);
        assertThat(r.value()).isEqualTo(Arrays.copyOf(value, r.value().length));
        assertThat(Letter.estimate(r.key(), r.value().length, r.headers())).isLessThanOrEqualTo(4000);
        assertThat(count("dead.letters", "form", "stub")).isEqualTo(1);
    }

    @Test
    void theProducerLimitIsMaxRecordBytesPlusHeadersSoALargerTopicLimitStillStubsWhatIsOverIt() throws Exception {
        open(2000, 4 * 1024 * 1024, 3, Duration.ofSeconds(1), () -> true);
        assertThat(dlq.wholeLimitBytes()).isEqualTo(2000 + DeadLetterQueue.HEADER_ALLOWANCE_BYTES);
        byte[] value = new byte[100_000];
        dlq.send(record(1, value), "too_large", "", () -> {});
        assertThat(header(producer.history().get(0), DeadLetterQueue.H_TRUNCATED))
                .isEqualTo("true");
    }

    @Test
    void recordTooLargeFromTheProducerOrBrokerIsSentAgainAsAStubFromTheRetryThread() throws Exception {
        open(1024 * 1024, 1_048_588, 3, Duration.ofSeconds(1), () -> true);
        AtomicBoolean stored = new AtomicBoolean();
        byte[] value = new byte[5000];
        dlq.send(record(3, value), "invalid_json", "x", () -> stored.set(true));
        producer.errorNext(new RecordTooLargeException("MESSAGE_TOO_LARGE"));
        await(() -> producer.history().size() == 2);
        assertThat(header(producer.history().get(1), DeadLetterQueue.H_TRUNCATED))
                .isEqualTo("true");
        producer.completeNext();
        assertThat(stored).isTrue();
        assertThat(dlq.stuckRecords()).isZero();
    }

    @Test
    void aProducerThatFailsEverySendAtOnceNeitherRecursesNorSpins() throws Exception {
        AtomicInteger sends = new AtomicInteger();
        producer = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer()) {
            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
                sends.incrementAndGet();
                callback.onCompletion(null, new RecordTooLargeException("max.request.size")); // on the caller's stack
                return null;
            }
        };
        open(1024 * 1024, 1_048_588, 3, Duration.ofSeconds(30), () -> true);
        AtomicBoolean stored = new AtomicBoolean();
        dlq.send(record(9, new byte[2 * 1024 * 1024]), "too_large", "", () -> stored.set(true));
        await(() -> dlq.stuckRecords() == 1);
        Thread.sleep(100);
        assertThat(sends.get())
                .isEqualTo(2); // over the limit: stub cut to fit → empty stub, then stuck until the probe
        assertThat(stored).isFalse();
        assertThat(stuck).hasSize(1);
        assertThat(stuck.get(0)).startsWith("too_large: dead-letter topic dlq: cannot store record src-2@9");
        assertThat(count("dead.letter.failures", "reason", "too_large")).isEqualTo(1);
    }

    @Test
    void retriableErrorsAreRetriedWithBackoffABoundedNumberOfTimesThenTheRecordIsStuck() throws Exception {
        open(1024 * 1024, 1_048_588, 2, Duration.ofSeconds(30), () -> true);
        AtomicBoolean stored = new AtomicBoolean();
        dlq.send(record(5, new byte[10]), "invalid_json", "", () -> stored.set(true));
        for (int i = 1; i <= 3; i++) {
            int n = i;
            await(() -> producer.history().size() == n);
            producer.errorNext(new TimeoutException("expired"));
        }
        await(() -> dlq.stuckRecords() == 1);
        Thread.sleep(50);
        assertThat(producer.history()).hasSize(3); // first try + 2 retries
        assertThat(stored).isFalse();
        assertThat(count("dead.letter.failures", "reason", "retries_exhausted")).isEqualTo(1);
    }

    @Test
    void anAuthorizationErrorIsStuckAtOnceThenProbedAndUnstuckWhenFixed() throws Exception {
        open(1024 * 1024, 1_048_588, 5, Duration.ofMillis(100), () -> true);
        AtomicBoolean stored = new AtomicBoolean();
        dlq.send(record(11, new byte[10]), "invalid_json", "", () -> stored.set(true));
        producer.errorNext(new TopicAuthorizationException("not authorized to access topics: [dlq]"));
        assertThat(dlq.stuckRecords()).isEqualTo(1);
        assertThat(producer.history()).hasSize(1); // not retried at once
        assertThat(stuck.get(0)).contains("authorization").contains("grant").contains("src-2@11");
        assertThat(count("dead.letter.failures", "reason", "authorization")).isEqualTo(1);
        await(() -> producer.history().size() == 2); // the probe, one max backoff later
        producer.completeNext();
        assertThat(stored).isTrue();
        assertThat(dlq.stuckRecords()).isZero();
    }

    @Test
    void aMissingTopicIsNeverSentToAndTheRecordWaitsUntilTheTopicExists() throws Exception {
        AtomicBoolean exists = new AtomicBoolean(false);
        open(1024 * 1024, 1_048_588, 5, Duration.ofMillis(100), exists::get);
        AtomicBoolean stored = new AtomicBoolean();
        dlq.send(record(13, new byte[10]), "invalid_json", "", () -> stored.set(true));
        assertThat(dlq.stuckRecords()).isEqualTo(1);
        assertThat(stuck.get(0))
                .startsWith("unknown_topic:")
                .contains("does not exist")
                .contains("create the topic");
        Thread.sleep(300);
        assertThat(producersMade.get()).isZero();
        exists.set(true);
        await(() -> producer.history().size() == 1);
        producer.completeNext();
        assertThat(stored).isTrue();
        assertThat(dlq.stuckRecords()).isZero();
        assertThat(producersMade.get()).isEqualTo(1);
    }
}
