package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.IngestDelays;
import io.tsdbwriter.tsdbmetrics.Bottleneck;

/**
 * One step of {@code tsdb-writer capacity}: a writer process fed at one input rate (or one M) for the step duration,
 * measured after the warm-up. Rates are per minute of the measured window, from least-squares slopes of the
 * counters sampled every few seconds (robust to batch-sized jumps). Build it by name with {@link #builder()}. Immutable.
 *
 * @param index              1-based step number
 * @param refine             a refinement step between the last good and the first bad step
 * @param timeMultiplier     M of the step's writer
 * @param inputPointsPerSecond the rate the producer was asked for
 * @param expectedPerMinute  samples/min the input demanded (points produced × M × N)
 * @param writtenPerMinute   samples/min the writer wrote (2xx)
 * @param efficiency         written ÷ expected
 * @param p50Seconds         write latency median in the window (NaN: no request)
 * @param p99Seconds         write latency 99th percentile in the window
 * @param permitWaitMs       mean wait for a write permit in the window, ms
 * @param lagStart           consumer lag (records past the acknowledged watermark) at the window's start
 * @param lagEnd             consumer lag at the window's end
 * @param lagGrowing         whether the lag grew over the window (see {@link CapacitySearch})
 * @param writerCpuCores     cores the writer used
 * @param targetCpuCores     cores the busiest target used
 * @param targetCores        that target's cores
 * @param insertsCurrent     targets' concurrent inserts, averaged
 * @param insertsCapacity    targets' insert capacity
 * @param loadAverage        the machine's 1-minute load average at the step's end (others may share it)
 * @param passed             efficiency, latency and lag within the limits
 * @param verdict            what bound the step
 * @param lost               samples the writer did not write after the step's drain (expected − written over the whole step)
 * @param producedPoints     points the producer sent (and Kafka acknowledged) over the whole step
 * @param reads              the read load's figures in the window, or null when the step ran no read load
 * @param series             the series figures in the window, or null when not measured
 * @param noise              the window's halves spread, the noise assumed and what it re-measured ({@link EfficiencyNoise}), or null
 * @param delays             the writer's ingest delay p50/p99 (acknowledged, committed) over the batches of the window
 * @param limit              the series limit's figures over the step, or null when the writer had no series limit
 */
