package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TimestampCheckTest {

    private final AtomicLong now = new AtomicLong(2_000_000_000_000L);
    private final AtomicInteger reads = new AtomicInteger();
    private final TimestampCheck check = new TimestampCheck(new TimestampWindow(1_000_000_000_000L, 60_000), () -> {
        reads.incrementAndGet();
        return now.get();
    });

    @Test
    void readsTheClockOnlyForATimestampPastTheBoundItLastRead() {
        assertThat(check.contains(now.get())).isTrue();
        assertThat(reads).hasValue(1);
        for (int i = 0; i < 1000; i++) {
            assertThat(check.contains(now.get() - i)).isTrue();
        }
        assertThat(reads).as("timestamps below the bound read once").hasValue(1);
    }

    @Test
    void theBoundMovesWithTheClock() {
        assertThat(check.contains(now.get() + 60_000)).isTrue();
        assertThat(check.contains(now.get() + 60_001)).isFalse();
        now.addAndGet(1_000);
        assertThat(check.contains(now.get() + 60_000))
                .as("a timestamp within the new bound")
                .isTrue();
        assertThat(check.contains(now.get() + 60_001)).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "before the earliest, 999999999999, false",
        "the earliest, 1000000000000, true",
        "Long.MAX_VALUE, 9223372036854775807, false",
        "negative, -1, false"
    })
    void refusesWhatTheWindowRefusesAsOfTheDecodingTime(String name, long timestampMs, boolean contained) {
        assertThat(check.contains(timestampMs)).as(name).isEqualTo(contained);
    }
}
