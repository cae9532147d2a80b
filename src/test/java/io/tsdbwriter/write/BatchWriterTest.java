package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPInputStream;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The write path of DESIGN §6 against a MockWebServer on loopback. No sleeping: delays are recorded, not slept. */
class BatchWriterTest {

    private static final String LINES =
            "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\"},\"values\":[1,1],\"timestamps\":[1795300800000,1795300830000]}\n"
                    + "{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h-1\"},\"values\":[1,1],\"timestamps\":[1795300800000,1795300830000]}\n";
    private static final long WAIT_S = 30; // upper bound for an await that must succeed, never a timing assertion

    private MockWebServer server;
    private WriteClient client;
    private BatchWriter writer;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WriterMeters meters = new WriterMeters(registry);
    private final List<Long> delays = new CopyOnWriteArrayList<>();
    private final CountDownLatch releaseServer = new CountDownLatch(1);

    @BeforeEach
    void startServer() throws IOException {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        releaseServer.countDown();
        if (writer != null) {
            writer.close();
        }
        if (client != null) {
            client.close();
        }
        server.shutdown();
    }

    private RetryPolicy recordingRetry(int maxRetries) {
        return new RetryPolicy(maxRetries, Duration.ofMillis(200), Duration.ofSeconds(30), delays::add);
    }

