package io.tsdbwriter.kafka.share;

import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.RecordCore;
import io.tsdbwriter.kafka.RefusedSamples;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteOutcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The acknowledgement side of one share consumer's {@link RecordCore} (KIP-932): tells when each delivered record may be
 * acknowledged — once every batch holding its samples was written (2xx) or handled by the response policy (refused
 * samples dead-lettered or counted failed), and its dead letter, if any, stored. The M × N samples of one record are
 * one unit of acknowledgement ({@link Delivery}). Batches go straight to the {@link BatchWriter}; one amplifier per topic.
 *
 * <p>Not thread-safe: {@link #process} and {@link #flush} on the worker's processing thread; completions arrive on
 * writer threads and only touch a {@link Delivery}'s atomic count.
 */
final class ShareRecordProcessor implements RecordCore.Acknowledgement<ShareRecordProcessor.Delivery, Void> {

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
    /** A topic's new amplifier (made once, so a record's look-up allocates nothing). */
    private final Function<String, PointAmplifier> newAmplifier;

    private final RecordCore<Delivery, Void> core;

    ShareRecordProcessor(IntakeSettings settings) {
        this.settings = settings;
        this.refused = new RefusedSamples<>(
                settings.meters(),
                settings.deadLetters(),
                d -> d.record,
                ShareRecordProcessor::releaseAll,
                "its records stay unacknowledged",
                settings.writer().refusalLines());
        this.newAmplifier = topic -> settings.amplifier(topic, IntakeSettings.Timeline.NONE);
        this.core = new RecordCore<>(
                this,
                this::amplifier,
                settings.batchSamples(),
                0,
                settings.rate(),
                settings.tenants(),
                settings.decodeErrors(),
                settings.meters());
    }

    private PointAmplifier amplifier(String topic) {
        return amplifiers.computeIfAbsent(topic, newAmplifier);
    }

    /** Decodes and amplifies one delivered record; may block handing a full batch to the writer. */
    void process(Delivery d) throws InterruptedException {
        d.started = true;
        core.process(d);
        d.release(); // processed: what still holds it are its batches and its dead letter
    }

    @Override
    public ConsumerRecord<byte[], byte[]> record(Delivery d) {
        return d.record;
    }

    /** The first point of a record in a batch: the batch holds it until the batch is done. */
    @Override
    public void joins(Delivery d, WriteBatch<Delivery, Void> b) {
        if (b.points() == 0 || b.source(b.points() - 1) != d) {
            d.hold(); // released when this batch is done
        }
    }

    /** Hands a batch to the writer; blocks while no write permit is free. */
    @Override
    public void handOn(WriteBatch<Delivery, Void> batch, int lane, long firstOffset) throws InterruptedException {
        settings.writer().submit(batch, this);
    }

    /**
     * A malformed record (or one without a valid tenant): to the dead-letter topic, then accepted; without one REJECTed
     * (no more delivery attempts). Its valid points are written.
     */
    @Override
    public void refusedWhole(Delivery d, String reason, String detail) {
        if (settings.deadLetters() != null) {
            d.hold();
            settings.deadLetters().send(d.record, reason, detail, d::release);
        } else {
            d.acknowledgement = AcknowledgeType.REJECT;
        }
    }

    /** Age of the oldest open batch in nanoseconds (0 when none). */
    long openBatchAgeNanos() {
        return core.openBatchAgeNanos();
    }

    /**
     * Adds what was processed since the last batch to {@code records_consumed}, {@code points_decoded},
     * {@code samples_expected} and {@code new_series}; the processing thread calls it when it ends, however it ends.
     */
    void publishCounts() {
        core.publishCounts();
    }

    /** Hands the open batches (if any) to the writer; blocks while no write permit is free. */
    void flush() throws InterruptedException {
        core.flush();
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
