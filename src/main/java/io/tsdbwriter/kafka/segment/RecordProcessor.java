package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.kafka.IntakeCounts;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.RefusedSamples;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.pipeline.SampleRate;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OpenBatches;
import io.tsdbwriter.write.OrderedLanes;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The hot path of one SegmentConsumer: decode a record's points, look up (or build once) each series' line
 * prefixes, amplify each point into M × N samples straight into the open batch, and hand full batches to the
 * {@link BatchWriter}. Per point it allocates at most the value text; per sample nothing.
 *
 * <p>Not thread-safe: confined to its SegmentConsumer's poll thread. Completions arrive on writer threads and
 * only touch the (thread-safe) {@link AckTracker}.
 */
final class RecordProcessor implements SegmentOrder.Maker, SegmentConsumer.Sink {

    private final PointAmplifier amplifier;
    private final int batchSamples;
    private final BatchWriter writer;
    private final AckTracker tracker;
    private final DecodeErrorLog decodeErrors;
    private final Runnable onAck;
    private final DeadLetterQueue deadLetters;
    private final long samplesPerPoint;
    private final RefusedSamples<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> refused;
    /** {@code --max-samples-per-second}, or null. */
    private final SampleRate rate;
    /** Ordered lanes (per-series order), 0 when unordered: then one open batch, handed to {@link BatchWriter#submit}. */
    private final int lanes;
    /** The partition's reorder step, or null when unordered. */
    private final SegmentOrder order;
    /** The open batch of each lane (one when unordered) and tenant ({@code --tenant-from}). */
    private final OpenBatches<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> open;
    /** {@code --tenant-from}. */
    private final TenantRouting tenants;
    /** The segment being read ({@link #segmentStarts}). */
    private long segment;

