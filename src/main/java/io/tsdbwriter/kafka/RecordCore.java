package io.tsdbwriter.kafka;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.metrics.IngestDelay;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.pipeline.SampleRate;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.OpenBatches;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

/**
 * The hot path of one reader of any consumption model: a record's tenant from its header ({@code --tenant-from
 * header:NAME}), its points decoded and counted, the samples taken from {@code --max-samples-per-second}, then per
 * point its lane's and tenant's open batch, the point amplified into M × N samples straight into that batch, and full
 * batches handed on; decode refusals logged and counted, a malformed record refused whole. Per point it allocates at
 * most the value text; per sample nothing. Each batch keeps the oldest of its records' times — the Kafka timestamp, or
 * the time the record was read in a replay or without one ({@link IngestDelay#since}) — for its ingest delay.
 *
 * <p>What a record's acknowledgement is belongs to the consumption model, its {@link Acknowledgement}: a segment's
 * watermark ({@code kafka.segment}), a share delivery's hold count ({@code kafka.share}). A new model adds only its
 * acknowledgement side.
 *
 * <p>Not thread-safe: confined to its reader's processing thread. The acknowledgement side is told a batch's end on the
 * writer's threads ({@link WriteListener}).
 *
 * @param <S> a point's source: the record itself, or what holds it until it is acknowledged
 * @param <O> a batch's origin, set by the acknowledgement side when the batch is handed on
 */
public final class RecordCore<S, O> {

    /**
     * How a consumption model acknowledges what the core reads: the record of a source, what a point joining a batch and
     * a batch opening mean for it, where a full batch goes, what a record refused whole becomes, and — as the batches'
     * {@link WriteListener} — how a batch's end (written, rejected, given up, abandoned, stale) reaches its records.
     * Every method but the listener's is called on the core's processing thread; the listener's as
     * {@link WriteListener} says.
     *
     * @param <S> a point's source
     * @param <O> a batch's origin
     */
    public interface Acknowledgement<S, O> extends WriteListener<S, O> {

        /** The Kafka record of a source. */
        ConsumerRecord<byte[], byte[]> record(S source);

        /** A batch opens while none is open, for the record at {@code offset}. Default: nothing. */
        default void firstBatchOpens(long offset) {}

        /**
         * A point of {@code source} is about to be added to {@code batch} (called for every point, before it is encoded:
         * must not allocate). Default: nothing.
         */
        default void joins(S source, WriteBatch<S, O> batch) {}

        /**
         * Hands a batch on (full, or flushed): to the writer, or through a reorder step. May block on a write permit.
         *
         * @param lane        the batch's ordered lane (0 when unordered)
         * @param firstOffset the offset of the record of its first point
         * @throws InterruptedException when interrupted while waiting
         */
        void handOn(WriteBatch<S, O> batch, int lane, long firstOffset) throws InterruptedException;

        /**
         * The record is refused whole — malformed, or without a valid tenant — after it was logged and counted: its
         * valid points (if any) were encoded into batches; the rest is the model's (a dead letter, a rejection).
         *
         * @param reason the refusal's tag ({@link DecodeError#tag()})
         * @param detail what was wrong, for the dead letter
         */
        void refusedWhole(S source, String reason, String detail);
    }

    private final Acknowledgement<S, O> acks;
    /** A record's topic's amplifier. */
    private final Function<String, PointAmplifier> amplifiers;

    private final int batchSamples;
    /** Ordered lanes (per-series order); 0 when unordered: one lane. */
    private final int lanes;
    /** {@code --max-samples-per-second}, or null. */
    private final SampleRate rate;
    /** {@code --tenant-from}. */
    private final TenantRouting tenants;

    private final DecodeErrorLog decodeErrors;
    /** The open batch of each lane and tenant. */
    private final OpenBatches<S, O> open;
    /** Added to the counters before every batch is handed on and on {@link #publishCounts()}. */
    private final IntakeCounts counts;
    /** Where a batch's ingest delay is measured from ({@link WriteBatch#recordTime}). */
    private final IngestDelay delay;

    /**
     * @param acks         the consumption model's side
     * @param amplifiers   the amplifier of a record's topic (called once per record; must not allocate on a hit)
     * @param batchSamples samples at which a batch is full and handed on, ≥ 1
     * @param lanes        ordered lanes: each point goes into the batch of its series' lane; 0 when unordered
     * @param rate         {@code --max-samples-per-second}: a record's samples are taken from it before they are
     *                     amplified; null = unlimited
     * @param tenants      {@code --tenant-from}: a batch per lane and tenant; a record without a tenant is refused whole
     */
    public RecordCore(
            Acknowledgement<S, O> acks,
            Function<String, PointAmplifier> amplifiers,
            int batchSamples,
            int lanes,
            SampleRate rate,
            TenantRouting tenants,
            DecodeErrorLog decodeErrors,
            WriterMeters meters) {
        this.acks = acks;
        this.amplifiers = amplifiers;
        this.batchSamples = batchSamples;
        this.lanes = lanes;
        this.rate = rate;
        this.tenants = tenants;
        this.decodeErrors = decodeErrors;
        this.open = new OpenBatches<>(lanes);
        this.counts = new IntakeCounts(meters);
        this.delay = meters.ingestDelay;
    }