    private BatchWriter writer(boolean gzip, WritePermits permits, RetryPolicy retry, OnWriteFailure onFailure) {
        client = new WriteClient(Duration.ofSeconds(30), 4, gzip);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())), client, permits, retry, onFailure, meters, false);
        return writer;
    }

    private BatchWriter writer(RetryPolicy retry, OnWriteFailure onFailure) {
        return writer(false, new WritePermits(4, 1 << 20), retry, onFailure);
    }

    private static WriteBatch<String, Void> batch(String lines, int samples) {
        WriteBatch<String, Void> b = new WriteBatch<>(64);
        b.body().put(lines.getBytes(StandardCharsets.UTF_8));
        b.addPoint(samples, "point-0");
        return b;
    }

    /** Records how a batch ended. */
    private static class Listener implements WriteListener<String, Void> {
        final CompletableFuture<String> how = new CompletableFuture<>();
        volatile WriteOutcome outcome;
        volatile WriteBatch<String, Void> batch;

        @Override
        public void written(WriteBatch<String, Void> b) {
            batch = b;
            how.complete("written");
        }

        volatile List<Rejection<String>> rejections;

        @Override
        public void rejected(WriteBatch<String, Void> b, List<Rejection<String>> r) {
            batch = b;
            rejections = r;
            outcome = r.get(0).outcome();
            how.complete("rejected");
        }

        @Override
        public void gaveUp(WriteBatch<String, Void> b, WriteOutcome o) {
            batch = b;
            outcome = o;
            how.complete("gaveUp");
        }

        @Override
        public void abandoned(WriteBatch<String, Void> b) {
            batch = b;
            how.complete("abandoned");
        }

        String await() throws Exception {
            return how.get(WAIT_S, TimeUnit.SECONDS);
        }
    }

    private static String gunzip(byte[] gz) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private double writeRequests(String outcome, String status) {
        var c = registry.find("tsdbwriter.write.requests")
                .tags("outcome", outcome, "status", status)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void status204IsWrittenAndCountsSamples() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        WriteBatch<String, Void> b = batch(LINES, 4);
        Listener l = new Listener();

        w.submit(b, l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(l.batch).isSameAs(b);
        assertThat(meters.samplesWritten.count()).isEqualTo(4.0);
        assertThat(writeRequests("success", "204")).isEqualTo(1.0);
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(delays).isEmpty();
    }

    @Test
    void aWrittenBatchCountsItsNativeHistogramsAndTheirBuckets() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        WriteBatch<String, Void> b = batch(LINES, 4);
        b.addPoint(3, "histograms-1");
        b.histogramPoint(5);
        Listener l = new Listener();

        w.submit(b, l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(meters.samplesWritten.count()).isEqualTo(7.0);
        assertThat(meters.histogramsWritten.sum()).isEqualTo(3);
        assertThat(meters.histogramBucketsWritten.sum()).isEqualTo(15);
    }

    @Test
    void aWrittenBatchsBodyArrayGoesBackToItsPool() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        BodyPool pool = new BodyPool(4, 1 << 20);
        WriteBatch<String, Void> b = pooledBatch(pool, "point-0");
        byte[] array = b.body().array();
        Listener l = new Listener();

        w.submit(b, l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(server.takeRequest().getBody().readUtf8()).isEqualTo(LINES);
        assertThat(pool.take(16)).isSameAs(array);
    }

    @Test
    void anAbandonedBatchsBodyArrayIsNotReused() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return new MockResponse().setResponseCode(404).setBody("404 page not found");
            }
        });
        BatchWriter w = writer(briefRetry(3), OnWriteFailure.DEAD_LETTER);
        BodyPool pool = new BodyPool(4, 1 << 20);
        Listener l = new Listener();

        w.submit(pooledBatch(pool, "point-0"), l);
        awaitFault(w);
        w.abortFaulted();

        assertThat(l.await()).isEqualTo("abandoned");
        assertThat(pool.arrays())
                .as("not decided: the batch may be read again, its array is not handed to another")
                .isZero();
        assertThat(l.batch.body().length()).isEqualTo(LINES.length());
    }

    private static WriteBatch<String, Void> pooledBatch(BodyPool pool, String source) {
        WriteBatch<String, Void> b = new BatchCapacity(pool).open();
        b.body().put(LINES.getBytes(StandardCharsets.UTF_8));
        b.addPoint(4, source);
        return b;
    }

    @Test
    void aBatchWhosePointsRelabelingAllDroppedIsWrittenWithoutARequest() throws Exception {
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        WriteBatch<String, Void> b = new WriteBatch<>(64);
        b.addPoint(0, "point-0"); // --relabel-config dropped its series: no byte, no sample
        b.addPoint(0, "point-1");
        Listener l = new Listener();

        w.submit(b, l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(server.getRequestCount()).isZero();
        assertThat(meters.samplesWritten.count()).isZero();
    }

    @Test
    void postsJsonLinesToImportPath() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        l.await();

        RecordedRequest req = server.takeRequest(WAIT_S, TimeUnit.SECONDS);
        assertThat(req.getMethod()).isEqualTo("POST");
        assertThat(req.getPath()).isEqualTo("/api/v1/import");
        assertThat(req.getHeader("Content-Encoding")).isNull();
        assertThat(req.getHeader("Content-Type")).startsWith("application/stream+json");
        assertThat(req.getBody().readUtf8()).isEqualTo(LINES);
    }

    @Test
    void postsToClusterImportPathUnderBaseUrl() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/insert/0/prometheus/").toString())),
                client,
                new WritePermits(1, 1 << 20),
                recordingRetry(0),
                OnWriteFailure.PAUSE,
                meters,
                false);
        Listener l = new Listener();

        writer.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(server.takeRequest(WAIT_S, TimeUnit.SECONDS).getPath())
                .isEqualTo("/insert/0/prometheus/api/v1/import");
    }

    @Test
    void retriesUnavailableHonouringRetryAfter() throws Exception {
        server.enqueue(new MockResponse()
                .setResponseCode(503)
                .setHeader("Retry-After", "2")
                .setBody("busy"));
        server.enqueue(new MockResponse()
                .setResponseCode(503)
                .setHeader("Retry-After", "2")
                .setBody("busy"));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(delays).containsExactly(2000L, 2000L);
        assertThat(server.getRequestCount()).isEqualTo(3);
        assertThat(meters.retries.count()).isEqualTo(2.0);
        assertThat(meters.samplesWritten.count()).isEqualTo(4.0);
        assertThat(writeRequests("retry", "503")).isEqualTo(2.0);
        assertThat(writeRequests("success", "204")).isEqualTo(1.0);
    }

    @Test
    void aBatchThatWentStaleDuringItsBackoffIsAbandonedWithoutTheRetry() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(503));
        server.enqueue(new MockResponse().setResponseCode(204));
        AtomicBoolean rewound = new AtomicBoolean();
        // the partition is rewound (a TSDB restart was seen) while the write waits for its retry
        RetryPolicy retry = new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> rewound.set(true));
        BatchWriter w = writer(retry, OnWriteFailure.PAUSE);
        Listener l = new Listener() {
            @Override
            public boolean stale(WriteBatch<String, Void> b) {
                return rewound.get();
            }
        };

        w.submit(batch(LINES, 4), l);

        assertThat(l.await())
                .as("its records are read again: no retry may land ahead of the re-reads")
                .isEqualTo("abandoned");
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(w.batchesHeld()).as("stale is not held at a stop").isZero();
        assertThat(meters.samplesWritten.count()).isZero();
        assertThat(w.drain(Duration.ofSeconds(WAIT_S))).isTrue();
    }

    @Test
    void aRefusedBatchWhoseHalvesWentStaleIsAbandonedNotRefused() throws Exception {
        AtomicBoolean rewound = new AtomicBoolean();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                if (request.getBodySize() == 0) {
                    rewound.set(true); // the restart is seen while the writer confirms the refusal
                    return new MockResponse().setResponseCode(204);
                }
                return new MockResponse().setResponseCode(400).setBody("out of order sample");
            }
        });
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener() {
            @Override
            public boolean stale(WriteBatch<String, Void> b) {
                return rewound.get();
            }
        };
        w.submit(points(3), l);

        assertThat(l.await()).isEqualTo("abandoned");
        assertThat(server.getRequestCount())
                .as("the refused batch and its empty probe; no half")
                .isEqualTo(2);
    }

    @Test
    void retriedRequestsCarryTheSameBody() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(500));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        l.await();

        assertThat(server.takeRequest(WAIT_S, TimeUnit.SECONDS).getBody().readUtf8())
                .isEqualTo(LINES);
        assertThat(server.takeRequest(WAIT_S, TimeUnit.SECONDS).getBody().readUtf8())
                .isEqualTo(LINES);
    }

    @Test
    void retryAfterIsCappedAtMaxBackoff() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(429).setHeader("Retry-After", "120"));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(delays).containsExactly(30_000L);
    }

    @Test
    void backoffWithoutRetryAfterGrowsExponentiallyWithJitter() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(503));
        server.enqueue(new MockResponse().setResponseCode(503));
        server.enqueue(new MockResponse().setResponseCode(503));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        assertThat(delays).hasSize(3);
        assertThat(delays.get(0)).isBetween(100L, 300L); // 200 ms ± 50 %
        assertThat(delays.get(1)).isBetween(200L, 600L); // 400 ms ± 50 %
        assertThat(delays.get(2)).isBetween(400L, 1200L); // 800 ms ± 50 %
    }

    /** Answers 400 to a body containing {@code marker}, 204 to anything else (an empty request included). */
    private static Dispatcher refusing(String marker) {
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return r.getBody().snapshot().utf8().contains(marker)
                        ? new MockResponse().setResponseCode(400).setBody("cannot parse " + marker)
                        : new MockResponse().setResponseCode(204);
            }
        };
    }

    private static WriteBatch<String, Void> points(int n) {
        WriteBatch<String, Void> b = new WriteBatch<>(64);
        for (int i = 0; i < n; i++) {
            b.body()
                    .put(("{\"metric\":{\"__name__\":\"m" + i + "\"},\"values\":[1],\"timestamps\":[1]}\n")
                            .getBytes(StandardCharsets.UTF_8));
            b.addPoint(1, "point-" + i);
        }
        return b;
    }

    @Test
    void refusedBatchIsSplitUntilTheRefusedPointStandsAlone() throws Exception {
        // 3 points: all → 400, empty probe → 204 (the data's refusal); [0,1) → 204; [1,3) → 400, probe → 204;
        // [1,2) → 204; [2,3) → 400, probe → 204
        server.setDispatcher(refusing("\"m2\""));
        Listener l = new Listener();
        writer(recordingRetry(3), OnWriteFailure.PAUSE).submit(points(3), l);

        assertThat(l.await()).isEqualTo("rejected");
        assertThat(l.rejections).extracting(WriteListener.Rejection::source).containsExactly("point-2");
        assertThat(server.getRequestCount()).isEqualTo(8);
        assertThat(meters.samplesWritten.count()).isEqualTo(2.0);
        assertThat(writeRequests("probe", "204")).isEqualTo(3.0);
        server.takeRequest();
        assertThat(server.takeRequest().getBody().size()).as("the empty probe").isZero();
        assertThat(server.takeRequest().getBody().readUtf8()).contains("\"m0\"").doesNotContain("\"m1\"");
    }

    /** A retry policy whose sleep is recorded and lasts a millisecond (a fault loop must not spin a core in a test). */
    private RetryPolicy briefRetry(int maxRetries) {
        return new RetryPolicy(maxRetries, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {
            delays.add(ms);
            Thread.sleep(1);
        });
    }

    private void awaitFault(BatchWriter w) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!w.faults().any() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(w.faults().any()).as("a configuration fault is noted").isTrue();
    }

    /** The server answers {@code misconfigured} to every request until the returned flag is set, then 204. */
    private AtomicBoolean answerUntilFixed(MockResponse misconfigured) {
        AtomicBoolean fixed = new AtomicBoolean();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return fixed.get() ? new MockResponse().setResponseCode(204) : misconfigured;
            }
        });
        return fixed;
    }

    private double faults(String statusClass) {
        return registry.find("tsdbwriter.write.faults").tags("class", statusClass).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    void aWrongPathPrefixRefusingEvenAnEmptyRequestIsHeldNotSplitUntilTheEndpointAcceptsIt() throws Exception {
        AtomicBoolean fixed = answerUntilFixed(
                new MockResponse().setResponseCode(400).setBody("unsupported path requested: /prefix/api/v1/import"));
        BatchWriter w = writer(briefRetry(3), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener();

        w.submit(points(3), l);
        awaitFault(w);
        while (server.getRequestCount() < 6) {
            Thread.sleep(5);
        }
        assertThat(l.how)
                .as("held: neither split and refused nor dead-lettered")
                .isNotDone();
        assertThat(w.faults().describe())
                .contains("400: wrong path prefix? unknown token? (it refuses an empty request too")
                .contains("unsupported path requested");
        assertThat(faults("4xx")).isPositive();
        fixed.set(true);

        assertThat(l.await()).isEqualTo("written");
        assertThat(meters.samplesWritten.count()).isEqualTo(3.0);
        assertThat(w.faults().any()).isFalse();
        for (int i = 0, n = server.getRequestCount(); i < n; i++) {
            long size = server.takeRequest().getBodySize();
            assertThat(size)
                    .as("every request is the whole batch or the empty probe: nothing was split")
                    .isIn(0L, (long) points(3).body().length());
        }
    }

    @Test
    void underOnConfigurationFaultRefuseA401IsRefusedWholeOnceNeitherRetriedNorSplit() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return new MockResponse().setResponseCode(401).setBody("Unauthorized");
            }
        });
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())),
                client,
                new WritePermits(4, 1 << 20),
                recordingRetry(5),
                OnWriteFailure.PAUSE,
                meters,
                false,
                ConfigurationFaultPolicy.REFUSE);
        Listener l = new Listener();

        writer.submit(points(3), l);

        assertThat(l.await()).isEqualTo("rejected");
        assertThat(l.rejections)
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.outcome().status()).isEqualTo(401));
        assertThat(server.getRequestCount())
                .as("the specification: a 4xx but 429 MUST NOT be retried")
                .isEqualTo(1);
        assertThat(delays).isEmpty();
        assertThat(writer.faults().any())
                .as("nothing held, so no standing fault")
                .isFalse();
    }

    private BatchWriter refusingWriter(RetryPolicy retry, OnWriteFailure onFailure) {
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())),
                client,
                new WritePermits(4, 1 << 20),
                retry,
                onFailure,
                meters,
                false,
                ConfigurationFaultPolicy.REFUSE);
        return writer;
    }

    @Test
    void underOnConfigurationFaultRefuseA400ItsEmptyProbeGetsTooIsRefusedWholeWithoutTheProbe() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return new MockResponse().setResponseCode(400).setBody("unsupported path requested");
            }
        });
        refusingWriter(recordingRetry(5), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener();

        writer.submit(points(3), l);

        assertThat(l.await()).isEqualTo("rejected");
        assertThat(l.rejections).hasSize(3);
        assertThat(server.getRequestCount())
                .as("the batch once: no empty probe, nothing split")
                .isEqualTo(1);
    }

    @Test
    void underOnConfigurationFaultRefuseA400TheEmptyProbeWouldPassIsRefusedWholeWithoutTheProbe() throws Exception {
        server.setDispatcher(refusing("\"m2\""));
        refusingWriter(recordingRetry(5), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener();

        writer.submit(points(3), l);

        assertThat(l.await()).isEqualTo("rejected");
        assertThat(l.rejections)
                .as("the specification: the 4xx refuses the batch; a split would send its samples again")
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.outcome().status()).isEqualTo(400));
        assertThat(server.getRequestCount()).as("no empty probe, no half").isEqualTo(1);
        assertThat(writeRequests("probe", "204")).isZero();
        assertThat(delays).isEmpty();
    }

    @Test
    void underOnConfigurationFaultRefuseRefusalsNeverOpenTheBreakerTheNextBatchGoesAtOnce() throws Exception {
        AtomicInteger answered = new AtomicInteger();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return answered.getAndIncrement() % 2 == 0
                        ? new MockResponse().setResponseCode(400).setBody("out of bounds")
                        : new MockResponse().setResponseCode(401).setBody("Unauthorized");
            }
        });
        // a breaker opened by these refusals would hold the next batch for the open interval (--max-backoff, 30 s here)
        refusingWriter(recordingRetry(5), OnWriteFailure.DEAD_LETTER);

        for (int i = 0; i < 8; i++) {
            Listener l = new Listener();
            writer.submit(points(2), l);
            assertThat(l.how.get(5, TimeUnit.SECONDS)).as("batch %d", i).isEqualTo("rejected");
        }

        assertThat(server.getRequestCount())
                .as("one request per batch: no probe, no retry")
                .isEqualTo(8);
        assertThat(writer.batchesHeld()).isZero();
        assertThat(writer.faults().any()).isFalse();
        assertThat(delays).as("nothing waited").isEmpty();
    }

    @Test
    void aRedirectIsNeverFollowedTheBatchIsHeldAndTheLineNamesTheLocation() throws Exception {
        AtomicBoolean fixed = answerUntilFixed(
                new MockResponse().setResponseCode(301).setHeader("Location", "https://vm.example:8428/api/v1/import"));
        BatchWriter w = writer(briefRetry(3), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        awaitFault(w);

        assertThat(l.how).isNotDone();
        assertThat(w.faults().describe()).contains("301: redirect to https://vm.example:8428/api/v1/import");
        assertThat(faults("3xx")).isPositive();
        fixed.set(true);
        assertThat(l.await()).isEqualTo("written");
        for (int i = 0, n = server.getRequestCount(); i < n; i++) {
            RecordedRequest r = server.takeRequest();
            assertThat(r.getMethod()).as("no redirect followed as a GET").isEqualTo("POST");
            assertThat(r.getBody().readUtf8()).isEqualTo(LINES);
        }
    }

    @Test
    void aFaultGivenUpOnIsAbandonedNeverAcked() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                return new MockResponse().setResponseCode(404).setBody("404 page not found");
            }
        });
        BatchWriter w = writer(briefRetry(3), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        awaitFault(w);
        w.abortFaulted();

        assertThat(l.await()).isEqualTo("abandoned");
        assertThat(meters.samplesWritten.count()).isZero();
    }

    @Test
    void status400IsRejectedWithoutRetry() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(400).setBody("cannot unmarshal line"));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("rejected");
        assertThat(l.outcome.status()).isEqualTo(400);
        assertThat(l.outcome.kind()).isEqualTo(WriteOutcome.Kind.REJECTED);
        assertThat(l.outcome.detail()).isEqualTo("cannot unmarshal line");
        assertThat(server.getRequestCount())
                .as("the batch, then the empty probe that the endpoint accepts")
                .isEqualTo(2);
        assertThat(delays).isEmpty();
        assertThat(meters.samplesWritten.count()).isZero();
        assertThat(writeRequests("failed", "400")).isEqualTo(1.0);
        assertThat(writeRequests("probe", "204")).isEqualTo(1.0);
    }

    @Test
    void deadLetterPolicyGivesUpAfterMaxRetries() throws Exception {
        for (int i = 0; i < 3; i++) {
            server.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "1"));
        }
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(2), OnWriteFailure.DEAD_LETTER);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("gaveUp");
        assertThat(l.outcome.status()).isEqualTo(503);
        assertThat(server.getRequestCount()).isEqualTo(3);
        assertThat(delays).containsExactly(1000L, 1000L);
        assertThat(meters.samplesWritten.count()).isZero();
        assertThat(writeRequests("failed", "503")).isEqualTo(1.0);
    }

    /** A retry policy whose every wait lasts until the writer's stop interrupts it (a 30 s backoff, not slept). */
    /** The first wait lasts until the stop interrupts it; later ones (the spacing after the stop) are recorded. */
    private RetryPolicy waitingUntilStopped(CountDownLatch waiting) {
        AtomicInteger waits = new AtomicInteger();
        return new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), millis -> {
            if (waits.getAndIncrement() > 0) {
                delays.add(millis);
                return;
            }
            waiting.countDown();
            new CountDownLatch(1).await(); // returns only when interrupted
        });
    }

    @Test
    void aStopWakesAWriteBackingOffFromAFailingTsdbAndHoldsItWithoutAnotherAttempt() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return new MockResponse().setResponseCode(503);
            }
        });
        CountDownLatch waiting = new CountDownLatch(1);
        BatchWriter w = writer(waitingUntilStopped(waiting), OnWriteFailure.PAUSE);
        Listener l = new Listener();
        w.submit(batch(LINES, 4), l);
        assertThat(waiting.await(WAIT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(w.givingUp()).isFalse();

        w.stopping();

        assertThat(l.await())
                .as("held: never acknowledged, so never committed past")
                .isEqualTo("abandoned");
        assertThat(server.getRequestCount())
                .as("the first attempt only: its backoff step had not passed at the stop")
                .isEqualTo(1);
        assertThat(w.batchesHeld()).isEqualTo(1);
        assertThat(w.samplesHeld()).isEqualTo(4);
        assertThat(w.givingUp()).isTrue();
        assertThat(w.drain(Duration.ofSeconds(WAIT_S))).isTrue();
    }

    @Test
    void anAttemptUnderWayAtTheStopThatTheTsdbAcceptsIsWritten() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204).setHeadersDelay(500, TimeUnit.MILLISECONDS));
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();
        w.submit(batch(LINES, 4), l);
        assertThat(server.takeRequest(WAIT_S, TimeUnit.SECONDS)).isNotNull();

        w.stopping();

        assertThat(l.await()).isEqualTo("written");
        assertThat(w.batchesHeld()).isZero();
        assertThat(w.givingUp()).isFalse();
        assertThat(meters.samplesWritten.count()).isEqualTo(4.0);
    }

    @Test
    void a429AtTheStopIsNotHeldItsWriteWaitsAsToldAndIsWritten() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(429).setHeader("Retry-After", "1"));
        server.enqueue(new MockResponse().setResponseCode(429).setHeader("Retry-After", "2"));
        server.enqueue(new MockResponse().setResponseCode(204));
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger waits = new AtomicInteger();
        RetryPolicy firstWaitUntilStopped =
                new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), millis -> {
                    delays.add(millis);
                    if (waits.getAndIncrement() == 0) {
                        waiting.countDown();
                        stopped.await(); // the first Retry-After wait lasts until the stop
                    }
                });
        BatchWriter w = writer(firstWaitUntilStopped, OnWriteFailure.PAUSE);
        Listener l = new Listener();
        w.submit(batch(LINES, 4), l);
        assertThat(waiting.await(WAIT_S, TimeUnit.SECONDS)).isTrue();

        w.stopping();
        stopped.countDown();

        assertThat(l.await())
                .as("the TSDB is up and busy: worth the wait, even at the stop")
                .isEqualTo("written");
        assertThat(delays)
                .as("the Retry-After waits, not cut short nor held by the stop")
                .containsExactly(1000L, 2000L);
        assertThat(w.batchesHeld()).isZero();
    }

    @Test
    void aRefusedConnectionAtTheStopIsHeldWithoutWaitingForItsBackoff() throws Exception {
        MockWebServer dead = new MockWebServer();
        dead.start(InetAddress.getLoopbackAddress(), 0);
        String url = dead.url("/").toString();
        dead.shutdown();
        CountDownLatch waiting = new CountDownLatch(1);
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(url)),
                client,
                new WritePermits(1, 1 << 20),
                waitingUntilStopped(waiting),
                OnWriteFailure.PAUSE,
                meters,
                false);
        Listener l = new Listener();
        writer.submit(batch(LINES, 4), l);
        assertThat(waiting.await(WAIT_S, TimeUnit.SECONDS)).isTrue();

        writer.stopping();

        assertThat(l.await()).isEqualTo("abandoned");
        assertThat(writer.batchesHeld()).isEqualTo(1);
    }

    @Test
    void pausePolicyKeepsProbingAtMaxBackoffUntilWritten() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "1"));
        server.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "1"));
        server.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "1"));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(recordingRetry(1), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        // round 1: attempt, retry after 1 s, fails again -> pause 30 s; round 2: attempt fails, retry after 1 s, 204
        assertThat(delays).containsExactly(1000L, 30_000L, 1000L);
        assertThat(server.getRequestCount()).isEqualTo(4);
        assertThat(meters.samplesWritten.count()).isEqualTo(4.0);
    }

    @Test
    void aRefusedConnectionIsAFaultHeldEvenUnderTheDeadLetterPolicy() throws Exception {
        MockWebServer dead = new MockWebServer();
        dead.start(InetAddress.getLoopbackAddress(), 0);
        String url = dead.url("/").toString();
        dead.shutdown();
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(url)),
                client,
                new WritePermits(1, 1 << 20),
                briefRetry(1),
                OnWriteFailure.DEAD_LETTER,
                meters,
                false);
        Listener l = new Listener();

        writer.submit(batch(LINES, 4), l);
        awaitFault(writer);

        assertThat(writer.faults().describe()).contains("connection refused");
        assertThat(faults("connect")).isPositive();
        assertThat(l.how).as("never given up to the dead-letter topic").isNotDone();
        writer.abortFaulted();
        assertThat(l.await()).isEqualTo("abandoned");
    }

    @Test
    void gzipSendsContentEncodingAndCompressedLines() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(true, new WritePermits(4, 1 << 20), recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);

        assertThat(l.await()).isEqualTo("written");
        RecordedRequest req = server.takeRequest(WAIT_S, TimeUnit.SECONDS);
        assertThat(req.getHeader("Content-Encoding")).isEqualTo("gzip");
        byte[] sent = req.getBody().readByteArray();
        assertThat(sent).isNotEqualTo(LINES.getBytes(StandardCharsets.UTF_8));
        assertThat(gunzip(sent)).isEqualTo(LINES);
    }

    @Test
    void gzipRetriesResendTheCompressedBody() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(502));
        server.enqueue(new MockResponse().setResponseCode(204));
        BatchWriter w = writer(true, new WritePermits(4, 1 << 20), recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        l.await();

        for (int i = 0; i < 2; i++) {
            RecordedRequest req = server.takeRequest(WAIT_S, TimeUnit.SECONDS);
            assertThat(req.getHeader("Content-Encoding")).isEqualTo("gzip");
            assertThat(gunzip(req.getBody().readByteArray())).isEqualTo(LINES);
        }
    }

    @Test
    void secondSubmitBlocksUntilFirstWriteFinishesWhenOnePermit() throws Exception {
        CountDownLatch firstArrived = new CountDownLatch(1);
        AtomicInteger requests = new AtomicInteger();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                if (requests.incrementAndGet() == 1) {
                    firstArrived.countDown();
                    releaseServer.await(); // hold the first response until the test lets it go
                }
                return new MockResponse().setResponseCode(204);
            }
        });
        WritePermits permits = new WritePermits(1, 1 << 20);
        BatchWriter w = writer(false, permits, recordingRetry(5), OnWriteFailure.PAUSE);
        Listener first = new Listener();
        Listener second = new Listener();

        w.submit(batch(LINES, 4), first); // takes the only permit
        assertThat(firstArrived.await(WAIT_S, TimeUnit.SECONDS)).isTrue();

        CountDownLatch secondSubmitted = new CountDownLatch(1);
        CompletableFuture<Throwable> secondError = new CompletableFuture<>();
        Thread poll = Thread.ofPlatform().name("poll-2").start(() -> {
            try {
                w.submit(batch(LINES, 4), second);
                secondSubmitted.countDown();
                secondError.complete(null);
            } catch (Throwable t) {
                secondError.complete(t);
            }
        });
        awaitParkedOnPermits(poll, permits);

        assertThat(secondSubmitted.getCount()).isEqualTo(1);
        assertThat(second.how).isNotDone();
        assertThat(first.how).isNotDone();
        assertThat(permits.inUse()).isEqualTo(1);
        assertThat(w.inFlight()).isEqualTo(1);
        assertThat(server.getRequestCount()).isEqualTo(1);

        releaseServer.countDown();

        assertThat(first.await()).isEqualTo("written");
        assertThat(secondSubmitted.await(WAIT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(secondError.get(WAIT_S, TimeUnit.SECONDS)).isNull();
        assertThat(second.await()).isEqualTo("written");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(meters.samplesWritten.count()).isEqualTo(8.0);
        poll.join();
    }

    /** Waits (without sleeping) until {@code t} is parked waiting for a write permit after a failed fast path. */
    private static void awaitParkedOnPermits(Thread t, WritePermits permits) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!(permits.limitReached() == 1
                && t.getState() == Thread.State.WAITING
                && LockSupport.getBlocker(t) != null)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "thread " + t.getName() + " never blocked on a write permit: state " + t.getState());
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void permitIsReleasedAfterWrite() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        WritePermits permits = new WritePermits(1, 1 << 20);
        BatchWriter w = writer(false, permits, recordingRetry(5), OnWriteFailure.PAUSE);
        Listener l = new Listener();

        w.submit(batch(LINES, 4), l);
        l.await();

        assertThat(w.drain(Duration.ofSeconds(WAIT_S))).isTrue();
        assertThat(permits.inUse()).isZero();
        assertThat(permits.inflightBytes()).isZero();
        assertThat(w.inFlight()).isZero();
        assertThat(meters.inflightBytes.get()).isZero();
    }

    @Test
    void drainWithNothingInFlightReturnsTrue() throws Exception {
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);

        assertThat(w.drain(Duration.ZERO)).isTrue();
    }

    @Test
    void submitAfterCloseFails() {
        BatchWriter w = writer(recordingRetry(5), OnWriteFailure.PAUSE);
        w.close();

        assertThatThrownBy(() -> w.submit(batch(LINES, 4), new Listener())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectsEmptyEndpointList() {
        client = new WriteClient(Duration.ofSeconds(30), 4, false);

        assertThatThrownBy(() -> new BatchWriter(
                        List.of(),
                        client,
                        new WritePermits(1, 1 << 20),
                        recordingRetry(1),
                        OnWriteFailure.PAUSE,
                        meters,
                        false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