public record CapacityStep(
        int index,
        boolean refine,
        int timeMultiplier,
        double inputPointsPerSecond,
        double expectedPerMinute,
        double writtenPerMinute,
        double efficiency,
        double p50Seconds,
        double p99Seconds,
        double permitWaitMs,
        double lagStart,
        double lagEnd,
        boolean lagGrowing,
        double writerCpuCores,
        double targetCpuCores,
        double targetCores,
        double insertsCurrent,
        double insertsCapacity,
        double loadAverage,
        boolean passed,
        Bottleneck.Verdict verdict,
        long lost,
        long producedPoints,
        StepReads reads,
        StepSeries series,
        StepNoise noise,
        IngestDelays delays,
        StepLimit limit) {

    /** A builder with every field at its default (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these values, to change some. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.index = index;
        b.refine = refine;
        b.timeMultiplier = timeMultiplier;
        b.inputPointsPerSecond = inputPointsPerSecond;
        b.expectedPerMinute = expectedPerMinute;
        b.writtenPerMinute = writtenPerMinute;
        b.efficiency = efficiency;
        b.p50Seconds = p50Seconds;
        b.p99Seconds = p99Seconds;
        b.permitWaitMs = permitWaitMs;
        b.lagStart = lagStart;
        b.lagEnd = lagEnd;
        b.lagGrowing = lagGrowing;
        b.writerCpuCores = writerCpuCores;
        b.targetCpuCores = targetCpuCores;
        b.targetCores = targetCores;
        b.insertsCurrent = insertsCurrent;
        b.insertsCapacity = insertsCapacity;
        b.loadAverage = loadAverage;
        b.passed = passed;
        b.verdict = verdict;
        b.lost = lost;
        b.producedPoints = producedPoints;
        b.reads = reads;
        b.series = series;
        b.noise = noise;
        b.delays = delays;
        b.limit = limit;
        return b;
    }

    /**
     * Builds a {@link CapacityStep} by name. Defaults: index 0, M 1, every figure NaN (not measured), the flags false,
     * the counts 0, the verdict and the read, series, noise and series limit figures null, the ingest delays
     * {@link IngestDelays#NONE}. Not thread-safe; {@link #build()} never throws.
     */
    public static final class Builder {
        private int index = 0;
        private boolean refine = false;
        private int timeMultiplier = 1;
        private double inputPointsPerSecond = Double.NaN;
        private double expectedPerMinute = Double.NaN;
        private double writtenPerMinute = Double.NaN;
        private double efficiency = Double.NaN;
        private double p50Seconds = Double.NaN;
        private double p99Seconds = Double.NaN;
        private double permitWaitMs = Double.NaN;
        private double lagStart = Double.NaN;
        private double lagEnd = Double.NaN;
        private boolean lagGrowing = false;
        private double writerCpuCores = Double.NaN;
        private double targetCpuCores = Double.NaN;
        private double targetCores = Double.NaN;
        private double insertsCurrent = Double.NaN;
        private double insertsCapacity = Double.NaN;
        private double loadAverage = Double.NaN;
        private boolean passed = false;
        private Bottleneck.Verdict verdict = null;
        private long lost = 0;
        private long producedPoints = 0;
        private StepReads reads = null;
        private StepSeries series = null;
        private StepNoise noise = null;
        private IngestDelays delays = IngestDelays.NONE;
        private StepLimit limit = null;

        private Builder() {}

        /** 1-based step number. */
        public Builder index(int value) {
            this.index = value;
            return this;
        }

        /** A refinement step between the last good and the first bad step. */
        public Builder refine(boolean value) {
            this.refine = value;
            return this;
        }

        /** M of the step's writer. */
        public Builder timeMultiplier(int value) {
            this.timeMultiplier = value;
            return this;
        }

        /** The rate the producer was asked for. */
        public Builder inputPointsPerSecond(double value) {
            this.inputPointsPerSecond = value;
            return this;
        }

        /** Samples/min the input demanded. */
        public Builder expectedPerMinute(double value) {
            this.expectedPerMinute = value;
            return this;
        }

        /** Samples/min the writer wrote. */
        public Builder writtenPerMinute(double value) {
            this.writtenPerMinute = value;
            return this;
        }

        /** Written ÷ expected. */
        public Builder efficiency(double value) {
            this.efficiency = value;
            return this;
        }

        /** Write latency median in the window. */
        public Builder p50Seconds(double value) {
            this.p50Seconds = value;
            return this;
        }

        /** Write latency 99th percentile in the window. */
        public Builder p99Seconds(double value) {
            this.p99Seconds = value;
            return this;
        }

        /** Mean wait for a write permit in the window, ms. */
        public Builder permitWaitMs(double value) {
            this.permitWaitMs = value;
            return this;
        }

        /** Consumer lag at the window's start. */
        public Builder lagStart(double value) {
            this.lagStart = value;
            return this;
        }

        /** Consumer lag at the window's end. */
        public Builder lagEnd(double value) {
            this.lagEnd = value;
            return this;
        }

        /** Whether the lag grew over the window. */
        public Builder lagGrowing(boolean value) {
            this.lagGrowing = value;
            return this;
        }

        /** Cores the writer used. */
        public Builder writerCpuCores(double value) {
            this.writerCpuCores = value;
            return this;
        }

        /** Cores the busiest target used. */
        public Builder targetCpuCores(double value) {
            this.targetCpuCores = value;
            return this;
        }

        /** That target's cores. */
        public Builder targetCores(double value) {
            this.targetCores = value;
            return this;
        }

        /** Targets' concurrent inserts, averaged. */
        public Builder insertsCurrent(double value) {
            this.insertsCurrent = value;
            return this;
        }

        /** Targets' insert capacity. */
        public Builder insertsCapacity(double value) {
            this.insertsCapacity = value;
            return this;
        }

        /** The machine's 1-minute load average at the step's end. */
        public Builder loadAverage(double value) {
            this.loadAverage = value;
            return this;
        }

        /** Efficiency, latency and lag within the limits. */
        public Builder passed(boolean value) {
            this.passed = value;
            return this;
        }

        /** What bound the step. */
        public Builder verdict(Bottleneck.Verdict value) {
            this.verdict = value;
            return this;
        }

        /** Samples the writer did not write after the step's drain. */
        public Builder lost(long value) {
            this.lost = value;
            return this;
        }

        /** Points the producer sent over the whole step. */
        public Builder producedPoints(long value) {
            this.producedPoints = value;
            return this;
        }

        /** The read load's figures in the window, null without a read load. */
        public Builder reads(StepReads value) {
            this.reads = value;
            return this;
        }

        /** The series figures in the window, null when not measured. */
        public Builder series(StepSeries value) {
            this.series = value;
            return this;
        }

        /** The window's noise figures, or null. */
        public Builder noise(StepNoise value) {
            this.noise = value;
            return this;
        }

        /** The writer's ingest delay over the window's batches; null reads as {@link IngestDelays#NONE}. */
        public Builder delays(IngestDelays value) {
            this.delays = value == null ? IngestDelays.NONE : value;
            return this;
        }

        /** The series limit's figures over the step, null when the writer had no series limit. */
        public Builder limit(StepLimit value) {
            this.limit = value;
            return this;
        }

        /** The CapacityStep. */
        public CapacityStep build() {
            return new CapacityStep(
                    index,
                    refine,
                    timeMultiplier,
                    inputPointsPerSecond,
                    expectedPerMinute,
                    writtenPerMinute,
                    efficiency,
                    p50Seconds,
                    p99Seconds,
                    permitWaitMs,
                    lagStart,
                    lagEnd,
                    lagGrowing,
                    writerCpuCores,
                    targetCpuCores,
                    targetCores,
                    insertsCurrent,
                    insertsCapacity,
                    loadAverage,
                    passed,
                    verdict,
                    lost,
                    producedPoints,
                    reads,
                    series,
                    noise,
                    delays,
                    limit);
        }
    }

    /** This step judged with {@code noise} assumed (efficiency, 0..1), measuring again step {@code remeasureOf} (0: none). */
    CapacityStep judged(double assumed, int remeasureOf) {
        StepNoise n = (noise == null ? new StepNoise(Double.NaN, Double.NaN, 0) : noise).judged(assumed, remeasureOf);
        return toBuilder().noise(n).build();
    }

    /** The step it measured again, or 0. */
    public int remeasureOf() {
        return noise == null ? 0 : noise.remeasureOf();
    }
}
