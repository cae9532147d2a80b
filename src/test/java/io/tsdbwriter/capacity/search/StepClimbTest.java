package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.capacity.Bottleneck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** The order of a capacity search's steps, with steps that pass or fail by M alone (no process runs). */
class StepClimbTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    private final List<Integer> proposed = new ArrayList<>();

    private static CapacityStep step(int index, boolean refine, int m, boolean passed) {
        Bottleneck.Verdict verdict = new Bottleneck.Verdict(passed ? Bottleneck.Resource.INPUT : Bottleneck.Resource.TARGET_CPU,
                passed ? "keeping up" : "target busy", "", List.of(), "-");
        return new CapacityStep(index, refine, m, 1000, 60_000.0 * m, 60_000.0 * m, 1, 0.01, 0.02, 0, 0, 0, false, 0.1, 0.1, 2,
                0, 8, 0.5, passed, verdict, 0, 60_000, null, null);
    }

    /** A search by M at 1,000 points/s and N whose steps pass while {@code passes} says so. */
    private StepClimb climb(int n, double stepFactor, int maxSteps, IntPredicate passes) {
        StepClimb.Stepper stepper = (index, refine, rate, m) -> {
            proposed.add(m);
            return step(index, refine, m, passes.test(m));
        };
        return new StepClimb(CapacitySearch.Vary.TIME_MULTIPLIER, StepClimb.maxTimeMultiplier(n), stepFactor, maxSteps, 3, stepper,
                (start, done) -> false, out);
    }

    @Test
    void aSearchByMThatNeverSaturatesStopsAtTheMaximumAndSaysSo() throws Exception {
        StepClimb order = climb(1, 2, 12, m -> true);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 300);
        order.refine(steps);

        assertThat(proposed).as("every M a writer accepts (1..3600)").allMatch(m -> m <= 3600);
        assertThat(proposed).containsExactly(300, 600, 1200, 2400, 3600);
        assertThat(steps.bad).isNull();
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("reached the maximum time multiplier 3600 without saturating");
        CapacitySearch.Result r = steps.result();
        assertThat(r.ceiling()).startsWith("reached the maximum time multiplier 3600 without saturating (step 5 passed at M=3600)");
        assertThat(r.best().timeMultiplier()).isEqualTo(3600);
    }

    @Test
    void theMaximumFollowsTheSamplesPerPointBound() throws Exception {
        // N = 1,000: M x N <= 1,000,000 makes 1,000 the largest M
        StepClimb order = climb(1000, 1.5, 12, m -> true);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 500);
        assertThat(proposed).containsExactly(500, 750, 1000);
        assertThat(steps.result().ceiling()).startsWith("reached the maximum time multiplier 1000 without saturating");
    }

    @Test
    void aFailingStepAtTheMaximumIsRefinedBelowIt() throws Exception {
        StepClimb order = climb(1, 2, 12, m -> m < 3000);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1000);
        order.refine(steps);
        assertThat(proposed).containsExactly(1000, 2000, 3600, 2800, 3200, 3000);
        assertThat(proposed).allMatch(m -> m <= 3600);
        assertThat(steps.result().ceiling()).isNull();
        assertThat(steps.good.timeMultiplier()).isEqualTo(2800);
        assertThat(steps.bad.timeMultiplier()).isEqualTo(3000);
    }

    @Test
    void aSearchByRateIsNotBoundByM() throws Exception {
        List<Double> rates = new ArrayList<>();
        StepClimb order = new StepClimb(CapacitySearch.Vary.RATE, StepClimb.maxTimeMultiplier(1), 2, 4, 0, (index, refine, rate, m) -> {
            rates.add(rate);
            return step(index, refine, m, true);
        }, (start, done) -> false, out);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 3600);
        assertThat(rates).containsExactly(1000.0, 2000.0, 4000.0, 8000.0);
        assertThat(steps.result().ceiling()).isNull();
    }
}
