package io.tsdbwriter.capacity.search;

import java.io.IOException;
import java.io.PrintStream;

/**
 * The order of a capacity search's steps ({@link CapacitySearch}): the load rises by the step factor until the first
 * failing step (or falls by the factor squared until one passes when the first fails already), then refinement steps
 * narrow the bracket. What a step does is the {@link Stepper}'s; this class only decides the next rate or M.
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
    private final double stepFactor;
    private final int maxSteps;
    private final int refineSteps;
    private final Stepper stepper;
    private final Budget budget;
    private final PrintStream out;

    StepClimb(CapacitySearch.Vary vary, double stepFactor, int maxSteps, int refineSteps, Stepper stepper, Budget budget,
              PrintStream out) {
        this.vary = vary;
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
            } else {
                m = Math.max(m + 1, (int) Math.round(m * stepFactor));
            }
        }
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
