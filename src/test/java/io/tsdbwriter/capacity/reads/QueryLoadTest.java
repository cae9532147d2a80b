package io.tsdbwriter.capacity.reads;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The read load's runner with a virtual clock: queries start on schedule whether or not earlier ones finished
 * (open-loop), round-robin; every query started ends as done, error or timeout; latencies are the answered queries'.
 */
class QueryLoadTest {

    private static final RangeQuery A = new RangeQuery("a", Duration.ofHours(1), Duration.ofSeconds(60));
    private static final RangeQuery B = new RangeQuery("b", Duration.ofHours(24), Duration.ofMinutes(5));

    /** A clock that jumps to each scheduled start, and lets the schedule run {@code ticks} starts before it blocks. */
    private static final class VirtualPacer implements QueryLoad.Pacer {
        final AtomicLong now = new AtomicLong();
        final Semaphore ticks = new Semaphore(0);
        final List<Long> starts = Collections.synchronizedList(new ArrayList<>());
        /** Calls of sleepUntil: the schedule is at its (entered)th start, every earlier one handled. */
        final AtomicLong entered = new AtomicLong();

        @Override
        public long nanoTime() {
            return now.get();
        }

        /** Waits (spinning, no timed sleep) until the schedule handled {@code n} starts and waits for the next tick. */
        void awaitHandled(long n) {
            while (entered.get() <= n) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void sleepUntil(long nanos) throws InterruptedException {
            entered.incrementAndGet();
            ticks.acquire(); // blocks (interruptibly) once the test's ticks are used up
            now.accumulateAndGet(nanos, Math::max);
            starts.add(nanos);
        }
    }

