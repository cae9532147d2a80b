package io.tsdbwriter.write.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.concurrent.Task;
import okhttp3.internal.concurrent.TaskQueue;
import okhttp3.internal.concurrent.TaskRunner;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PooledConnectionsTest {

    @Test
    @Timeout(20)
    void reusesOneConnectionAndStillClosesItOnceIdlePastItsKeepAlive() throws Exception {
        ConnectionPool pool = PooledConnections.create(4, Duration.ofMillis(200));
        try (MockWebServer server = new MockWebServer()) {
            for (int i = 0; i < 20; i++) {
                server.enqueue(new MockResponse().setResponseCode(204));
            }
            server.start();
            OkHttpClient http = new OkHttpClient.Builder().connectionPool(pool).build();
            for (int i = 0; i < 20; i++) {
                try (Response r = http.newCall(new Request.Builder().url(server.url("/api/v1/write")).get().build()).execute()) {
                    assertThat(r.code()).isEqualTo(204);
                }
            }
            assertThat(server.getRequestCount()).isEqualTo(20);
            assertThat(pool.connectionCount()).as("one connection for 20 sequential requests").isEqualTo(1);
            assertThat(pool.idleConnectionCount()).isEqualTo(1);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (pool.connectionCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(pool.connectionCount()).as("closed within keep-alive + sweep interval").isZero();
        }
    }

    /** The backend's coordinator is not woken by "run now": a task due now runs at its next own wake-up, ≤ 1 s later. */
    @Test
    @Timeout(20)
    void aTaskScheduledForNowRunsAtTheNextSweepNotAtOnce() throws Exception {
        TaskRunner runner = new TaskRunner(new PooledConnections.ClockedBackend());
        TaskQueue queue = runner.newQueue();
        AtomicInteger runs = new AtomicInteger();
        Task task = new Task("sweep", true) {
            @Override
            public long runOnce() {
                runs.incrementAndGet();
                return Duration.ofMinutes(5).toNanos();
            }
        };
        queue.schedule(task, 0); // the coordinator starts and runs it
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (runs.get() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(runs.get()).isEqualTo(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < 1_000; i++) {
            queue.schedule(task, 0); // what every returned connection does
        }
        while (runs.get() < 2 && System.nanoTime() < deadline + Duration.ofSeconds(5).toNanos()) {
            Thread.sleep(10);
        }
        double waitedSeconds = (System.nanoTime() - t0) / 1e9;
        assertThat(runs.get()).as("1,000 'run now' requests: one run").isEqualTo(2);
        assertThat(waitedSeconds).isLessThanOrEqualTo(PooledConnections.SWEEP_INTERVAL.toMillis() / 1000.0 + 1.0);
        queue.shutdown();
    }
}
