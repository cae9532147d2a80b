package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.Shortfall;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RunExitTest {

    /** An intake with an end, stopped before it reached it, whose shortfall read back from Kafka is {@code shortfall}. */
    private static Intake stoppedEarly(Map<TopicPartition, Shortfall> shortfall) {
        return stoppedEarly(shortfall, null);
    }

    /** As {@link #stoppedEarly(Map)}, saying in {@code words} what the shortfall does not (a replay's). */
    private static Intake stoppedEarly(Map<TopicPartition, Shortfall> shortfall, String words) {
        return new Intake() {
            @Override
            public String stoppedShort() {
                return words;
            }

            @Override
            public void run() {}

            @Override
            public void stop() {}

            @Override
            public boolean hasEnd() {
                return true;
            }

            @Override
            public boolean reachedEnd() {
                return false;
            }

            @Override
            public boolean startFailed() {
                return false;
            }

            @Override
            public boolean cleanStop() {
                return true;
            }

            @Override
            public boolean kafkaReachable() {
                return true;
            }

            @Override
            public long logEndTotal() {
                return 0;
            }

            @Override
            public Map<TopicPartition, Shortfall> shortfall() {
                return shortfall;
            }
        };
    }

    @Test
    void aSignalWhoseDrainCommittedEveryRecordedEndIsAFinishedJob() {
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), true, false))
                .isTrue();
    }

    @Test
    void aPartitionLeftShortOrAnUnreadShortfallIsStillAStop() {
        TopicPartition tp = new TopicPartition("t", 0);
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of(tp, new Shortfall(tp, 5, 10))), true, false))
                .isFalse();
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(null), true, false))
                .isFalse();
    }

    @Test
    void aReplayOrAnUnsignalledRunIsNeverTakenForFinishedByAnEmptyShortfall() {
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), true, true))
                .as("later passes may remain")
                .isFalse();
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), false, false))
                .isFalse();
    }

    @Test
    void aReplayStoppedShortSaysWhatIsShortInWordsNotZeroPartitions() {
        String notStored =
                "every pass written, but not yet known stored: the durability window (16s) had not passed when --drain-timeout ended";
        assertThat(RunExit.whatIsShort(stoppedEarly(Map.of(), notStored))).isEqualTo(": " + notStored);
        TopicPartition tp = new TopicPartition("t", 0);
        assertThat(RunExit.whatIsShort(stoppedEarly(Map.of(tp, new Shortfall(tp, 0, 10)), "pass 2 of 3 not begun")))
                .isEqualTo(": 1 partition(s) short of their recorded end, 10 record(s) in all; pass 2 of 3 not begun");
        assertThat(RunExit.whatIsShort(stoppedEarly(null))).contains("before Kafka answered");
    }

    @Test
    void writesHeldAtTheStopAreOneLineSayingWhereTheDataIsAndWhatWritesItAgain() {
        String service = RunExit.heldLine(new RunExit.Held(3, 1800), false, false);
        assertThat(service)
                .contains("3 batch(es), 1800 sample(s) held", "not committed past", "the next start writes them again")
                .doesNotContain("\n");
        assertThat(RunExit.heldLine(new RunExit.Held(1, 6), true, false))
                .contains("1 batch(es), 6 sample(s) held", "run it again");
        assertThat(RunExit.heldLine(new RunExit.Held(1, 6), false, true)).contains("released to the share group");
    }
}
