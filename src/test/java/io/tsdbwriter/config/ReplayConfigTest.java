package io.tsdbwriter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The replay flags of docs/capacity-testing.md "Capacity testing": parsing and the errors that name the flag. */
class ReplayConfigTest {

    @Test
    void windowBoundsAreOffsetsOrRfc3339Times() {
        assertThat(ReplayConfig.WindowBound.parse("--from", "offset:42"))
                .isEqualTo(new ReplayConfig.WindowBound(ReplayConfig.WindowBound.Kind.OFFSET, 42));
        assertThat(ReplayConfig.WindowBound.parse("--from", "2026-11-24T09:00:00Z"))
                .isEqualTo(new ReplayConfig.WindowBound(ReplayConfig.WindowBound.Kind.TIME, 1_795_510_800_000L));
        assertThat(ReplayConfig.WindowBound.parse("--to", "2026-11-24T10:00:00+01:00")
                        .value())
                .isEqualTo(1_795_510_800_000L);
        assertThat(ReplayConfig.WindowBound.parse("--from", "offset:7")).hasToString("offset:7");
    }

    @Test
    void aBadBoundNamesItsFlag() {
        assertThatThrownBy(() -> ReplayConfig.WindowBound.parse("--from", "offset:-1"))
                .hasMessageContaining("--from");
        assertThatThrownBy(() -> ReplayConfig.WindowBound.parse("--to", "yesterday"))
                .hasMessageContaining("--to")
                .hasMessageContaining("RFC 3339");
    }

    @Test
    void rebaseTimeIsNowOrATime() {
        assertThat(ReplayConfig.RebaseTime.parse("now")).isEqualTo(ReplayConfig.RebaseTime.NOW);
        assertThat(ReplayConfig.RebaseTime.NOW.resolve(123)).isEqualTo(123);
        assertThat(ReplayConfig.RebaseTime.parse("2026-11-24T09:00:00Z").resolve(123))
                .isEqualTo(1_795_510_800_000L);
        assertThatThrownBy(() -> ReplayConfig.RebaseTime.parse("soon")).hasMessageContaining("--rebase-time");
    }

    @Test
    void loopIsACountOrForever() {
        assertThat(ReplayConfig.parseLoops("3")).isEqualTo(3);
        assertThat(ReplayConfig.parseLoops("forever")).isEqualTo(ReplayConfig.FOREVER);
        assertThatThrownBy(() -> ReplayConfig.parseLoops("0")).hasMessageContaining("--loop");
    }

    @Test
    void aReplayIsAnyOfFromToLoopOrRebaseButNotRateOrChurnAlone() {
        assertThat(ReplayConfig.none().replay()).isFalse();
        assertThat(new ReplayConfig(null, null, null, 1, null, 1000, Duration.ofMinutes(5)).replay())
                .isFalse();
        assertThat(new ReplayConfig(null, null, null, 2, null, 0, null).replay())
                .isTrue();
        assertThat(new ReplayConfig(null, null, ReplayConfig.RebaseTime.NOW, 1, null, 0, null).replay())
                .isTrue();
        assertThat(new ReplayConfig(ReplayConfig.WindowBound.parse("--from", "offset:0"), null, null, 1, null, 0, null)
                        .replay())
                .isTrue();
    }

    @Test
    void inconsistentSettingsAreRefusedWithTheirFlag() {
        assertThatThrownBy(() -> new ReplayConfig(null, null, null, 1, Duration.ofHours(1), 0, null))
                .hasMessageContaining("--replay-duration bounds a replay");
        assertThatThrownBy(() -> new ReplayConfig(null, null, null, 1, null, -1, null))
                .hasMessageContaining("--max-samples-per-second");
        assertThatThrownBy(() -> new ReplayConfig(null, null, null, 1, null, Double.NaN, null))
                .hasMessageContaining("--max-samples-per-second");
        assertThatThrownBy(() -> new ReplayConfig(null, null, null, 1, null, 0, Duration.ofMillis(10)))
                .hasMessageContaining("--churn-interval");
        assertThatThrownBy(() -> new ReplayConfig(
                        ReplayConfig.WindowBound.parse("--from", "offset:9"),
                        ReplayConfig.WindowBound.parse("--to", "offset:3"),
                        null,
                        1,
                        null,
                        0,
                        null))
                .hasMessageContaining("lies after --to");
    }
}
