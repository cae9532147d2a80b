package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReadBackVerifierTest {

    private static final long T = 1795300857000L;
    private static final ExpectedSamples EXPECTED = ExpectedSamples.of(
            List.of(new SourcePoint("node_load1", Map.of("instanceNo", "h"), "node", T, 0.5)), 1, 1, 60_000);
    private static final String EXPORT = "{\"metric\":{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"},"
            + "\"values\":[0.5],\"timestamps\":[" + T + "]}\n";

    private MockWebServer vm;

    @BeforeEach
    void start() throws IOException {
        vm = new MockWebServer();
        vm.start();
    }

    @AfterEach
    void stop() throws IOException {
        vm.shutdown();
    }

    @Test
    void flushesThenExportsEverySeriesOverTheWholeTimeRange() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(200));
        vm.enqueue(new MockResponse().setBody(EXPORT));

        VerificationResult r = new ReadBackVerifier(vm.url("/").toString()).verify(EXPECTED);

        assertThat(r.passed()).isTrue();
        RecordedRequest flush = vm.takeRequest();
        assertThat(flush.getPath()).isEqualTo("/internal/force_flush");
        RecordedRequest export = vm.takeRequest();
        assertThat(export.getRequestUrl().encodedPath()).isEqualTo("/api/v1/export");
        assertThat(export.getRequestUrl().queryParameter("match[]")).isEqualTo("{__name__!=\"\"}");
        assertThat(export.getRequestUrl().queryParameter("start")).isEqualTo("0");
        long end = Long.parseLong(export.getRequestUrl().queryParameter("end"));
        assertThat(end * 1000).isGreaterThan(Math.max(System.currentTimeMillis(), EXPECTED.maxTimestampMs()) + Duration.ofDays(1).toMillis());
    }

    @Test
    void appendsPathsToABaseUrlWithAPath() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(204));
        vm.enqueue(new MockResponse().setBody(EXPORT));

        new ReadBackVerifier(vm.url("/prefix/").toString()).verify(EXPECTED);

        assertThat(vm.takeRequest().getPath()).isEqualTo("/prefix/internal/force_flush");
        assertThat(vm.takeRequest().getRequestUrl().encodedPath()).isEqualTo("/prefix/api/v1/export");
    }

    @Test
    void failsWithTheStatusWhenVictoriaMetricsRefuses() {
        vm.enqueue(new MockResponse().setResponseCode(200));
        vm.enqueue(new MockResponse().setResponseCode(422).setBody("too many series"));

        assertThatThrownBy(() -> new ReadBackVerifier(vm.url("/").toString()).verify(EXPECTED))
                .isInstanceOf(IOException.class).hasMessageContaining("422").hasMessageContaining("too many series");
    }

    @Test
    void retriesUntilTheSamplesArrive() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(200));
        vm.enqueue(new MockResponse().setBody(""));
        vm.enqueue(new MockResponse().setResponseCode(200));
        vm.enqueue(new MockResponse().setBody(EXPORT));

        VerificationResult r = new ReadBackVerifier(vm.url("/").toString())
                .verifyWithin(EXPECTED, Duration.ofSeconds(10), Duration.ofMillis(10));

        assertThat(r.passed()).isTrue();
        assertThat(vm.getRequestCount()).isEqualTo(4);
    }

    @Test
    void refusesABadUrlOrTolerance() {
        assertThatThrownBy(() -> new ReadBackVerifier("localhost:8428")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReadBackVerifier("http://localhost:8428", ReadBackVerifier.ALL_SERIES, -1, ReadBackVerifier.defaultClient()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
