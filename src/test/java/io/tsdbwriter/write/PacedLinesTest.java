package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A key's first events are said at once, the next at most once per interval with every event since the key's last
 * line; keys are paced apart; a forgotten key starts over.
 */
class PacedLinesTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aKeysLineIsDueAtOnceThenOncePerIntervalWithTheEventsSinceTheLastLine() {
        AtomicLong clock = new AtomicLong(-7 * SECOND); // nanoTime may be negative
        PacedLines<String> lines = new PacedLines<>(Duration.ofMinutes(1), clock::get);

        assertThat(lines.note("a", 1)).as("the first event: at once").isEqualTo(1);
        assertThat(lines.note("b", 3)).as("another key: at once").isEqualTo(3);
        clock.addAndGet(59 * SECOND);
        assertThat(lines.note("a", 1)).isZero();
        assertThat(lines.note("a", 2)).isZero();
        clock.addAndGet(SECOND - 1);
        assertThat(lines.note("a", 1)).as("a nanosecond short of the minute").isZero();
        clock.addAndGet(1);
        assertThat(lines.note("a", 1)).as("the 4 unsaid and this one").isEqualTo(5);
        assertThat(lines.note("a", 1)).isZero();
        assertThat(lines.note("b", 1)).as("b's minute is up too").isEqualTo(1);
    }

    @Test
    void aForgottenKeyIsSaidAtOnceAgainAndForgetTellsWhetherALineWasSaid() {
        AtomicLong clock = new AtomicLong();
        PacedLines<String> lines = new PacedLines<>(Duration.ofMinutes(1), clock::get);

        assertThat(lines.forget("a")).as("never noted").isFalse();
        assertThat(lines.note("a", 1)).isEqualTo(1);
        assertThat(lines.note("a", 1)).isZero();
        assertThat(lines.forget("a")).isTrue();
        assertThat(lines.note("a", 1))
                .as("the unsaid event was dropped with the key")
                .isEqualTo(1);
    }

    @Test
    void theIntervalMustBePositive() {
        assertThatThrownBy(() -> new PacedLines<String>(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a paced line's interval must be positive, got PT0S");
    }
}
