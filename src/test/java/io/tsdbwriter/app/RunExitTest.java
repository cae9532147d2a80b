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
        return new Intake() {
            @Override
            public void run() {
            }

            @Override
            public void stop() {
            }

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
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), true, false)).isTrue();
    }

    @Test
    void aPartitionLeftShortOrAnUnreadShortfallIsStillAStop() {
        TopicPartition tp = new TopicPartition("t", 0);
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of(tp, new Shortfall(tp, 5, 10))), true, false)).isFalse();
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(null), true, false)).isFalse();
    }

    @Test
    void aReplayOrAnUnsignalledRunIsNeverTakenForFinishedByAnEmptyShortfall() {
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), true, true)).as("later passes may remain").isFalse();
        assertThat(RunExit.signalAfterLastCommit(stoppedEarly(Map.of()), false, false)).isFalse();
    }
}
