package io.tsdbwriter.kafka;

import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.record.DecodeError;
import io.tsdbwriter.record.DecodedPoints;
import io.tsdbwriter.record.PointDecoder;
import io.tsdbwriter.sink.victoriametrics.BatchWriter;
import io.tsdbwriter.sink.victoriametrics.ImportBatch;
import io.tsdbwriter.sink.victoriametrics.ImportLineEncoder;
import io.tsdbwriter.sink.victoriametrics.SeriesLines;
import io.tsdbwriter.sink.victoriametrics.WriteListener;
import io.tsdbwriter.sink.victoriametrics.WriteOutcome;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hot path of one SegmentConsumer: decode a record's points, look up (or build once) each series' line
 * prefixes, amplify each point into M × N samples straight into the open batch, and hand full batches to the
 * {@link BatchWriter}. Per point it allocates the series key and the value text; per sample nothing.
 *
 * <p>Not thread-safe: confined to its SegmentConsumer's poll thread. Completions arrive on writer threads and
 * only touch the (thread-safe) {@link AckTracker}.
 */
final class RecordProcessor implements WriteListener {

    private static final Logger log = LoggerFactory.getLogger(RecordProcessor.class);

    private final PointDecoder decoder;
    private final ImportLineEncoder encoder;
    private final SeriesCache<SeriesLines> seriesCache;
    private final int batchSamples;
    private final BatchWriter writer;
    private final WriterMeters meters;
    private final AckTracker tracker;
    private final DecodeErrorLog decodeErrors;
    private final Runnable onAck;
    private final DecodedPoints points = new DecodedPoints();
    private final StringBuilder key = new StringBuilder(256);
    private final long samplesPerPoint;
    private ImportBatch open;
    private long openedAtNanos;
    private int initialBatchBytes = 64 * 1024;

    RecordProcessor(PointDecoder decoder, ImportLineEncoder encoder, SeriesCache<SeriesLines> seriesCache, int batchSamples,
                    BatchWriter writer, WriterMeters meters, AckTracker tracker, DecodeErrorLog decodeErrors, Runnable onAck) {
        this.decoder = decoder;
        this.encoder = encoder;
        this.seriesCache = seriesCache;
        this.batchSamples = batchSamples;
        this.writer = writer;
        this.meters = meters;
        this.tracker = tracker;
        this.decodeErrors = decodeErrors;
        this.onAck = onAck;
        this.samplesPerPoint = encoder.plan().samplesPerPoint();
    }

    /** Decodes and amplifies one record; may block handing a full batch to the writer. */
    void process(ConsumerRecord<byte[], byte[]> record) throws InterruptedException {
        meters.recordsConsumed.increment();
        DecodeError error = decoder.decode(record.value(), points);
        if (error != null) {
            decodeErrors.rejected(record.topic(), record.partition(), record.offset(), error, decoder.lastErrorDetail());
            return;
        }
        int n = points.count();
        meters.pointsDecoded.increment(n);
        meters.samplesExpected.increment(n * samplesPerPoint);
        for (int p = 0; p < n; p++) {
            key.setLength(0);
            points.appendSeriesKey(p, key);
            String k = key.toString();
            SeriesLines lines = seriesCache.get(k);
            if (lines == null) {
                lines = encoder.prepare(points.metric(p), points.labelNames(), points.labelValues(), points.labelStart(p), points.labelEnd(p));
                seriesCache.put(k, lines);
            }
            if (open == null) {
                open = new ImportBatch(initialBatchBytes);
                openedAtNanos = System.nanoTime();
                tracker.openBatchAt(record.offset());
            }
            byte[] value = ImportLineEncoder.formatValue(points.value(p));
            open.addPoint(encoder.encodePoint(lines, points.timestampMs(p), value, open.body()));
            if (open.samples() >= batchSamples) {
                flush();
            }
        }
    }

    /** True when a batch is being filled. */
    boolean hasOpenBatch() {
        return open != null;
    }

    /** Age of the open batch in nanoseconds (0 when none). */
    long openBatchAgeNanos() {
        return open == null ? 0 : System.nanoTime() - openedAtNanos;
    }

    /** Hands the open batch (if any) to the writer; blocks while no write permit is free. */
    void flush() throws InterruptedException {
        if (open == null) {
            return;
        }
        ImportBatch batch = open;
        open = null;
        initialBatchBytes = Math.max(initialBatchBytes, batch.body().length() + batch.body().length() / 8);
        batch.origin(tracker.registerOpenBatch());
        writer.submit(batch, this);
    }

    @Override
    public void written(ImportBatch batch) {
        ack(batch);
    }

    @Override
    public void rejected(ImportBatch batch, WriteOutcome outcome) {
        meters.samplesFailed.increment(batch.samples());
        log.error("VictoriaMetrics refused a batch of {} samples ({} {}): counted as failed", batch.samples(), outcome.status(), outcome.detail());
        ack(batch);
    }

    @Override
    public void gaveUp(ImportBatch batch, WriteOutcome outcome) {
        // Without a dead-letter producer the batch must not be acked: it stays pending and is never committed past.
        log.error("write of {} samples gave up after retries ({} {}); its offsets stay uncommitted", batch.samples(), outcome.statusTag(), outcome.detail());
    }

    @Override
    public void abandoned(ImportBatch batch) {
        // stays pending: its offsets are never committed past
    }

    private void ack(ImportBatch batch) {
        if (tracker.complete((AckTracker.Pending) batch.origin())) {
            onAck.run();
        }
    }
}
