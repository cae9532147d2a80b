package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * The read loop of a SegmentConsumer against a fake partition log (offsets with gaps; each poll returns up to a fixed
 * number of records from the position, and a seek moves the position back or forth, as a real consumer does). The
 * real broker is exercised by the integration tests; this checks which records reach the processor and when the
 * consumer seeks.
 */
class SegmentConsumerTest {

    private static final TopicPartition TP = new TopicPartition("points", 0);
    /** Offsets 0..99 without 25, 26 (a segment end of size 25 falls in the gap) and 50. */
    private static final List<Long> LOG = LongStream.range(0, 100)
            .filter(o -> o != 25 && o != 26 && o != 50)
            .boxed()
            .toList();

    private static final long LOG_END = 100;

    /** A partition log read the way KafkaConsumer reads it: poll from the position, seek moves it. */
    static class FakeLog extends MockConsumer<byte[], byte[]> {
        final int maxPollRecords;
        long position;
        final List<Long> seeks = new ArrayList<>();

        FakeLog(int maxPollRecords) {
            super("earliest");
            this.maxPollRecords = maxPollRecords;
        }

        @Override
        public synchronized void assign(Collection<TopicPartition> partitions) {
            assertThat(partitions).containsExactly(TP);
        }

        @Override
        public synchronized void seek(TopicPartition partition, long offset) {
            seeks.add(offset);
            position = offset;
        }

        @Override
        public synchronized long position(TopicPartition partition) {
            return position;
        }

        /** Records below it are deleted: a poll from there is out of range, as a broker answers it. */
        long logStart;

        @Override
        public synchronized Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
            return Map.of(TP, logStart);
        }

        /** The log end: a poll from beyond it is out of range, as a broker answers it; it grows by {@link #appends}. */
        long logEnd = LOG_END;

        /** Offsets appended to the log before each poll answers (the live tail's producer). */
        long appends;

