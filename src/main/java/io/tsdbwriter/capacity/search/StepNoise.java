package io.tsdbwriter.capacity.search;

/**
 * The noise side of one capacity step ({@link EfficiencyNoise}): how far its own window's halves disagreed, the noise
 * the search assumed when it judged the step, and which step it measured again. Immutable.
 *
 * @param halvesSpread efficiency of the window's second half minus its first half's (e.g. -0.012: 1.2 points lower;
 *                     NaN when a half had fewer than two readings)
 * @param assumed      the noise (efficiency, 0..1) the search assumed when it judged this step; NaN until judged
 * @param remeasureOf  the index of the step whose load this step measured again (its efficiency missed the minimum by
 *                     less than the noise), or 0 for a step of its own
 */
public record StepNoise(double halvesSpread, double assumed, int remeasureOf) {

    /** The same step judged with {@code noise} assumed, measuring again step {@code of} (0: none). */
    StepNoise judged(double noise, int of) {
        return new StepNoise(halvesSpread, noise, of);
    }
}
