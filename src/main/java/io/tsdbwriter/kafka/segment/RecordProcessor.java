package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.RecordCore;
import io.tsdbwriter.kafka.RefusedSamples;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.pipeline.SampleRate;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OrderedLanes;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteOutcome;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The acknowledgement side of one SegmentConsumer's {@link RecordCore}: a record's batch registers as pending in the
 * reader's {@link AckTracker} from its first offset, and is acknowledged — the watermark moved — once it was written (or
 * its refused samples dead-lettered or counted); under per-series order the batches go through the partition's
 * {@link SegmentOrder} into their lanes. A record refused whole is dead-lettered (pending until stored) or, without a
 * dead-letter topic, only counted. Once the partition was rewound or revoked, or a TSDB restart was seen since these
 * readers started, the batches are stale: their answers decide nothing, as their records are read again.
 *
 * <p>Not thread-safe: confined to its SegmentConsumer's poll thread. Completions arrive on writer threads and only touch
 * the (thread-safe) {@link AckTracker}.
 */
final class RecordProcessor
        implements SegmentOrder.Maker,
                SegmentConsumer.Sink,
                RecordCore.Acknowledgement<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> {

    private final BatchWriter writer;
    private final AckTracker tracker;
    private final Runnable onAck;
    private final DeadLetterQueue deadLetters;
    /** {@code --batch-send-deadline}, nanoseconds; 0 = none. */
    private final long batchSendDeadlineNanos;

    private final RefusedSamples<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> refused;
    /** The partition's reorder step, or null when unordered: then batches go to {@link BatchWriter#submit}. */
    private final SegmentOrder order;
    /** The segment being read ({@link #segmentStarts}). */
    private long segment;

    /** A TSDB restart seen since these readers started ({@link #stale}). */
    private final BooleanSupplier restartedSince;

    /** The partition's batches waiting for the commit that covers them (the ingest delay's committed stage). */
    private final CommitDelays commitDelays;

    private final RecordCore<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> core;

    /** Where the samples of stale batches left unwritten are counted ({@link WriterMeters#samplesSuperseded}). */
    private final WriterMeters meters;

    /** The reader's side of the partition, every part named ({@link #builder}). */
    private RecordProcessor(Builder b) {
        this.restartedSince = b.restartedSince;
        this.meters = b.meters;
        this.commitDelays = b.commitDelays != null ? b.commitDelays : new CommitDelays(b.meters.ingestDelay);
        this.order = b.order;
        this.writer = b.writer;
        this.tracker = b.tracker;
        this.onAck = b.onAck;
        this.deadLetters = b.deadLetters;
        this.batchSendDeadlineNanos = b.batchSendDeadlineNanos;
        DecodeErrorLog decodeErrors = b.decodeErrors != null ? b.decodeErrors : new DecodeErrorLog(b.meters);
        LongSupplier doneBelow = b.doneBelow;
        this.refused = new RefusedSamples<>(
                b.meters,
                b.deadLetters,
                r -> r,
                this::ack,
                "offsets stay uncommitted",
                b.writer.refusalLines(),
                r -> r.offset() < doneBelow.getAsLong());
        PointAmplifier amplifier = b.amplifier;
        this.core = new RecordCore<>(
                this,
                topic -> amplifier,
                b.batchSamples,
                b.order == null ? 0 : b.lanes.size(),
                b.rate,
                b.tenants,
                decodeErrors,
                b.meters);
    }

    /**
     * A reader's processor: its amplifier, the writer, the meters and its {@link AckTracker} are required; the rest
     * default to an unordered, unlimited reader without dead letters, tenants or a restart watch.
     */
    static Builder builder(PointAmplifier amplifier, BatchWriter writer, WriterMeters meters, AckTracker tracker) {
        return new Builder(amplifier, writer, meters, tracker);
    }

    /** The parts of a {@link RecordProcessor}, each named; not thread-safe. */
    static final class Builder {
        private final PointAmplifier amplifier;
        private final BatchWriter writer;
        private final WriterMeters meters;
        private final AckTracker tracker;
        private int batchSamples = IntakeSettings.DEFAULT_BATCH_SAMPLES;
        private long batchSendDeadlineNanos;
        private DecodeErrorLog decodeErrors;
        private Runnable onAck = () -> {};
        private DeadLetterQueue deadLetters;
        private SampleRate rate;
        private SegmentOrder order;
        private OrderedLanes lanes;
        private LongSupplier doneBelow = () -> -1;
        private TenantRouting tenants = TenantRouting.NONE;
        private BooleanSupplier restartedSince = () -> false;
        private CommitDelays commitDelays;

        private Builder(PointAmplifier amplifier, BatchWriter writer, WriterMeters meters, AckTracker tracker) {
            this.amplifier = Objects.requireNonNull(amplifier, "amplifier");
            this.writer = Objects.requireNonNull(writer, "writer");
            this.meters = Objects.requireNonNull(meters, "meters");
            this.tracker = Objects.requireNonNull(tracker, "tracker");
        }

        /** Samples per batch before it is handed on (default {@link IntakeSettings#DEFAULT_BATCH_SAMPLES}). */
        Builder batchSamples(int batchSamples) {
            this.batchSamples = batchSamples;
            return this;
        }

        /** {@code --batch-send-deadline}, nanoseconds (default 0: an open batch goes out when the poll finds no more). */
        Builder batchSendDeadlineNanos(long batchSendDeadlineNanos) {
            this.batchSendDeadlineNanos = batchSendDeadlineNanos;
            return this;
        }

        /** Where refused records are logged (default: a log of its own on the meters). */
        Builder decodeErrors(DecodeErrorLog decodeErrors) {
            this.decodeErrors = decodeErrors;
            return this;
        }

        /** Called whenever an acknowledgement moved the tracker's watermark (default: nothing). */
        Builder onAck(Runnable onAck) {
            this.onAck = onAck;
            return this;
        }

        /** {@code --dead-letter-topic}, or null (the default): refused records are only counted. */
        Builder deadLetters(DeadLetterQueue deadLetters) {
            this.deadLetters = deadLetters;
            return this;
        }

        /** {@code --max-samples-per-second}: a record's samples are taken from it before they are amplified; null = unlimited. */
        Builder rate(SampleRate rate) {
            this.rate = rate;
            return this;
        }

        /**
         * Per-series order: each point goes into the open batch of its series' lane of {@code lanes}, the batches
         * through the partition's reorder step; null (the default) = unordered, one open batch.
         */
        Builder order(SegmentOrder order, OrderedLanes lanes) {
            this.order = order;
            this.lanes = lanes;
            return this;
        }

        /**
         * The partition's offset below which every record was done before it is read again (a rewind, a rebalance, a
         * restart; -1, the default, when none): a refusal of such a record's samples as out of order is the repeat's
         * ({@link RefusedSamples}).
         */
        Builder doneBelow(LongSupplier doneBelow) {
            this.doneBelow = doneBelow;
            return this;
        }

        /** {@code --tenant-from}: a batch per lane and tenant; a record without a tenant is refused (default: none). */
        Builder tenants(TenantRouting tenants) {
            this.tenants = tenants;
            return this;
        }

        /**
         * True once a TSDB restart was seen after these readers started: their batches are stale from then on (not
         * sent, not retried, their answers dropped), the member rewinds and reads them again (design §4). Default: never.
         */
        Builder restartedSince(BooleanSupplier restartedSince) {
            this.restartedSince = restartedSince;
            return this;
        }

        /**
         * The partition's batches waiting for the commit that covers them: each batch written is added (the ingest
         * delay's committed stage). Default: a set of this reader's own.
         */
        Builder commitDelays(CommitDelays commitDelays) {
            this.commitDelays = commitDelays;
            return this;
        }

        RecordProcessor build() {
            if (batchSamples < 1) {
                throw new IllegalArgumentException("batchSamples must be at least 1, got " + batchSamples);
            }
            if (order != null && lanes == null) {
                throw new IllegalArgumentException("an ordered reader needs its lanes");
            }
            return new RecordProcessor(this);
        }
    }

    /** Decodes and amplifies one record; may block handing a full batch to the writer. */
    @Override
    public void process(ConsumerRecord<byte[], byte[]> record) throws InterruptedException {
        core.process(record);
    }

    /** Age of the oldest open batch in nanoseconds (0 when none). */
    @Override
    public long openBatchAgeNanos() {
        return core.openBatchAgeNanos();
    }

    @Override
    public long batchSendDeadlineNanos() {
        return batchSendDeadlineNanos;
    }

    /**
     * Adds the records and points processed since the last call to {@code records_consumed}, {@code points_decoded}
     * and {@code samples_expected}. Called with every batch handed on (so a batch's samples are expected before they
     * can be written) and after every poll's records.
     */
    @Override
    public void publishCounts() {
        core.publishCounts();
    }

    /** Hands the open batches (if any) on; blocks while no write permit is free. */
    @Override
    public void flush() throws InterruptedException {
        core.flush();
    }

    @Override
    public ConsumerRecord<byte[], byte[]> record(ConsumerRecord<byte[], byte[]> source) {
        return source;
    }

    /** The first batch of none open: the tracker's watermark stays at its first offset until it is acknowledged. */
    @Override
    public void firstBatchOpens(long offset) {
        tracker.openBatchAt(offset);
    }

    /**
     * Hands a batch on: registered as pending from its first offset (the batches still open keep the watermark at the
     * oldest of theirs), then to the writer — unordered, or through the partition's reorder step into the lane.
     * Interrupted while it waits for a write permit or room in its lane (the readers stopping), the batch is neither
     * sent nor reported: stale, its samples are superseded by the re-read's ({@link #supersededIfStale}).
     */
    @Override
    public void handOn(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch, int lane, long firstOffset)
            throws InterruptedException {
        batch.origin(tracker.registerBatch(firstOffset, core.stillOpenFrom()));
        try {
            if (order == null) {
                writer.submit(batch, this);
            } else {
                order.submit(segment, new SegmentOrder.Held(lane, batch, this));
            }
        } catch (InterruptedException e) { // not started nor queued (the readers stopped while it waited its turn)
            supersededIfStale(batch.samples());
            throw e;
        }
    }

    /**
     * A record refused whole (malformed, or without a valid tenant): to the dead-letter topic, pending until stored;
     * without one only counted (done at once).
     */
    @Override
    public void refusedWhole(ConsumerRecord<byte[], byte[]> record, String reason, String detail) {
        if (deadLetters != null) {
            // the whole record goes to the dead-letter topic; its valid lines (if any) were written
            AckTracker.Pending pending = tracker.registerRecord(record.offset());
            deadLetters.send(record, reason, detail, () -> complete(pending));
        }
    }

    /** Reading segment {@code k} begins: its batches are handed on as segment k's. */
    @Override
    public void segmentStarts(long k) {
        segment = k;
    }

    /** Segment {@code k} was read and its batches handed on (after {@link #flush()}): the reorder step may go on. */
    @Override
    public void segmentRead(long k) throws InterruptedException {
        if (order != null) {
            order.segmentRead(k);
        }
    }

    /**
     * A batch the reorder step held and dropped (its partition stopping): never sent, so never waited for. Stale, its
     * samples are superseded by the re-read's.
     */
    @Override
    public void dropped(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        tracker.cancel(batch.origin());
        supersededIfStale(batch.samples());
    }

    /**
     * The reader ended (closed or at its stop) with batches still open, never handed on: stale, their records are read
     * again, so their samples, already expected, are superseded by the re-read's.
     */
    @Override
    public void endsWithOpenBatches() {
        supersededIfStale(core.openSamples());
    }

    /**
     * A batch is stale once its partition was rewound or revoked (the tracker frozen), or a TSDB restart was seen since
     * these readers started: the member rewinds for it, and until then no write of theirs may land in the restarted
     * TSDB ahead of the re-reads of older records it may have lost (a receiver without an out-of-order window would
     * refuse those as out of order, and the repeat rule would count them as stored).
     */
    @Override
    public boolean stale(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        return tracker.abandoned() || restartedSince.getAsBoolean();
    }

    @Override
    public void written(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        if (batch.points() > 0 && !stale(batch)) { // its offsets wait for the commit that covers its last record
            commitDelays.acknowledged(batch.source(batch.points() - 1).offset(), batch.recordTimeMs());
        }
        ack(batch);
    }

    @Override
    public void rejected(
            WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch,
            List<Rejection<ConsumerRecord<byte[], byte[]>>> rejections) {
        if (!stale(batch)) { // a stale batch's records are read again: the re-read's answer counts, not this one
            refused.rejected(batch, rejections);
        } else { // the points written of it count as written; the refused ones are expected again in the re-read
            long unwritten = 0;
            for (Rejection<ConsumerRecord<byte[], byte[]>> r : rejections) {
                unwritten += r.samples();
            }
            supersededIfStale(unwritten);
        }
    }

    @Override
    public void gaveUp(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch, WriteOutcome outcome) {
        if (!stale(batch)) {
            refused.gaveUp(batch, outcome);
        } else {
            supersededIfStale(batch.samples());
        }
    }

    /**
     * Stays pending: its offsets are never committed past. Stale (not sent, or its retries stopped, at a TSDB restart,
     * rewind or revoke), its records are read again and its samples superseded by the re-read's; held at a stop, they
     * stay expected and unwritten (the stop says so).
     */
    @Override
    public void abandoned(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        supersededIfStale(batch.samples());
    }

    /**
     * Counts {@code samples} in {@link WriterMeters#samplesSuperseded} when these readers' batches are stale and the
     * writer is not stopping: their samples were expected, are not written, and are expected again when their records
     * are read again (by the rewind's readers, or the partition's next owner). Once the writer stops nothing is read
     * again in this run: what is left unwritten then stays expected.
     */
    private void supersededIfStale(long samples) {
        if (samples > 0 && !writer.stopped() && (tracker.abandoned() || restartedSince.getAsBoolean())) {
            meters.samplesSuperseded.increment(samples);
        }
    }

    private void ack(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        complete(batch.origin());
    }

    private void complete(AckTracker.Pending pending) {
        if (tracker.complete(pending)) {
            onAck.run();
        }
    }
}