        @Override
        public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
            return Map.of(TP, logEnd);
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            logEnd = Math.min(LOG_END, logEnd + appends);
            if (position < logStart || position > logEnd) {
                throw new OffsetOutOfRangeException("out of range", Map.of(TP, position));
            }
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            for (long offset : LOG) {
                if (offset >= position && offset < logEnd && out.size() < maxPollRecords) {
                    out.add(new ConsumerRecord<>(TP.topic(), TP.partition(), offset, new byte[0], new byte[0]));
                }
            }
            if (!out.isEmpty()) {
                position = out.get(out.size() - 1).offset() + 1;
            }
            return new ConsumerRecords<>(Map.of(TP, out), Map.of());
        }

        @Override
        public void close() {}
    }

    /** Records the offsets handed to it. */
    static class Offsets implements SegmentConsumer.Sink {
        final List<Long> processed = new ArrayList<>();
        int flushes;

        @Override
        public void process(ConsumerRecord<byte[], byte[]> record) {
            processed.add(record.offset());
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public long openBatchAgeNanos() {
            return 0;
        }
    }

    private static Offsets read(FakeLog log, SegmentPlan plan, int index) {
        return read(log, plan, index, new WriterMeters(new SimpleMeterRegistry()));
    }

    private static Offsets read(FakeLog log, SegmentPlan plan, int index, WriterMeters meters) {
        Offsets sink = new Offsets();
        AckTracker tracker = new AckTracker(plan.start(plan.firstSegment(index)));
        new SegmentConsumer(TP, index, plan, LOG_END, Map.of(), sink, tracker, meters, offset -> true, props -> log)
                .run();
        return sink;
    }

    @Test
    void recordsDeletedWhileBeingReadAreSkippedCountedAndReadingGoesOnFromTheLogStart() {
        FakeLog log = new FakeLog(7);
        log.logStart = 37;
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());

        Offsets sink = read(log, new SegmentPlan(10, 1, 0), 0, meters);

        assertThat(sink.processed).isEqualTo(LOG.stream().filter(o -> o >= 37).toList());
        assertThat(meters.skippedRanges())
                .extracting(r -> r.from() + ".." + r.to() + " " + r.reason())
                .containsExactly("0..10 deleted", "10..20 deleted", "20..30 deleted", "30..37 deleted");
        assertThat(meters.skippedRanges().stream()
                        .mapToLong(WriterMeters.SkippedRange::records)
                        .sum())
                .isEqualTo(37);
        assertThat(log.seeks)
                .as("each deleted segment is skipped, the one holding the log start read from it")
                .contains(37L);
    }

    @Test
    void aReaderWhoseSegmentLiesBeyondTheLogEndWaitsThereWithoutAPauseOrAWarning() {
        for (int maxPollRecords : new int[] {1, 7, 1000}) {
            for (int index = 0; index < 2; index++) {
                FakeLog log = new FakeLog(maxPollRecords);
                log.logEnd = 3; // the live tail: the producer appends 2 offsets before each poll answers
                log.appends = 2;
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                WriterMeters meters = new WriterMeters(registry);
                long t0 = System.nanoTime();

                Offsets sink = read(log, new SegmentPlan(10, 2, 0), index, meters);

                int i = index;
                assertThat(sink.processed)
                        .as("poll %d, reader %d", maxPollRecords, index)
                        .isEqualTo(LOG.stream().filter(o -> (o / 10) % 2 == i).toList());
                assertThat(meters.skippedRanges()).isEmpty();
                assertThat(registry.find("tsdbwriter.offset.resets").counters()).isEmpty();
                assertThat(Duration.ofNanos(System.nanoTime() - t0))
                        .as("no retry's pause")
                        .isLessThan(Duration.ofMillis(900));
            }
        }
    }

    @Test
    void singleReaderSeeksOnceAndReadsEveryRecordOnceWhatEverAPollReturns() {
        for (int maxPollRecords : new int[] {1, 7, 25, 1000}) {
            for (long segmentSize : new long[] {1, 10, 25, 33}) {
                FakeLog log = new FakeLog(maxPollRecords);

                Offsets sink = read(log, new SegmentPlan(segmentSize, 1, 0), 0);

                assertThat(sink.processed)
                        .as("poll %d, segment %d", maxPollRecords, segmentSize)
                        .isEqualTo(LOG);
                assertThat(log.seeks)
                        .as("poll %d, segment %d", maxPollRecords, segmentSize)
                        .containsExactly(0L);
            }
        }
    }

    @Test
    void singleReaderStartsAtCommittedOffsetInsideASegment() {
        FakeLog log = new FakeLog(7);

        Offsets sink = read(log, new SegmentPlan(10, 1, 43), 0);

        assertThat(sink.processed).isEqualTo(LOG.stream().filter(o -> o >= 43).toList());
        assertThat(log.seeks).containsExactly(43L);
    }

    @Test
    void readerOfEveryThirdSegmentSeeksToEachOfItsSegmentsAndReadsOnlyThem() {
        for (int maxPollRecords : new int[] {1, 7, 1000}) {
            for (int index = 0; index < 3; index++) {
                FakeLog log = new FakeLog(maxPollRecords);
                SegmentPlan plan = new SegmentPlan(10, 3, 0);

                Offsets sink = read(log, plan, index);

                int i = index;
                assertThat(sink.processed)
                        .as("poll %d, reader %d", maxPollRecords, index)
                        .isEqualTo(LOG.stream().filter(o -> (o / 10) % 3 == i).toList());
                assertThat(log.seeks)
                        .as("poll %d, reader %d", maxPollRecords, index)
                        .isEqualTo(LongStream.range(0, 10)
                                .filter(k -> k % 3 == i)
                                .map(k -> k * 10)
                                .boxed()
                                .toList());
            }
        }
    }

    @Test
    void everyReadSegmentEndsWithAFlush() {
        FakeLog log = new FakeLog(1000);

        Offsets sink = read(log, new SegmentPlan(10, 1, 0), 0);

        assertThat(sink.flushes).isGreaterThanOrEqualTo(10);
        assertThat(Set.copyOf(sink.processed)).hasSize(LOG.size());
    }

    /** A sink whose open batch is always {@code ageNanos} old, under {@code --batch-send-deadline deadlineNanos}. */
    private static Offsets agedSink(long ageNanos, long deadlineNanos) {
        return new Offsets() {
            @Override
            public long openBatchAgeNanos() {
                return ageNanos;
            }

            @Override
            public long batchSendDeadlineNanos() {
                return deadlineNanos;
            }
        };
    }

    private static Offsets readInto(Offsets sink, FakeLog log, SegmentPlan plan) {
        AckTracker tracker = new AckTracker(plan.start(plan.firstSegment(0)));
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        new SegmentConsumer(TP, 0, plan, LOG_END, Map.of(), sink, tracker, meters, offset -> true, props -> log).run();
        return sink;
    }

    @Test
    void anOpenBatchGoesOutAfterEachPollOnceOlderThanTheLingerOrOnlyAtTheDeadline() {
        long second = 1_000_000_000L;
        record Case(String name, long deadlineNanos, int flushes) {}
        for (Case c : List.of(
                new Case("no deadline: a batch a second old goes out after every poll", 0, 14),
                new Case("deadline 5 s: not yet, only the segment's end", 5 * second, 1),
                new Case("deadline 0.5 s: past it after every poll", second / 2, 14))) {
            Offsets sink = readInto(agedSink(second, c.deadlineNanos()), new FakeLog(7), new SegmentPlan(1000, 1, 0));

            assertThat(sink.processed).as(c.name()).isEqualTo(LOG);
            assertThat(sink.flushes).as(c.name()).isEqualTo(c.flushes());
        }
    }

    @Test
    void theStopHandsTheOpenBatchOverUnderADeadlineOnlyWhetherItWakesThePollOrComesBetweenPolls() {
        record Case(String name, long deadlineNanos, boolean wakesThePoll, int flushes) {}
        for (Case c : List.of(
                new Case("deadline 5 s, the stop between polls: handed over", 5_000_000_000L, false, 1),
                new Case("deadline 5 s, the stop wakes the poll: handed over", 5_000_000_000L, true, 1),
                new Case("no deadline: left to the next start", 0, false, 0),
                new Case("no deadline, the poll woken: left to the next start", 0, true, 0))) {
            AtomicReference<SegmentConsumer> reader = new AtomicReference<>();
            FakeLog log = new FakeLog(7) {
                int polls;

                @Override
                public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
                    if (++polls == 3) {
                        reader.get().close(); // SIGTERM: the partition's readers are closed
                        if (c.wakesThePoll()) {
                            throw new WakeupException();
                        }
                    }
                    return super.poll(timeout);
                }
            };
            SegmentPlan plan = new SegmentPlan(1000, 1, 0);
            Offsets sink = agedSink(0, c.deadlineNanos());
            reader.set(new SegmentConsumer(
                    TP,
                    0,
                    plan,
                    LOG_END,
                    Map.of(),
                    sink,
                    new AckTracker(0),
                    new WriterMeters(new SimpleMeterRegistry()),
                    offset -> true,
                    props -> log));

            reader.get().run();

            assertThat(sink.processed).as(c.name()).hasSize(c.wakesThePoll() ? 14 : 21);
            assertThat(sink.flushes).as(c.name()).isEqualTo(c.flushes());
        }
    }
}
