package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The commit watermark of a partition (DESIGN §4). */
class WatermarkTest {

    private static final long NO_STOP = Long.MAX_VALUE;

    @Test
    void singleTrackerWatermarkIsItsFirstUnacked() {
        AckTracker t = new AckTracker(2500);
        t.readTo(2700);

        assertThat(Watermark.of(List.of(t), NO_STOP)).isEqualTo(2700);
    }

    @Test
    void watermarkIsMinimumOverTrackers() {
        AckTracker t0 = new AckTracker(3000);
        AckTracker t1 = new AckTracker(4000);
        AckTracker t2 = new AckTracker(2500);
        t0.readTo(3400);
        t1.readTo(4100);
        t2.openBatchAt(2600);
        t2.readTo(2900);

        assertThat(Watermark.of(List.of(t0, t1, t2), NO_STOP)).isEqualTo(2600);
    }

    @Test
    void watermarkMovesWhenSlowestTrackerCompletes() {
        AckTracker fast = new AckTracker(1000);
        fast.readTo(1900);
        AckTracker slow = new AckTracker(0);
        slow.openBatchAt(0);
        slow.readTo(1000);
        AckTracker.Pending p = slow.registerOpenBatch();
        slow.readTo(2000); // slow consumer's next segment (P = 2)

        assertThat(Watermark.of(List.of(fast, slow), NO_STOP)).isZero();
        slow.complete(p);
        assertThat(Watermark.of(List.of(fast, slow), NO_STOP)).isEqualTo(1900);
    }

    @Test
    void outOfOrderCompletionInOneTrackerHoldsWatermark() {
        AckTracker t = new AckTracker(0);
        t.openBatchAt(0);
        t.readTo(10);
        AckTracker.Pending a = t.registerOpenBatch();
        t.openBatchAt(10);
        t.readTo(20);
        AckTracker.Pending b = t.registerOpenBatch();
        AckTracker other = new AckTracker(1000);

        t.complete(b);

        assertThat(Watermark.of(List.of(t, other), NO_STOP)).isZero();
        t.complete(a);
        assertThat(Watermark.of(List.of(t, other), NO_STOP)).isEqualTo(20);
    }

    @Test
    void watermarkIsCappedAtStopOffset() {
        AckTracker t0 = new AckTracker(0);
        AckTracker t1 = new AckTracker(1000);
        t0.readTo(3000);
        t1.readTo(4000);

        assertThat(Watermark.of(List.of(t0, t1), 2500)).isEqualTo(2500);
    }

    @Test
    void stopOffsetAboveTrackersDoesNotRaiseWatermark() {
        AckTracker t = new AckTracker(0);
        t.readTo(300);

        assertThat(Watermark.of(List.of(t), 2500)).isEqualTo(300);
    }

    @Test
    void abandonedTrackerFreezesWatermark() {
        AckTracker t = new AckTracker(0);
        t.openBatchAt(100);
        t.readTo(200);
        AckTracker.Pending p = t.registerOpenBatch();
        AckTracker other = new AckTracker(1000);
        other.readTo(1500);

        t.abandon();
        t.complete(p);
        t.readTo(2000);

        assertThat(Watermark.of(List.of(t, other), NO_STOP)).isEqualTo(100);
    }
}
