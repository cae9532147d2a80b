package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OrderedLanes}: per-series order (DESIGN §6 "Per-series order") against a MockWebServer on loopback.
 * No test sleeps: retry delays are recorded, not slept; waits are bounded upper limits, never timing assertions.
 */
class OrderedLanesTest {

    private static final long WAIT_S = 30;

    private MockWebServer server;
    private WriteClient client;
    private BatchWriter writer;
    private OrderedLanes lanes;
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    /** The bodies the server received, in the order it received them. */
    private final List<String> received = new CopyOnWriteArrayList<>();
    /** Requests of each lane (the body's first character) in flight at once, at most. */
    private final Map<Character, AtomicInteger> inFlight = new ConcurrentHashMap<>();

    private final Map<Character, Integer> maxInFlight = new ConcurrentHashMap<>();

    @BeforeEach
    void startServer() throws IOException {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        if (lanes != null) {
            lanes.close();
        }
        if (writer != null) {
            writer.close();
        }
        if (client != null) {
            client.close();
        }
        server.shutdown();
    }

    private OrderedLanes writer(int n, int permits) {
        client = new WriteClient(Duration.ofSeconds(30), 8, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())),
                client,
                new WritePermits(permits, 1 << 20),
                new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {}),
                OnWriteFailure.PAUSE,
                meters,
                false);
        lanes = new OrderedLanes(writer);
        lanes.open(n);
        return lanes;
    }

    private static WriteBatch<String, Void> batch(String body) {
        WriteBatch<String, Void> b = new WriteBatch<>(64);
        b.body().put(body.getBytes(StandardCharsets.UTF_8));
        b.addPoint(1, body);
        return b;
    }

    /** Answers every request with {@code answer(body)}, after {@code gate} opens, counting each lane's requests in flight. */
    private void serve(CountDownLatch gate, Function<String, MockResponse> answer) {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                String body = request.getBody().readUtf8();
                if (body.isEmpty()) {
                    return new MockResponse().setResponseCode(204); // the empty-request probe
                }
                char lane = body.charAt(0);
                int now =
                        inFlight.computeIfAbsent(lane, c -> new AtomicInteger()).incrementAndGet();
                maxInFlight.merge(lane, now, Math::max);
                received.add(body);
                try {
                    gate.await(WAIT_S, TimeUnit.SECONDS);
                    return answer.apply(body);
                } finally {
                    inFlight.get(lane).decrementAndGet();
                }
            }
        });
    }

    /** Counts how each batch ended; completes when {@code expected} batches did. */
    private static class Ends implements WriteListener<String, Void> {
        final List<String> written = new CopyOnWriteArrayList<>();
        final List<String> abandoned = new CopyOnWriteArrayList<>();
        final CountDownLatch done;

        Ends(int expected) {
            done = new CountDownLatch(expected);
        }

        @Override
        public void written(WriteBatch<String, Void> b) {
            written.add(b.source(0));
            done.countDown();
        }

        @Override
        public void rejected(WriteBatch<String, Void> b, List<Rejection<String>> r) {
            done.countDown();
        }

        @Override
        public void gaveUp(WriteBatch<String, Void> b, WriteOutcome o) {
            done.countDown();
        }

        @Override
        public void abandoned(WriteBatch<String, Void> b) {
            abandoned.add(b.source(0));
            done.countDown();
        }

        void await() throws InterruptedException {
            assertThat(done.await(WAIT_S, TimeUnit.SECONDS))
                    .as("every batch ended")
                    .isTrue();
        }
    }

    /** The lanes' count goes down once the lane's thread is back from the batch's end: wait for it (bounded). */
    private static void awaitEmpty(OrderedLanes w) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (w.queued() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(w.queued()).isZero();
    }

    @Test
    void aLaneSendsOneRequestAtATimeInTheOrderItsBatchesWereQueued() throws Exception {
        CountDownLatch open = new CountDownLatch(0);
        serve(open, body -> new MockResponse().setResponseCode(204));
        OrderedLanes w = writer(1, 4);
        Ends ends = new Ends(6);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sent.add("a" + i);
            w.submit(0, batch("a" + i), ends);
        }
        ends.await();
        assertThat(received).containsExactlyElementsOf(sent);
        assertThat(ends.written).containsExactlyElementsOf(sent);
        assertThat(maxInFlight.get('a'))
                .as("requests of one lane in flight at once")
                .isEqualTo(1);
        awaitEmpty(w);
    }

    @Test
    void lanesWriteInParallelWhilePermitsAllow() throws Exception {
        // the first request of each lane is answered only once both lanes' first requests arrived: two lanes in
        // parallel
        CountDownLatch bothArrived = new CountDownLatch(2);
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                received.add(request.getBody().readUtf8());
                bothArrived.countDown();
                assertThat(bothArrived.await(WAIT_S, TimeUnit.SECONDS)).isTrue();
                return new MockResponse().setResponseCode(204);
            }
        });
        OrderedLanes w = writer(2, 2);
        Ends ends = new Ends(4);
        w.submit(0, batch("a0"), ends);
        w.submit(0, batch("a1"), ends);
        w.submit(1, batch("b0"), ends);
        w.submit(1, batch("b1"), ends);
        ends.await();
        assertThat(received.subList(0, 2)).containsExactlyInAnyOrder("a0", "b0");
        assertThat(received.indexOf("a1")).isGreaterThan(received.indexOf("a0"));
        assertThat(received.indexOf("b1")).isGreaterThan(received.indexOf("b0"));
    }

    @Test
    void aRetriedBatchHoldsItsLaneAndNoLaterBatchPassesIt() throws Exception {
        AtomicInteger firstTries = new AtomicInteger();
        serve(
                new CountDownLatch(0),
                body -> body.equals("a0") && firstTries.incrementAndGet() <= 2
                        ? new MockResponse().setResponseCode(503)
                        : new MockResponse().setResponseCode(204));
        OrderedLanes w = writer(1, 4);
        Ends ends = new Ends(3);
        w.submit(0, batch("a0"), ends);
        w.submit(0, batch("a1"), ends);
        w.submit(0, batch("a2"), ends);
        ends.await();
        assertThat(received).containsExactly("a0", "a0", "a0", "a1", "a2");
        assertThat(ends.written).containsExactly("a0", "a1", "a2");
    }

    @Test
    void aStaleBatchIsAbandonedAtItsTurnWithoutARequest() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        serve(gate, body -> new MockResponse().setResponseCode(204));
        OrderedLanes w = writer(1, 4);
        Set<String> stale = ConcurrentHashMap.newKeySet();
        Ends ends = new Ends(3) {
            @Override
            public boolean stale(WriteBatch<String, Void> b) {
                return stale.contains(b.source(0));
            }
        };
        w.submit(0, batch("a0"), ends); // in flight, held at the gate
        w.submit(0, batch("a1"), ends);
        w.submit(0, batch("a2"), ends);
        stale.add("a1");
        gate.countDown();
        ends.await();
        assertThat(received).containsExactly("a0", "a2");
        assertThat(ends.abandoned).containsExactly("a1");
        awaitEmpty(w);
    }

    @Test
    void aFullLaneMakesTheSubmitterWaitAndCloseAbandonsWhatIsQueued() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        serve(gate, body -> new MockResponse().setResponseCode(204));
        OrderedLanes w = writer(1, 4);
        Ends ends = new Ends(1 + OrderedLanes.QUEUE);
        w.submit(0, batch("a0"), ends);
        for (int i = 1; i <= OrderedLanes.QUEUE; i++) {
            w.submit(0, batch("a" + i), ends);
        }
        Thread blocked = Thread.ofVirtual().start(() -> {
            try {
                w.submit(0, batch("late"), ends);
            } catch (InterruptedException | IllegalStateException e) {
                // closed while waiting for the lane's room
            }
        });
        // the lane is full: the submitter waits (checked as not done after its first request went out)
        assertThat(received).hasSizeLessThanOrEqualTo(1);
        assertThat(blocked.isAlive()).isTrue();
        w.close();
        gate.countDown();
        ends.await();
        blocked.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(blocked.isAlive()).isFalse();
        assertThat(ends.abandoned).contains("a" + OrderedLanes.QUEUE);
        assertThat(received).doesNotContain("late");
    }
}
