package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.metrics.WriterMeters;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the P readers of a partition (DESIGN §4). It owns its own {@link KafkaConsumer} (assign + seek, no group
 * membership, no commits), reads the segments {@code k ≡ index (mod P)} in turn, and feeds their records to its
 * {@link RecordProcessor}. A segment is read when the consumer's position reaches its end (offset gaps are
 * normal); at the log end {@code poll} waits for data (live tail), it does not spin. With a stop offset it ends
 * after the last segment below it.
 *
 * <p>It seeks to a segment's start, except when the segment starts where the previous one ended (always so at P=1):
 * then the records the last {@code poll} returned past that end are kept and read first, and the consumer goes on
 * from where it is — no seek, which would drop the consumer's fetched data and fetch it again. At P &gt; 1 the fetch
 * size is fitted to the segments after the first one, and what the consumers fetched is counted: {@link FetchSize}.
 *
 * <p>Threading follows {@code KafkaConsumer}: one thread owns the consumer; {@link #close()} from any thread sets
 * the closed flag and calls {@code wakeup()}; the consumer is closed in {@code finally} on its own thread.
 */
public final class SegmentConsumer implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(SegmentConsumer.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final TopicPartition tp;
    private final int index;
    private final SegmentPlan plan;
    private final long stopOffset;
    private final Map<String, Object> consumerProps;
    private final Sink processor;
    private final AckTracker tracker;
    private final WriterMeters meters;
    private final WatermarkGate watermarkGate;
    private final Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory;
    /** The fetch size fitted after the first segment, and the bytes the consumers fetched (this reader's thread). */
    private final FetchSize fetchSize;

    private volatile boolean closed;
    private volatile boolean finished;
    private volatile Consumer<byte[], byte[]> consumer;
    /** Records the last poll returned at or past the end of the segment just read: {@code carried[carriedFrom..]}. */
    private List<ConsumerRecord<byte[], byte[]>> carried = List.of();

    private int carriedFrom;

    /** What a SegmentConsumer feeds: {@link RecordProcessor} (an interface so the read loop is testable alone). */
    interface Sink {
        /** Decodes, amplifies and batches one record; may block on a write permit. */
        void process(ConsumerRecord<byte[], byte[]> record) throws InterruptedException;

        /** Hands the open batch (if any) to the writer; may block on a write permit. */
        void flush() throws InterruptedException;

        /** Age of the open batch in nanoseconds (0 when none). */
        long openBatchAgeNanos();

        /**
         * {@code --batch-send-deadline} in nanoseconds: an open batch that is not full goes out when it is this old;
         * 0 (the default) = as soon as the partition has no more records to read. At the stop an open batch under a
         * deadline is handed over (the writer drains it); without one it is at most {@link #LINGER_NANOS} old and is
         * left unacknowledged: its records are read again by the next start.
         */
        default long batchSendDeadlineNanos() {
            return 0;
        }

        /** Adds what was processed since the last call to the meters (counted per poll, not per record). */
        default void publishCounts() {}

        /**
         * The reader ends with the batches still open (never handed on: closed without {@code --batch-send-deadline},
         * or interrupted): their records are read again by whoever reads the partition next. Default: nothing.
         */
        default void endsWithOpenBatches() {}

        /** Reading segment {@code k} begins (before its first record). */
        default void segmentStarts(long k) {}

        /**
         * Segment {@code k} was read and {@link #flush() flushed}: every batch of it handed on. Under per-series
         * order this lets the partition's later segments go on to the writer (and may hand their batches on).
         */
        default void segmentRead(long k) throws InterruptedException {}
    }

    SegmentConsumer(
            TopicPartition tp,
            int index,
            SegmentPlan plan,
            long stopOffset,
            Map<String, Object> consumerProps,
            Sink processor,
            AckTracker tracker,
            WriterMeters meters,
            WatermarkGate watermarkGate) {
        this(tp, index, plan, stopOffset, consumerProps, processor, tracker, meters, watermarkGate, KafkaConsumer::new);
    }

    /** As above, with the consumer made by {@code consumerFactory} from the reader's properties (tests). */
    SegmentConsumer(
            TopicPartition tp,
            int index,
            SegmentPlan plan,
            long stopOffset,
            Map<String, Object> consumerProps,
            Sink processor,
            AckTracker tracker,
            WriterMeters meters,
            WatermarkGate watermarkGate,
            Function<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory) {
        this.tp = tp;
        this.index = index;
        this.plan = plan;
        this.stopOffset = stopOffset;
        this.consumerProps = consumerProps;
        this.processor = processor;
        this.tracker = tracker;
        this.meters = meters;
        this.watermarkGate = watermarkGate;
        this.consumerFactory = consumerFactory;
        this.fetchSize = new FetchSize(tp, index, plan.segmentSize(), meters);
    }

    /**
     * Waits until the partition's watermark (everything below it acknowledged, DESIGN §4) reaches an offset: it gates the
     * readers on the acknowledgements, not on the commits, which lag them by the durability window.
     */
    @FunctionalInterface
    interface WatermarkGate {
        /** @return false when the partition is stopping */
        boolean await(long offset) throws InterruptedException;
    }

    /** Kafka consumer settings of a segment reader: no group, no commits, bytes in, committed data only. */
    public static Map<String, Object> readerProps(Map<String, Object> base, String clientId) {
        Map<String, Object> p = new HashMap<>(base);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // never a silent reset: a position Kafka no longer has (records deleted while they were being read) raises
        // OffsetOutOfRangeException, which the reader turns into a logged and counted skip (readSegment)
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the writer never creates topics
        // 10,000 records per poll (Kafka's default: 500): fewer polls per segment; what a poll holds is bounded by the
        // fetch sizes below anyway. With --segment-size 50,000 it cut the relay's CPU by ~8 %
        // (docs/benchmarks-archive.md §8).
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16 * 1024 * 1024);
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, FetchSize.MAX_FETCH_BYTES);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }

    @Override
    public void run() {
        String clientId = "tsdb-writer-" + tp + "-" + index;
        Map<String, Object> props = readerProps(consumerProps, clientId);
        // at P > 1 the first segment is read with small fetches, then the fetch size is fitted to the segment
        // (FetchSize)
        boolean fitted =
                plan.parallelism() == 1 || consumerProps.containsKey(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG);
        if (!fitted) {
            props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, FetchSize.FIRST_SEGMENT_FETCH_BYTES);
        }
        long k = plan.firstSegment(index);
        boolean reachedStop = false;
        boolean failed = false;
        boolean again = true;
        try {
            while (again && !closed) {
                again = false;
                try (Consumer<byte[], byte[]> c = consumerFactory.apply(props);
                        FetchedBytes counted =
                                () -> fetchSize.countFetchedBytes(c)) { // runs before the consumer closes
                    consumer = c;
                    if (closed) {
                        return;
                    }
                    c.assign(List.of(tp));
                    long continuesAt =
                            -1; // where the stream of carried records, then the consumer's position, goes on unbroken
                    carried = List.of();
                    carriedFrom = 0;
                    while (!closed) {
                        long start = plan.start(k);
                        if (start >= stopOffset) {
                            reachedStop = true;
                            break;
                        }
                        tracker.readTo(start);
                        long mustBeAcked = plan.end(k - plan.parallelism());
                        if (k - plan.parallelism() >= 0
                                && mustBeAcked > plan.committedOffset()
                                && !watermarkGate.await(mustBeAcked)) {
                            break; // partition stopping: segment k was not read, the tracker stays at its start
                        }
                        if (start != continuesAt) {
                            carried = List.of();
                            carriedFrom = 0;
                            c.seek(tp, start);
                        }
                        processor.segmentStarts(k);
                        continuesAt = readSegment(c, k, start);
                        k = plan.nextSegment(k);
                        if (!fitted && continuesAt >= 0) {
                            fitted = true;
                            int fetchBytes = fetchSize.fetchBytesFor(
                                    c, (int) props.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG));
                            if (fetchBytes > 0) {
                                props = new HashMap<>(props);
                                props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, fetchBytes);
                                again = true; // a consumer with the fitted fetch size reads on from segment k
                                break;
                            }
                        }
                    }
                }
            }
            if (reachedStop) {
                tracker.readTo(stopOffset); // only a reader that read everything below the stop offset may say so
            }
        } catch (WakeupException | InterruptException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // a dying thread is a dying process: the uncaught-exception handler (ThreadDeaths) stops the writer
            log.error("segment consumer {}#{} failed; its unacked offsets stay uncommitted", tp, index);
            failed = true;
            throw e;
        } finally {
            if (closed && !failed) {
                flushAtStop();
            }
            processor.publishCounts();
            if (!failed) {
                processor.endsWithOpenBatches();
            }
            finished = true;
        }
    }

    /**
     * Whether the open batch goes out after a poll: at once when the poll found nothing more or it waited
     * {@link #LINGER_NANOS}; under {@code --batch-send-deadline} when it is that old (Prometheus' {@code
     * batch_send_deadline}), so a slow topic's samples go out in fewer, larger requests.
     */
    private boolean flushDue(boolean pollEmpty) {
        long deadline = processor.batchSendDeadlineNanos();
        long age = processor.openBatchAgeNanos();
        return deadline > 0 ? age > deadline : pollEmpty || age > LINGER_NANOS;
    }

    /**
     * How long the next poll may wait for records: {@link #POLL_TIMEOUT}, but with an open batch and no {@code
     * --batch-send-deadline} no longer than the batch has left of {@link #LINGER_NANOS}: at the log end the poll then
     * comes back empty when the batch is due and it goes out, instead of waiting for more records or the whole poll
     * timeout.
     */
    private Duration pollTimeout() {
        long age = processor.openBatchAgeNanos();
        if (age <= 0 || processor.batchSendDeadlineNanos() > 0) {
            return POLL_TIMEOUT;
        }
        return Duration.ofNanos(Math.clamp(LINGER_NANOS - age, 0, POLL_TIMEOUT.toNanos()));
    }

    /**
     * The reader was closed (the partition stopping): under {@code --batch-send-deadline} the open batch, which may wait
     * that long, is handed to the writer now, which drains it before the partition's last commit; the per-series order
     * lets it go when it is next in line ({@link SegmentOrder#stop()}). Interrupted meanwhile (the readers' stop took
     * too long), it stays unacknowledged and is read again by the next start.
     */
    private void flushAtStop() {
        if (processor.batchSendDeadlineNanos() <= 0 || Thread.currentThread().isInterrupted()) {
            return;
        }
        try {
            processor.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads segment k from {@code start}; returns its end — from there the carried records, then the consumer's
     * position, go on without a gap — or -1 when closed before the segment was read.
     */
    private long readSegment(Consumer<byte[], byte[]> c, long k, long start) throws InterruptedException {
        long end = Math.min(plan.end(k), stopOffset);
        long t0 = System.nanoTime();
        while (!closed) {
            List<ConsumerRecord<byte[], byte[]>> records;
            int from;
            if (carriedFrom < carried.size()) {
                records = carried;
                from = carriedFrom;
            } else {
                ConsumerRecords<byte[], byte[]> polled;
                try {
                    polled = c.poll(pollTimeout());
                } catch (OffsetOutOfRangeException e) {
                    if (waitsAtLogEnd(c, e, start)) {
                        continue;
                    }
                    long resumeAt = skipDeleted(c, e, end);
                    if (resumeAt >= end) {
                        processor.flush();
                        processor.segmentRead(k);
                        tracker.readTo(plan.start(plan.nextSegment(k)));
                        meters.segmentDuration.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
                        return -1; // the rest of the segment is gone: the next one starts with a seek
                    }
                    continue;
                }
                records = polled.records(tp);
                from = 0;
            }
            carried = List.of();
            carriedFrom = 0;
            boolean passedEnd = false;
            for (int i = from, n = records.size(); i < n; i++) {
                ConsumerRecord<byte[], byte[]> r = records.get(i);
                if (r.offset() >= end) {
                    passedEnd = true;
                    carried = records; // the next segment may start here: keep them instead of fetching them again
                    carriedFrom = i;
                    break;
                }
                if (r.offset() < start) {
                    continue;
                }
                if (TestHooks.ARMED) {
                    TestHooks.beforeRecord(r.partition(), r.offset());
                }
                processor.process(r);
            }
            processor.publishCounts();
            long position = c.position(tp);
            if (passedEnd || plan.isRead(k, position, stopOffset)) {
                processor.flush();
                processor.segmentRead(k);
                tracker.readTo(plan.start(plan.nextSegment(k)));
                meters.segmentDuration.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
                return end;
            }
            // never below the segment's start: a reader waiting at the log end for its segment reads (and skips) the
            // records below it, which are another reader's
            tracker.readTo(Math.max(start, Math.min(position, end)));
            if (flushDue(records.isEmpty())) {
                processor.flush();
            }
        }
        return -1;
    }

    /**
     * A reader ahead of the writes (P &gt; 1 at the log end): it sought to its segment's start, which lies beyond the log
     * end, and Kafka answers such a fetch "out of range". It moves to the log end instead, where its fetch waits at the
     * broker for the next record, and skips the records below its segment as they come (the segment being filled is
     * another reader's); its segment's first record is read the moment it is appended, not after a retry's pause. No
     * WARN line and no count: this is the live tail's normal course.
     *
     * @return false when the position was not the segment's start beyond the log end (handled by {@link #skipDeleted})
     */
    private boolean waitsAtLogEnd(Consumer<byte[], byte[]> c, OffsetOutOfRangeException e, long start) {
        long position = e.offsetOutOfRangePartitions().getOrDefault(tp, -1L);
        if (position != start) {
            return false;
        }
        long logEnd = c.endOffsets(List.of(tp)).getOrDefault(tp, -1L);
        if (logEnd < 0 || logEnd >= position) {
            return false;
        }
        log.debug("{}#{}: segment start {} lies beyond the log end {}: waiting there", tp, index, start, logEnd);
        c.seek(tp, logEnd);
        return true;
    }

    /**
     * The position lies below the log start: records were deleted (retention, {@code deleteRecords}) while this reader
     * was on its way to them. The range {@code [position, min(logStart, end))} of this segment is skipped — a WARN line
     * with topic, partition, from and to, counted in {@code records_skipped_total{reason="deleted"}} and the summary —
     * and reading goes on from the log start when it lies inside the segment.
     *
     * @return where reading resumes ({@code >= end}: nothing of the segment is left)
     */
    private long skipDeleted(Consumer<byte[], byte[]> c, OffsetOutOfRangeException e, long end)
            throws InterruptedException {
        long position = e.offsetOutOfRangePartitions().getOrDefault(tp, -1L);
        long logStart = c.beginningOffsets(List.of(tp)).getOrDefault(tp, 0L);
        if (position < 0 || logStart <= position) {
            // beyond the log end (truncated by an unclean leader election?): keep the position and try again
            log.warn(
                    "{}: offset {} is out of range (log start {}); reading it again in a second",
                    tp,
                    position,
                    logStart);
            meters.offsetReset("out_of_range");
            Thread.sleep(1000);
            c.seek(tp, Math.max(position, 0));
            return position;
        }
        long to = Math.min(logStart, end);
        log.warn(
                "{}: offsets {} to {} were deleted (retention or deleteRecords) before they were written: skipping {} record(s)",
                tp,
                position,
                to,
                to - position);
        meters.offsetReset("deleted");
        meters.recordsSkipped(new WriterMeters.SkippedRange(tp.topic(), tp.partition(), position, to, "deleted"));
        if (logStart < end) {
            c.seek(tp, logStart);
        }
        return logStart;
    }

    /** True once the thread has left its loop (done, closed or failed). */
    boolean finished() {
        return finished;
    }

    /** The resource that counts a consumer's received bytes when the reader ends, however it ends. */
    private interface FetchedBytes extends AutoCloseable {
        @Override
        void close();
    }

    /** Stops reading: sets the closed flag and wakes the consumer. Idempotent; callable from any thread. */
    void close() {
        closed = true;
        Consumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }
}
