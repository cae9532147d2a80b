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
    private final PrintStream out;

    /**
     * @param maxTimeMultiplier the largest M a step may run ({@link #maxTimeMultiplier(int)})
     */
    StepClimb(CapacitySearch.Vary vary, int maxTimeMultiplier, double stepFactor, int maxSteps, int refineSteps, Stepper stepper,
              Budget budget, PrintStream out) {
        this.vary = vary;
        this.maxTimeMultiplier = maxTimeMultiplier;
        this.stepFactor = stepFactor;
        this.maxSteps = maxSteps;
        this.refineSteps = refineSteps;
        this.stepper = stepper;
        this.budget = budget;
        this.out = out;
    }

    /**
     * Raises the load by the step factor until the first failing step; when the first step fails already, lowers it
     * (by the factor squared) until one passes.
     */
    void climb(SearchSteps steps, double rate, int m) throws IOException, InterruptedException {
        while (steps.index < maxSteps && !budget.over(steps.startNanos, steps.index)) {
            steps.index++;
            CapacityStep st = stepper.step(steps.index, false, rate, m);
            steps.all.add(st);
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
                CapacitySearch.progress(out, "[%d] failed with no passing step yet: stepping down", steps.index);
                continue;
            }
            steps.good = st;
            if (steps.bad != null) {
                return; // stepped down to a passing step: the bracket is found
            }
            if (vary == CapacitySearch.Vary.RATE) {
                rate *= stepFactor;
            } else if (m >= maxTimeMultiplier) {
                steps.ceiling = String.format(Locale.ROOT, "reached the maximum time multiplier %d without saturating "
                        + "(step %d passed at M=%d); raise --start-rate or --instance-multiplier to load the target further",
                        maxTimeMultiplier, steps.index, m);
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
        return (int) Math.min(AmplificationPlan.MAX_TIME_MULTIPLIER,
                AmplificationPlan.MAX_SAMPLES_PER_POINT / Math.max(1, instanceMultiplier));
    }

    /** Narrows the bracket between the last passing and the first failing step ({@code refineSteps} steps at most). */
    void refine(SearchSteps steps) throws IOException, InterruptedException {
        for (int k = 0; steps.bad != null && steps.good != null && k < refineSteps && !budget.over(steps.startNanos, steps.index); k++) {
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
            steps.index++;
            CapacityStep st = stepper.step(steps.index, true, rate, m);
            steps.all.add(st);
            if (st.passed()) {
                steps.good = st;
            } else {
                steps.bad = st;
            }
        }
    }
}
