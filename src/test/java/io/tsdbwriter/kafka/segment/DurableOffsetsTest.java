package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.durability.DurabilityClock;
import org.junit.jupiter.api.Test;

/** The durable watermark: only what was acknowledged a window before the clock's bound is committed (DESIGN §4). */
class DurableOffsetsTest {

    private static DurabilityClock.State boundAt(long nanos) {
        return new DurabilityClock.State(0, nanos);
    }

    @Test
    void nothingAcknowledgedLeavesTheStartDurable() {
        DurableOffsets d = new DurableOffsets(500);

        assertThat(d.durable(boundAt(1_000))).isEqualTo(500);
        assertThat(d.acked()).isEqualTo(500);
    }

    @Test
    void aWatermarkBecomesDurableOnlyOnceTheBoundPassesTheInstantItWasSeen() {
        DurableOffsets d = new DurableOffsets(0);
        d.acked(100, 1_000);
        d.acked(200, 2_000);
        d.acked(300, 3_000);

        assertThat(d.durable(boundAt(99))).isEqualTo(0);
        assertThat(d.durable(boundAt(100))).isEqualTo(1_000);
        assertThat(d.durable(boundAt(250))).isEqualTo(2_000);
        assertThat(d.acked()).isEqualTo(3_000);
        assertThat(d.oldestWaitingNanos()).isEqualTo(300);
        assertThat(d.durable(boundAt(10_000))).isEqualTo(3_000);
        assertThat(d.oldestWaitingNanos()).isEqualTo(-1);
    }

    @Test
    void aWatermarkSeenAgainWithoutRisingKeepsItsFirstInstant() {
        DurableOffsets d = new DurableOffsets(0);
        d.acked(100, 1_000);
        d.acked(900, 1_000); // the same watermark later: it was acknowledged at 100

        assertThat(d.durable(boundAt(100))).isEqualTo(1_000);
    }

    @Test
    void theDurableWatermarkNeverFallsBack() {
        DurableOffsets d = new DurableOffsets(0);
        d.acked(100, 1_000);
        assertThat(d.durable(boundAt(150))).isEqualTo(1_000);

        d.acked(200, 800); // a lower reading (abandoned trackers) is ignored
        assertThat(d.durable(boundAt(50))).isEqualTo(1_000);
        assertThat(d.durableSoFar()).isEqualTo(1_000);
    }

    @Test
    void nanoTimeWrappingPastLongMaxValueStillOrdersInstants() {
        DurableOffsets d = new DurableOffsets(0);
        long t = Long.MAX_VALUE - 10;
        d.acked(t, 1_000);

        assertThat(d.durable(boundAt(t - 1))).isEqualTo(0);
        assertThat(d.durable(boundAt(t + 20))).isEqualTo(1_000); // t + 20 overflows: nanoTime's own arithmetic
    }
}
