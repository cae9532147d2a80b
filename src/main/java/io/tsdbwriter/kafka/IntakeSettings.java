package io.tsdbwriter.kafka;

import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.config.InputConfig;
import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.pipeline.RecordDecoders;
import io.tsdbwriter.pipeline.SampleRate;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OrderedLanes;
import java.time.Duration;
import java.util.Map;

/**
 * What every reader of every consumption model needs (a relay's or a replay's SegmentConsumers, a share group's
 * workers), shared by all partitions: the decoders' input, the amplifier's series cache and encoders, the writer, the
 * meters, the dead letters and the durability clock. Immutable; its components are thread-safe.
 *
 * @param rate          {@code --max-samples-per-second}, shared by every reader of the process; null = unlimited
 * @param churnInterval {@code --churn-interval}; null = no churn
 * @param durability    when an acknowledged write counts as stored, and the TSDB restarts seen
 * @param relabel       {@code --relabel-config}, applied by every amplifier once per series; null = none
 * @param tenants       {@code --tenant-from}: batches are split by tenant ({@link TenantRouting#NONE}: no routing)
 */
public record IntakeSettings(
        Map<String, Object> consumerProps,
        int parallelism,
        long segmentSize,
        int batchSamples,
        int maxRecordBytes,
        SeriesCache seriesCache,
        SampleEncoder.Factory encoders,
        BatchWriter writer,
        WriterMeters meters,
        DecodeErrorLog decodeErrors,
        DeadLetterQueue deadLetters,
        InputConfig input,
        SampleRate rate,
        Duration churnInterval,
        DurabilityClock durability,
        OrderedLanes lanes,
        RelabelRules relabel,
        TenantRouting tenants) {

    /** With {@code --max-samples-per-second}, how long an open batch waits for more samples before it is flushed anyway: 100 ms. */
    public static final long RATE_LINGER_NANOS = 100_000_000L;

    /**
     * The time line of the samples these readers write (docs/capacity-testing.md).
     *
     * @param shiftMs       added to every source timestamp (the replay pass's shift; 0 for a relay)
     * @param churnOriginMs where churn generation 0 starts, in (shifted) epoch ms
     * @param churnKeepMs   how far (in sample time) behind the newest churn generation a reader has seen the series of
     *                      older generations stay cached: the span other readers may still be behind it (a pass's
     *                      window); {@link Long#MAX_VALUE} keeps them all (a relay, a replay's first pass)
     */
    public record Timeline(long shiftMs, long churnOriginMs, long churnKeepMs) {
        public static final Timeline NONE = new Timeline(0, 0, Long.MAX_VALUE);
    }

    /**
     * A reader's amplifier for a topic: its input format's decoder (timestamp window shifted with the timeline), the
     * run's encoder, the shared series cache, and the timeline's shift and {@code --churn-interval} generations.
     */
    public PointAmplifier amplifier(String topic, Timeline timeline) {
        PointAmplifier amplifier = new PointAmplifier(
                        RecordDecoders.create(
                                input().formatOf(topic),
                                maxRecordBytes(),
                                input().influxPrecision(),
                                input().timestampWindow().shifted(timeline.shiftMs())),
                        encoders().newEncoder(),
                        seriesCache())
                .relabel(relabel())
                .tenants(tenants());
        if (timeline != Timeline.NONE || churnInterval() != null) {
            amplifier.timeline(
                    timeline.shiftMs(),
                    churnInterval() == null ? 0 : churnInterval().toMillis(),
                    timeline.churnOriginMs(),
                    timeline.churnKeepMs());
        }
        return amplifier;
    }
}
