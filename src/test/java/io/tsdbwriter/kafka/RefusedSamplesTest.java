package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.PacedLines;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener.Rejection;
import io.tsdbwriter.write.WriteOutcome;
import io.tsdbwriter.write.WriteTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * A refusal for time is told by its words (out of order, out of bounds, too old), each named with its own fix once;
 * other refusals are not. A refusal of records read again (done before:
 * a rewind, a rebalance, a restart) as out of order or duplicate is the repeat's: counted as such, not failed. The
 * refusal line is said at most once a minute per endpoint, with the refusals since the last one; every one is counted.
 */
class RefusedSamplesTest {

    private static ConsumerRecord<byte[], byte[]> record(long offset) {
        return new ConsumerRecord<>("t", 0, offset, null, new byte[] {1});
    }

    private static final WriteTarget PROMETHEUS =
            WriteTarget.remoteWrite("http://writer:s3cret@prom:9090/api/v1/write");

    private static Rejection<ConsumerRecord<byte[], byte[]>> refused(long offset, String detail) {
        return new Rejection<>(
                record(offset), 12, new WriteOutcome(WriteOutcome.Kind.REJECTED, 400, -1, detail), PROMETHEUS);
    }

    private final Logger logger = (Logger) LoggerFactory.getLogger(RefusedSamples.class);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();

    @BeforeEach
    void capture() {
        captured.start();
        logger.addAppender(captured);
    }

    @AfterEach
    void release() {
        logger.detachAppender(captured);
    }

