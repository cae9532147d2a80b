package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.durability.DurabilityClock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AckedRisesTest {

    private static DurabilityClock.State boundAt(long nanos) {
        return new DurabilityClock.State(0, nanos);
    }

    @Test
    void nothingIsKeptUntilEnabled() {
        AtomicLong wm = new AtomicLong(10);
        AckedRises rises = new AckedRises(wm::get);
        DurableOffsets durable = new DurableOffsets(0);
        rises.ackMoved();
        rises.drainTo(durable);
        assertThat(durable.acked()).isZero();
    }

    @Test
    void aRiseIsTimedAtTheAcknowledgementNotAtTheDrain() {
        AtomicLong wm = new AtomicLong(0);
        AckedRises rises = new AckedRises(wm::get);
        rises.enable();
        DurableOffsets durable = new DurableOffsets(0);
        long before = System.nanoTime();
        wm.set(100);
        rises.ackMoved();
        long after = System.nanoTime();
        wm.set(100);
        rises.ackMoved(); // no rise: not kept again
        wm.set(250);
        rises.ackMoved();
        rises.drainTo(durable);

        assertThat(durable.acked()).isEqualTo(250);
        assertThat(durable.oldestWaitingNanos()).isBetween(before, after);
        assertThat(durable.durable(boundAt(before - 1))).isZero(); // never before its acknowledgement
        assertThat(durable.durable(boundAt(System.nanoTime()))).isEqualTo(250);
    }

    @Test
    void aDrainTakesEachRiseOnce() {
        AtomicLong wm = new AtomicLong(5);
        AckedRises rises = new AckedRises(wm::get);
        rises.enable();
        rises.ackMoved();
        DurableOffsets durable = new DurableOffsets(0);
        rises.drainTo(durable);
        rises.drainTo(durable);
        assertThat(durable.durable(boundAt(System.nanoTime()))).isEqualTo(5);
        assertThat(durable.oldestWaitingNanos()).isEqualTo(-1);
    }

    @Test
    void writerThreadsAtOnceKeepOnlyRisingWatermarks() throws Exception {
        AtomicLong wm = new AtomicLong(0);
        AckedRises rises = new AckedRises(wm::get);
        rises.enable();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] writers = new Thread[4];
        for (int t = 0; t < writers.length; t++) {
            writers[t] = Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 1_000; i++) {
                    wm.incrementAndGet();
                    rises.ackMoved();
                }
            });
        }
        go.countDown();
        for (Thread w : writers) {
            w.join();
        }
        DurableOffsets durable = new DurableOffsets(0);
        rises.drainTo(durable);
        assertThat(durable.acked()).isEqualTo(4_000);
        assertThat(durable.durable(boundAt(System.nanoTime()))).isEqualTo(4_000);
    }
}
