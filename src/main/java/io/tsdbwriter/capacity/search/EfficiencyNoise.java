package io.tsdbwriter.capacity.search;

import java.util.Locale;

/**
 * The run-to-run noise of a capacity search's efficiency, and which failing steps lie within it (DESIGN §9).
 *
 * <p>The noise is measured in every step: the window's readings are cut at its middle and the efficiency of each half
 * (least-squares slopes, as the whole window's) is compared; the noise is the root mean square of that difference over
 * every window measured so far (both halves with two readings or more). It is how far a step's efficiency moves by
 * itself while the load stays the same, the same effect that makes two runs of one load differ. Before any window's
 * halves are measured it is {@link #DEFAULT}. With independent errors of σ in each half, the whole window's efficiency
 * (about the halves' mean) has an error of σ/√2 and the halves' difference one of σ√2: the noise is twice the whole
 * window's standard error, so a miss within it lies within about 95 % of what the measurement gives by chance.
 *
 * <p>A step that failed only by its efficiency (its p99 within the maximum, the lag not growing) and missed the
 * minimum by less than the noise is measured again, at most {@link #MAX_REMEASURES} times, before it counts as failed
 * ({@link StepClimb}).
 *
 * <p>Not thread-safe: the search thread's.
 */
final class EfficiencyNoise {

    /** The noise assumed before any window's halves are measured: 2 points of efficiency. */
    static final double DEFAULT = 0.02;
    /** Re-measurements of one load at most (so three measurements in all). */
    static final int MAX_REMEASURES = 2;

    private final double minEfficiency;
    private final double maxP99Seconds;
    private double sumOfSquares;
    private int windows;

    /**
     * @param minEfficiency the efficiency a step must reach (0..1)
     * @param maxP99Seconds the p99 write latency a step may have, seconds
     */
    EfficiencyNoise(double minEfficiency, double maxP99Seconds) {
        this.minEfficiency = minEfficiency;
        this.maxP99Seconds = maxP99Seconds;
    }

    /** Counts a measured step's halves spread (nothing when it has none). */
    void add(CapacityStep st) {
        double d = st.noise() == null ? Double.NaN : st.noise().halvesSpread();
        if (Double.isFinite(d)) {
            sumOfSquares += d * d;
            windows++;
        }
    }

    /** The noise now (efficiency, 0..1): the halves' root mean square, or {@link #DEFAULT} before any. */
    double noise() {
        return windows == 0 ? DEFAULT : Math.sqrt(sumOfSquares / windows);
    }

    /**
     * Whether {@code st} is to be measured again: it failed by its efficiency alone, by less than the noise, or its
     * efficiency is unknown although points were produced (its window had fewer than two readings of the writer).
     */
    boolean withinNoise(CapacityStep st) {
        if (!st.passed() && Double.isNaN(st.efficiency()) && st.producedPoints() > 0) {
            return true;
        }
        double miss = minEfficiency - st.efficiency();
        return !st.passed() && miss > 0 && miss < noise() && !st.lagGrowing() && !(st.p99Seconds() > maxP99Seconds);
    }

    /** Why {@code st} is measured again, as printed: {@code efficiency 98.1% misses 99.0% by 0.9%, within the noise 2.0%}. */
    String miss(CapacityStep st) {
        if (Double.isNaN(st.efficiency())) {
            return "efficiency unknown (the window had fewer than two readings of the writer's /metrics)";
        }
        return String.format(
                Locale.ROOT,
                "efficiency %s misses %s by %s, within the noise %s",
                pct(st.efficiency()),
                pct(minEfficiency),
                pct(minEfficiency - st.efficiency()),
                pct(noise()));
    }

    /**
     * A warning when the noise is more than five times the room below 100 % ({@code 1 - minEfficiency}): the windows are
     * too short for the rate and the batch size (the written counter grows by whole batches) to measure the minimum;
     * null otherwise.
     */
    String tooNoisy() {
        if (windows == 0 || noise() <= 5 * (1 - minEfficiency)) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "warning: the noise %s is more than five times the room below 100%% (%s): the windows are too "
                        + "short to measure the minimum efficiency at this rate and batch size; a longer --step-duration, a shorter --warm-up or "
                        + "a smaller --batch-samples",
                pct(noise()),
                pct(1 - minEfficiency));
    }

    /** The noise and where it comes from, one line for the output and the summary. */
    String describe() {
        if (windows == 0) {
            return "noise: " + pct(DEFAULT) + " efficiency (the default: no window's halves measured yet)";
        }
        return String.format(
                Locale.ROOT,
                "noise: %s efficiency (root mean square of the efficiency difference between the first and "
                        + "the second half of %d measured window%s)",
                pct(noise()),
                windows,
                windows == 1 ? "" : "s");
    }

    private static String pct(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f%%", v * 100) : "n/a";
    }
}
