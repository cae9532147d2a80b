package io.tsdbwriter.capacity.search;

import io.tsdbwriter.amplify.AmplificationPlan;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The order of a capacity search's steps ({@link CapacitySearch}): the load rises by the step factor until the first
 * failing step (or falls by the factor squared until one passes when the first fails already), then refinement steps
 * narrow the bracket. What a step does is the {@link Stepper}'s; this class only decides the next rate or M.
 *
 * <p>M never rises above the largest a writer accepts ({@code maxTimeMultiplier}: 3600, or fewer when M × N would pass
 * the samples-per-point bound); a search by M whose step there passes stops and says so instead of proposing an M the
 * writer refuses (exit 2).
 *
 * <p>A step that missed the minimum efficiency by less than the noise ({@link EfficiencyNoise}) is measured again at
 * the same load, at most {@link EfficiencyNoise#MAX_REMEASURES} times and only while the budget allows: the load passes
 * when a re-measurement passes, and fails when one fails clearly or the last one misses again. Re-measurements are
 * rows of their own ({@link StepNoise#remeasureOf()}) and do not count as rising steps.
 *
 * <p>Not thread-safe: the search thread's.
 */
final class StepClimb {

    /** Runs one step at an input rate (points/s) and M. */
    @FunctionalInterface
    interface Stepper {
        CapacityStep step(int index, boolean refine, double rate, int m) throws IOException, InterruptedException;
    }

    /** True (and says so) when there is no time left for another step. */
    @FunctionalInterface
    interface Budget {
        boolean over(long searchStartNanos, int stepsDone);
    }

    private final CapacitySearch.Vary vary;
    private final int maxTimeMultiplier;
    private final double stepFactor;
    private final int maxSteps;
    private final int refineSteps;
    private final Stepper stepper;
    private final Budget budget;
    private final EfficiencyNoise noise;
    private final PrintStream out;

    /**
     * @param maxTimeMultiplier the largest M a step may run ({@link #maxTimeMultiplier(int)})
     * @param noise             the search's noise: measured from every step, it decides which failing steps run again
     */
    StepClimb(
            CapacitySearch.Vary vary,
            int maxTimeMultiplier,
            double stepFactor,
            int maxSteps,
            int refineSteps,
            Stepper stepper,
            Budget budget,
            EfficiencyNoise noise,
            PrintStream out) {
        this.vary = vary;
        this.maxTimeMultiplier = maxTimeMultiplier;
        this.stepFactor = stepFactor;
        this.maxSteps = maxSteps;
        this.refineSteps = refineSteps;
        this.stepper = stepper;
        this.budget = budget;
        this.noise = noise;
        this.out = out;
    }

    /**
     * Raises the load by the step factor until the first failing step; when the first step fails already, lowers it
     * (by the factor squared) until one passes. Each load is measured again while it misses within the noise
     * ({@link #measure}); its re-measurements do not count against {@code maxSteps}.
     */
    void climb(SearchSteps steps, double rate, int m) throws IOException, InterruptedException {
        for (int rising = 0; rising < maxSteps && !budget.over(steps.startNanos, steps.index); rising++) {
            CapacityStep st = measure(steps, false, rate, m);
            if (!st.passed()) {
                steps.bad = st;
                if (steps.good != null) {
                    return;
                }
                // the first step failed already: step down (by the factor squared) until one passes
                if (vary == CapacitySearch.Vary.RATE) {
                    rate /= stepFactor * stepFactor;
                } else if (m > 1) {
                    m = Math.max(1, (int) Math.floor(m / (stepFactor * stepFactor)));
                } else {
                    return;
                }
                CapacitySearch.progress(out, "[%d] failed with no passing step yet: stepping down", st.index());
                continue;
            }
            steps.good = st;
            if (steps.bad != null) {
                return; // stepped down to a passing step: the bracket is found
            }
            if (vary == CapacitySearch.Vary.RATE) {
                rate *= stepFactor;
            } else if (m >= maxTimeMultiplier) {
                steps.ceiling = String.format(
                        Locale.ROOT,
                        "reached the maximum time multiplier %d without saturating "
                                + "(step %d passed at M=%d); raise --start-input-rate or --instance-multiplier to load the target further",
                        maxTimeMultiplier,
                        st.index(),
                        m);
                CapacitySearch.progress(out, "%s", steps.ceiling);
                return;
            } else {
                m = (int) Math.min(maxTimeMultiplier, Math.max(m + 1L, Math.round(m * stepFactor)));
            }
        }
    }

    /**
     * The largest M a writer accepts at {@code instanceMultiplier}: {@link AmplificationPlan#MAX_TIME_MULTIPLIER}, or
     * fewer when M × N would pass {@link AmplificationPlan#MAX_SAMPLES_PER_POINT}.
     */
    static int maxTimeMultiplier(int instanceMultiplier) {
        return (int) Math.min(
                AmplificationPlan.MAX_TIME_MULTIPLIER,
                AmplificationPlan.MAX_SAMPLES_PER_POINT / Math.max(1, instanceMultiplier));
    }

    /** Narrows the bracket between the last passing and the first failing step ({@code refineSteps} steps at most). */
    void refine(SearchSteps steps) throws IOException, InterruptedException {
        for (int k = 0;
                steps.bad != null
                        && steps.good != null
                        && k < refineSteps
                        && !budget.over(steps.startNanos, steps.index);
                k++) {
            double rate = steps.bad.inputPointsPerSecond();
            int m = steps.bad.timeMultiplier();
            if (vary == CapacitySearch.Vary.RATE) {
                rate = Math.sqrt(steps.good.inputPointsPerSecond() * steps.bad.inputPointsPerSecond());
            } else {
                if (steps.bad.timeMultiplier() - steps.good.timeMultiplier() < 2) {
                    return;
                }
                m = (steps.good.timeMultiplier() + steps.bad.timeMultiplier()) / 2;
            }
            CapacityStep st = measure(steps, true, rate, m);
            if (st.passed()) {
                steps.good = st;
            } else {
                steps.bad = st;
            }
        }
    }

    /**
     * Runs one load and, while it missed the minimum efficiency within the noise, measures it again (bounded, within
     * the budget); every measurement is a row. Returns the measurement that decides: the first that passes or fails
     * clearly, else the last.
     */
    private CapacityStep measure(SearchSteps steps, boolean refine, double rate, int m)
            throws IOException, InterruptedException {
        steps.index++;
        CapacityStep st = judge(steps, stepper.step(steps.index, refine, rate, m), 0);
        int first = st.index();
        for (int k = 1;
                k <= EfficiencyNoise.MAX_REMEASURES
                        && noise.withinNoise(st)
                        && !budget.over(steps.startNanos, steps.index);
                k++) {
            CapacitySearch.progress(
                    out,
                    "[%d] %s: measuring the same load again (re-measure %d of at most %d)",
                    st.index(),
                    noise.miss(st),
                    k,
                    EfficiencyNoise.MAX_REMEASURES);
            steps.index++;
            st = judge(steps, stepper.step(steps.index, refine, rate, m), first);
        }
        return st;
    }

    /** Counts the step's halves in the noise, records the noise it is judged with and adds it to the rows. */
    private CapacityStep judge(SearchSteps steps, CapacityStep measured, int remeasureOf) {
        noise.add(measured);
        CapacityStep st = measured.judged(noise.noise(), remeasureOf);
        steps.all.add(st);
        steps.noise = noise.tooNoisy() == null ? noise.describe() : noise.describe() + "\n" + noise.tooNoisy();
        CapacitySearch.progress(out, "[%d] %s", st.index(), noise.describe());
        return st;
    }
}
