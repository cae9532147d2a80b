package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.kafka.DecodeErrorLog;
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

    RecordProcessor(
            PointAmplifier amplifier,
            int batchSamples,
            BatchWriter writer,
            WriterMeters meters,
            AckTracker tracker,
            DecodeErrorLog decodeErrors,
            Runnable onAck,
            DeadLetterQueue deadLetters) {
        this(
                amplifier,
                batchSamples,
                writer,
                meters,
                tracker,
                decodeErrors,
                onAck,
                deadLetters,
                null,
                null,
                null,
                () -> -1,
                TenantRouting.NONE,
                () -> false);
    }

    /** As below, with the committed stage of the ingest delay not measured. */
    RecordProcessor(
            PointAmplifier amplifier,
            int batchSamples,
            BatchWriter writer,
            WriterMeters meters,
            AckTracker tracker,
            DecodeErrorLog decodeErrors,
            Runnable onAck,
            DeadLetterQueue deadLetters,
            SampleRate rate,
            SegmentOrder order,
            OrderedLanes lanes,
            LongSupplier doneBelow,
            TenantRouting tenants,
            BooleanSupplier restartedSince) {
        this(
                amplifier,
                batchSamples,
                writer,
                meters,
                tracker,
                decodeErrors,
                onAck,
                deadLetters,
                rate,
                order,
                lanes,
                doneBelow,
                tenants,
                restartedSince,
                new CommitDelays(meters.ingestDelay));
    }

    /**
     * @param rate  {@code --max-samples-per-second}: a record's samples are taken from it before they are amplified; null = unlimited
     * @param order the partition's reorder step under per-series order: each point goes into the open batch of its
     *              series' lane of {@code lanes}; null = unordered, one open batch
     * @param lanes the ordered lanes (null when unordered)
     * @param doneBelow the partition's offset below which every record was done before it is read again (a rewind, a
     *                  rebalance, a restart; -1 when none): a refusal of such a record's samples as out of order is the
     *                  repeat's ({@link RefusedSamples})
     * @param tenants   {@code --tenant-from}: a batch per lane and tenant; a record without a tenant is refused
     * @param restartedSince true once a TSDB restart was seen after these readers started: their batches are stale
     *                       from then on (not sent, not retried, their answers dropped), the member rewinds and reads
     *                       them again (DESIGN §4)
     * @param commitDelays   the partition's batches waiting for the commit that covers them: each batch written is
     *                       added (the ingest delay's committed stage)
     */
    RecordProcessor(
            PointAmplifier amplifier,
            int batchSamples,
            BatchWriter writer,
            WriterMeters meters,
            AckTracker tracker,
            DecodeErrorLog decodeErrors,
            Runnable onAck,
            DeadLetterQueue deadLetters,
            SampleRate rate,
            SegmentOrder order,
            OrderedLanes lanes,
            LongSupplier doneBelow,
            TenantRouting tenants,
            BooleanSupplier restartedSince,
            CommitDelays commitDelays) {
        this.restartedSince = restartedSince;
        this.commitDelays = commitDelays;
        this.order = order;
        this.writer = writer;
        this.tracker = tracker;
        this.onAck = onAck;
        this.deadLetters = deadLetters;
        this.refused = new RefusedSamples<>(
                meters,
                deadLetters,
                r -> r,
                this::ack,
                "offsets stay uncommitted",
                r -> r.offset() < doneBelow.getAsLong());
        this.core = new RecordCore<>(
                this,
                topic -> amplifier,
                batchSamples,
                order == null ? 0 : lanes.size(),
                rate,
                tenants,
                decodeErrors,
                meters);
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
     */
    @Override
    public void handOn(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch, int lane, long firstOffset)
            throws InterruptedException {
        batch.origin(tracker.registerBatch(firstOffset, core.stillOpenFrom()));
        if (order == null) {
            writer.submit(batch, this);
        } else {
            order.submit(segment, new SegmentOrder.Held(lane, batch, this));
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

    /** A batch the reorder step held and dropped (its partition stopping): never sent, so never waited for. */
    @Override
    public void dropped(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        tracker.cancel(batch.origin());
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
        }
    }

    @Override
    public void gaveUp(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch, WriteOutcome outcome) {
        if (!stale(batch)) {
            refused.gaveUp(batch, outcome);
        }
    }

    @Override
    public void abandoned(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch) {
        // stays pending: its offsets are never committed past
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
