package io.tsdbwriter.capacity.search;

import io.tsdbwriter.tsdbmetrics.Bottleneck;

/**
 * One step of {@code tsdb-writer capacity}: a writer process fed at one input rate (or one M) for the step duration,
 * measured after the warm-up. Rates are per minute of the measured window, from least-squares slopes of the
 * counters sampled every few seconds (robust to batch-sized jumps). Immutable.
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
        StepNoise noise) {

    /** A step without its noise figures (null). */
    public CapacityStep(
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
            StepSeries series) {
        this(
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
                null);
    }

    /** This step judged with {@code noise} assumed (efficiency, 0..1), measuring again step {@code remeasureOf} (0: none). */
    CapacityStep judged(double assumed, int remeasureOf) {
        StepNoise n = (noise == null ? new StepNoise(Double.NaN, Double.NaN, 0) : noise).judged(assumed, remeasureOf);
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
                n);
    }

    /** The step it measured again, or 0. */
    public int remeasureOf() {
        return noise == null ? 0 : noise.remeasureOf();
    }
}
