package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Segment arithmetic of DESIGN §4. */
class SegmentPlanTest {

    private static final long NO_STOP = Long.MAX_VALUE;

    /** The first {@code count} segments consumer {@code i} reads. */
    private static List<Long> segments(SegmentPlan plan, int consumer, int count) {
        List<Long> ks = new ArrayList<>();
        long k = plan.firstSegment(consumer);
        for (int n = 0; n < count; n++) {
            ks.add(k);
            k = plan.nextSegment(k);
        }
        return ks;
    }

    @Test
    void firstSegmentStartsAtCommittedOffsetInsideIt() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 2500);

        assertThat(plan.firstSegment(0)).isEqualTo(2);
        assertThat(plan.start(2)).isEqualTo(2500);
        assertThat(plan.end(2)).isEqualTo(3000);
    }

    @Test
    void laterSegmentsStartAtTheirBoundary() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 2500);

        assertThat(plan.nextSegment(2)).isEqualTo(3);
        assertThat(plan.start(3)).isEqualTo(3000);
        assertThat(plan.end(3)).isEqualTo(4000);
    }

    @Test
    void committedOffsetOnBoundaryStartsWholeSegment() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 3000);

        assertThat(plan.firstSegment(0)).isEqualTo(3);
        assertThat(plan.start(3)).isEqualTo(3000);
    }

    @Test
    void committedOffsetZeroStartsAtSegmentZero() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.firstSegment(0)).isZero();
        assertThat(plan.start(0)).isZero();
        assertThat(plan.end(0)).isEqualTo(1000);
    }

    @Test
    void segmentOfIsOffsetDividedBySize() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 0);

        assertThat(plan.segmentOf(0)).isZero();
        assertThat(plan.segmentOf(999)).isZero();
        assertThat(plan.segmentOf(1000)).isEqualTo(1);
        assertThat(plan.segmentOf(2500)).isEqualTo(2);
    }

    @Test
    void parallelismThreeFromZeroAssignsKModP() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 0);

        assertThat(segments(plan, 0, 3)).containsExactly(0L, 3L, 6L);
        assertThat(segments(plan, 1, 3)).containsExactly(1L, 4L, 7L);
        assertThat(segments(plan, 2, 3)).containsExactly(2L, 5L, 8L);
    }

    @Test
    void parallelismThreeFromMidSegmentTwo() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 2500);

        assertThat(segments(plan, 2, 3)).containsExactly(2L, 5L, 8L);
        assertThat(segments(plan, 0, 3)).containsExactly(3L, 6L, 9L);
        assertThat(segments(plan, 1, 3)).containsExactly(4L, 7L, 10L);
        assertThat(plan.start(2)).isEqualTo(2500);
        assertThat(plan.start(3)).isEqualTo(3000);
        assertThat(plan.start(4)).isEqualTo(4000);
    }

    @Test
    void parallelismThreeFromSegmentFour() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 4000);

        assertThat(plan.firstSegment(0)).isEqualTo(6);
        assertThat(plan.firstSegment(1)).isEqualTo(4);
        assertThat(plan.firstSegment(2)).isEqualTo(5);
    }

    @Test
    void parallelismThreeFromSegmentSevenMidway() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 7001);

        assertThat(plan.firstSegment(0)).isEqualTo(9);
        assertThat(plan.firstSegment(1)).isEqualTo(7);
        assertThat(plan.firstSegment(2)).isEqualTo(8);
        assertThat(plan.start(7)).isEqualTo(7001);
    }

    @Test
    void parallelConsumersCoverEveryOffsetFromCommittedExactlyOnce() {
        for (long committed : new long[] {0, 1, 999, 1000, 2500, 4000, 7001}) {
            SegmentPlan plan = new SegmentPlan(1000, 3, committed);
            int[] owners = new int[12_000];
            for (int i = 0; i < 3; i++) {
                for (long k : segments(plan, i, 4)) {
                    for (long o = plan.start(k); o < plan.end(k) && o < owners.length; o++) {
                        owners[(int) o]++;
                    }
                }
            }
            for (int o = 0; o < 10_000; o++) {
                assertThat(owners[o])
                        .as("offset %d from committed %d", o, committed)
                        .isEqualTo(o < committed ? 0 : 1);
            }
        }
    }

    @Test
    void rejectsConsumerIndexOutsideParallelism() {
        SegmentPlan plan = new SegmentPlan(1000, 3, 0);

        assertThatThrownBy(() -> plan.firstSegment(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.firstSegment(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void notReadBeforePositionReachesEnd() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.isRead(2, 2999, NO_STOP)).isFalse();
    }

    @Test
    void readWhenPositionReachesEnd() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.isRead(2, 3000, NO_STOP)).isTrue();
    }

    @Test
    void segmentCompletesWhenPositionPassesGap() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        // offset 2999 holds a transaction marker: the position jumps from 2998 straight past the end
        assertThat(plan.isRead(2, 2998, NO_STOP)).isFalse();
        assertThat(plan.isRead(2, 3001, NO_STOP)).isTrue();
    }

    @Test
    void stopOffsetInsideSegmentCapsItsEnd() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.isRead(2, 2499, 2500)).isFalse();
        assertThat(plan.isRead(2, 2500, 2500)).isTrue();
    }

    @Test
    void stopOffsetBeyondSegmentDoesNotShortenIt() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.isRead(2, 2999, 5000)).isFalse();
        assertThat(plan.isRead(2, 3000, 5000)).isTrue();
    }

    @Test
    void emptyLogFromStartIsReadAtOnceWithStopAtZero() {
        SegmentPlan plan = new SegmentPlan(1000, 1, 0);

        assertThat(plan.isRead(0, 0, 0)).isTrue();
    }

    @Test
    void rejectsSegmentSizeBelowOne() {
        assertThatThrownBy(() -> new SegmentPlan(0, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsParallelismBelowOne() {
        assertThatThrownBy(() -> new SegmentPlan(1000, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsNegativeCommittedOffset() {
        assertThatThrownBy(() -> new SegmentPlan(1000, 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
