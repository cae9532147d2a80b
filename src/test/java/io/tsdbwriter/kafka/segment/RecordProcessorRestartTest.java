package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.RetryPolicy;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §4: once a TSDB restart was seen, the batches of the readers started before it are stale — the member rewinds
 * and reads their records again — so an answer to one of them decides nothing: a refusal is neither counted nor acked,
 * and no retry of theirs is sent. A write sent and left unanswered (the TSDB killed under it) may have been stored: its
 * retry's out-of-order refusal is that attempt's repeat.
 */
class RecordProcessorRestartTest {

    private static final long T = 1_795_300_800_000L;
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());

    private static ConsumerRecord<byte[], byte[]> record(long offset) {
        byte[] value = ("{\"metric\":\"cpu\",\"timestamp\":" + (T + offset)
                        + ",\"value\":1,\"dimensions\":{\"host\":\"a\"}}")
                .getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>("t", 0, offset, new byte[0], value);
    }

    /**
     * A synchronous writer to {@code target} with {@code permits}: three retries 200 ms to 1 s apart without sleeping,
     * {@code onFailure} after them.
     */
    private BatchWriter writer(WriteTarget target, WritePermits permits, WriteClient client, OnWriteFailure onFailure) {
        return new BatchWriter(
                List.of(target),
                client,
                permits,
                new RetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(1), ms -> {}),
                onFailure,
                meters,
                true);
    }

    private RecordProcessor processor(BatchWriter writer, AckTracker tracker, AtomicBoolean restarted) {
        PointAmplifier amplifier = new PointAmplifier(
                1 << 20,
                new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))),
                new SeriesCache(100));
        return RecordProcessor.builder(amplifier, writer, meters, tracker)
                .batchSamples(10_000)
                .decodeErrors(new DecodeErrorLog(meters))
                .restartedSince(restarted::get)
                .build();
    }

    @Test
    void aRefusalAnsweredOnceATsdbRestartWasSeenIsNeitherCountedNorAckedTheReReadDecides() throws Exception {
        AtomicBoolean restarted = new AtomicBoolean();
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            server.setDispatcher(new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    if (request.getBodySize() == 0) {
                        return new MockResponse().setResponseCode(204); // the refusal depends on the data
                    }
                    restarted.set(true); // the TSDB's restart is seen while this write is answered
                    return new MockResponse().setResponseCode(400).setBody("out of order sample");
                }
            });
            BatchWriter writer = writer(
                    new WriteTarget(server.url("/").toString()),
                    new WritePermits(4, 1 << 20),
                    client,
                    OnWriteFailure.DEAD_LETTER);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, restarted);
            p.process(record(0));
            p.flush();
            tracker.readTo(1);

            assertThat(meters.samplesRefused.count())
                    .as("not refused: the re-read's answer counts")
                    .isZero();
            assertThat(meters.samplesRepeatsRefused.count()).isZero();
            assertThat(meters.samplesSuperseded.count())
                    .as("expected again in the re-read: superseded")
                    .isEqualTo(meters.samplesExpected.count())
                    .isEqualTo(1);
            assertThat(tracker.firstUnacked())
                    .as("not done: never committed past, read again")
                    .isZero();
            assertThat(server.getRequestCount())
                    .as("the write and its empty probe, no split half")
                    .isEqualTo(2);
            writer.close();
        }
    }

    @Test
    void aBatchMadeBeforeARestartWasSeenIsNotSentAfterIt() throws Exception {
        AtomicBoolean restarted = new AtomicBoolean(true);
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            server.enqueue(new MockResponse().setResponseCode(204));
            BatchWriter writer = writer(
                    new WriteTarget(server.url("/").toString()),
                    new WritePermits(4, 1 << 20),
                    client,
                    OnWriteFailure.PAUSE);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, restarted);
            p.process(record(0));
            p.flush();
            tracker.readTo(1);

            assertThat(server.getRequestCount()).isZero();
            assertThat(meters.samplesWritten.count()).isZero();
            assertThat(meters.samplesSuperseded.count())
                    .as("never written, expected again in the re-read")
                    .isEqualTo(meters.samplesExpected.count())
                    .isEqualTo(1);
            assertThat(meters.expectedOnce()).isZero();
            assertThat(tracker.firstUnacked()).isZero();
            writer.close();
        }
    }

    @Test
    void aRetryRefusedAsOutOfOrderAfterAnAttemptThatGotNoAnswerIsARepeatNotARefusal() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            server.enqueue(
                    new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AFTER_REQUEST)); // stored, then killed
            server.enqueue(new MockResponse().setResponseCode(400).setBody("out of order sample"));
            server.enqueue(new MockResponse().setResponseCode(204)); // the empty probe: the refusal depends on the data
            BatchWriter writer = writer(
                    new WriteTarget(server.url("/").toString()),
                    new WritePermits(4, 1 << 20),
                    client,
                    OnWriteFailure.DEAD_LETTER);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, new AtomicBoolean());
            p.process(record(0));
            p.flush();
            tracker.readTo(1);

            assertThat(server.getRequestCount()).isEqualTo(3);
            assertThat(meters.samplesRepeatsRefused.count()).isEqualTo(1);
            assertThat(meters.samplesSuperseded.count()).as("not stale").isZero();
            assertThat(meters.samplesRefused.count()).isZero();
            assertThat(tracker.firstUnacked())
                    .as("done: stored by the unanswered attempt")
                    .isEqualTo(1);
            writer.close();
        }
    }

    @Test
    void batchesStillOpenWhenTheReadersEndAfterARestartAreSupersededByTheReRead() throws Exception {
        AtomicBoolean restarted = new AtomicBoolean();
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            BatchWriter writer = writer(
                    new WriteTarget(server.url("/").toString()),
                    new WritePermits(4, 1 << 20),
                    client,
                    OnWriteFailure.PAUSE);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, restarted);
            p.process(record(0));
            p.process(record(1));
            p.publishCounts();
            restarted.set(true); // the readers stop for the rewind with their batch open
            p.endsWithOpenBatches();

            assertThat(server.getRequestCount()).isZero();
            assertThat(meters.samplesExpected.count()).isEqualTo(2);
            assertThat(meters.samplesSuperseded.count()).isEqualTo(2);
            assertThat(meters.expectedOnce()).isZero();
            writer.close();
        }
    }

    @Test
    void batchesStillOpenAtAStopWithoutRestartStayExpected() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            BatchWriter writer = writer(
                    new WriteTarget(server.url("/").toString()),
                    new WritePermits(4, 1 << 20),
                    client,
                    OnWriteFailure.PAUSE);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, new AtomicBoolean());
            p.process(record(0));
            p.publishCounts();
            p.endsWithOpenBatches();

            assertThat(meters.samplesExpected.count()).isEqualTo(1);
            assertThat(meters.samplesSuperseded.count()).isZero();
            assertThat(meters.expectedOnce()).isEqualTo(1);
            writer.close();
        }
    }

    @Test
    void aBatchInterruptedWaitingForAWritePermitAfterARestartIsSupersededByTheReRead() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            WriteTarget target = new WriteTarget(server.url("/").toString());
            WritePermits permits = new WritePermits(4, 1);
            permits.acquire(target, 1); // every in-flight byte taken: the next batch waits for a permit
            BatchWriter writer = writer(target, permits, client, OnWriteFailure.PAUSE);
            AckTracker tracker = new AckTracker(0);
            RecordProcessor p = processor(writer, tracker, new AtomicBoolean(true));
            p.process(record(0));
            Thread.currentThread().interrupt(); // the readers stop for the rewind while the batch waits
            assertThatThrownBy(p::flush).isInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).isFalse();

            assertThat(server.getRequestCount()).isZero();
            assertThat(meters.samplesSuperseded.count())
                    .as("never sent, expected again in the re-read")
                    .isEqualTo(meters.samplesExpected.count())
                    .isEqualTo(1);
            writer.close();
        }
    }
}
