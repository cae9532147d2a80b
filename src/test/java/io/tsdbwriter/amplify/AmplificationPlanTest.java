package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The load model of DESIGN §3. */
class AmplificationPlanTest {

    private static final long T = 1_795_300_800_000L;

    private static List<Long> timestamps(AmplificationPlan plan, long t) {
        List<Long> ts = new ArrayList<>();
        for (int i = 0; i < plan.timeMultiplier(); i++) {
            ts.add(plan.sampleTimestampMs(t, i));
        }
        return ts;
    }

    @Test
    void timeMultiplier12GivesFiveSecondSteps() {
        AmplificationPlan plan = AmplificationPlan.of(12, 1, Duration.ofSeconds(60));

        assertThat(timestamps(plan, T))
                .containsExactly(
                        T,
                        T + 5_000,
                        T + 10_000,
                        T + 15_000,
                        T + 20_000,
                        T + 25_000,
                        T + 30_000,
                        T + 35_000,
                        T + 40_000,
                        T + 45_000,
                        T + 50_000,
                        T + 55_000);
    }

    @Test
    void timeMultiplier6GivesTenSecondSteps() {
        AmplificationPlan plan = AmplificationPlan.of(6, 1, Duration.ofSeconds(60));

        assertThat(timestamps(plan, T)).containsExactly(T, T + 10_000, T + 20_000, T + 30_000, T + 40_000, T + 50_000);
    }

    @Test
    void samplesStayWithinOneSourceInterval() {
        AmplificationPlan plan = AmplificationPlan.of(3600, 1, Duration.ofSeconds(60));

        assertThat(plan.sampleTimestampMs(T, 0)).isEqualTo(T);
        assertThat(plan.sampleTimestampMs(T, 3599)).isEqualTo(T + 59_983);
    }

    @Test
    void nonDividingStepRoundsDownWithoutAccumulating() {
        AmplificationPlan plan = AmplificationPlan.of(7, 1, Duration.ofSeconds(60));

        // 60000 / 7 = 8571.43 ms: each sample is floor(i * 60000 / 7), never i * floor(60000 / 7)
        assertThat(timestamps(plan, T))
                .containsExactly(T, T + 8_571, T + 17_142, T + 25_714, T + 34_285, T + 42_857, T + 51_428);
    }

    @Test
    void sourceIntervalScalesSteps() {
        AmplificationPlan plan = AmplificationPlan.of(4, 1, Duration.ofSeconds(10));

        assertThat(timestamps(plan, T)).containsExactly(T, T + 2_500, T + 5_000, T + 7_500);
    }

    @Test
    void defaultSourceIntervalIsSixtySeconds() {
        assertThat(AmplificationPlan.DEFAULT_SOURCE_INTERVAL).isEqualTo(Duration.ofSeconds(60));
        assertThat(AmplificationPlan.relay().sourceIntervalMs()).isEqualTo(60_000L);
    }

    @Test
    void instanceVariantsKeepOriginalThenAppendIndex() {
        AmplificationPlan plan = AmplificationPlan.of(1, 4, Duration.ofSeconds(60));

        assertThat(plan.instanceVariants("node-0001"))
                .containsExactly("node-0001", "node-0001-1", "node-0001-2", "node-0001-3");
    }

    @Test
    void withOneInstanceVariantAMissingInstanceStaysMissing() {
        assertThat(AmplificationPlan.relay().instanceVariants(null)).containsExactly((String) null);
        assertThat(AmplificationPlan.of(12, 1, Duration.ofSeconds(60)).instanceVariants(""))
                .containsExactly((String) null);
        assertThat(AmplificationPlan.relay().instanceVariants("node-7")).containsExactly("node-7");
    }

    @Test
    void instanceVariantsUseUnknownWhenAbsent() {
        AmplificationPlan plan = AmplificationPlan.of(1, 3, Duration.ofSeconds(60));

        assertThat(plan.instanceVariants(null)).containsExactly("unknown", "unknown-1", "unknown-2");
    }

