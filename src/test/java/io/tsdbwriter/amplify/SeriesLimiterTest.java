package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.amplify.SeriesLimiter.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The series limiter as a table: limits, a sequence of series at clock times, and the verdict of each. */
class SeriesLimiterTest {

    private static final long H = SeriesLimiter.HOUR_MS;
    /** 2026-12-06T00:00:00Z: a UTC day's start. */
    private static final long DAY = 1_796_515_200_000L;

    /** A series {@code name} at {@code atMs} after {@link #DAY}'s start, and what the limiter must say. */
    record Step(long atMs, String name, Verdict expected) {}

    private static Step at(long atMs, String name, Verdict expected) {
        return new Step(atMs, name, expected);
    }

    private static final Verdict A = Verdict.ADMITTED;
    private static final Verdict HOUR = Verdict.HOURLY;
    private static final Verdict DAYV = Verdict.DAILY;

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of(
                        "hourly 2: a third new series is dropped, the known ones pass",
                        2,
                        0,
                        List.of(at(0, "a", A), at(1, "b", A), at(2, "c", HOUR), at(3, "a", A), at(4, "b", A))),
                Arguments.of(
                        "hourly 2: the next hour starts from 0, and a series of the last hour is new in it",
                        2,
                        0,
                        List.of(
                                at(0, "a", A),
                                at(1, "b", A),
                                at(2, "c", HOUR),
                                at(H - 1, "c", HOUR),
                                at(H, "c", A),
                                at(H + 1, "d", A),
                                at(H + 2, "a", HOUR),
                                at(H + 3, "c", A))),
                Arguments.of(
                        "hourly windows are UTC hours, not an hour from the first series",
                        1,
                        0,
                        List.of(at(H - 10, "a", A), at(H - 5, "b", HOUR), at(H, "b", A))),
                Arguments.of(
                        "daily 2 across hours: the day's series pass every hour, a third waits for the next day",
                        0,
                        2,
                        List.of(
                                at(0, "a", A),
                                at(H, "b", A),
                                at(2 * H, "c", DAYV),
                                at(23 * H, "a", A),
                                at(24 * H - 1, "c", DAYV),
                                at(24 * H, "c", A))),
                Arguments.of(
                        "both: hourly 1 and daily 2, hourly said first; a series the hour dropped takes no daily room",
                        1,
                        2,
                        List.of(
                                at(0, "a", A),
                                at(1, "b", HOUR),
                                at(H, "b", A),
                                at(2 * H, "a", A),
                                at(3 * H, "c", DAYV),
                                at(24 * H, "c", A))),
                Arguments.of(
                        "a limit of 0 is none: only the other one counts",
                        0,
                        3,
                        List.of(at(0, "a", A), at(1, "b", A), at(2, "c", A), at(3, "d", DAYV))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void eachSeriesGetsItsVerdict(String name, long hourly, long daily, List<Step> steps) {
        AtomicLong clock = new AtomicLong();
        SeriesLimiter limiter = new SeriesLimiter(hourly, daily, clock::get);
        List<Verdict> got = new ArrayList<>();
        for (Step s : steps) {
            clock.set(DAY + s.atMs());
            got.add(limiter.admit(new long[] {hash(s.name())}, 1, s::name));
        }
        assertThat(got).isEqualTo(steps.stream().map(Step::expected).toList());
    }

    @Test
    void aSeriesVariantsAreAdmittedTogetherOrNotAtAll() {
        AtomicLong clock = new AtomicLong(DAY);
        SeriesLimiter limiter = new SeriesLimiter(5, 0, clock::get);
        long[] three = {hash("a-0"), hash("a-1"), hash("a-2")};
        long[] otherThree = {hash("b-0"), hash("b-1"), hash("b-2")};
        assertThat(limiter.admit(three, 3, () -> "a")).isEqualTo(Verdict.ADMITTED);
        assertThat(limiter.admit(otherThree, 3, () -> "b"))
                .as("3 + 3 > 5: none of b is added")
                .isEqualTo(Verdict.HOURLY);
        assertThat(limiter.hourlySeries()).isEqualTo(3);
        assertThat(limiter.admit(three, 3, () -> "a")).isEqualTo(Verdict.ADMITTED);
        assertThat(limiter.admit(new long[] {hash("c-0"), hash("c-1")}, 2, () -> "c"))
                .isEqualTo(Verdict.ADMITTED);
        assertThat(limiter.hourlySeries()).isEqualTo(5);
        clock.addAndGet(SeriesLimiter.HOUR_MS);
        assertThat(limiter.hourlySeries()).as("a new hour").isZero();
    }

    @Test
    void theCurrentCountsAndLimitsAreReadForTheGauges() {
        AtomicLong clock = new AtomicLong(DAY);
        SeriesLimiter limiter = new SeriesLimiter(0, 10, clock::get);
        for (int i = 0; i < 4; i++) {
            limiter.admit(new long[] {hash("s" + i)}, 1, () -> "s");
        }
        assertThat(limiter.hourlyLimit()).isZero();
        assertThat(limiter.dailyLimit()).isEqualTo(10);
        assertThat(limiter.hourlySeries()).isZero();
        assertThat(limiter.dailySeries()).isEqualTo(4);
        assertThat(limiter.hour()).isEqualTo(DAY / SeriesLimiter.HOUR_MS);
    }

    /** The Bloom filter's error as documented: past the limit at most about 0.24 % of new series pass, below it ~0.08 %. */
    @Test
    void theBloomFiltersErrorStaysWithinWhatTheJavadocStates() {
        int max = 100_000;
        SeriesLimiter limiter = new SeriesLimiter(max, 0, () -> DAY);
        long admitted = 0;
        long[] one = new long[1];
        for (int i = 0; i < 3 * max; i++) {
            one[0] = SeriesCache.hash(("series-" + i).getBytes(), ("series-" + i).length());
            if (limiter.admit(one, 1, () -> "s") == Verdict.ADMITTED) {
                admitted++;
            }
        }
        assertThat(limiter.hourlySeries()).isEqualTo(max);
        long beyond = admitted - max;
        assertThat(beyond)
                .as("series admitted past the limit (false positives) of %d new ones", 2 * max)
                .isBetween(0L, (long) (0.0024 * 2 * max + 0.001 * max));
    }

    @Test
    void aSmallLimitsFilterIsLargeEnoughToBeExact() {
        SeriesLimiter limiter = new SeriesLimiter(50, 0, () -> DAY);
        long admitted = 0;
        for (int i = 0; i < 100_000; i++) {
            if (limiter.admit(new long[] {hash("user-" + i)}, 1, () -> "s") == Verdict.ADMITTED) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(50);
    }

    @Test
    void limitsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> new SeriesLimiter(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SeriesLimiter(-1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SeriesLimiter(SeriesLimiter.MAX_LIMIT + 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static long hash(String s) {
        byte[] b = s.getBytes();
        return SeriesCache.hash(b, b.length);
    }
}
