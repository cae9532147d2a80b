package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import okhttp3.mockwebserver.Dispatcher;
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
    private static final String EXPORT =
            "{\"metric\":{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"},"
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
        assertThat(end * 1000)
                .isGreaterThan(Math.max(System.currentTimeMillis(), EXPECTED.maxTimestampMs())
                        + Duration.ofDays(1).toMillis());
    }

    @Test
    void withoutAMatchItPostsTheInputsSelectorsSoAForeignSeriesIsNeitherReadNorReported() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(200));
        vm.enqueue(new MockResponse().setBody(EXPORT));

        VerificationResult r = new ReadBackVerifier(
                        vm.url("/").toString(),
                        null,
                        ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE,
                        ReadBackVerifier.defaultClient())
                .verify(EXPECTED);

        assertThat(r.passed()).isTrue();
        assertThat(vm.takeRequest().getPath()).isEqualTo("/internal/force_flush");
        RecordedRequest export = vm.takeRequest();
        assertThat(export.getMethod()).isEqualTo("POST");
        assertThat(export.getRequestUrl().encodedPath()).isEqualTo("/api/v1/export");
        assertThat(export.getRequestUrl().query()).isNull();
        String form = URLDecoder.decode(export.getBody().readUtf8(), StandardCharsets.UTF_8);
        assertThat(form).startsWith("match[]={__name__=\"node_load1\",productKey=\"node\"}&start=0&end=");
    }

    @Test
    void withoutAMatchAndNothingExpectedItExportsNothing() throws Exception {
        vm.enqueue(new MockResponse().setResponseCode(200));

        VerificationResult r = new ReadBackVerifier(
                        vm.url("/").toString(),
                        null,
                        ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE,
                        ReadBackVerifier.defaultClient())
                .verify(ExpectedSamples.of(List.of(), 1, 1, 60_000));

        assertThat(r.readSamples()).isZero();
        assertThat(vm.getRequestCount()).isEqualTo(1);
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
                .isInstanceOf(IOException.class)
                .hasMessageContaining("422")
                .hasMessageContaining("too many series");
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
        assertThatThrownBy(() -> new ReadBackVerifier(
                        "http://localhost:8428", ReadBackVerifier.ALL_SERIES, -1, ReadBackVerifier.defaultClient()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------------ verifySearchable

    /** A clock that only the sleeper moves. */
    private final long[] nanos = {0};

    private final List<Duration> sleeps = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private ReadBackVerifier verifier(String vmUrl, List<String> flushUrls) {
        return new ReadBackVerifier(
                vmUrl,
                flushUrls,
                ReadBackVerifier.ALL_SERIES,
                ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE,
                ReadBackVerifier.defaultClient(),
                () -> nanos[0],
                d -> {
                    sleeps.add(d);
                    nanos[0] += d.toNanos();
                });
    }

    /** Answers force_flush with {@code flushStatus} and the k-th export (from 1) with {@code export.apply(k)}. */
    private static Dispatcher vmAnswering(int flushStatus, IntFunction<String> export) {
        AtomicInteger exports = new AtomicInteger();
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                if (request.getRequestUrl().encodedPath().endsWith("/internal/force_flush")) {
                    return new MockResponse()
                            .setResponseCode(flushStatus)
                            .setBody(flushStatus == 400 ? "unsupported path requested" : "");
                }
                return new MockResponse().setBody(export.apply(exports.incrementAndGet()));
            }
        };
    }

    /** How many of the requests {@code server} received were exports. */
    private static long exports(MockWebServer server) throws InterruptedException {
        return paths(server).stream().filter(p -> p.endsWith("/api/v1/export")).count();
    }

    private static List<String> paths(MockWebServer server) throws InterruptedException {
        List<String> paths = new ArrayList<>();
        for (int i = server.getRequestCount(); i > 0; i--) {
            paths.add(server.takeRequest().getRequestUrl().encodedPath());
        }
        return paths;
    }

    @Test
    void withoutAFlushItReadsBackUntilTheCountsStayTheSameForTwentySeconds() throws Exception {
        vm.setDispatcher(vmAnswering(400, k -> ""));

        VerificationResult r = verifier(vm.url("/select/0/prometheus").toString(), List.of())
                .verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);

        assertThat(r.passed()).isFalse();
        assertThat(r.missingSamples()).isEqualTo(1);
        assertThat(sleeps).hasSize(10).containsOnly(Duration.ofSeconds(2));
        assertThat(exports(vm)).isEqualTo(11);
        assertThat(notes).hasSize(2);
        assertThat(notes.get(0))
                .contains("/select/0/prometheus does not serve /internal/force_flush")
                .contains("--flush-url");
        assertThat(notes.get(1)).isEqualTo("the counts read back stayed the same for 20s: taken as final");
    }

    @Test
    void withoutAFlushItStopsAsSoonAsTheSamplesAreSearchable() throws Exception {
        vm.setDispatcher(vmAnswering(400, k -> k < 3 ? "" : EXPORT));

        VerificationResult r = verifier(vm.url("/select/0/prometheus").toString(), List.of())
                .verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);

        assertThat(r.passed()).isTrue();
        assertThat(sleeps).hasSize(2);
        assertThat(exports(vm)).isEqualTo(3);
    }

    @Test
    void theSearchTimeoutBoundsReadBacksWhoseCountsKeepChanging() throws Exception {
        // the k-th export holds k samples of an unexpected series: the counts never settle
        vm.setDispatcher(vmAnswering(400, k -> {
            StringBuilder values = new StringBuilder();
            StringBuilder ts = new StringBuilder();
            for (int i = 0; i < k; i++) {
                values.append(i == 0 ? "" : ",").append(1);
                ts.append(i == 0 ? "" : ",").append(T + i * 1000L);
            }
            return "{\"metric\":{\"__name__\":\"other\"},\"values\":[" + values + "],\"timestamps\":[" + ts + "]}\n";
        }));

        VerificationResult r = verifier(vm.url("/").toString(), List.of())
                .verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(2), notes::add);

        assertThat(r.readSamples()).isEqualTo(6);
        assertThat(sleeps).hasSize(5);
        assertThat(notes).last().isEqualTo("--search-timeout 10s is over: the last read-back is taken as final");
    }

    @Test
    void withFlushUrlsItFlushesEachBeforeEveryReadBackAndSettlesInFiveSeconds() throws Exception {
        try (MockWebServer storage0 = new MockWebServer();
                MockWebServer storage1 = new MockWebServer()) {
            storage0.setDispatcher(vmAnswering(200, k -> ""));
            storage1.setDispatcher(vmAnswering(204, k -> ""));
            vm.setDispatcher(vmAnswering(400, k -> ""));

            VerificationResult r = verifier(
                            vm.url("/select/0/prometheus").toString(),
                            List.of(
                                    storage0.url("/").toString(),
                                    storage1.url("").toString()))
                    .verifySearchable(
                            EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);

            assertThat(r.passed()).isFalse();
            assertThat(sleeps).hasSize(3);
            assertThat(storage0.getRequestCount()).isEqualTo(4);
            assertThat(storage1.getRequestCount()).isEqualTo(4);
            assertThat(storage0.takeRequest().getPath()).isEqualTo("/internal/force_flush");
            assertThat(paths(vm))
                    .hasSize(4)
                    .allMatch(p -> p.equals("/select/0/prometheus/api/v1/export")); // no force_flush
            assertThat(notes).isEmpty();
        }
    }

    @Test
    void aSingleNodeFlushedReadBackIsFinalAtOnce() throws Exception {
        vm.setDispatcher(vmAnswering(204, k -> ""));

        VerificationResult r = verifier(vm.url("/").toString(), List.of())
                .verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);

        assertThat(r.missingSamples()).isEqualTo(1);
        assertThat(sleeps).isEmpty();
        assertThat(vm.getRequestCount()).isEqualTo(2);
    }

    @Test
    void anUnreachableFlushUrlIsThrownAtOnceNamingIt() throws Exception {
        MockWebServer storage = new MockWebServer();
        storage.start();
        String dead = storage.url("/").toString();
        storage.shutdown();

        assertThatThrownBy(() -> verifier(vm.url("/select/0/prometheus").toString(), List.of(dead))
                        .verifySearchable(
                                EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add))
                .isInstanceOf(ReadBackVerifier.Unreachable.class)
                .hasMessageStartingWith("GET " + dead + "internal/force_flush: ");
        assertThat(sleeps).isEmpty();
        assertThat(vm.getRequestCount()).isZero();
    }

    // ------------------------------------------------------------------------------------------------ read API

    private static final String MATRIX = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
            + "{\"metric\":{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"},"
            + "\"values\":[[" + T / 1000 + "." + String.format("%03d", T % 1000) + ",\"0.5\"]]}]}}";

    /** A Prometheus: 404 but for /api/v1/query, which answers {@link #MATRIX}. */
    private static Dispatcher prometheus() {
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return request.getRequestUrl().encodedPath().endsWith("/api/v1/query")
                        ? new MockResponse().setBody(MATRIX)
                        : new MockResponse().setResponseCode(404).setBody("404 page not found");
            }
        };
    }

    @Test
    void autoReadsThroughTheQueryApiFromTheFirstExportThatAnswers404On() throws Exception {
        vm.setDispatcher(prometheus());
        ReadBackVerifier v = verifier(vm.url("/").toString(), List.of()).withReadApi(ReadApi.AUTO);

        VerificationResult first =
                v.verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);
        VerificationResult second =
                v.verifySearchable(EXPECTED, Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(2), notes::add);

        assertThat(first.passed()).as(first.summary()).isTrue();
        assertThat(second.passed()).isTrue();
        assertThat(v.readsQueryApi()).isTrue();
        assertThat(paths(vm))
                .containsExactly("/internal/force_flush", "/api/v1/export", "/api/v1/query", "/api/v1/query");
        assertThat(notes)
                .containsExactly(
                        vm.url("/") + "api/v1/export answered 404: reading back through the Prometheus query API, "
                                + vm.url("/") + "api/v1/query");
    }

    @Test
    void prometheusReadsTheQueryApiWithoutAFlushAndItsResultIsFinalAtOnce() throws Exception {
        vm.setDispatcher(prometheus());
        ReadBackVerifier v = new ReadBackVerifier(vm.url("/").toString(), null, 0, ReadBackVerifier.defaultClient())
                .withReadApi(ReadApi.PROMETHEUS);

        VerificationResult r = v.verifySearchable(
                ExpectedSamples.of(
                        List.of(new SourcePoint("node_load1", Map.of("instanceNo", "h"), "node", T, 0.5)),
                        1,
                        2,
                        60_000),
                Duration.ZERO,
                Duration.ofSeconds(60),
                Duration.ofSeconds(2),
                notes::add);

        assertThat(r.missingSamples()).isEqualTo(1);
        assertThat(paths(vm)).containsExactly("/api/v1/query");
        assertThat(notes).isEmpty();
        assertThat(v.readApi()).isEqualTo(ReadApi.PROMETHEUS);
    }

    @Test
    void vmExportTakesAnExportAnswering404AsAnError() {
        vm.setDispatcher(prometheus());

        assertThatThrownBy(() -> new ReadBackVerifier(vm.url("/").toString()).verify(EXPECTED))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("GET " + vm.url("/") + "api/v1/export answered 404: 404 page not found");
        assertThat(vm.getRequestCount()).isEqualTo(2);
    }

    @Test
    void flushUrlsAreNotForTheQueryApi() {
        assertThatThrownBy(() -> verifier("http://localhost:9090", List.of("http://vmstorage:8482"))
                        .withReadApi(ReadApi.PROMETHEUS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ReadApi.parse(" VM-Export")).isEqualTo(ReadApi.VM_EXPORT);
        assertThatThrownBy(() -> ReadApi.parse("mimir")).hasMessage("'mimir' is not auto, vm-export or prometheus");
    }
}