    @Test
    void instanceVariantsUseUnknownWhenEmpty() {
        AmplificationPlan plan = AmplificationPlan.of(1, 2, Duration.ofSeconds(60));

        assertThat(plan.instanceVariants("")).containsExactly("unknown", "unknown-1");
    }

    @Test
    void instanceVariantsReturnsFreshArrayOfLengthN() {
        AmplificationPlan plan = AmplificationPlan.of(1, 5, Duration.ofSeconds(60));

        String[] a = plan.instanceVariants("x");
        String[] b = plan.instanceVariants("x");

        assertThat(a).hasSize(5).isNotSameAs(b);
    }

    @Test
    void samplesPerPointIsMTimesN() {
        assertThat(AmplificationPlan.of(12, 100, Duration.ofSeconds(60)).samplesPerPoint())
                .isEqualTo(1_200L);
    }

    @Test
    void samplesPerPointAreBoundedSoNoCountOverflows() {
        assertThat(new AmplificationPlan(1000, 1000, 60_000).samplesPerPoint()).isEqualTo(1_000_000L);
        assertThatThrownBy(() -> new AmplificationPlan(3600, 100_000, 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "--time-multiplier x --instance-multiplier must be at most 1000000 samples per source point, got 3600 x 100000 = 360000000");
    }

    @Test
    void relayIsOneByOne() {
        AmplificationPlan relay = AmplificationPlan.relay();

        assertThat(relay.timeMultiplier()).isEqualTo(1);
        assertThat(relay.instanceMultiplier()).isEqualTo(1);
        assertThat(relay.samplesPerPoint()).isEqualTo(1L);
        assertThat(relay.sampleTimestampMs(T, 0)).isEqualTo(T);
        assertThat(relay.instanceVariants("node-7")).containsExactly("node-7");
    }

    @Test
    void ofConvertsDurationToMillis() {
        assertThat(AmplificationPlan.of(2, 3, Duration.ofMillis(1500))).isEqualTo(new AmplificationPlan(2, 3, 1500));
    }

    @Test
    void rejectsTimeMultiplierZero() {
        assertThatThrownBy(() -> new AmplificationPlan(0, 1, 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--time-multiplier");
    }

    @Test
    void rejectsTimeMultiplierAbove3600() {
        assertThatThrownBy(() -> new AmplificationPlan(3601, 1, 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--time-multiplier must be in 1..3600, got 3601");
    }

    @Test
    void acceptsTimeMultiplierBounds() {
        assertThat(new AmplificationPlan(1, 1, 60_000).timeMultiplier()).isEqualTo(1);
        assertThat(new AmplificationPlan(3600, 1, 60_000).timeMultiplier()).isEqualTo(3600);
    }

    @Test
    void rejectsInstanceMultiplierZero() {
        assertThatThrownBy(() -> new AmplificationPlan(1, 0, 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--instance-multiplier must be in 1..100000, got 0");
    }

    @Test
    void rejectsInstanceMultiplierAbove100000() {
        assertThatThrownBy(() -> new AmplificationPlan(1, 100_001, 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--instance-multiplier must be in 1..100000, got 100001");
    }

    @Test
    void rejectsNonPositiveSourceInterval() {
        assertThatThrownBy(() -> new AmplificationPlan(1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--source-interval must be positive, got 0 ms");
    }

    @Test
    void aChurnGenerationEndsEveryInstanceVariant() {
        AmplificationPlan plan = AmplificationPlan.of(1, 3, Duration.ofSeconds(60));

        assertThat(plan.instanceVariants("host", "-g3")).containsExactly("host-g3", "host-1-g3", "host-2-g3");
        assertThat(plan.instanceVariants(null, "-g0")).containsExactly("unknown-g0", "unknown-1-g0", "unknown-2-g0");
        assertThat(plan.instanceVariants("host", null)).containsExactly("host", "host-1", "host-2");
    }

    @Test
    void withChurnASeriesWithoutInstanceGetsOneEvenAtN1() {
        AmplificationPlan relay = AmplificationPlan.relay();

        assertThat(relay.instanceVariants(null, null)).containsExactly((String) null);
        assertThat(relay.instanceVariants(null, "-g2")).containsExactly("unknown-g2");
    }
}