    @Test
    void queriesStartOnScheduleWhileEarlierOnesHangAndEachEndsCounted() throws Exception {
        VirtualPacer pacer = new VirtualPacer();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch fourInFlight = new CountDownLatch(4);
        List<String> sent = Collections.synchronizedList(new ArrayList<>());
        QueryLoad.QueryCall call = (q, endMs) -> {
            sent.add(q.promql() + "@" + endMs);
            fourInFlight.countDown();
            try {
                release.await(); // no query ends until all four started: the schedule does not wait for answers
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return q == A
                    ? QueryLoad.Outcome.OK
                    : sent.size() % 2 == 0 ? QueryLoad.Outcome.ERROR : QueryLoad.Outcome.TIMEOUT;
        };
        try (QueryLoad load =
                new QueryLoad(List.of(A, B), 4, call, pacer, () -> 1_000_000L, TimeUnit.SECONDS.toNanos(30))) {
            load.start();
            pacer.ticks.release(4);
            assertThat(fourInFlight.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(pacer.starts).containsExactly(0L, 250_000_000L, 500_000_000L, 750_000_000L); // 4 queries/s
            assertThat(sent).containsExactlyInAnyOrder("a@1000000", "b@1000000", "a@1000000", "b@1000000");
            pacer.now.set(1_000_000_000L);
            release.countDown();
            QueryLoad.Figures f = load.stop();
            assertThat(f.started()).isEqualTo(4);
            assertThat(f.offeredPerSecond()).isEqualTo(4.0);
            assertThat(f.donePerSecond()).isEqualTo(2.0);
            assertThat(f.errors() + f.timeouts()).isEqualTo(2);
            assertThat(f.failureRatio()).isEqualTo(0.5);
            assertThat(load.running()).isFalse();
        }
    }

    @Test
    void latencyPercentilesAreTheAnsweredQueriesInAnHdrHistogram() throws Exception {
        VirtualPacer pacer = new VirtualPacer();
        AtomicLong n = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        // each answer takes (k mod 100 + 1) ms of the virtual clock: 1..100 ms, uniformly; run on the schedule's thread
        QueryLoad.QueryCall call = (q, endMs) -> {
            long k = n.getAndIncrement();
            pacer.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(k % 100 + 1));
            if (k == 999) {
                done.countDown();
            }
            return QueryLoad.Outcome.OK;
        };
        // run serially the answers put the schedule ~50 s behind by its end: a query timeout above that sheds none
        try (QueryLoad load =
                new QueryLoad(List.of(A), 1000, call, pacer, () -> 0L, TimeUnit.SECONDS.toNanos(120), Runnable::run)) {
            load.start();
            pacer.ticks.release(1000);
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            QueryLoad.Figures f = load.stop();
            assertThat(f.started()).isEqualTo(1000);
            assertThat(f.errors()).isZero();
            assertThat(f.timeouts()).isZero();
            assertThat(f.p50Seconds()).isBetween(0.0495, 0.0505);
            assertThat(f.p90Seconds()).isBetween(0.0895, 0.0905);
            assertThat(f.p99Seconds()).isBetween(0.0985, 0.0995);
        }
    }

    @Test
    void aQueryThatThrowsIsAnErrorAndNothingAnsweredHasNoLatency() throws Exception {
        VirtualPacer pacer = new VirtualPacer();
        CountDownLatch two = new CountDownLatch(2);
        try (QueryLoad load = new QueryLoad(
                List.of(A),
                10,
                (q, endMs) -> {
                    two.countDown();
                    throw new IllegalStateException("boom");
                },
                pacer,
                () -> 0L,
                TimeUnit.SECONDS.toNanos(30))) {
            load.start();
            pacer.ticks.release(2);
            assertThat(two.await(30, TimeUnit.SECONDS)).isTrue();
            QueryLoad.Figures f = load.stop();
            assertThat(f.errors()).isEqualTo(2);
            assertThat(f.p99Seconds()).isNaN();
        }
    }

    @Test
    void queriesBeyondTheInFlightLimitAreShedAsTimeoutsNotSent() throws Exception {
        VirtualPacer pacer = new VirtualPacer();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch twoInFlight = new CountDownLatch(2);
        AtomicLong sent = new AtomicLong();
        QueryLoad.QueryCall call = (q, endMs) -> {
            sent.incrementAndGet();
            twoInFlight.countDown();
            try {
                release.await(); // the target answers nothing until the window closes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return QueryLoad.Outcome.TIMEOUT;
        };
        try (QueryLoad load =
                new QueryLoad(List.of(A), 100, call, pacer, () -> 0L, TimeUnit.SECONDS.toNanos(30), null, 2)) {
            load.start();
            pacer.ticks.release(2);
            assertThat(twoInFlight.await(30, TimeUnit.SECONDS)).isTrue();
            pacer.ticks.release(8);
            pacer.awaitHandled(10);
            release.countDown();
            QueryLoad.Figures f = load.stop();
            assertThat(sent.get()).isEqualTo(2);
            assertThat(f.started()).isEqualTo(10);
            assertThat(f.shed()).isEqualTo(8);
            assertThat(f.timeouts()).isEqualTo(10);
        }
    }

    @Test
    void aStartTheScheduleReachesLaterThanTheQueryTimeoutIsShed() throws Exception {
        VirtualPacer pacer = new VirtualPacer();
        AtomicLong sent = new AtomicLong();
        CountDownLatch first = new CountDownLatch(1);
        // the first query takes 3 s of the virtual clock on the schedule's thread: the next starts (10/s) fall > 1 s
        // late
        QueryLoad.QueryCall call = (q, endMs) -> {
            if (sent.incrementAndGet() == 1) {
                pacer.now.addAndGet(TimeUnit.SECONDS.toNanos(3));
                first.countDown();
            }
            return QueryLoad.Outcome.OK;
        };
        try (QueryLoad load =
                new QueryLoad(List.of(A), 10, call, pacer, () -> 0L, TimeUnit.SECONDS.toNanos(1), Runnable::run)) {
            load.start();
            pacer.ticks.release(21);
            assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();
            pacer.awaitHandled(21);
            QueryLoad.Figures f = load.stop();
            // starts at 0.1 … 1.9 s are more than 1 s behind the clock at 3 s: shed; 2.0 s is on time again
            assertThat(f.started()).isEqualTo(21);
            assertThat(f.shed()).isEqualTo(19);
            assertThat(sent.get()).isEqualTo(2);
        }
    }
}
