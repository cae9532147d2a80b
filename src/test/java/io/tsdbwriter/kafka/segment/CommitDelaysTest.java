package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.IngestDelay;
import io.tsdbwriter.metrics.IngestDelay.Stage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The committed stage: an acknowledged batch reaches it with the first commit above its last record, whatever order the
 * batches were acknowledged in; a partition that commits nothing (a replay) keeps nothing.
 */
class CommitDelaysTest {

    private static final long T = 1_795_300_800_000L;

    private final AtomicLong now = new AtomicLong(T);
    private final IngestDelay delay = new IngestDelay(new SimpleMeterRegistry(), now::get);

    @Test
    void aCommitCoversTheBatchesWhoseLastRecordLiesBelowIt() {
        CommitDelays c = new CommitDelays(delay);
        c.measure();
        c.acknowledged(199, T + 1_000); // acknowledged out of order (lanes, parallel writes)
        c.acknowledged(99, T);
        c.acknowledged(299, IngestDelay.NONE); // no record time: not kept
        assertThat(c.waiting()).isEqualTo(2);

        now.set(T + 20_000);
        c.committed(100); // covers [.., 99]
        assertThat(delay.timer(Stage.COMMITTED).count()).isEqualTo(1);
        assertThat(delay.timer(Stage.COMMITTED).totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(20_000);
        c.committed(199); // 199 itself is not below it
        assertThat(delay.timer(Stage.COMMITTED).count()).isEqualTo(1);

        now.set(T + 31_000);
        c.committed(200);
        assertThat(delay.timer(Stage.COMMITTED).count()).isEqualTo(2);
        assertThat(delay.timer(Stage.COMMITTED).totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(20_000 + 30_000);
        assertThat(c.waiting()).isZero();
        assertThat(delay.timer(Stage.ACKNOWLEDGED).count())
                .as("the other stage")
                .isZero();
    }

    @Test
    void withoutCommitsMeasuredNothingIsKept() {
        CommitDelays c = new CommitDelays(delay);
        c.acknowledged(10, T);
        assertThat(c.waiting()).isZero();
        c.committed(100);
        assertThat(delay.timer(Stage.COMMITTED).count()).isZero();
    }
}
