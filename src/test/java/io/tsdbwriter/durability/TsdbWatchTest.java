package io.tsdbwriter.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The restart watch and the durability bound, against a loopback page standing in for a TSDB's /metrics (pure logic of
 * the probe: the integration tests kill real VictoriaMetrics and Prometheus processes). Rounds are driven by hand.
 */
class TsdbWatchTest {

    private static final String VM =
            """
            vm_app_start_timestamp %s
            vm_data_size_bytes{type="storage/small"} 1
            flag{name="inmemoryDataFlushInterval", value="5s", is_set="false"} 1
            """;

    private HttpServer server;
    private volatile String page = VM.formatted("1000");
    private volatile int status = 200;
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    private final OkHttpClient http = new OkHttpClient();

    private String serve() throws IOException {
        serveAgain(0); // any free port
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/metrics";
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private TsdbWatch watch(String url, Duration override) {
        return new TsdbWatch(http, List.of(url), List.of(url), override, meters);
    }

    @Test
    void theWindowIsReadFromThePageAndEveryAnsweredRoundMovesTheBound() throws IOException {
        TsdbWatch w = watch(serve(), null);
        assertThat(w.window()).isEqualTo(Duration.ofSeconds(16));
        assertThat(meters.durabilityWindowSeconds.get()).isEqualTo(16);
        long ack = System.nanoTime();

        long before = System.nanoTime();
        w.round();

        DurabilityClock.State s = w.state();
        assertThat(s.restarts()).isZero();
        assertThat(s.durableBeforeNanos())
                .isBetween(
                        before - Duration.ofSeconds(16).toNanos(),
                        System.nanoTime() - Duration.ofSeconds(16).toNanos());
        assertThat(s.durable(ack)).isFalse(); // acknowledged just now: 16 s to go
        assertThat(s.durable(ack - Duration.ofSeconds(17).toNanos())).isTrue();
    }

    @Test
    void aChangedStartTimeIsARestart() throws IOException {
        TsdbWatch w = watch(serve(), Duration.ofSeconds(1));
        w.round();
        page = VM.formatted("1003");

        w.round();

        assertThat(w.state().restarts()).isEqualTo(1);
        assertThat(meters.tsdbRestarts()).isEqualTo(1);
        assertThat(w.lastRestart()).contains("/metrics started at 1970-01-01T00:16:43Z (was 1970-01-01T00:16:40Z)");
        w.round(); // the same new start time: no further restart
        assertThat(w.state().restarts()).isEqualTo(1);
    }

    @Test
    void aFallingUptimeWithinTheSameStartSecondIsARestart() throws IOException {
        page = VM.formatted("1000") + "vm_app_uptime_seconds 5.5\n";
        TsdbWatch w = watch(serve(), Duration.ofSeconds(1));
        w.round();
        page = VM.formatted("1000") + "vm_app_uptime_seconds 0.3\n";

        w.round();

        assertThat(w.state().restarts()).isEqualTo(1);
    }

    @Test
    void aRoundWithASilentProcessMovesNothingAndItsReturnWithTheSameStartIsNoRestart() throws IOException {
        TsdbWatch w = watch(serve(), Duration.ofSeconds(1));
        w.round();
        long bound = w.state().durableBeforeNanos();
        status = 503;

        w.round();
        assertThat(w.state().durableBeforeNanos()).isEqualTo(bound);

        status = 200;
        w.round();
        assertThat(w.state().restarts()).isZero();
        assertThat(w.state().durableBeforeNanos()).isGreaterThan(bound);
    }

    @Test
    void aProcessDownThenBackWithANewStartTimeIsOneRestart() throws IOException {
        String url = serve();
        TsdbWatch w = watch(url, Duration.ofSeconds(1));
        w.round();
        int port = server.getAddress().getPort();
        server.stop(0);
        w.round(); // refused
        assertThat(w.state().restarts()).isZero();

        page = VM.formatted("2000");
        serveAgain(port);
        w.round();

        assertThat(w.state().restarts()).isEqualTo(1);
    }

    @Test
    void aPageWithoutAStartTimeIsWatchedForReachabilityAndAnOutageCountsAsARestart() throws IOException {
        page = "cortex_ingester_ingested_samples_total 3\n";
        TsdbWatch w = watch(serve(), null);
        assertThat(w.window()).isEqualTo(DurabilityNeed.UNKNOWN);
        assertThat(w.describe()).contains("reachability only");
        w.round();
        assertThat(w.state().restarts()).isZero();

        status = 502;
        w.round(); // answered: still reachable
        status = 200;
        w.round();
        assertThat(w.state().restarts()).isZero();
    }

    @Test
    void aProcessDownAtStartIsWatchedByItsStartTimeOnceItAnswers() throws IOException {
        String url = serve();
        int port = server.getAddress().getPort();
        server.stop(0); // down when the writer starts: connection refused
        TsdbWatch w = watch(url, Duration.ofSeconds(1));
        w.round();
        serveAgain(port);
        w.round(); // answers after a failed probe: a restart, since nothing told its start time before
        assertThat(w.state().restarts()).isEqualTo(1);

        status = 503;
        w.round(); // answers without a page: commits wait, no restart
        status = 200;
        w.round(); // back with the same start time: no restart now
        assertThat(w.state().restarts()).isEqualTo(1);
        page = VM.formatted("1001");
        w.round();
        assertThat(w.state().restarts()).isEqualTo(2);
    }

    private void serveAgain(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/metrics", ex -> {
            byte[] b = page.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        server.start();
    }

    @Test
    void aPageAnswering404IsAskedOnceNotEveryRoundAndHoldsNoCommit() throws IOException {
        status = 404;
        String url = serve();
        AtomicInteger asked = new AtomicInteger();
        TsdbWatch w = new TsdbWatch(
                http.newBuilder()
                        .addInterceptor(chain -> {
                            asked.incrementAndGet();
                            return chain.proceed(chain.request());
                        })
                        .build(),
                List.of(url),
                List.of(url),
                null,
                meters);
        long before = System.nanoTime();
        w.round();
        w.round();
        w.round();

        assertThat(asked.get()).as("asked once, at start").isEqualTo(1);
        assertThat(w.describe()).contains("it answers 404: not asked again");
        assertThat(w.window()).isEqualTo(DurabilityNeed.UNKNOWN);
        assertThat(w.state().durableBeforeNanos() - (before - DurabilityNeed.UNKNOWN.toNanos()))
                .as("rounds move the bound")
                .isPositive();
    }

    @Test
    void anOverrideWinsOverThePage() throws IOException {
        assertThat(watch(serve(), Duration.ofSeconds(2)).window()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aFixedClockHasNoRestartsAndTheWindowOnly() {
        DurabilityClock c = DurabilityClock.fixed(Duration.ofSeconds(5));
        long now = System.nanoTime();
        assertThat(c.state().durable(now)).isFalse();
        assertThat(c.state().durable(now - Duration.ofSeconds(6).toNanos())).isTrue();
        assertThat(DurabilityClock.atOnce().off()).isTrue();
        long ack = System.nanoTime();
        assertThat(DurabilityClock.atOnce().state().durable(ack)).isTrue();
    }
}