    /** Decodes and amplifies one source's record; may block handing a full batch on. */
    public void process(S source) throws InterruptedException {
        ConsumerRecord<byte[], byte[]> record = acks.record(source);
        PointAmplifier amplifier = amplifiers.apply(record.topic());
        // a record without a timestamp (-1: old message format) gives its untimed samples the time it is read
        long kafkaTimestampMs = record.timestamp() >= 0 ? record.timestamp() : System.currentTimeMillis();
        // what its batch's ingest delay is measured from: CreateTime or LogAppendTime, or the read time (a replay)
        long delayFromMs =
                delay.since(record.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? -1 : record.timestamp());
        long preparedBefore = amplifier.seriesPrepared();
        long droppedBefore = amplifier.relabelDropped();
        long hourlyBefore = amplifier.hourlyLimitDropped();
        long dailyBefore = amplifier.dailyLimitDropped();
        if (tenants.from() == TenantRouting.From.HEADER && !recordTenant(source, record, amplifier)) {
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
            rate.acquire(n * amplifier.samplesPerPoint());
        }
        for (int p = 0; p < n; p++) {
            int lane = lanes > 1 ? amplifier.lane(p, lanes) : 0;
            Tenant tenant = tenants.routes() ? amplifier.tenant(p) : null;
            if (tenant == null && tenants.routes()) { // dropped, or refused for its tenant (below, with its record)
                amplifier.encodePoint(p, null);
                continue;
            }
            int slot = open.slot(lane, tenant);
            WriteBatch<S, O> b = open.get(slot);
            if (b == null) {
                if (open.count() == 0) {
                    acks.firstBatchOpens(record.offset());
                }
                b = open.open(slot, tenant, record.offset());
            }
            acks.joins(source, b);
            int pointSamples = amplifier.encodePoint(p, b.body());
            counts.encoded(pointSamples);
            b.addPoint(pointSamples, source);
            int buckets = amplifier.histogramBuckets(p); // -1: a point of samples
            if (buckets >= 0) {
                b.histogramPoint(buckets);
            }
            b.recordTime(delayFromMs);
            if (b.samples() >= batchSamples) {
                hand(slot);
            }
        }
        if (rejected.total() > 0) { // decode refusals, and series refused for their tenant
            decodeErrors.rejected(record.topic(), record.partition(), record.offset(), amplifier.format(), rejected);
            if (rejected.malformed()) {
                acks.refusedWhole(source, rejected.first().tag(), rejected.firstDetail());
            }
        }
        counts.seriesCreated(amplifier.seriesPrepared() - preparedBefore);
        counts.relabelDropped(amplifier.relabelDropped() - droppedBefore);
        counts.seriesLimitDropped(
                amplifier.hourlyLimitDropped() - hourlyBefore, amplifier.dailyLimitDropped() - dailyBefore);
    }

    /**
     * With {@code --tenant-from header:NAME}: the record's tenant for the amplifier; false when it is refused (no header
     * and no default, or an invalid value): logged and counted as a decode error, refused whole, not decoded.
     */
    private boolean recordTenant(S source, ConsumerRecord<byte[], byte[]> record, PointAmplifier amplifier) {
        Header h = record.headers().lastHeader(tenants.name());
        String value = h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        Tenant t = tenants.resolve(value);
        amplifier.recordTenant(t);
        if (t != null) {
            return true;
        }
        DecodeError reason = tenants.missing(value) ? DecodeError.MISSING_TENANT : DecodeError.INVALID_TENANT;
        String refusal = tenants.refusal(value);
        decodeErrors.rejected(record.topic(), record.partition(), record.offset(), reason, refusal);
        acks.refusedWhole(source, reason.tag(), refusal);
        return false;
    }

    /** Age of the oldest open batch in nanoseconds (0 when none). */
    public long openBatchAgeNanos() {
        return open.ageNanos();
    }

    /**
     * Adds the records, points, expected samples and new series processed since the last call to their counters
     * ({@link IntakeCounts}). Called with every batch handed on (so a batch's samples are expected before they can be
     * written); the reader calls it after each poll's records and when it ends, however it ends.
     */
    public void publishCounts() {
        counts.publish();
    }

    /** Hands every open batch on; may block on a write permit. */
    public void flush() throws InterruptedException {
        publishCounts();
        for (int slot = 0; slot < open.slots() && open.count() > 0; slot++) {
            if (open.get(slot) != null) {
                hand(slot);
            }
        }
    }

    /** Samples in the batches still open (taken in, so expected, and not handed on yet); 0 when none. */
    public long openSamples() {
        long samples = 0;
        for (int slot = 0; slot < open.slots() && open.count() > 0; slot++) {
            WriteBatch<S, O> b = open.get(slot);
            if (b != null) {
                samples += b.samples();
            }
        }
        return samples;
    }

    /** The lowest first offset of the batches still open, -1 when none (for the acknowledgement side's hand-on). */
    public long stillOpenFrom() {
        return open.stillOpenFrom();
    }

    /** Hands the open batch of {@code slot} (a lane and tenant) on, its samples counted as expected first. */
    private void hand(int slot) throws InterruptedException {
        publishCounts();
        long firstOffset = open.firstOffset(slot);
        WriteBatch<S, O> batch = open.take(slot);
        acks.handOn(batch, open.lane(slot), firstOffset);
    }
}
