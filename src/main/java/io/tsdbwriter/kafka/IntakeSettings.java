package io.tsdbwriter.kafka;

import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.config.InputConfig;
import io.tsdbwriter.config.RunConfig;
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
import java.util.Objects;

/**
 * What every reader of every consumption model needs (a relay's or a replay's SegmentConsumers, a share group's
 * workers), shared by all partitions: the decoders' input, the amplifier's series cache and encoders, the writer, the
 * meters, the dead letters and the durability clock. Made with {@link #builder()}, which names every part, fills in the
 * defaults below and {@linkplain #validate() validates} the whole (the canonical constructor does not validate).
 * Immutable; its components are thread-safe.
 *
 * @param consumerProps  the Kafka consumer settings every reader starts from; default none (empty)
 * @param parallelism    {@code --parallelism}: readers per partition (share consumers per process),
 *                       1..{@value RunConfig#MAX_PARALLELISM}; default 1
 * @param segmentSize    {@code --segment-size}: offsets per segment, 1..{@value RunConfig#MAX_SEGMENT_SIZE}; default
 *                       {@value #DEFAULT_SEGMENT_SIZE}
 * @param batchSamples   {@code --batch-samples}: samples per write request, 1..{@value #MAX_BATCH_SAMPLES}; default
 *                       {@value #DEFAULT_BATCH_SAMPLES}
 * @param batchSendDeadline {@code --batch-send-deadline}: an open batch that is not full goes out when it is this old
 *                       (consumer groups); {@link Duration#ZERO} (the default) = as soon as the partition has no more
 *                       records; not negative
 * @param maxRecordBytes {@code --max-record-bytes}: larger records are malformed, ≥ 1; default 1 MiB
 * @param seriesCache    the series cache every amplifier shares; default a cache of {@value #DEFAULT_SERIES_CACHE_SIZE}
 *                       series (the {@code --series-cache-size} default), made by {@link Builder#build()}
 * @param encoders       the run's encoders (one per amplifier); required
 * @param writer         where batches are written; required
 * @param meters         the process's meters; required
 * @param decodeErrors   where malformed records are counted and logged; default a new one on {@code meters}
 * @param deadLetters    {@code --dead-letter-topic}; null (the default) = none
 * @param input          how record values are read; default {@link InputConfig#defaults()}
 * @param rate           {@code --max-samples-per-second}, shared by every reader of the process; null (the default) =
 *                       unlimited
 * @param churnInterval  {@code --churn-interval}, ≥ 1 s; null (the default) = no churn
 * @param durability     when an acknowledged write counts as stored, and the TSDB restarts seen; default
 *                       {@link DurabilityClock#atOnce()}
 * @param lanes          the writer's ordered lanes (per-series order); null (the default) = unordered
 * @param relabel        {@code --relabel-config}, applied by every amplifier once per series; null (the default) = none
 * @param tenants        {@code --tenant-from}: batches are split by tenant; default {@link TenantRouting#NONE} (no
 *                       routing)
 * @param seriesLimits   {@code --max-hourly-series}, {@code --max-daily-series}, shared by every amplifier; null (the
 *                       default) = none
 */
