package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.IntPredicate;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The order of a capacity search's steps, with steps that pass or fail by M alone (no process runs). */
class StepClimbTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    private final List<Integer> proposed = new ArrayList<>();

    private static CapacityStep step(int index, boolean refine, int m, boolean passed) {
        Bottleneck.Verdict verdict = new Bottleneck.Verdict(
                passed ? Bottleneck.Resource.INPUT : Bottleneck.Resource.TARGET_CPU,
                passed ? "keeping up" : "target busy",
                "",
                List.of(),
                "-");
        return CapacityStep.builder()
                .index(index)
                .refine(refine)
                .timeMultiplier(m)
                .inputPointsPerSecond(1000)
                .expectedPerMinute(60_000.0 * m)
                .writtenPerMinute(60_000.0 * m)
                .efficiency(1)
                .p50Seconds(0.01)
                .p99Seconds(0.02)
                .permitWaitMs(0)
                .lagStart(0)
                .lagEnd(0)
                .lagGrowing(false)
                .writerCpuCores(0.1)
                .targetCpuCores(0.1)
                .targetCores(2)
                .insertsCurrent(0)
                .insertsCapacity(8)
                .loadAverage(0.5)
                .passed(passed)
                .verdict(verdict)
                .lost(0)
                .producedPoints(60_000)
                .build();
    }

    /** A search by M at 1,000 points/s and N whose steps pass while {@code passes} says so. */
    private StepClimb climb(int n, double stepFactor, int maxSteps, IntPredicate passes) {
        StepClimb.Stepper stepper = (index, refine, rate, m) -> {
            proposed.add(m);
            return step(index, refine, m, passes.test(m));
        };
        return new StepClimb(
                CapacitySearch.Vary.TIME_MULTIPLIER,
                StepClimb.maxTimeMultiplier(n),
                stepFactor,
                maxSteps,
                3,
                stepper,
                (start, done) -> false,
                new EfficiencyNoise(0.99, 5),
                out);
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
        assertThat(r.ceiling())
                .startsWith("reached the maximum time multiplier 3600 without saturating (step 5 passed at M=3600)");
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
        StepClimb order = new StepClimb(
                CapacitySearch.Vary.RATE,
                StepClimb.maxTimeMultiplier(1),
                2,
                4,
                0,
                (index, refine, rate, m) -> {
                    rates.add(rate);
                    return step(index, refine, m, true);
                },
                (start, done) -> false,
                new EfficiencyNoise(0.99, 5),
                out);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 3600);
        assertThat(rates).containsExactly(1000.0, 2000.0, 4000.0, 8000.0);
        assertThat(steps.result().ceiling()).isNull();
    }

    /**
     * A step of a search by rate: efficiency {@code efficiency} (passing at 99 %), the lag steady, p99 20 ms, the
     * efficiency of its window's halves {@code halvesSpread} apart.
     */
    private static CapacityStep rateStep(
            int index, boolean refine, double rate, double efficiency, double halvesSpread) {
        boolean passed = efficiency >= 0.99;
        Bottleneck.Verdict verdict = new Bottleneck.Verdict(
                passed ? Bottleneck.Resource.INPUT : Bottleneck.Resource.UNKNOWN,
                passed ? "keeping up" : "nothing saturated",
                "",
                List.of(),
                "-");
        return CapacityStep.builder()
                .index(index)
                .refine(refine)
                .timeMultiplier(1)
                .inputPointsPerSecond(rate)
                .expectedPerMinute(rate * 60)
                .writtenPerMinute(rate * 60 * efficiency)
                .efficiency(efficiency)
                .p50Seconds(0.01)
                .p99Seconds(0.02)
                .permitWaitMs(0)
                .lagStart(0)
                .lagEnd(0)
                .lagGrowing(false)
                .writerCpuCores(0.1)
                .targetCpuCores(0.1)
                .targetCores(2)
                .insertsCurrent(0)
                .insertsCapacity(8)
                .loadAverage(0.5)
                .passed(passed)
                .verdict(verdict)
                .lost(0)
                .producedPoints((long) rate * 20)
                .noise(new StepNoise(halvesSpread, Double.NaN, 0))
                .build();
    }

    /** A search by rate from 1,000 points/s (factor 2, 4 rising steps, one refinement) whose steps measure as {@code measured} says. */
    private StepClimb byRate(List<Double> rates, BiFunction<Double, Integer, double[]> measured) {
        return new StepClimb(
                CapacitySearch.Vary.RATE,
                StepClimb.maxTimeMultiplier(1),
                2,
                4,
                1,
                (index, refine, rate, m) -> {
                    rates.add(rate);
                    double[] effAndSpread = measured.apply(rate, (int)
                            rates.stream().filter(r -> r.equals(rate)).count());
                    return rateStep(index, refine, rate, effAndSpread[0], effAndSpread[1]);
                },
                (start, done) -> false,
                new EfficiencyNoise(0.99, 5),
                out);
    }

    @Test
    void aMissWithinTheNoiseIsMeasuredAgainAndTheSearchGoesOnWhenItPasses() throws Exception {
        List<Double> rates = new ArrayList<>();
        // 2,000 points/s misses 99 % by 0.9 % on its first measurement (the default noise 2 %), passes on the second;
        // 8,000 fails clearly (efficiency 80 %)
        StepClimb order = byRate(rates, (rate, nth) -> new double[] {
            rate < 1500 ? 1.0 : rate < 3000 ? (nth == 1 ? 0.981 : 0.995) : rate < 6000 ? 0.999 : 0.80, Double.NaN
        });
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1);

        assertThat(rates).containsExactly(1000.0, 2000.0, 2000.0, 4000.0, 8000.0);
        assertThat(steps.all.get(2).noise().remeasureOf())
                .as("step 3 re-measures step 2")
                .isEqualTo(2);
        assertThat(steps.all.get(1).noise().assumed()).isEqualTo(EfficiencyNoise.DEFAULT);
        assertThat(steps.all.get(4).noise().remeasureOf())
                .as("a clear miss is not re-measured")
                .isZero();
        assertThat(steps.good.inputPointsPerSecond()).isEqualTo(4000.0);
        assertThat(steps.bad.inputPointsPerSecond()).isEqualTo(8000.0);
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains(
                        "[2] efficiency 98.1% misses 99.0% by 0.9%, within the noise 2.0%: measuring the same load again"
                                + " (re-measure 1 of at most 2)");
    }

    @Test
    void aClearMissIsNotMeasuredAgain() throws Exception {
        List<Double> rates = new ArrayList<>();
        // the windows' halves measure a noise of 0.5 %: a miss by 0.9 % is beyond it
        StepClimb order = byRate(rates, (rate, nth) -> new double[] {rate < 1500 ? 1.0 : 0.981, 0.005});
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1);

        assertThat(rates).containsExactly(1000.0, 2000.0);
        assertThat(steps.bad.index()).isEqualTo(2);
        assertThat(steps.all.get(1).noise().assumed()).isCloseTo(0.005, Offset.offset(1e-12));
        assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain("measuring the same load again");
    }

    @Test
    void aLoadIsMeasuredAtMostThreeTimesAndThenCountsAsFailed() throws Exception {
        List<Double> rates = new ArrayList<>();
        // every measurement of 2,000 points/s misses by 0.5 % (within the default noise): two re-measurements, then
        // failed
        StepClimb order = byRate(rates, (rate, nth) -> new double[] {rate < 1200 ? 1.0 : 0.985, Double.NaN});
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1);

        assertThat(rates).containsExactly(1000.0, 2000.0, 2000.0, 2000.0);
        assertThat(steps.all.get(2).noise().remeasureOf()).isEqualTo(2);
        assertThat(steps.all.get(3).noise().remeasureOf()).isEqualTo(2);
        assertThat(steps.bad.index())
                .as("the last measurement of the failing load")
                .isEqualTo(4);
        order.refine(steps);
        // the refinement at the geometric mean (1,414 points/s) is measured on its own: it misses within the noise too
        assertThat(rates.subList(4, rates.size()))
                .containsExactly(Math.sqrt(2000.0 * 1000.0), Math.sqrt(2000.0 * 1000.0), Math.sqrt(2000.0 * 1000.0));
        assertThat(steps.result().steps()).hasSize(7);
        assertThat(steps.bad.index()).isEqualTo(7);
    }

    @Test
    void noReMeasurementStartsAfterTheTimeBudget() throws Exception {
        List<Double> rates = new ArrayList<>();
        StepClimb order = new StepClimb(
                CapacitySearch.Vary.RATE,
                StepClimb.maxTimeMultiplier(1),
                2,
                4,
                0,
                (index, refine, rate, m) -> {
                    rates.add(rate);
                    return rateStep(index, refine, rate, rate < 1500 ? 1.0 : 0.985, Double.NaN);
                },
                (start, done) -> done >= 2,
                new EfficiencyNoise(0.99, 5),
                out);
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1);
        assertThat(rates).containsExactly(1000.0, 2000.0);
        assertThat(steps.bad.index()).isEqualTo(2);
    }

    @Test
    void theNoiseIsTheRootMeanSquareOfTheWindowsHalvesSpread() {
        EfficiencyNoise noise = new EfficiencyNoise(0.99, 5);
        assertThat(noise.noise()).isEqualTo(EfficiencyNoise.DEFAULT);
        assertThat(noise.describe()).isEqualTo("noise: 2.0% efficiency (the default: no window's halves measured yet)");
        noise.add(rateStep(1, false, 1000, 1, 0.03));
        noise.add(rateStep(2, false, 1000, 1, -0.04));
        noise.add(rateStep(3, false, 1000, 1, Double.NaN));
        assertThat(noise.noise()).isCloseTo(Math.sqrt((0.03 * 0.03 + 0.04 * 0.04) / 2), Offset.offset(1e-12));
        assertThat(noise.describe())
                .isEqualTo("noise: 3.5% efficiency (root mean square of the efficiency difference between the "
                        + "first and the second half of 2 measured windows)");
        assertThat(noise.tooNoisy()).isNull(); // 3.5 % < 5 x the 1 % below 100 %
        noise.add(rateStep(4, false, 1000, 1, 0.6)); // a 5 s window of 10,000-sample batches
        assertThat(noise.tooNoisy())
                .startsWith("warning: the noise 34.8% is more than five times the room below 100% (1.0%)");
    }

    @Test
    void aStepWhoseWindowWasNotMeasuredIsMeasuredAgain() throws Exception {
        List<Double> rates = new ArrayList<>();
        // the first measurement of 1,000 points/s had fewer than two readings of the writer (efficiency unknown)
        StepClimb order = byRate(rates, (rate, nth) ->
                new double[] {rate < 1500 && nth == 1 ? Double.NaN : rate < 1500 ? 1.0 : 0.5, Double.NaN});
        SearchSteps steps = new SearchSteps(0);
        order.climb(steps, 1000, 1);

        assertThat(rates).containsExactly(1000.0, 1000.0, 2000.0);
        assertThat(steps.good.index()).isEqualTo(2);
        assertThat(steps.good.remeasureOf()).isEqualTo(1);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("[1] efficiency unknown (the window had fewer than two readings "
                        + "of the writer's /metrics): measuring the same load again (re-measure 1 of at most 2)");
    }
}