    private List<String> lines(Level level) {
        return captured.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void theRefusalLineIsSaidAtMostOnceAMinutePerEndpointWithTheRefusalsSinceTheLastOne() {
        AtomicLong clock = new AtomicLong(5_000);
        PacedLines<WriteTarget> pace = new PacedLines<>(BatchWriter.REFUSAL_LOG_EVERY, clock::get);
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        List<WriteBatch<ConsumerRecord<byte[], byte[]>, Void>> done = new ArrayList<>();
        RefusedSamples<ConsumerRecord<byte[], byte[]>, Void> first =
                new RefusedSamples<>(meters, null, r -> r, done::add, "kept", pace);
        RefusedSamples<ConsumerRecord<byte[], byte[]>, Void> second =
                new RefusedSamples<>(meters, null, r -> r, done::add, "kept", pace);
        WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch = new WriteBatch<>(16);

        for (int i = 0; i < 8; i++) { // 8 refusals within a second, by two readers of the process
            (i % 2 == 0 ? first : second).rejected(batch, List.of(refused(i, "out of bounds")));
            clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(lines(Level.ERROR))
                .containsExactly("the receiver refused 12 samples of 1 record(s) (400 out of bounds); no "
                        + "--dead-letter-topic: counted as refused (write endpoint http://prom:9090/api/v1/write: 1 "
                        + "refused write(s) since this line was last said, this one included; it repeats at most once a "
                        + "minute per endpoint, tsdbwriter_samples_refused_total counts every sample)");
        assertThat(meters.samplesRefused.count()).as("every refusal counted").isEqualTo(8 * 12);
        assertThat(done).hasSize(8);

        clock.set(5_000 + TimeUnit.SECONDS.toNanos(60) - 1);
        first.rejected(batch, List.of(refused(19, "out of bounds"))); // not yet a minute since the line
        assertThat(lines(Level.ERROR)).hasSize(1);
        clock.set(5_000 + TimeUnit.SECONDS.toNanos(60)); // a minute since the line
        second.rejected(batch, List.of(refused(20, "out of bounds"), refused(21, "out of bounds")));
        assertThat(lines(Level.ERROR)).hasSize(2);
        assertThat(lines(Level.ERROR).get(1))
                .startsWith("the receiver refused 24 samples of 2 record(s) (400 out of bounds); ")
                .contains(": 9 refused write(s) since this line was last said, this one included;");
        assertThat(lines(Level.ERROR)).noneMatch(l -> l.contains("s3cret"));
        assertThat(meters.samplesRefused.count()).isEqualTo(11 * 12);
    }

    @Test
    void aReadAgainRecordRefusedAsOutOfOrderOrDuplicateIsARepeatNotAFailure() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        List<WriteBatch<ConsumerRecord<byte[], byte[]>, Void>> done = new ArrayList<>();
        RefusedSamples<ConsumerRecord<byte[], byte[]>, Void> refused = new RefusedSamples<>(
                meters,
                null,
                r -> r,
                done::add,
                "kept",
                new PacedLines<>(BatchWriter.REFUSAL_LOG_EVERY),
                r -> r.offset() < 100);
        WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch = new WriteBatch<>(16);

        refused.rejected(
                batch, List.of(refused(10, "out of order sample"), refused(11, "duplicate sample for timestamp")));
        assertThat(meters.samplesRepeatsRefused.count()).isEqualTo(24);
        assertThat(meters.samplesRefused.count()).isZero();
        assertThat(done).as("the batch ends: its records were done before").containsExactly(batch);

        refused.rejected(
                batch,
                List.of(
                        refused(12, "out of order sample"),
                        refused(150, "out of order sample"),
                        refused(13, "invalid label name")));
        assertThat(meters.samplesRepeatsRefused.count()).as("offset 12 only").isEqualTo(36);
        assertThat(meters.samplesRefused.count())
                .as("a first read's refusal, and one that is not about order")
                .isEqualTo(24);
        assertThat(done).hasSize(2);
    }

    /** Prometheus' words (storage/interface.go: ErrOutOfOrderSample, ErrOutOfBounds, ErrTooOldSample), Mimir's ids. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "none",
            value = {
                "out of order sample, OUT_OF_ORDER",
                "Out Of Order Sample for series x, OUT_OF_ORDER",
                "err-mimir-sample-out-of-order: the sample has been rejected, OUT_OF_ORDER",
                "out of bounds, OUT_OF_BOUNDS",
                "err-mimir-sample-out-of-bounds, OUT_OF_BOUNDS",
                "too old sample, TOO_OLD",
                "err-mimir-sample-too-old, TOO_OLD",
                "duplicate sample for timestamp, none",
                "cannot parse labels, none",
                "none, none"
            })
    void aRefusalIsToldByItsWords(String detail, RefusedSamples.TimeRefusal expected) {
        assertThat(RefusedSamples.TimeRefusal.of(detail)).isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void eachTimeRefusalHasItsOwnFix() {
        assertThat(RefusedSamples.TimeRefusal.OUT_OF_ORDER.fix())
                .startsWith("the receiver refuses samples older than a series' newest one (out of order). ")
                .contains(
                        "key the topic by series or host",
                        "--ordering series",
                        "storage.tsdb.out_of_order_time_window",
                        "-ingester.out-of-order-time-window",
                        "Only the refused samples are lost");
        assertThat(RefusedSamples.TimeRefusal.OUT_OF_BOUNDS.fix())
                .startsWith("the receiver refuses samples older than its head block's minimum time (out of bounds): ")
                .contains(
                        "about an hour before its newest one",
                        "whatever the series' order",
                        "storage.tsdb.out_of_order_time_window",
                        "promtool tsdb create-blocks-from openmetrics",
                        "Only the refused samples are lost")
                .doesNotContain("key the topic", "newest one (out of order)");
        assertThat(RefusedSamples.TimeRefusal.TOO_OLD.fix())
                .startsWith("the receiver refuses samples older than its out-of-order window (too old sample): ")
                .contains(
                        "Widen the window",
                        "storage.tsdb.out_of_order_time_window",
                        "promtool tsdb create-blocks-from openmetrics",
                        "Only the refused samples are lost")
                .doesNotContain("key the topic");
    }

    @Test
    void eachKindIsExplainedOnceAndOutOfBoundsIsNotCalledOutOfOrder() {
        RefusedSamples<ConsumerRecord<byte[], byte[]>, Void> refused = new RefusedSamples<>(
                new WriterMeters(new SimpleMeterRegistry()),
                null,
                r -> r,
                b -> {},
                "kept",
                new PacedLines<>(BatchWriter.REFUSAL_LOG_EVERY));
        WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch = new WriteBatch<>(16);
        for (String detail : List.of("out of bounds", "out of bounds", "out of order sample", "too old sample")) {
            refused.rejected(batch, List.of(refused(1, detail)));
        }
        List<String> warns = lines(Level.WARN);
        assertThat(warns).hasSize(3);
        assertThat(warns.get(0))
                .startsWith("the receiver refuses samples older than its head block's minimum time (out of bounds): ");
        assertThat(warns.get(1))
                .startsWith("the receiver refuses samples older than a series' newest one (out of order). ");
        assertThat(warns.get(2))
                .startsWith("the receiver refuses samples older than its out-of-order window (too old sample): ");
    }

    @Test
    void aReadAgainRecordRefusedAsTooOldIsNotARepeat() {
        assertThat(RefusedSamples.orderRefusal("out of bounds")).isTrue();
        assertThat(RefusedSamples.orderRefusal("out of order sample")).isTrue();
        assertThat(RefusedSamples.orderRefusal("duplicate sample for timestamp"))
                .isTrue();
        assertThat(RefusedSamples.orderRefusal("too old sample")).isFalse();
        assertThat(RefusedSamples.orderRefusal(null)).isFalse();
    }
}
