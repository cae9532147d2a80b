package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AckSignalTest {

    @Test
    void aSignalGivenWhileNobodyWaitsIsKeptForTheNextWaitOnly() throws InterruptedException {
        AckSignal s = new AckSignal();
        s.signal();
        s.signal();
        long t0 = System.nanoTime();
        s.await(Duration.ofSeconds(30)); // returns at once: the signal was kept
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                s.await(Duration.ofSeconds(30)); // one flag, not a count: this one waits for a new signal
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.join(200);
        assertThat(waiter.isAlive()).isTrue();
        s.signal();
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
    }

    @Test
    void signalsFromManyThreadsWakeTheWaiterEveryRound() throws InterruptedException {
        AckSignal s = new AckSignal();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> signallers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            signallers.add(Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {
                    s.signal();
                    Thread.yield();
                }
            }));
        }
        Duration timeout = Duration.ofSeconds(30);
        long longest = 0;
        for (int round = 0; round < 1_000; round++) {
            long t0 = System.nanoTime();
            s.await(timeout);
            longest = Math.max(longest, System.nanoTime() - t0);
        }
        stop.set(true);
        for (Thread t : signallers) {
            t.join();
        }
        // per round, not the sum: a loaded machine slows every round, only a lost wake-up waits out the timeout
        assertThat(Duration.ofNanos(longest))
                .as("the longest of 1,000 rounds, none waiting out its timeout")
                .isLessThan(timeout.dividedBy(3));
    }
}
