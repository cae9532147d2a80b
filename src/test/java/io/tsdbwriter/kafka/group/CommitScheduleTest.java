package io.tsdbwriter.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.kafka.group.CommitSchedule.Reason;
import io.tsdbwriter.kafka.group.CommitSchedule.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommitScheduleTest {

    private static final long SEGMENT = 1000;
    private static final long NONE = Long.MAX_VALUE;
    private static final long MS = 1_000_000L;

    @ParameterizedTest(name = "durable {0}, committed {1}, stop {2}, interval due {3}, window end due {4}: {5}")
    @CsvSource({
        // nothing above the last commit: never, whatever is due
        "500,  500,  -1,   true,  true,  NONE",
        "400,  500,  -1,   true,  true,  NONE",
        // a segment end crossed: at once
        "1000, 999,  -1,   false, false, SEGMENT_END",
        "2500, 500,  -1,   false, false, SEGMENT_END",
        "1000, 999,  -1,   true,  true,  SEGMENT_END",
        // the stop offset reached: at once
        "700,  500,  700,  false, false, SEGMENT_END",
        // within a segment: the interval, else the window's end, else not now
        "900,  500,  -1,   true,  false, INTERVAL",
        "900,  500,  -1,   true,  true,  INTERVAL",
        "900,  500,  -1,   false, true,  WINDOW_END",
        "900,  500,  -1,   false, false, NONE",
        "900,  500,  950,  false, false, NONE",
    })
    void aWatermarkIsCommittedWhenItsReasonIsDue(
            long durable, long committed, long stop, boolean intervalDue, boolean followDue, Reason expected) {
        assertThat(CommitSchedule.reason(
                        durable, committed, SEGMENT, stop < 0 ? NONE : stop, new Round(intervalDue, followDue)))
                .isEqualTo(expected);
    }

    @ParameterizedTest(
            name = "window {0}, interval {1} ms, {2} ms after the start: interval due {3}, window end due {4}")
    @CsvSource({
        // no window: only the interval
        "false, 5000, 0,    false, false",
        "false, 5000, 4999, false, false",
        "false, 5000, 5000, true,  false",
        // a window: a window end is due at once, the interval never
        "true,  5000, 0,    false, true",
        "true,  5000, 4999, false, true",
        "true,  5000, 5000, false, true",
        "true,  200,  0,    false, true",
    })
    void theFirstRound(boolean window, long intervalMs, long afterMs, boolean intervalDue, boolean followDue) {
        long t0 = 1_000 * MS;
        CommitSchedule s = new CommitSchedule(Duration.ofMillis(intervalMs), window, t0);
        assertThat(s.round(t0 + afterMs * MS)).isEqualTo(new Round(intervalDue, followDue));
    }

    @ParameterizedTest(name = "interval {0} ms: window ends committed {1} ms apart")
    @CsvSource({"5000, 1000", "1000, 1000", "200, 200"})
    void theSpacingIsASecondOrTheIntervalIfShorter(long intervalMs, long spacingMs) {
        CommitSchedule s = new CommitSchedule(Duration.ofMillis(intervalMs), true, 0);
        s.roundDone(s.round(0), 0, true);
        assertThat(s.round((spacingMs - 1) * MS).followDue()).isFalse();
        assertThat(s.round(spacingMs * MS).followDue()).isTrue();
    }

    @Test
    void aWindowEndCommitWaitsASecondForTheNextOneAndOnlyACommitRestartsTheWait() {
        long t0 = 0;
        CommitSchedule s = new CommitSchedule(Duration.ofSeconds(5), true, t0);
        Round r = s.round(t0 + 100 * MS);
        assertThat(r.followDue()).isTrue();
        s.roundDone(r, t0 + 100 * MS, false); // nothing had advanced: the next advance goes out at once
        assertThat(s.round(t0 + 200 * MS).followDue()).isTrue();
        s.roundDone(s.round(t0 + 200 * MS), t0 + 200 * MS, true);
        assertThat(s.round(t0 + 300 * MS).followDue()).isFalse();
        assertThat(s.round(t0 + 1199 * MS).followDue()).isFalse();
        assertThat(s.round(t0 + 1200 * MS).followDue()).isTrue();
    }

    @Test
    void theIntervalRestartsWhenDueCommittedOrNot() {
        CommitSchedule s = new CommitSchedule(Duration.ofSeconds(5), false, 0);
        Round r = s.round(5000 * MS);
        assertThat(r.intervalDue()).isTrue();
        s.roundDone(r, 5000 * MS, false);
        assertThat(s.round(9999 * MS).intervalDue()).isFalse();
        assertThat(s.round(10_000 * MS).intervalDue()).isTrue();
    }

    /**
     * A partition acknowledged steadily (one offset every 10 ms), its durable watermark what was acknowledged a window
     * (16 s) ago, the member's rounds every 100 ms, segments far apart: with a window every offset is committed within a
     * second and a round of its durability, never before it, and at most one commit per second goes out; without one
     * (the same acks counted durable at once) the interval decides, as it always did.
     */
    @ParameterizedTest(name = "window {0} s: commits at most {1} s after the durability, at most {2} commits in 60 s")
    @CsvSource({"16, 1.1, 60", "0, 5.1, 12"})
    void commitsFollowTheWindowsEnd(int windowSeconds, double maxWaitSeconds, int maxCommits) {
        long window = windowSeconds * 1000 * MS;
        long segment = 1_000_000; // never crossed here
        CommitSchedule s = new CommitSchedule(Duration.ofSeconds(5), windowSeconds > 0, 0);
        long committed = 0;
        List<long[]> commits = new ArrayList<>(); // {time, offset}
        long maxWait = 0;
        for (long now = 0; now <= 80_000 * MS; now += 100 * MS) {
            // offset o is acknowledged at o × 10 ms; everything acknowledged by now - window is durable
            long durable = Math.max(0, (now - window) / (10 * MS) + 1);
            Round r = s.round(now);
            Reason why = CommitSchedule.reason(durable, committed, segment, NONE, r);
            if (why != Reason.NONE) {
                // the oldest offset this commit covers was durable since (committed × 10 ms) + window
                long durableSince = committed * 10 * MS + window;
                assertThat(durableSince)
                        .as("never committed before it is durable")
                        .isLessThanOrEqualTo(now);
                if (now > window + 10_000 * MS) { // the steady state
                    maxWait = Math.max(maxWait, now - durableSince);
                }
                committed = durable;
                commits.add(new long[] {now, durable});
            }
            s.roundDone(r, now, why == Reason.WINDOW_END);
        }
        assertThat(maxWait / 1e9).isLessThanOrEqualTo(maxWaitSeconds);
        long inAMinute = commits.stream()
                .filter(c -> c[0] >= 20_000 * MS && c[0] < 80_000 * MS)
                .count();
        assertThat(inAMinute).isLessThanOrEqualTo(maxCommits);
        for (int i = 1; i < commits.size(); i++) {
            assertThat(commits.get(i)[0] - commits.get(i - 1)[0])
                    .as("commits a second apart at least")
                    .isGreaterThanOrEqualTo(1000 * MS);
        }
    }
}
