package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.wire.Output;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "Senders MUST use a backoff algorithm" (the remote write specification 1.0, "Retries &amp; Backoff"; issue 53 item 1),
 * in real time against a receiver on loopback that refuses every request, the empty probe included: the writer once
 * sent it 3,000–4,000 requests a second and took 30 s to stop. Counts requests per second once the first seconds are
 * over, and how long the stop takes. The clock is real here (the circuit breaker's open interval is resilience4j's),
 * so the bounds are generous: what they catch is a storm, not a millisecond.
 */
class WriteBackoffTest {

    private static final int BATCHES = 4;
    private MockWebServer server;
    private WriteClient client;
    private BatchWriter writer;
    private final ConcurrentLinkedQueue<Long> requestNanos = new ConcurrentLinkedQueue<>();
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());

    @BeforeEach
    void refuseEverything() throws IOException {
        server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                requestNanos.add(System.nanoTime());
                return new MockResponse().setResponseCode(400).setBody("refused");
            }
        });
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        if (writer != null) {
            writer.close();
        }
        if (client != null) {
            client.close();
        }
        server.shutdown();
    }

    private long requestsBetween(long fromNanos, long toNanos) {
        return requestNanos.stream().filter(t -> t >= fromNanos && t < toNanos).count();
    }

    @Test
    void aReceiverRefusingTheBatchAndItsEmptyProbeGetsAFewRequestsASecondAndTheStopIsQuick() throws Exception {
        client = new WriteClient(Duration.ofSeconds(10), BATCHES, false, Output.REMOTE_WRITE);
        RetryPolicy retry = new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(2), Thread::sleep);
        writer = new BatchWriter(
                List.of(WriteTarget.remoteWrite(server.url("/api/v1/write").toString())),
                client,
                new WritePermits(BATCHES, 1 << 20),
                retry,
                OnWriteFailure.DEAD_LETTER,
                meters,
                false);
        CountDownLatch ended = new CountDownLatch(BATCHES);
        long start = System.nanoTime();
        for (int i = 0; i < BATCHES; i++) {
            WriteBatch<String, Void> b = new WriteBatch<>(64);
            b.body().put(new byte[] {10, 2, 10, 0}); // one empty time series: the receiver refuses it anyway
            b.addPoint(1, "point-" + i);
            writer.submit(b, new CountingListener(ended));
        }

        Thread.sleep(6_000);
        long now = System.nanoTime();
        long steady = requestsBetween(start + TimeUnit.SECONDS.toNanos(2), now);
        assertThat(steady)
                .as("requests in the 4 s after the first two (a batch and its probe per open interval of 2 s)")
                .isLessThanOrEqualTo(12);
        assertThat(writer.faults().any()).as("held as a configuration fault").isTrue();
        assertThat(ended.getCount())
                .as("nothing split, dead-lettered or dropped")
                .isEqualTo(BATCHES);

        long stopAt = System.nanoTime();
        writer.stopping();
        assertThat(writer.drain(Duration.ofSeconds(10)))
                .as("the stop ends every write")
                .isTrue();
        long stopTookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopAt);
        assertThat(stopTookMs).as("no step waited out at the stop, nor a loop").isLessThan(3_000);
        assertThat(requestsBetween(stopAt, System.nanoTime()))
                .as("nothing sent before its step: at most an attempt under way per write")
                .isLessThanOrEqualTo(2L * BATCHES);
        assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(writer.batchesHeld())
                .as("held: never acknowledged, so written again by the next start")
                .isEqualTo(BATCHES);
    }

    /** The receiver's answers: 503 until {@code unavailableUntilNanos}, 204 after; every request's arrival recorded. */
    private final List<long[]> answers = new CopyOnWriteArrayList<>();

    private void unavailableUntil(long unavailableUntilNanos) {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                long now = System.nanoTime();
                int status = now < unavailableUntilNanos ? 503 : 204;
                answers.add(new long[] {now, status});
                return new MockResponse().setResponseCode(status);
            }
        });
    }

    /** A writer of {@code batches} one-point batches, each in flight at once: 100 ms first backoff, 400 ms cap. */
    private void submitBatches(int batches, WriteListener<String, Void> listener) throws InterruptedException {
        client = new WriteClient(Duration.ofSeconds(10), batches, false, Output.REMOTE_WRITE);
        writer = new BatchWriter(
                List.of(WriteTarget.remoteWrite(server.url("/api/v1/write").toString())),
                client,
                new WritePermits(batches, 1 << 20),
                new RetryPolicy(3, Duration.ofMillis(INITIAL_MS), Duration.ofMillis(400), Thread::sleep),
                OnWriteFailure.PAUSE,
                meters,
                false);
        for (int i = 0; i < batches; i++) {
            WriteBatch<String, Void> b = new WriteBatch<>(64);
            b.body().put(new byte[] {10, 2, 10, 0});
            b.addPoint(1, "point-" + i);
            writer.submit(b, listener);
        }
    }

    private static final long INITIAL_MS = 100;

    /**
     * Every request after one the receiver answered 503 came at least the smallest backoff step later (the first
     * backoff less its 50 % jitter, less 10 ms for loopback arrival jitter): nothing released in a burst. The first
     * {@code batches} requests are the batches' first attempts, sent before any answer.
     */
    private void assertNoTwoWithinABackoffStep(int batches) {
        List<long[]> byArrival =
                answers.stream().sorted((a, b) -> Long.compare(a[0], b[0])).toList();
        long minGapMs = INITIAL_MS / 2 - 10;
        for (int i = Math.max(1, batches); i < byArrival.size(); i++) {
            if (byArrival.get(i - 1)[1] != 503) {
                continue;
            }
            long gapMs = TimeUnit.NANOSECONDS.toMillis(
                    byArrival.get(i)[0] - byArrival.get(i - 1)[0]);
            assertThat(gapMs)
                    .as("gap before request %d of %d after a 503", i + 1, byArrival.size())
                    .isGreaterThanOrEqualTo(minGapMs);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8})
    void batchesHeldByAReceiverAnswering503AreReleasedOneAtATimeEachAfterItsBackoffStep(int batches) throws Exception {
        unavailableUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(3));
        CountDownLatch written = new CountDownLatch(batches);
        submitBatches(batches, new CountingListener(written) {
            @Override
            public void written(WriteBatch<String, Void> b) {
                written.countDown();
            }

            @Override
            public void abandoned(WriteBatch<String, Void> b) {
                throw new AssertionError("abandoned");
            }
        });

        assertThat(written.await(30, TimeUnit.SECONDS))
                .as("every batch written once the receiver is back")
                .isTrue();
        assertThat(answers.stream().filter(a -> a[1] == 503).count())
                .as("retried while it answered 503")
                .isGreaterThan(batches);
        assertNoTwoWithinABackoffStep(batches);
    }

    @Test
    void batchesHeldByAnOpenBreakerAndReleasedByTheStopGoOneAtATime() throws Exception {
        unavailableUntil(Long.MAX_VALUE);
        CountDownLatch ended = new CountDownLatch(8);
        submitBatches(8, new CountingListener(ended));
        Thread.sleep(1_500); // five 503s opened the breaker; the batches wait on it, paused or backing off

        writer.stopping();
        assertThat(writer.drain(Duration.ofSeconds(10))).isTrue();
        assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(writer.batchesHeld()).isEqualTo(8);
        assertNoTwoWithinABackoffStep(8);
    }

    private static class CountingListener implements WriteListener<String, Void> {
        private final CountDownLatch ended;

        CountingListener(CountDownLatch ended) {
            this.ended = ended;
        }

        @Override
        public void written(WriteBatch<String, Void> b) {
            throw new AssertionError("written");
        }

        @Override
        public void rejected(WriteBatch<String, Void> b, List<Rejection<String>> r) {
            throw new AssertionError("rejected as data");
        }

        @Override
        public void gaveUp(WriteBatch<String, Void> b, WriteOutcome o) {
            throw new AssertionError("gave up: " + o);
        }

        @Override
        public void abandoned(WriteBatch<String, Void> b) {
            ended.countDown();
        }
    }
}