public record IntakeSettings(
        Map<String, Object> consumerProps,
        int parallelism,
        long segmentSize,
        int batchSamples,
        Duration batchSendDeadline,
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
        TenantRouting tenants,
        SeriesLimiter seriesLimits) {

    /** {@code --segment-size}'s default: 50000 offsets. */
    public static final long DEFAULT_SEGMENT_SIZE = 50_000;
    /** {@code --batch-samples}'s default: 10000 samples. */
    public static final int DEFAULT_BATCH_SAMPLES = 10_000;
    /** Largest {@code --batch-samples}. */
    public static final int MAX_BATCH_SAMPLES = 10_000_000;
    /** {@code --max-record-bytes}'s default: 1 MiB. */
    public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
    /** {@code --series-cache-size}'s default: a million series. */
    public static final int DEFAULT_SERIES_CACHE_SIZE = 1_000_000;
    /** Smallest {@code --churn-interval}: 1 s. */
    public static final Duration MIN_CHURN_INTERVAL = Duration.ofSeconds(1);

    /** With {@code --max-samples-per-second}, how long an open batch waits for more samples before it is flushed anyway: 100 ms. */
    public static final long RATE_LINGER_NANOS = 100_000_000L;

    /** A builder with every default of {@link IntakeSettings}; {@link Builder#build()} validates. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Checks that the required parts are present and the numbers in range, as documented on {@link IntakeSettings}.
     *
     * @return these settings
     * @throws NullPointerException     naming a required part that is missing
     * @throws IllegalArgumentException naming a number out of range
     */
    public IntakeSettings validate() {
        Objects.requireNonNull(consumerProps, "IntakeSettings: consumerProps is required");
        Objects.requireNonNull(seriesCache, "IntakeSettings: seriesCache is required");
        Objects.requireNonNull(encoders, "IntakeSettings: encoders is required");
        Objects.requireNonNull(writer, "IntakeSettings: writer is required");
        Objects.requireNonNull(meters, "IntakeSettings: meters is required");
        Objects.requireNonNull(decodeErrors, "IntakeSettings: decodeErrors is required");
        Objects.requireNonNull(input, "IntakeSettings: input is required");
        Objects.requireNonNull(durability, "IntakeSettings: durability is required");
        Objects.requireNonNull(tenants, "IntakeSettings: tenants is required");
        require(
                parallelism >= 1 && parallelism <= RunConfig.MAX_PARALLELISM,
                "parallelism must be in 1.." + RunConfig.MAX_PARALLELISM + ", got " + parallelism);
        require(
                segmentSize >= 1 && segmentSize <= RunConfig.MAX_SEGMENT_SIZE,
                "segmentSize must be in 1.." + RunConfig.MAX_SEGMENT_SIZE + ", got " + segmentSize);
        require(
                batchSamples >= 1 && batchSamples <= MAX_BATCH_SAMPLES,
                "batchSamples must be in 1.." + MAX_BATCH_SAMPLES + ", got " + batchSamples);
        Objects.requireNonNull(batchSendDeadline, "IntakeSettings: batchSendDeadline is required");
        require(!batchSendDeadline.isNegative(), "batchSendDeadline must not be negative, got " + batchSendDeadline);
        require(maxRecordBytes >= 1, "maxRecordBytes must be >= 1, got " + maxRecordBytes);
        require(
                churnInterval == null || churnInterval.compareTo(MIN_CHURN_INTERVAL) >= 0,
                "churnInterval must be >= 1s, got " + churnInterval);
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("IntakeSettings: " + message);
        }
    }

    /**
     * Names the parts of {@link IntakeSettings}; what is not set keeps its documented default. Not thread-safe; each
     * setter returns this builder.
     */
    public static final class Builder {
        private Map<String, Object> consumerProps = Map.of();
        private int parallelism = 1;
        private long segmentSize = DEFAULT_SEGMENT_SIZE;
        private int batchSamples = DEFAULT_BATCH_SAMPLES;
        private Duration batchSendDeadline = Duration.ZERO;
        private int maxRecordBytes = DEFAULT_MAX_RECORD_BYTES;
        private SeriesCache seriesCache;
        private SampleEncoder.Factory encoders;
        private BatchWriter writer;
        private WriterMeters meters;
        private DecodeErrorLog decodeErrors;
        private DeadLetterQueue deadLetters;
        private InputConfig input = InputConfig.defaults();
        private SampleRate rate;
        private Duration churnInterval;
        private DurabilityClock durability = DurabilityClock.atOnce();
        private OrderedLanes lanes;
        private RelabelRules relabel;
        private TenantRouting tenants = TenantRouting.NONE;
        private SeriesLimiter seriesLimits;

        private Builder() {}

        public Builder consumerProps(Map<String, Object> consumerProps) {
            this.consumerProps = consumerProps;
            return this;
        }

        public Builder parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        public Builder segmentSize(long segmentSize) {
            this.segmentSize = segmentSize;
            return this;
        }

        public Builder batchSamples(int batchSamples) {
            this.batchSamples = batchSamples;
            return this;
        }

        public Builder batchSendDeadline(Duration batchSendDeadline) {
            this.batchSendDeadline = batchSendDeadline;
            return this;
        }

        public Builder maxRecordBytes(int maxRecordBytes) {
            this.maxRecordBytes = maxRecordBytes;
            return this;
        }

        public Builder seriesCache(SeriesCache seriesCache) {
            this.seriesCache = seriesCache;
            return this;
        }

        public Builder encoders(SampleEncoder.Factory encoders) {
            this.encoders = encoders;
            return this;
        }

        public Builder writer(BatchWriter writer) {
            this.writer = writer;
            return this;
        }

        public Builder meters(WriterMeters meters) {
            this.meters = meters;
            return this;
        }

        public Builder decodeErrors(DecodeErrorLog decodeErrors) {
            this.decodeErrors = decodeErrors;
            return this;
        }

        /** @param deadLetters {@code --dead-letter-topic}; null = none */
        public Builder deadLetters(DeadLetterQueue deadLetters) {
            this.deadLetters = deadLetters;
            return this;
        }

        public Builder input(InputConfig input) {
            this.input = input;
            return this;
        }

        /** @param rate {@code --max-samples-per-second}; null = unlimited */
        public Builder rate(SampleRate rate) {
            this.rate = rate;
            return this;
        }

        /** @param churnInterval {@code --churn-interval}; null = no churn */
        public Builder churnInterval(Duration churnInterval) {
            this.churnInterval = churnInterval;
            return this;
        }

        public Builder durability(DurabilityClock durability) {
            this.durability = durability;
            return this;
        }

        /** @param lanes the ordered lanes (per-series order); null = unordered */
        public Builder lanes(OrderedLanes lanes) {
            this.lanes = lanes;
            return this;
        }

        /** @param relabel {@code --relabel-config}; null = none */
        public Builder relabel(RelabelRules relabel) {
            this.relabel = relabel;
            return this;
        }

        public Builder tenants(TenantRouting tenants) {
            this.tenants = tenants;
            return this;
        }

        /** @param seriesLimits {@code --max-hourly-series}, {@code --max-daily-series}; null = none */
        public Builder seriesLimits(SeriesLimiter seriesLimits) {
            this.seriesLimits = seriesLimits;
            return this;
        }

        /**
         * The settings, with the defaults of the parts not set (a new series cache, a new decode-error log on the
         * meters), validated.
         *
         * @throws NullPointerException     naming a required part that is missing
         * @throws IllegalArgumentException naming a number out of range
         */
        public IntakeSettings build() {
            return new IntakeSettings(
                            consumerProps,
                            parallelism,
                            segmentSize,
                            batchSamples,
                            batchSendDeadline,
                            maxRecordBytes,
                            seriesCache != null ? seriesCache : new SeriesCache(DEFAULT_SERIES_CACHE_SIZE),
                            encoders,
                            writer,
                            meters,
                            decodeErrors != null || meters == null ? decodeErrors : new DecodeErrorLog(meters),
                            deadLetters,
                            input,
                            rate,
                            churnInterval,
                            durability,
                            lanes,
                            relabel,
                            tenants,
                            seriesLimits)
                    .validate();
        }
    }

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
                .convertHistogramsToNhcb(input().convertHistogramsToNhcb())
                .convertClassicHistogramsToNhcb(input().convertClassicHistogramsToNhcb())
                .relabel(relabel())
                .tenants(tenants())
                .seriesLimits(seriesLimits());
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
