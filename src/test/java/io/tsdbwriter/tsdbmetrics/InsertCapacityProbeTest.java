package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.write.WriteTarget;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Reading vm_concurrent_insert_capacity from a target's /metrics (DESIGN §6). */
class InsertCapacityProbeTest {

    private static final String METRICS =
            """
            # HELP vm_concurrent_insert_capacity The size of the insert concurrency limiter
            # TYPE vm_concurrent_insert_capacity gauge
            vm_concurrent_insert_current 0
            vm_concurrent_insert_capacity 8
            vm_rows_invalid_total 0
            """;

    private MockWebServer server;
    private final OkHttpClient http = new OkHttpClient();

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        server.shutdown();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }

    private static OptionalInt parse(String text) throws IOException {
        return InsertCapacityProbe.parse(new BufferedReader(new StringReader(text)));
    }

    @Test
    void aGaugeWithAnExemplarIsStillTheGauge() throws IOException {
        // issue 41: the exemplar's braces made the metric name 'vm_concurrent_insert_capacity 8 #'
        assertThat(parse("vm_concurrent_insert_capacity 8 # {trace_id=\"a\"} 2\n"))
                .hasValue(8);
    }

    @Test
    void readsCapacityFromMetrics() throws Exception {
        server.enqueue(new MockResponse().setBody(METRICS));

        OptionalInt cap =
                InsertCapacityProbe.read(http, new WriteTarget(server.url("/").toString()).metricsUrl());

        assertThat(cap).hasValue(8);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getPath()).isEqualTo("/metrics");
    }

    @Test
    void readsClusterCapacityFromRootMetricsOfTheHost() throws Exception {
        server.enqueue(new MockResponse().setBody(METRICS));

        OptionalInt cap = InsertCapacityProbe.read(
                http, new WriteTarget(server.url("/insert/0/prometheus").toString()).metricsUrl());

        assertThat(cap).hasValue(8);
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getPath()).isEqualTo("/metrics");
    }

    @Test
    void emptyOnNotFound() {
        server.enqueue(new MockResponse().setResponseCode(404).setBody("404 page not found"));

        assertThat(InsertCapacityProbe.read(
                        http, new WriteTarget(server.url("/").toString()).metricsUrl()))
                .isEmpty();
    }

    @Test
    void emptyWhenGaugeAbsent() {
        server.enqueue(new MockResponse().setBody("vm_concurrent_insert_current 0\nvm_rows_invalid_total 0\n"));

        assertThat(InsertCapacityProbe.read(
                        http, new WriteTarget(server.url("/").toString()).metricsUrl()))
                .isEmpty();
    }

    @Test
    void emptyWhenUnreachable() throws IOException {
        MockWebServer dead = new MockWebServer();
        dead.start(InetAddress.getLoopbackAddress(), 0);
        String url = dead.url("/").toString();
        dead.shutdown();

        assertThat(InsertCapacityProbe.read(http, new WriteTarget(url).metricsUrl()))
                .isEmpty();
    }

    @Test
    void parsesGaugeWithLabels() throws IOException {
        assertThat(parse("vm_concurrent_insert_capacity{path=\"/insert\"} 16\n"))
                .hasValue(16);
    }

    @Test
    void parsesGaugeInFloatNotation() throws IOException {
        assertThat(parse("vm_concurrent_insert_capacity 3.2e+01\n")).hasValue(32);
    }

    @Test
    void ignoresMetricsThatOnlySharePrefix() throws IOException {
        assertThat(parse("vm_concurrent_insert_capacity_total 99\nvm_concurrent_insert_capacity 4\n"))
                .hasValue(4);
    }

    @Test
    void emptyForNonNumericValue() throws IOException {
        assertThat(parse("vm_concurrent_insert_capacity lots\n")).isEmpty();
    }

    @Test
    void emptyForZeroCapacity() throws IOException {
        assertThat(parse("vm_concurrent_insert_capacity 0\n")).isEmpty();
    }
}
