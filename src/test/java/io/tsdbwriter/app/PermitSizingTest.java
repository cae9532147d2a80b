package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.WorkShare;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Write permits with {@code --max-concurrent-writes auto} (issue 42): this process's share of the target's insert
 * capacity, following its group's rebalances; {@code --target-metrics-url} adds several vminserts' capacities up.
 */
class PermitSizingTest {

    private final WriteClient client = new WriteClient(Duration.ofSeconds(5), 4, false);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    private final WritePermits permits = new WritePermits(PermitSizing.FALLBACK_PERMITS, 1 << 20);

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        client.close();
    }

    /** A /metrics page of a vminsert with {@code capacity} insert slots. */
    private static MockWebServer vminsert(int capacity) throws IOException {
        MockWebServer server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return new MockResponse()
                        .setBody("vm_concurrent_insert_current 0\nvm_concurrent_insert_capacity " + capacity + "\n");
            }
        });
        server.start(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    /** An intake whose share the test moves, as a group member's rebalances would. */
    private static class GroupIntake implements Intake {
        Consumer<WorkShare> listener;

        @Override
        public void onWorkShare(Consumer<WorkShare> l) {
            listener = l;
            l.accept(new WorkShare(0, 0, "partitions"));
        }

        @Override
        public void run() {}

        @Override
        public void stop() {}

        @Override
        public boolean hasEnd() {
            return false;
        }

        @Override
        public boolean reachedEnd() {
            return false;
        }

        @Override
        public boolean startFailed() {
            return false;
        }

        @Override
        public boolean cleanStop() {
            return true;
        }

        @Override
        public boolean kafkaReachable() {
            return true;
        }

        @Override
        public long logEndTotal() {
            return 0;
        }

        @Override
        public Map<TopicPartition, Shortfall> shortfall() {
            return null;
        }
    }

    @Test
    void autoTakesThisProcesssShareOfTheTargetsCapacityAtEveryRebalance() throws Exception {
        try (MockWebServer vm = vminsert(4)) {
            WriteTarget target = new WriteTarget(vm.url("/").toString());
            GroupIntake intake = new GroupIntake();
            PermitSizing sizing =
                    new PermitSizing(client, List.of(target), permits, 0, List.of(), Duration.ofSeconds(1));

            assertThat(sizing.start(meters, scheduler, intake)).isEqualTo(1); // nothing assigned yet: the least
            intake.listener.accept(new WorkShare(4, 4, "partitions"));
            assertThat(permits.capacity(target)).isEqualTo(4);
            intake.listener.accept(new WorkShare(2, 4, "partitions")); // a second member joined
            assertThat(permits.capacity(target)).isEqualTo(2);
            intake.listener.accept(new WorkShare(1, 4, "partitions"));
            assertThat(permits.capacity(target)).isEqualTo(1);
        }
    }

    @Test
    void aLoweredShareWaitsForTheRequestsAboveIt() throws Exception {
        try (MockWebServer vm = vminsert(4)) {
            WriteTarget target = new WriteTarget(vm.url("/").toString());
            GroupIntake intake = new GroupIntake();
            PermitSizing sizing =
                    new PermitSizing(client, List.of(target), permits, 0, List.of(), Duration.ofSeconds(30));
            sizing.start(meters, scheduler, intake);
            intake.listener.accept(new WorkShare(4, 4, "partitions"));
            WritePermits.Permit first = permits.acquire(target, 10);
            WritePermits.Permit second = permits.acquire(target, 10);
            Thread release = Thread.ofPlatform().start(() -> {
                while (permits.capacity(target) != 1) {
                    Thread.onSpinWait();
                }
                permits.release(first); // the request in flight above the lowered share finishes
            });

            intake.listener.accept(new WorkShare(1, 4, "partitions")); // returns once within the share
            assertThat(permits.inUse(target)).isEqualTo(1);
            release.join();
            permits.release(second);
        }
    }

    @Test
    void severalVminsertsBehindOneUrlAddTheirCapacitiesUp() throws Exception {
        try (MockWebServer a = vminsert(4);
                MockWebServer b = vminsert(6);
                MockWebServer service = vminsert(4)) {
            WriteTarget target =
                    new WriteTarget(service.url("/insert/0/prometheus").toString());
            PermitSizing sizing = new PermitSizing(
                    client,
                    List.of(target),
                    permits,
                    0,
                    List.of(a.url("/metrics").toString(), b.url("/metrics").toString()),
                    Duration.ofSeconds(1));

            assertThat(sizing.start(meters, scheduler, new GroupIntake() {
                        @Override
                        public void onWorkShare(Consumer<WorkShare> l) {
                            l.accept(WorkShare.WHOLE); // a replay: no group
                        }
                    }))
                    .isEqualTo(10);
            assertThat(service.getRequestCount())
                    .isZero(); // the Service's own page (one of them, at random) is not read
        }
    }

    @Test
    void anExplicitCountIsThisProcesssAloneAndSplitOverTheTargets() throws Exception {
        WriteTarget a = new WriteTarget("http://127.0.0.1:9/a");
        WriteTarget b = new WriteTarget("http://127.0.0.1:9/b");
        GroupIntake intake = new GroupIntake();
        PermitSizing sizing = new PermitSizing(client, List.of(a, b), permits, 6, List.of(), Duration.ofSeconds(1));

        assertThat(sizing.start(meters, scheduler, intake)).isEqualTo(6);
        assertThat(intake.listener).isNull(); // no share followed
        assertThat(permits.capacity(a)).isEqualTo(3);
    }
}
