package io.tsdbwriter.amplify;

import java.time.Duration;

/**
 * The load model of DESIGN §3: every source point {@code (t, v, labels)} becomes {@code M × N} samples.
 *
 * <ul>
 *   <li>time: sample {@code i ∈ [0, M)} has timestamp {@code t + i × sourceInterval / M} (integer milliseconds,
 *       computed as {@code t + (i × sourceIntervalMs) / M}, so rounding never accumulates);</li>
 *   <li>instances: variant {@code j ∈ [0, N)} replaces label {@code instanceNo} by the original value for
 *       {@code j = 0} and by {@code <original>-<j>} for {@code j > 0}; with N &gt; 1 a point without
 *       {@code instanceNo} uses the base {@value #UNKNOWN_INSTANCE}; with N = 1 its labels stay as they are;</li>
 *   <li>values are unchanged; {@code M = N = 1} is a plain relay: a plain copy, no label added or changed.</li>
 * </ul>
 *
 * Immutable and thread-safe.
 *
 * @param timeMultiplier     M, samples per source point in time, 1..3600
 * @param instanceMultiplier N, instance variants per series, 1..100000; M × N at most {@value #MAX_SAMPLES_PER_POINT}
 * @param sourceIntervalMs   the interval between source points of one series, in milliseconds (default 60000)
 * @param instanceLabel      the label varied across instances ({@code --instance-label}, default {@value #INSTANCE_LABEL})
 */
public record AmplificationPlan(
        int timeMultiplier, int instanceMultiplier, long sourceIntervalMs, String instanceLabel) {

    /** Default label whose value is varied across instances. */
    public static final String INSTANCE_LABEL = "instanceNo";
    /** Base instance value for points that carry no {@code instanceNo}. */
    public static final String UNKNOWN_INSTANCE = "unknown";
    /** Largest M. */
    public static final int MAX_TIME_MULTIPLIER = 3600;
    /** Largest N. */
    public static final int MAX_INSTANCE_MULTIPLIER = 100_000;
    /**
     * Largest M × N: samples one source point becomes. Bounds one point's share of a request body (tens of MB at most)
     * and keeps every per-batch and per-record count within {@code int}, whatever the points per record.
     */
    public static final long MAX_SAMPLES_PER_POINT = 1_000_000;
    /** Default source interval: 1-minute metrics. */
    public static final Duration DEFAULT_SOURCE_INTERVAL = Duration.ofSeconds(60);

    /** @throws IllegalArgumentException when a multiplier or the interval is out of range */
    public AmplificationPlan {
        if (timeMultiplier < 1 || timeMultiplier > MAX_TIME_MULTIPLIER) {
            throw new IllegalArgumentException(
                    "--time-multiplier must be in 1.." + MAX_TIME_MULTIPLIER + ", got " + timeMultiplier);
        }
        if (instanceMultiplier < 1 || instanceMultiplier > MAX_INSTANCE_MULTIPLIER) {
            throw new IllegalArgumentException(
                    "--instance-multiplier must be in 1.." + MAX_INSTANCE_MULTIPLIER + ", got " + instanceMultiplier);
        }
        if ((long) timeMultiplier * instanceMultiplier > MAX_SAMPLES_PER_POINT) {
            throw new IllegalArgumentException(
                    "--time-multiplier x --instance-multiplier must be at most " + MAX_SAMPLES_PER_POINT
                            + " samples per source point, got " + timeMultiplier + " x " + instanceMultiplier + " = "
                            + (long) timeMultiplier * instanceMultiplier);
        }
        if (sourceIntervalMs < 1) {
            throw new IllegalArgumentException("--source-interval must be positive, got " + sourceIntervalMs + " ms");
        }
        if (instanceLabel == null || instanceLabel.isEmpty()) {
            throw new IllegalArgumentException("instance label must not be empty");
        }
    }

    /** A plan varying the default instance label {@value #INSTANCE_LABEL}. */
    public AmplificationPlan(int timeMultiplier, int instanceMultiplier, long sourceIntervalMs) {
        this(timeMultiplier, instanceMultiplier, sourceIntervalMs, INSTANCE_LABEL);
    }

    /** This plan with another instance label. */
    public AmplificationPlan withInstanceLabel(String label) {
        return new AmplificationPlan(timeMultiplier, instanceMultiplier, sourceIntervalMs, label);
    }

    /** A plan from a {@link Duration} interval. */
    public static AmplificationPlan of(int timeMultiplier, int instanceMultiplier, Duration sourceInterval) {
        return new AmplificationPlan(timeMultiplier, instanceMultiplier, sourceInterval.toMillis());
    }

    /** Plain relay: M = N = 1. */
    public static AmplificationPlan relay() {
        return new AmplificationPlan(1, 1, DEFAULT_SOURCE_INTERVAL.toMillis());
    }

    /** Samples produced per source point: {@code M × N}. */
    public long samplesPerPoint() {
        return (long) timeMultiplier * instanceMultiplier;
    }

    /** Timestamp in epoch ms of time sample {@code i} of a point at {@code sourceTimestampMs}. */
    public long sampleTimestampMs(long sourceTimestampMs, int i) {
        return sourceTimestampMs + (i * sourceIntervalMs) / timeMultiplier;
    }

    /**
     * The N instance values for a series whose original {@code instanceNo} is {@code original} (null = absent).
     * Called once per series, never per sample.
     *
     * @return a new array of length N; element 0 is the original, or — when the series has none — the base
     *         {@value #UNKNOWN_INSTANCE} with N &gt; 1 and null with N = 1 (no instance label is added: DESIGN §3)
     */
    public String[] instanceVariants(String original) {
        return instanceVariants(original, null);
    }

    /**
     * The N instance values of a series in one churn generation ({@code --churn-interval}): as
     * {@link #instanceVariants(String)}, each followed by {@code suffix} ({@code -g3}: {@code host}, {@code host-1} …
     * become {@code host-g3}, {@code host-1-g3} …); a series without the instance label gets
     * {@value #UNKNOWN_INSTANCE}{@code <suffix>} even at N = 1, so every generation is a new set of series.
     *
     * @param suffix the generation's suffix, or null for no churn
     */
    public String[] instanceVariants(String original, String suffix) {
        boolean absent = original == null || original.isEmpty();
        String[] variants = new String[instanceMultiplier];
        if (absent && instanceMultiplier == 1 && suffix == null) {
            return variants; // {null}: the series is copied as it is
        }
        String base = absent ? UNKNOWN_INSTANCE : original;
        String s = suffix == null ? "" : suffix;
        variants[0] = base + s;
        for (int j = 1; j < instanceMultiplier; j++) {
            variants[j] = base + "-" + j + s;
        }
        return variants;
    }
}
