package io.tsdbwriter.kafka.share;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeCounts;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.RefusedSamples;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OpenBatches;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener;
import io.tsdbwriter.write.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The hot path of one share consumer (KIP-932): decode a delivered record, amplify its points into the open batch, hand
 * full batches to the {@link BatchWriter} — as {@code RecordProcessor} does for a segment — and tell when each record
 * may be acknowledged: once every batch holding its samples was written (2xx) or handled by the response policy
 * (refused samples dead-lettered or counted failed), and its dead letter, if any, stored. The M × N samples of one
 * record are one unit of acknowledgement ({@link Delivery}).
 *
 * <p>Not thread-safe: {@link #process} and {@link #flush} on the worker's processing thread; completions arrive on
 * writer threads and only touch a {@link Delivery}'s atomic count.
 */
final class ShareRecordProcessor implements WriteListener<ShareRecordProcessor.Delivery, Void> {

    /**
     * One delivered record until it is acknowledged: a count of what still holds it (its processing, each batch with
     * its samples, its dead letter) and the acknowledgement it gets when the count reaches 0. Thread-safe.
     */
    static final class Delivery {
        final ConsumerRecord<byte[], byte[]> record;
        private final AtomicInteger holds = new AtomicInteger(1); // the processing itself
        private volatile AcknowledgeType acknowledgement = AcknowledgeType.ACCEPT;
        private volatile boolean done;
        /** When it became done ({@link System#nanoTime()}): its last write's acknowledgement. */
        private volatile long doneNanos;
        /** Set once its processing began: from then on its samples may be in the TSDB's memory. */
        private volatile boolean started;

        private final Runnable onDone;
        /** When a poll last returned it (epoch ms; the worker's poll thread only). */
        long returnedMs;

        Delivery(ConsumerRecord<byte[], byte[]> record, Runnable onDone) {
            this.record = record;
            this.onDone = onDone;
        }

        void hold() {
            holds.incrementAndGet();
        }

        void release() {
            if (holds.decrementAndGet() == 0) {
                doneNanos = System.nanoTime();
                done = true;
                onDone.run();
            }
        }

        /** True once nothing holds it: it may be acknowledged with {@link #acknowledgement()} once stored. */
        boolean done() {
            return done;
        }

        /** Done, and its writes count as stored by {@code state} (the durability window passed, no restart). */
        boolean stored(DurabilityClock.State state) {
            return done && state.durable(doneNanos);
        }

        /** Whether its processing began (its samples may have reached the TSDB). */
        boolean started() {
            return started;
        }

        /** ACCEPT, or REJECT for a malformed record without a dead-letter topic. */
        AcknowledgeType acknowledgement() {
            return acknowledgement;
        }
    }

    private final IntakeSettings settings;
    private final RefusedSamples<Delivery, Void> refused;
    private final Map<String, PointAmplifier> amplifiers = new HashMap<>();
    /** The open batch of each tenant ({@code --tenant-from}; one without routing). */
    private final OpenBatches<Delivery, Void> open = new OpenBatches<>(1);
    /** Added to the counters in {@link #flush()}: whenever no record waits, and before every batch is handed on. */
    private final IntakeCounts counts;

    ShareRecordProcessor(IntakeSettings settings) {
        this.settings = settings;
        this.refused = new RefusedSamples<>(
                settings.meters(),
                settings.deadLetters(),
                d -> d.record,
                ShareRecordProcessor::releaseAll,
                "its records stay unacknowledged");
        this.counts = new IntakeCounts(settings.meters());
    }

    private PointAmplifier amplifier(String topic) {
        return amplifiers.computeIfAbsent(topic, t -> settings.amplifier(t, IntakeSettings.Timeline.NONE));
    }

    /** Decodes and amplifies one delivered record; may block handing a full batch to the writer. */
    void process(Delivery d) throws InterruptedException {
        d.started = true;
        ConsumerRecord<byte[], byte[]> record = d.record;
        PointAmplifier amplifier = amplifier(record.topic());
        long preparedBefore = amplifier.seriesPrepared();
        long droppedBefore = amplifier.relabelDropped();
        long kafkaTimestampMs = record.timestamp() >= 0 ? record.timestamp() : System.currentTimeMillis();
        TenantRouting tenants = settings.tenants();
        if (tenants.from() == TenantRouting.From.HEADER) {
            Header h = record.headers().lastHeader(tenants.name());
            String value = h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
            Tenant t = tenants.resolve(value);
            amplifier.recordTenant(t);
            if (t == null) { // refused whole, as a malformed record
                DecodeError reason = tenants.missing(value) ? DecodeError.MISSING_TENANT : DecodeError.INVALID_TENANT;
                settings.decodeErrors()
                        .rejected(record.topic(), record.partition(), record.offset(), reason, tenants.refusal(value));
                refuseWhole(d, reason.tag(), tenants.refusal(value));
                counts.record(0);
                d.release();
                return;
            }
        }
        Rejections rejected = amplifier.decode(record.value(), kafkaTimestampMs);
        int n = amplifier.pointCount();
        counts.record(n);
        if (settings.rate() != null && n > 0) {
            if (openBatchAgeNanos() > IntakeSettings.RATE_LINGER_NANOS) {
                flush(); // at a low rate a batch fills slowly: what is open goes out after the linger (RecordProcessor)
            }
            settings.rate().acquire(n * amplifier.samplesPerPoint());
        }
        for (int p = 0; p < n; p++) {
            Tenant tenant = tenants.routes() ? amplifier.tenant(p) : null;
            if (tenant == null && tenants.routes()) { // dropped, or refused for its tenant (below, with its record)
                amplifier.encodePoint(p, null);
                continue;
            }
            int slot = open.slot(0, tenant);
            WriteBatch<Delivery, Void> b = open.get(slot);
            if (b == null) {
                b = open.open(slot, tenant, 0);
            }
            if (b.points() == 0 || b.source(b.points() - 1) != d) {
                d.hold(); // released when this batch is done
            }
            int pointSamples = amplifier.encodePoint(p, b.body());
            counts.encoded(pointSamples);
            b.addPoint(pointSamples, d);
            if (b.samples() >= settings.batchSamples()) {
                hand(slot);
            }
        }
        if (rejected.total() > 0) { // decode refusals, and series refused for their tenant
            settings.decodeErrors()
                    .rejected(record.topic(), record.partition(), record.offset(), amplifier.format(), rejected);
            if (rejected.malformed()) {
                refuseWhole(d, rejected.first().tag(), rejected.firstDetail());
            }
        }
        counts.seriesCreated(amplifier.seriesPrepared() - preparedBefore);
        counts.relabelDropped(amplifier.relabelDropped() - droppedBefore);
        d.release(); // processed: what still holds it are its batches and its dead letter
    }

    /**
     * A malformed record (or one without a valid tenant): to the dead-letter topic, then accepted; without one REJECTed
     * (no more delivery attempts). Its valid points are written.
     */
    private void refuseWhole(Delivery d, String reason, String detail) {
        if (settings.deadLetters() != null) {
            d.hold();
            settings.deadLetters().send(d.record, reason, detail, d::release);
        } else {
            d.acknowledgement = AcknowledgeType.REJECT;
        }
    }

    /** Age of the oldest open batch in nanoseconds (0 when none). */
    long openBatchAgeNanos() {
        return open.ageNanos();
    }

    /**
     * Adds what was processed since the last batch to {@code records_consumed}, {@code points_decoded},
     * {@code samples_expected} and {@code new_series}; the processing thread calls it when it ends, however it ends.
     */
    void publishCounts() {
        counts.publish();
    }

    /** Hands the open batch (if any) to the writer; blocks while no write permit is free. */
    void flush() throws InterruptedException {
        publishCounts();
        for (int slot = 0; slot < open.slots() && open.count() > 0; slot++) {
            if (open.get(slot) != null) {
                hand(slot);
            }
        }
    }

    /** Hands one open batch to the writer; blocks while no write permit is free. */
    private void hand(int slot) throws InterruptedException {
        publishCounts();
        settings.writer().submit(open.take(slot), this);
    }

    @Override
    public void written(WriteBatch<Delivery, Void> batch) {
        releaseAll(batch);
    }

    @Override
    public void rejected(WriteBatch<Delivery, Void> batch, List<Rejection<Delivery>> rejections) {
        refused.rejected(batch, rejections);
    }

    @Override
    public void gaveUp(WriteBatch<Delivery, Void> batch, WriteOutcome outcome) {
        refused.gaveUp(batch, outcome);
    }

    @Override
    public void abandoned(WriteBatch<Delivery, Void> batch) {
        // never written: its records stay held, are released when the consumer closes and delivered again
    }

    /** Releases each record of the batch once (a record's points are contiguous in a batch). */
    private static void releaseAll(WriteBatch<Delivery, Void> batch) {
        Delivery previous = null;
        for (int i = 0; i < batch.points(); i++) {
            Delivery d = batch.source(i);
            if (d != previous) {
                d.release();
                previous = d;
            }
        }
    }
}