    private final IntakeCounts counts;
    /** A TSDB restart seen since these readers started ({@link #stale}). */
    private final BooleanSupplier restartedSince;

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
            BooleanSupplier restartedSince) {
        this.restartedSince = restartedSince;
        this.order = order;
        this.lanes = order == null ? 0 : lanes.size();
        this.open = new OpenBatches<>(this.lanes);
        this.tenants = tenants;
        this.rate = rate;
        this.amplifier = amplifier;
        this.batchSamples = batchSamples;
        this.writer = writer;
        this.tracker = tracker;
        this.decodeErrors = decodeErrors;
        this.onAck = onAck;
        this.deadLetters = deadLetters;
        this.samplesPerPoint = amplifier.samplesPerPoint();
        this.refused = new RefusedSamples<>(
                meters,
                deadLetters,
                r -> r,
                this::ack,
                "offsets stay uncommitted",
                r -> r.offset() < doneBelow.getAsLong());
        this.counts = new IntakeCounts(meters);
    }

    /** Decodes and amplifies one record; may block handing a full batch to the writer. */
    @Override
    public void process(ConsumerRecord<byte[], byte[]> record) throws InterruptedException {
        // a record without a timestamp (-1: old message format) gives its untimed samples the time it is read
        long kafkaTimestampMs = record.timestamp() >= 0 ? record.timestamp() : System.currentTimeMillis();
        long preparedBefore = amplifier.seriesPrepared();
        long droppedBefore = amplifier.relabelDropped();
        if (tenants.from() == TenantRouting.From.HEADER && !recordTenant(record)) {
            counts.record(0);
            return;
        }
        Rejections rejected = amplifier.decode(record.value(), kafkaTimestampMs);
        int n = amplifier.pointCount();
        counts.record(n);
        if (rate != null && n > 0) {
            if (openBatchAgeNanos() > IntakeSettings.RATE_LINGER_NANOS) {
                flush(); // at a low rate a batch fills slowly: what is open goes out after the linger, as between polls
            }
            rate.acquire(n * samplesPerPoint);
        }
        for (int p = 0; p < n; p++) {
            int lane = lanes > 1 ? amplifier.lane(p, lanes) : 0;
            Tenant tenant = tenants.routes() ? amplifier.tenant(p) : null;
            int slot = open.slot(lane, tenant);
            WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b = open.get(slot);
            if (tenant == null && tenants.routes()) { // a series without a valid tenant: refused below with its record
                amplifier.encodePoint(p, null);
                continue;
            }
            if (b == null) {
                if (open.count() == 0) {
                    tracker.openBatchAt(record.offset());
                }
                b = open.open(slot, tenant, record.offset());
            }
            int pointSamples = amplifier.encodePoint(p, b.body());
            counts.encoded(pointSamples);
            b.addPoint(pointSamples, record);
            if (b.samples() >= batchSamples) {
                publishCounts();
                hand(slot);
            }
        }
        if (rejected.total() > 0) { // decode refusals, and series refused for their tenant
            decodeErrors.rejected(record.topic(), record.partition(), record.offset(), amplifier.format(), rejected);
            if (deadLetters != null && rejected.malformed()) {
                // the whole record goes to the dead-letter topic; its valid lines (if any) were written above
                AckTracker.Pending pending = tracker.registerRecord(record.offset());
                deadLetters.send(record, rejected.first().tag(), rejected.firstDetail(), () -> complete(pending));
            }
        }
        counts.seriesCreated(amplifier.seriesPrepared() - preparedBefore);
        counts.relabelDropped(amplifier.relabelDropped() - droppedBefore);
    }

    /**
     * With {@code --tenant-from header:NAME}: the record's tenant for the amplifier; false when it is refused
     * (no header and no default, or an invalid value): counted, logged and dead-lettered as a decode error, not decoded.
     */
    private boolean recordTenant(ConsumerRecord<byte[], byte[]> record) {
        Header h = record.headers().lastHeader(tenants.name());
        String value = h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        Tenant t = tenants.resolve(value);
        amplifier.recordTenant(t);
        if (t != null) {
            return true;
        }
        DecodeError reason = tenants.missing(value) ? DecodeError.MISSING_TENANT : DecodeError.INVALID_TENANT;
        decodeErrors.rejected(record.topic(), record.partition(), record.offset(), reason, tenants.refusal(value));
        if (deadLetters != null) {
            AckTracker.Pending pending = tracker.registerRecord(record.offset());
            deadLetters.send(record, reason.tag(), tenants.refusal(value), () -> complete(pending));
        }
        return false;
    }

    /** Age of the oldest open batch in nanoseconds (0 when none). */
    @Override
    public long openBatchAgeNanos() {
        return open.ageNanos();
    }

    /**
     * Adds the records and points processed since the last call to {@code records_consumed}, {@code points_decoded}
     * and {@code samples_expected}. Called with every batch handed on (so a batch's samples are expected before they
     * can be written) and after every poll's records.
     */
    @Override
    public void publishCounts() {
        counts.publish();
    }

    /** Hands the open batch (if any) to the writer; blocks while no write permit is free. */
    @Override
    public void flush() throws InterruptedException {
        publishCounts();
        for (int slot = 0; slot < open.slots() && open.count() > 0; slot++) {
            if (open.get(slot) != null) {
                hand(slot);
            }
        }
    }

    /**
     * Hands the open batch of {@code slot} (a lane and tenant) on: registered as pending from its first offset (the batches still open
     * keep the watermark at the oldest of theirs), then to the writer — unordered, or through the partition's reorder
     * step into the lane.
     */
    private void hand(int slot) throws InterruptedException {
        long firstOffset = open.firstOffset(slot);
        WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> batch = open.take(slot);
        batch.origin(tracker.registerBatch(firstOffset, open.stillOpenFrom()));
        if (order == null) {
            writer.submit(batch, this);
        } else {
            order.submit(segment, new SegmentOrder.Held(open.lane(slot), batch, this));
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
