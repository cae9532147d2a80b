package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.metrics.WriterMeters;
import java.util.Locale;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SegmentConsumer}'s fetch size per partition (docs/benchmarks-archive.md §12c) and the bytes its consumers
 * fetched. At P &gt; 1 each reader seeks from the end of its segment to the start of its next one, P segments on, and
 * whatever its consumer fetched past the end is discarded; so the first segment is read with small fetches and the
 * fetch is then fitted to a fraction of a segment's bytes on the wire ({@link #fetchBytesFor}).
 *
 * <p>Threading: one per SegmentConsumer, called on its thread with the consumer that thread owns.
 */
final class FetchSize {

    private static final Logger log = LoggerFactory.getLogger(FetchSize.class);
    /**
     * At P &gt; 1, a fetch is this fraction of a segment's bytes on the wire (fetchBytesFor). What a reader fetches twice
     * is, per segment, the tail of every response (the broker cuts a response at the fetch size, mid-batch, and the
     * cut batch comes again with the next fetch: half a batch per fetch), the response in flight and the part of the
     * last one past the segment's end (about a fetch and a half), and the batch across each boundary: small fetches
     * cut more batches, large ones overrun more. Measured on the bench's points (2 M, P=3, docs/benchmarks-archive.md §12c):
     * 24 fetches per segment cost the least with Kafka's 16 KiB producer batches (1.19× the topic; 40: 1.30×) and
     * as little as any with 256 KiB ones (1.31×).
     */
    static final int FETCHES_PER_SEGMENT = 24;
    /** The smallest fitted fetch per partition (bytes): a fetch request per 16 KiB is still cheap. */
    static final int MIN_FETCH_BYTES = 16 * 1024;
    /** The largest (and P = 1's) fetch per partition, bytes ({@link SegmentConsumer#readerProps}). */
    static final int MAX_FETCH_BYTES = 4 * 1024 * 1024;
    /**
     * The fetch per partition of a P &gt; 1 reader's first segment, bytes: small next to any segment, and the consumer's
     * byte and record counts are whole responses (Kafka records them once a response is read to its end).
     */
    static final int FIRST_SEGMENT_FETCH_BYTES = 64 * 1024;

    private final TopicPartition tp;
    private final int index;
    private final long segmentSize;
    private final WriterMeters meters;

    /**
     * @param tp          the reader's partition (for its log lines)
     * @param index       the reader's index among the partition's P
     * @param segmentSize records per segment
     * @param meters      where the fetched bytes are counted
     */
    FetchSize(TopicPartition tp, int index, long segmentSize, WriterMeters meters) {
        this.tp = tp;
        this.index = index;
        this.segmentSize = segmentSize;
        this.meters = meters;
    }

    /**
     * The fetch size per partition that fits this reader's segments, or 0 to keep {@code current}. At P &gt; 1 each
     * reader seeks from the end of its segment to the start of its next one, P segments on, and whatever its consumer
     * fetched past the end is discarded: with a fetch larger than a segment (4 MiB against 1.3 MB for 50,000 records of
     * 25 compressed bytes) every reader fetched nearly the whole partition — P times the topic (bench: 3.14 ×
     * at P=3). The first segment is read with {@value #FIRST_SEGMENT_FETCH_BYTES}-byte fetches; from the bytes its
     * consumer received per record read (see {@link #fittedFetchBytes}) the fetch becomes 1/{@value #FETCHES_PER_SEGMENT}
     * of a segment's bytes on the wire, so that what a seek discards is a few percent of what is read.
     * Not applied when {@code max.partition.fetch.bytes} is the operator's ({@code --consumer-property}) or P = 1 (one
     * reader reads on without a seek).
     */
    int fetchBytesFor(Consumer<byte[], byte[]> c, int current) {
        double received = metric(c, "consumer-metrics", "incoming-byte-total");
        double records = metric(c, "consumer-fetch-manager-metrics", "records-consumed-total");
        int fitted = fittedFetchBytes(segmentSize, received, records, current);
        if (fitted > 0) {
            log.debug(
                    "{}#{}: {} bytes received per record read, {} bytes per segment: fetching {} bytes per request instead of {}",
                    tp,
                    index,
                    String.format(Locale.ROOT, "%.1f", received / records),
                    (long) (segmentSize * (received / records)),
                    fitted,
                    current);
        }
        return fitted;
    }

    /**
     * The fetch per partition for segments of {@code segmentSize} records, from what a consumer received over the
     * network ({@code incoming-byte-total}: record batches as the broker stores them, compressed, plus the little
     * metadata besides) per record it returned ({@code records-consumed-total}): 1/{@value #FETCHES_PER_SEGMENT} of a
     * segment's bytes, {@value #MIN_FETCH_BYTES} to {@value #MAX_FETCH_BYTES}; 0 (keep {@code current}) when the counts
     * say nothing or the fit is within a third of {@code current}. Not the consumer's {@code bytes-consumed-total}:
     * Kafka counts the records' uncompressed sizes there (164.8 bytes per record against 25 on the wire for the bench's
     * lz4 points), which made the fetch ~6.5× the size meant. The bytes received include the first
     * segment's last fetch past its end, so the
     * figure errs high and the fetch small.
     */
    static int fittedFetchBytes(long segmentSize, double receivedBytes, double records, int current) {
        if (!(records > 0) || !(receivedBytes > 0)) {
            return 0;
        }
        long segmentBytes = (long) (segmentSize * (receivedBytes / records));
        int fitted = (int) Math.max(MIN_FETCH_BYTES, Math.min(MAX_FETCH_BYTES, segmentBytes / FETCHES_PER_SEGMENT));
        if (fitted * 4L >= current * 3L && fitted * 3L <= current * 4L) {
            return 0; // within a third of it: keep the consumer
        }
        return fitted;
    }

    /**
     * Adds what this reader's consumer received from the brokers (its {@code incoming-byte-total}: fetch responses,
     * whether their records were read or discarded by a seek, and the little metadata besides) to
     * {@link WriterMeters#kafkaFetchedBytes}: the bench's fetched ÷ topic bytes.
     */
    void countFetchedBytes(Consumer<byte[], byte[]> c) {
        try {
            double received = metric(c, "consumer-metrics", "incoming-byte-total");
            if (received > 0) {
                meters.kafkaFetchedBytes.add((long) received);
            }
        } catch (RuntimeException e) {
            log.debug("consumer {}#{}: no incoming-byte-total ({})", tp, index, e.toString());
        }
    }

    /** A consumer-wide metric of a consumer (the one without topic or partition tags), or NaN when it has none. */
    private static double metric(Consumer<byte[], byte[]> c, String group, String name) {
        for (var e : c.metrics().entrySet()) {
            var n = e.getKey();
            if (n.name().equals(name)
                    && n.group().equals(group)
                    && n.tags().get("topic") == null
                    && e.getValue().metricValue() instanceof Double d) {
                return d;
            }
        }
        return Double.NaN;
    }
}
