package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link SeriesSchedule}: active series as a pure function of the time since the step's input started. */
class SeriesScheduleTest {

    private static final Duration INTERVAL = Duration.ofSeconds(30);

    private static long[] instances(SeriesSchedule s, long base, long... seconds) {
        long[] out = new long[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            out[i] = s.instances(base, seconds[i] * 1000);
        }
        return out;
    }

    @Test
    void steadyHoldsTheBaseCount() {
        SeriesSchedule s = new SeriesSchedule(SeriesSchedule.Mode.STEADY, INTERVAL, 4);
        assertThat(instances(s, 10, 0, 7, 29, 30, 59, 3600)).containsExactly(10, 10, 10, 10, 10, 10);
    }

    @Test
    void gradualRampsFromBaseToTwiceOverOneIntervalAndBackOverTheNext() {
        SeriesSchedule s = new SeriesSchedule(SeriesSchedule.Mode.GRADUAL, INTERVAL, 4);
        // up: 10 + 10 × (t mod 30) / 30; down: 20 − 10 × (t mod 30) / 30; period 60 s
        assertThat(instances(s, 10, 0, 3, 15, 27, 30, 33, 45, 57, 60, 75))
                .containsExactly(10, 11, 15, 19, 20, 19, 15, 11, 10, 15);
        assertThat(s.factor(15_000)).isEqualTo(1.5);
        assertThat(s.factor(45_000)).isEqualTo(1.5);
    }

    @Test
    void doubleHalveAlternatesTwiceAndHalfTheBaseEveryInterval() {
        SeriesSchedule s = new SeriesSchedule(SeriesSchedule.Mode.DOUBLE_HALVE, INTERVAL, 4);
        assertThat(instances(s, 10, 0, 29, 30, 59, 60, 90, 119)).containsExactly(20, 20, 5, 5, 20, 5, 5);
    }

    @Test
    void spikeMultipliesTheBaseForTheLastFifthOfEachInterval() {
        SeriesSchedule s = new SeriesSchedule(SeriesSchedule.Mode.SPIKE, INTERVAL, 4);
        // base for 24 s, then 4 × base for 6 s, every 30 s
        assertThat(instances(s, 10, 0, 23, 24, 29, 30, 53, 54, 59)).containsExactly(10, 10, 40, 40, 10, 10, 40, 40);
        assertThat(new SeriesSchedule(SeriesSchedule.Mode.SPIKE, INTERVAL, 1.5).instances(10, 25_000))
                .isEqualTo(15);
    }

    @Test
    void neverFewerThanOneInstance() {
        SeriesSchedule s = new SeriesSchedule(SeriesSchedule.Mode.DOUBLE_HALVE, INTERVAL, 4);
        assertThat(s.instances(1, 30_000)).isEqualTo(1);
    }

    @Test
    void modesParseByTheirFlagNames() {
        assertThat(SeriesSchedule.Mode.parse("double-halve")).isEqualTo(SeriesSchedule.Mode.DOUBLE_HALVE);
        assertThat(SeriesSchedule.Mode.parse("gradual")).isEqualTo(SeriesSchedule.Mode.GRADUAL);
        assertThat(SeriesSchedule.Mode.parse("spike")).isEqualTo(SeriesSchedule.Mode.SPIKE);
        assertThat(SeriesSchedule.Mode.parse("steady")).isEqualTo(SeriesSchedule.Mode.STEADY);
        assertThatThrownBy(() -> SeriesSchedule.Mode.parse("churn"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--series-mode must be steady, gradual, double-halve or spike, got 'churn'");
        assertThatThrownBy(() -> new SeriesSchedule(SeriesSchedule.Mode.SPIKE, Duration.ofMillis(500), 4))
                .hasMessage("--series-change-interval must be >= 1s, got 500ms");
        assertThatThrownBy(() -> new SeriesSchedule(SeriesSchedule.Mode.SPIKE, INTERVAL, 1))
                .hasMessage("--spike-multiplier must be > 1, got 1.0");
    }
}
