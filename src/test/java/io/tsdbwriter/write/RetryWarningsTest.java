package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A retry of a write to an endpoint is said at once (one WARN per endpoint at most once a minute, with the status, the
 * detail and the retries so far, never the URL's user info), not only once a write's retries are spent; the next
 * accepted write ends it.
 */
class RetryWarningsTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(RetryWarnings.class);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();

    @BeforeEach
    void capture() {
        captured.start();
        logger.addAppender(captured);
    }

    @AfterEach
    void release() {
        logger.detachAppender(captured);
    }

    private List<String> lines(Level level) {
        return captured.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void theFirstRetryIsSaidAtOnceThenAtMostOnceAMinutePerEndpoint() {
        AtomicLong clock = new AtomicLong(1_000);
        RetryWarnings w = new RetryWarnings(clock::get);
        WriteTarget vm = new WriteTarget("http://writer:s3cret@vm:8428");
        WriteTarget other = new WriteTarget("http://vm-2:8428");
        WriteOutcome unavailable = new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 503, -1, "busy");
        WriteOutcome timeout = new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 0, -1, "HttpTimeoutException: timeout");

        w.retrying(vm, unavailable);
        assertThat(lines(Level.WARN))
                .containsExactly(
                        "write endpoint http://vm:8428/api/v1/import answered 503 (busy): retrying with backoff "
                                + "(retries of writes to it since it last accepted one: 1; this line repeats at most once a "
                                + "minute while it fails)");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(59));
        w.retrying(vm, unavailable);
        w.retrying(other, timeout); // another endpoint's first: said, whatever vm's line
        assertThat(lines(Level.WARN)).hasSize(2);
        assertThat(lines(Level.WARN).get(1))
                .startsWith("write endpoint http://vm-2:8428/api/v1/import answered without a response "
                        + "(HttpTimeoutException: timeout): retrying with backoff (retries of writes to it since it "
                        + "last accepted one: 1;");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        w.retrying(vm, unavailable);
        assertThat(lines(Level.WARN)).hasSize(3);
        assertThat(lines(Level.WARN).get(2)).contains(" answered 503 (busy): ", " accepted one: 3; ");
        assertThat(lines(Level.WARN)).noneMatch(l -> l.contains("s3cret") || l.contains("writer@"));

        w.ok(vm); // accepted: over, and said once
        assertThat(lines(Level.INFO))
                .containsExactly(
                        "write endpoint http://vm:8428/api/v1/import accepts writes again (retries of writes to "
                                + "it since it last accepted one: 3)");
        w.retrying(vm, unavailable); // a new failure: said at once, counted from 1
        assertThat(lines(Level.WARN)).hasSize(4);
        assertThat(lines(Level.WARN).get(3)).contains(" accepted one: 1; ");

        w.ok(vm);
        w.ok(vm); // a healthy endpoint's accepted writes say nothing
        assertThat(lines(Level.INFO)).hasSize(2);
    }

    private MockWebServer server;

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.shutdown();
        }
    }

    @Test
    void theWriterSaysItsFirstRetryBeforeItsRetriesAreSpent() throws Exception {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
        server.enqueue(new MockResponse().setResponseCode(503).setBody("overloaded"));
        server.enqueue(new MockResponse().setResponseCode(429).setBody("slow down"));
        server.enqueue(new MockResponse().setResponseCode(204));
        String url = server.url("/").toString().replace("http://", "http://u:pw@");
        RetryPolicy retry = new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {});
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        try (WriteClient client = new WriteClient(Duration.ofSeconds(30), 4, false);
                BatchWriter writer = new BatchWriter(
                        List.of(new WriteTarget(url)),
                        client,
                        new WritePermits(4, 1 << 20),
                        retry,
                        OnWriteFailure.PAUSE,
                        meters,
                        true)) {
            WriteBatch<String, Void> batch = new WriteBatch<>(64);
            batch.body()
                    .put("{\"metric\":{\"__name__\":\"m\"},\"values\":[1],\"timestamps\":[1795300800000]}\n"
                            .getBytes(StandardCharsets.UTF_8));
            batch.addPoint(1, "r");
            CompletableFuture<String> done = new CompletableFuture<>();
            writer.submit(batch, new WriteListener<>() {
                @Override
                public void written(WriteBatch<String, Void> b) {
                    done.complete("written");
                }

                @Override
                public void rejected(WriteBatch<String, Void> b, List<Rejection<String>> rejections) {
                    done.complete("rejected");
                }

                @Override
                public void gaveUp(WriteBatch<String, Void> b, WriteOutcome outcome) {
                    done.complete("gave up");
                }

                @Override
                public void abandoned(WriteBatch<String, Void> b) {
                    done.complete("abandoned");
                }
            });
            assertThat(done.get(30, TimeUnit.SECONDS)).isEqualTo("written");
        }
        String endpoint = server.url("/api/v1/import").toString();
        assertThat(lines(Level.WARN))
                .as("the first retry said at once, the second within the minute not")
                .containsExactly("write endpoint " + endpoint + " answered 503 (overloaded): retrying with backoff "
                        + "(retries of writes to it since it last accepted one: 1; this line repeats at most once a "
                        + "minute while it fails)");
        assertThat(lines(Level.INFO))
                .containsExactly("write endpoint " + endpoint
                        + " accepts writes again (retries of writes to it since it " + "last accepted one: 2)");
    }
}
