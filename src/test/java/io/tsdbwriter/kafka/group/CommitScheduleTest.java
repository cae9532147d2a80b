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

    @ParameterizedTest(name = "durable {0}, committed {1}, stop {2}, advance due {3}: {4}")
    @CsvSource({
        // nothing above the last commit: never, whatever is due
        "500,  500,  -1,   true,  NONE",
        "400,  500,  -1,   true,  NONE",
        // a segment end crossed: at once
        "1000, 999,  -1,   false, SEGMENT_END",
        "2500, 500,  -1,   false, SEGMENT_END",
        "1000, 999,  -1,   true,  SEGMENT_END",
        // the stop offset reached: at once
        "700,  500,  700,  false, SEGMENT_END",
        // within a segment: when the spacing has passed, else not now
        "900,  500,  -1,   true,  ADVANCED",
        "900,  500,  -1,   false, NONE",
        "900,  500,  950,  false, NONE",
    })
    void aWatermarkIsCommittedWhenItsReasonIsDue(
            long durable, long committed, long stop, boolean followDue, Reason expected) {
        assertThat(CommitSchedule.reason(durable, committed, SEGMENT, stop < 0 ? NONE : stop, new Round(followDue)))
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "interval {0} ms, {1} ms after the start: an advance is due")
    @CsvSource({"5000, 0", "5000, 4999", "5000, 5000", "200, 0"})
    void theFirstAdvanceIsCommittedAtOnce(long intervalMs, long afterMs) {
        long t0 = 1_000_000_000L;
        CommitSchedule s = new CommitSchedule(Duration.ofMillis(intervalMs), t0);
        assertThat(s.round(t0 + afterMs * MS)).isEqualTo(new Round(true));
    }

    @ParameterizedTest(name = "interval {0} ms: advances committed {1} ms apart")
    @CsvSource({"5000, 250", "1000, 250", "200, 200", "100, 100"})
    void theSpacingIsAQuarterSecondOrTheIntervalIfShorter(long intervalMs, long spacingMs) {
        CommitSchedule s = new CommitSchedule(Duration.ofMillis(intervalMs), 0);
        s.roundDone(0, true);
        assertThat(s.round((spacingMs - 1) * MS).followDue()).isFalse();
        assertThat(s.round(spacingMs * MS).followDue()).isTrue();
    }

    @Test
    void anAdvanceCommitWaitsAQuarterSecondForTheNextOneAndOnlyACommitRestartsTheWait() {
        long t0 = 0;
        CommitSchedule s = new CommitSchedule(Duration.ofSeconds(5), t0);
        Round r = s.round(t0 + 100 * MS);
        assertThat(r.followDue()).isTrue();
        s.roundDone(t0 + 100 * MS, false); // nothing had advanced: the next advance goes out at once
        assertThat(s.round(t0 + 200 * MS).followDue()).isTrue();
        s.roundDone(t0 + 200 * MS, true);
        assertThat(s.round(t0 + 300 * MS).followDue()).isFalse();
        assertThat(s.round(t0 + 449 * MS).followDue()).isFalse();
        assertThat(s.round(t0 + 450 * MS).followDue()).isTrue();
    }

    /**
     * A partition acknowledged steadily (one offset every 10 ms), its durable watermark what was acknowledged a window
     * ago (16 s; 0: at once, {@code --durability-window 0}), the member's rounds every 100 ms, segments far apart:
     * every offset is committed within the spacing (a quarter second) and a round of its durability, never before it, and
     * at most one commit per spacing goes out.
     */
    @ParameterizedTest(name = "window {0} s: commits at most {1} s after the durability, at most {2} commits in 60 s")
    @CsvSource({"16, 0.35, 240", "0, 0.35, 240"})
    void commitsFollowTheDurability(int windowSeconds, double maxWaitSeconds, int maxCommits) {
        long window = windowSeconds * 1000 * MS;
        long segment = 1_000_000; // never crossed here
        CommitSchedule s = new CommitSchedule(Duration.ofSeconds(5), 0);
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
            s.roundDone(now, why == Reason.ADVANCED);
        }
        assertThat(maxWait / 1e9).isLessThanOrEqualTo(maxWaitSeconds);
        long inAMinute = commits.stream()
                .filter(c -> c[0] >= 20_000 * MS && c[0] < 80_000 * MS)
                .count();
        assertThat(inAMinute).isLessThanOrEqualTo(maxCommits);
        for (int i = 1; i < commits.size(); i++) {
            assertThat(commits.get(i)[0] - commits.get(i - 1)[0])
                    .as("commits a spacing apart at least")
                    .isGreaterThanOrEqualTo(250 * MS);
        }
    }
}
