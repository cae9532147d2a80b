package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A process's part of a target's insert capacity from its share of the group's work (issue 42). */
class WorkShareTest {

    @Test
    void theMembersPartsOfTheCapacityAddUpToAtMostIt() {
        // 4 partitions over 3 members: 2, 1, 1 of vminsert's 4 slots
        assertThat(new WorkShare(2, 4, "partitions").of(4)).isEqualTo(2);
        assertThat(new WorkShare(1, 4, "partitions").of(4)).isEqualTo(1);
        // 6 partitions over 3 members: 4 x 2/6 = 1.33 -> 1 each, 3 of 4 slots
        assertThat(new WorkShare(2, 6, "partitions").of(4)).isEqualTo(1);
        // a share group of 3 processes x 2 share consumers, vminsert with 16 slots: 5 each, 15 of 16
        assertThat(new WorkShare(2, 6, "share consumers").of(16)).isEqualTo(5);
        for (int capacity = 1; capacity <= 64; capacity++) {
            for (int partitions = 1; partitions <= 24; partitions++) {
                for (int members = 1; members <= partitions && members <= capacity; members++) {
                    int sum = 0;
                    for (int m = 0; m < members; m++) { // round-robin split of the partitions
                        int held = partitions / members + (m < partitions % members ? 1 : 0);
                        sum += new WorkShare(held, partitions, "partitions").of(capacity);
                    }
                    int c = capacity;
                    int p = partitions;
                    int n = members;
                    assertThat(sum)
                            .as("capacity %d, %d partitions over %d members", c, p, n)
                            .isLessThanOrEqualTo(capacity)
                            .isPositive();
                }
            }
        }
    }

    @Test
    void theWholeWorkTakesTheWholeCapacityAndNoWorkTheLeast() {
        assertThat(WorkShare.WHOLE.of(12)).isEqualTo(12);
        assertThat(new WorkShare(6, 6, "partitions").of(4)).isEqualTo(4);
        assertThat(new WorkShare(0, 6, "partitions").of(4)).isEqualTo(1);
        assertThat(new WorkShare(0, 0, "partitions").of(4)).isEqualTo(1);
        assertThat(new WorkShare(1, 12, "partitions").of(4)).isEqualTo(1); // floor 0, at least 1
        assertThat(new WorkShare(1, 12, "partitions")).hasToString("1 of 12 partitions");
        assertThat(new WorkShare(0, 0, "partitions")).hasToString("no partitions yet");
    }

    @Test
    void aShareAboveTheWholeIsRefused() {
        assertThatThrownBy(() -> new WorkShare(3, 2, "partitions")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkShare(-1, 2, "partitions")).isInstanceOf(IllegalArgumentException.class);
    }
}
