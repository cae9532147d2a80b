package io.tsdbwriter.capacity.search;

import java.time.Duration;
import java.util.Locale;

/**
 * The number of active series a capacity step's input holds over time ({@code capacity --series-mode}), as a factor of
 * the base count, while the step's samples/s hold (avalanche's {@code --series-operation-mode}). With {@code t} the
 * time since the step's input started, {@code T} the change interval and {@code k = floor(t / T)}:
 * <ul>
 *   <li>{@link Mode#STEADY}: 1 (the base count throughout);</li>
 *   <li>{@link Mode#GRADUAL}: a triangle of period 2T, 1 → 2 linearly over interval k even, 2 → 1 over k odd;</li>
 *   <li>{@link Mode#DOUBLE_HALVE}: 2 for k even, ½ for k odd (a 4× swing every interval);</li>
 *   <li>{@link Mode#SPIKE}: 1, and the spike multiplier for the last fifth of every interval
 *       ({@code t mod T ≥ 0.8 T}).</li>
 * </ul>
 * The count is of whole instances: {@code max(1, round(base × factor))}. Immutable; thread-safe.
 *
 * @param mode            the schedule
 * @param changeInterval  T, ≥ 1 s ({@code --series-change-interval})
 * @param spikeMultiplier the factor of {@link Mode#SPIKE}, > 1 ({@code --spike-multiplier})
 * @throws IllegalArgumentException when the interval is under 1 s or the multiplier not above 1 (the flags' messages)
 */
public record SeriesSchedule(Mode mode, Duration changeInterval, double spikeMultiplier) {

    /** The schedules of {@code --series-mode}. */
    public enum Mode {
        STEADY("steady"),
        GRADUAL("gradual"),
        DOUBLE_HALVE("double-halve"),
        SPIKE("spike");

        private final String flag;

        Mode(String flag) {
            this.flag = flag;
        }

        /** The flag's spelling, e.g. {@code double-halve}. */
        public String flag() {
            return flag;
        }

        /** @throws IllegalArgumentException for a name that is none of the modes (the flag's message) */
        public static Mode parse(String text) {
            for (Mode m : values()) {
                if (m.flag.equals(text)) {
                    return m;
                }
            }
            throw new IllegalArgumentException(
                    "--series-mode must be steady, gradual, double-halve or spike, got '" + text + "'");
        }
    }

    public SeriesSchedule {
        if (changeInterval.toMillis() < 1000) {
            throw new IllegalArgumentException(
                    "--series-change-interval must be >= 1s, got " + changeInterval.toMillis() + "ms");
        }
        if (!(spikeMultiplier > 1) || Double.isInfinite(spikeMultiplier)) {
            throw new IllegalArgumentException("--spike-multiplier must be > 1, got " + spikeMultiplier);
        }
    }

    /** The base count throughout: today's input. */
    public static SeriesSchedule steady() {
        return new SeriesSchedule(Mode.STEADY, Duration.ofSeconds(30), 4);
    }

    /** The factor of the base count at {@code elapsedMs} (≥ 0) since the step's input started. */
    public double factor(long elapsedMs) {
        long t = Math.max(0, elapsedMs);
        long interval = changeInterval.toMillis();
        long k = t / interval;
        long into = t % interval;
        return switch (mode) {
            case STEADY -> 1;
            case GRADUAL -> k % 2 == 0 ? 1 + (double) into / interval : 2 - (double) into / interval;
            case DOUBLE_HALVE -> k % 2 == 0 ? 2 : 0.5;
            case SPIKE -> into * 5 >= interval * 4 ? spikeMultiplier : 1;
        };
    }

    /** Active instances at {@code elapsedMs}: {@code max(1, round(base × factor))}. */
    public long instances(long base, long elapsedMs) {
        return Math.max(1, Math.round(base * factor(elapsedMs)));
    }

    /** One line for the progress output, e.g. {@code double-halve every 30s}. */
    public String describe() {
        return switch (mode) {
            case STEADY -> "steady";
            case SPIKE ->
                String.format(
                        Locale.ROOT,
                        "spike x%s for the last fifth of every %s",
                        trim(spikeMultiplier),
                        CapacitySearch.human(changeInterval));
            default -> mode.flag() + " every " + CapacitySearch.human(changeInterval);
        };
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
