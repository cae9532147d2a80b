package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** First-unacked bookkeeping of one SegmentConsumer (DESIGN §4). */
class AckTrackerTest {

    /** Opens a batch at {@code first}, reads up to {@code readTo} and registers it. */
    private static AckTracker.Pending batch(AckTracker t, long first, long readTo) {
        t.openBatchAt(first);
        t.readTo(readTo);
        return t.registerOpenBatch();
    }

    @Test
    void startsAtStartOffset() {
        AckTracker t = new AckTracker(2500);

        assertThat(t.firstUnacked()).isEqualTo(2500);
        assertThat(t.pendingBatches()).isZero();
    }

    @Test
    void readPositionIsFirstUnackedWhenNothingPending() {
        AckTracker t = new AckTracker(0);
        t.readTo(40);

        assertThat(t.firstUnacked()).isEqualTo(40);
    }

    @Test
    void openBatchHoldsFirstUnacked() {
        AckTracker t = new AckTracker(0);
        t.openBatchAt(10);
        t.readTo(50);

        assertThat(t.firstUnacked()).isEqualTo(10);
    }

    @Test
    void pendingBatchHoldsFirstUnacked() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending p = batch(t, 10, 20);
        t.readTo(50);

        assertThat(p.firstOffset()).isEqualTo(10);
        assertThat(t.firstUnacked()).isEqualTo(10);
        assertThat(t.pendingBatches()).isEqualTo(1);
    }

    @Test
    void completingOnlyBatchMovesToReadPosition() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending p = batch(t, 10, 20);

        assertThat(t.complete(p)).isTrue();
        assertThat(t.firstUnacked()).isEqualTo(20);
        assertThat(t.pendingBatches()).isZero();
    }

    @Test
    void outOfOrderCompletionDoesNotMoveUntilHeadCompletes() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        AckTracker.Pending b = batch(t, 10, 20);
        AckTracker.Pending c = batch(t, 20, 30);

        assertThat(t.complete(c)).isFalse();
        assertThat(t.firstUnacked()).isZero();
        assertThat(t.complete(b)).isFalse();
        assertThat(t.firstUnacked()).isZero();
        assertThat(t.pendingBatches()).isEqualTo(1);

        assertThat(t.complete(a)).isTrue();
        assertThat(t.firstUnacked()).isEqualTo(30);
        assertThat(t.pendingBatches()).isZero();
    }

    @Test
    void headCompletionMovesOnlyToNextUnfinishedBatch() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        AckTracker.Pending b = batch(t, 10, 20);
        batch(t, 20, 30);

        t.complete(b);
        assertThat(t.complete(a)).isTrue();

        assertThat(t.firstUnacked()).isEqualTo(20);
        assertThat(t.pendingBatches()).isEqualTo(1);
    }

    @Test
    void openBatchHoldsFirstUnackedAfterPendingComplete() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        t.openBatchAt(12);
        t.readTo(15);

        t.complete(a);

        assertThat(t.firstUnacked()).isEqualTo(12);
    }

    @Test
    void recordStraddlingTwoBatchesStaysUnackedUntilBothComplete() {
        AckTracker t = new AckTracker(0);
        // record at offset 7 has many points: the first fill batch a, the rest open batch b at the same offset
        t.openBatchAt(0);
        AckTracker.Pending a = t.registerOpenBatch();
        t.openBatchAt(7);
        t.readTo(8);
        AckTracker.Pending b = t.registerOpenBatch();

        t.complete(a);
        assertThat(t.firstUnacked()).isEqualTo(7);

        t.complete(b);
        assertThat(t.firstUnacked()).isEqualTo(8);
    }

    @Test
    void recordStraddlingTwoBatchesWhenSecondCompletesFirst() {
        AckTracker t = new AckTracker(0);
        t.openBatchAt(5);
        AckTracker.Pending a = t.registerOpenBatch();
        t.openBatchAt(7);
        t.readTo(8);
        AckTracker.Pending b = t.registerOpenBatch();

        assertThat(t.complete(b)).isFalse();
        assertThat(t.firstUnacked()).isEqualTo(5);

        assertThat(t.complete(a)).isTrue();
        assertThat(t.firstUnacked()).isEqualTo(8);
    }

    @Test
    void readToAfterSegmentEndJumpsToNextOwnedSegment() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 1000);
        t.readTo(3000); // P = 3: this consumer's next segment starts at 3000

        assertThat(t.firstUnacked()).isZero();
        t.complete(a);
        assertThat(t.firstUnacked()).isEqualTo(3000);
    }

    @Test
    void rejectedRecordsBeforeABatchAreCoveredByIt() {
        AckTracker t = new AckTracker(0);
        t.readTo(5); // offsets 0..4 rejected at read time: no batch
        AckTracker.Pending a = batch(t, 5, 6);

        assertThat(t.firstUnacked()).isEqualTo(5);
        t.complete(a);
        assertThat(t.firstUnacked()).isEqualTo(6);
    }

    @Test
    void registeringWithoutOpenBatchFails() {
        AckTracker t = new AckTracker(0);

        assertThatThrownBy(t::registerOpenBatch).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void registeringClosesTheOpenBatch() {
        AckTracker t = new AckTracker(0);
        t.openBatchAt(3);
        t.registerOpenBatch();

        assertThatThrownBy(t::registerOpenBatch).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void completingTwiceIsHarmless() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        batch(t, 10, 20);

        assertThat(t.complete(a)).isTrue();
        assertThat(t.complete(a)).isFalse();
        assertThat(t.firstUnacked()).isEqualTo(10);
    }

    @Test
    void abandonFreezesFirstUnackedAgainstLaterCompletions() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        AckTracker.Pending b = batch(t, 10, 20);

        t.abandon();
        t.complete(a);
        t.complete(b);
        t.readTo(500);

        assertThat(t.firstUnacked()).isZero();
    }

    @Test
    void abandonKeepsProgressMadeBeforeIt() {
        AckTracker t = new AckTracker(0);
        AckTracker.Pending a = batch(t, 0, 10);
        AckTracker.Pending b = batch(t, 10, 20);
        t.complete(a);

        t.abandon();
        t.complete(b);

        assertThat(t.firstUnacked()).isEqualTo(10);
    }
}
