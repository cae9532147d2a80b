package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.OrderedLanes;
import io.tsdbwriter.write.RetryPolicy;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteOutcome;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reorder step of a partition (DESIGN §6 "Per-series order"): the batches of segment k reach the lanes before
 * those of segment k + 1, whichever reader made them first; what is held when the partition stops is dropped.
 * Against a real {@link BatchWriter} with one lane and a MockWebServer on loopback, which records the bodies it got.
 */
class SegmentOrderTest {

    private static final long WAIT_S = 30;
    private MockWebServer server;
    private WriteClient client;
    private BatchWriter writer;
    private OrderedLanes lanes;
    private final List<String> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                received.add(request.getBody().readUtf8());
                return new MockResponse().setResponseCode(204);
            }
        });
        server.start(InetAddress.getLoopbackAddress(), 0);
        client = new WriteClient(Duration.ofSeconds(30), 4, false);
        writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())),
                client,
                new WritePermits(4, 1 << 20),
                new RetryPolicy(3, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {}),
                OnWriteFailure.PAUSE,
                new WriterMeters(new SimpleMeterRegistry()),
                false);
        lanes = new OrderedLanes(writer);
        lanes.open(1);
    }

    @AfterEach
    void stop() throws IOException {
        lanes.close();
        writer.close();
        client.close();
        server.shutdown();
    }

    /** Counts what ended how. */
    private static final class Maker implements SegmentOrder.Maker {
        final List<String> written = new CopyOnWriteArrayList<>();
        final List<String> dropped = new CopyOnWriteArrayList<>();
        final CountDownLatch ends;

        Maker(int batches) {
            ends = new CountDownLatch(batches);
        }

        private static String name(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b) {
            return new String(b.body().array(), 0, b.body().length(), StandardCharsets.UTF_8);
        }

        @Override
        public void written(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b) {
            written.add(name(b));
            ends.countDown();
        }

        @Override
        public void rejected(
                WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b,
                List<Rejection<ConsumerRecord<byte[], byte[]>>> r) {
            ends.countDown();
        }

        @Override
        public void gaveUp(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b, WriteOutcome o) {
            ends.countDown();
        }

        @Override
        public void abandoned(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b) {
            ends.countDown();
        }

        @Override
        public void dropped(WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b) {
            dropped.add(name(b));
            ends.countDown();
        }

        void await() throws InterruptedException {
            assertThat(ends.await(WAIT_S, TimeUnit.SECONDS))
                    .as("every batch ended")
                    .isTrue();
        }
    }

    private static SegmentOrder.Held held(String body, Maker m) {
        WriteBatch<ConsumerRecord<byte[], byte[]>, AckTracker.Pending> b = new WriteBatch<>(16);
        b.body().put(body.getBytes(StandardCharsets.UTF_8));
        b.addPoint(1, null);
        return new SegmentOrder.Held(0, b, m);
    }

    @Test
    void laterSegmentsBatchesWaitUntilEveryEarlierSegmentWasReadThenGoInSegmentOrder() throws Exception {
        Maker m = new Maker(6);
        SegmentOrder order = new SegmentOrder(lanes, 10);
        order.submit(12, held("s12-a", m)); // the third reader is fastest
        order.submit(11, held("s11-a", m));
        order.submit(10, held("s10-a", m)); // the lowest: to the lane at once
        order.segmentRead(12);
        order.submit(11, held("s11-b", m));
        order.segmentRead(11);
        assertThat(order.lowest()).as("segment 10 is not read yet").isEqualTo(10);
        order.submit(10, held("s10-b", m));
        order.segmentRead(10); // hands on 11 and 12, both read
        assertThat(order.lowest()).isEqualTo(13);
        order.submit(13, held("s13-a", m)); // now the lowest: at once
        m.await();
        assertThat(received).containsExactly("s10-a", "s10-b", "s11-a", "s11-b", "s12-a", "s13-a");
        assertThat(order.heldBytes()).isZero();
    }

    @Test
    void aSegmentThatBecomesTheLowestWhileItsReaderGoesOnKeepsItsReadersOrder() throws Exception {
        Maker m = new Maker(4);
        SegmentOrder order = new SegmentOrder(lanes, 0);
        order.submit(1, held("s1-a", m));
        order.segmentRead(0); // segment 0 had no batch; 1 becomes the lowest, its held batch goes first
        order.submit(1, held("s1-b", m));
        order.submit(2, held("s2-a", m));
        order.submit(1, held("s1-c", m));
        order.segmentRead(1);
        m.await();
        assertThat(received).containsExactly("s1-a", "s1-b", "s1-c", "s2-a");
    }

    @Test
    void aReaderOfALaterSegmentWaitsPastTheHeldLimitUntilItsSegmentIsTheLowest() throws Exception {
        Maker m = new Maker(3);
        SegmentOrder order = new SegmentOrder(lanes, 0, 1);
        order.submit(1, held("s1-a", m)); // held: the limit is reached
        Thread later = Thread.ofPlatform().start(() -> {
            try {
                order.submit(1, held("s1-b", m));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        order.submit(0, held("s0-a", m)); // the lowest never waits
        order.segmentRead(0);
        later.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(later.isAlive()).isFalse();
        m.await();
        assertThat(received).containsExactly("s0-a", "s1-a", "s1-b");
    }

    @Test
    void stopDropsWhatIsHeldAndWhatIsNotNextInLineButLetsTheLowestSegmentsNextBatchGo() throws Exception {
        Maker m = new Maker(6);
        SegmentOrder order = new SegmentOrder(lanes, 0);
        order.submit(0, held("s0-a", m));
        order.submit(1, held("s1-a", m));
        order.submit(2, held("s2-a", m));
        order.stop();
        order.submit(2, held("s2-b", m)); // not the lowest: dropped
        order.submit(0, held("s0-b", m)); // the lowest, nothing of it dropped: a stopping reader's open batch goes
        order.segmentRead(0); // hands nothing on after the stop
        order.submit(1, held("s1-b", m));
        m.await();
        assertThat(m.written).containsExactly("s0-a", "s0-b");
        assertThat(m.dropped).containsExactlyInAnyOrder("s1-a", "s2-a", "s2-b", "s1-b");
        assertThat(received).containsExactly("s0-a", "s0-b");
        assertThat(order.heldBytes()).isZero();
    }
}
