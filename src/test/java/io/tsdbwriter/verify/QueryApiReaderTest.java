package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.QueryApiReader.Window;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QueryApiReaderTest {

    private static final long T = 1795300857000L;

    private MockWebServer prom;
    /** The form of every query received: {@code query} and {@code time}. */
    private final List<Map<String, String>> queries = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        prom = new MockWebServer();
        prom.start();
    }

    @AfterEach
    void stop() throws IOException {
        prom.shutdown();
    }

    // ------------------------------------------------------------------------------------------------ the plan

    @Test
    void windowsCoverTheSpanOnceOldestFirst() {
        assertThat(QueryApiReader.windows(0, 25, 10))
                .containsExactly(new Window(0, 10), new Window(10, 20), new Window(20, 25));
        assertThat(QueryApiReader.windows(0, 20, 10)).containsExactly(new Window(0, 10), new Window(10, 20));
        assertThat(QueryApiReader.windows(-5, 3, 100)).containsExactly(new Window(-5, 3));
        assertThat(QueryApiReader.windows(7, 7, 10)).isEmpty();
        assertThatThrownBy(() -> QueryApiReader.windows(0, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWindowHoldsAtMostElevenThousandSamplesPerSeriesAndAMillionPerQuery() {
        assertThat(QueryApiReader.windowMs(1, 1250)).isEqualTo(11_000 * 1250L);
        assertThat(QueryApiReader.windowMs(90, 1250)).isEqualTo(11_000 * 1250L);
        assertThat(QueryApiReader.windowMs(1000, 1250)).isEqualTo(1000 * 1250L);
        assertThat(QueryApiReader.windowMs(10_000_000, 1250)).isEqualTo(1250L);
        assertThat(QueryApiReader.windowMs(0, 1)).isEqualTo(11_000L);
    }

    @Test
    void theQueryIsARangeVectorSelectorAtTheWindowsEnd() {
        Window w = new Window(T - 60_000, T + 5);
        assertThat(QueryApiReader.query("{__name__=\"m\"}", w)).isEqualTo("{__name__=\"m\"}[60005ms]");
        assertThat(QueryApiReader.seconds(T + 5)).isEqualTo("1795300857.005");
        assertThat(QueryApiReader.seconds(-1)).isEqualTo("-1.999");
    }

    @Test
    void spacingAndMarginFollowTheSourceIntervalAndM() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("m", "k", T, 1)), 12, 1, 15_000);
        assertThat(QueryApiReader.spacingMs(e)).isEqualTo(1250);
        assertThat(QueryApiReader.marginMs(e)).isEqualTo(600_000);
        ExpectedSamples hourly = ExpectedSamples.of(List.of(point("m", "k", T, 1)), 1, 1, 3_600_000);
        assertThat(QueryApiReader.marginMs(hourly)).isEqualTo(3_600_000);
    }

    @Test
    void tooManySamplesIsWhatPrometheusAnswersOverItsMaxSamples() {
        assertThat(QueryApiReader.tooManySamples(
                        422,
                        "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would load too many "
                                + "samples into memory in query execution\"}"))
                .isTrue();
        assertThat(QueryApiReader.tooManySamples(422, "too many series")).isFalse();
        assertThat(QueryApiReader.tooManySamples(200, "too many samples")).isFalse();
    }

    // ------------------------------------------------------------------------------------------------ over HTTP

    private static SourcePoint point(String metric, String productKey, long t, double v) {
        return new SourcePoint(metric, Map.of("instanceNo", "h"), productKey, t, v);
    }

    /** Answers every query with the samples {@code answer} gives for its form; records the form. */
    private Dispatcher answering(Function<Map<String, String>, String> answer) {
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                Map<String, String> form = new TreeMap<>();
                for (String kv : request.getBody().readUtf8().split("&")) {
                    int eq = kv.indexOf('=');
                    form.put(
                            URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
                }
                form.put("path", request.getRequestUrl().encodedPath());
                form.put("method", request.getMethod());
                synchronized (queries) {
                    queries.add(form);
                }
                return new MockResponse().setBody(answer.apply(form));
            }
        };
    }

    /** The matrix answer of one series {@code m{instanceNo="h",productKey="k"}} with the samples {@code t=v} of {@code tv}. */
    private static String matrix(long... tv) {
        StringBuilder b = new StringBuilder("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
        if (tv.length > 0) {
            b.append("{\"metric\":{\"__name__\":\"m\",\"instanceNo\":\"h\",\"productKey\":\"k\"},\"values\":[");
            for (int i = 0; i < tv.length; i += 2) {
                b.append(i == 0 ? "" : ",")
                        .append('[')
                        .append(BigDecimal.valueOf(tv[i]).movePointLeft(3).toPlainString())
                        .append(",\"")
                        .append(tv[i + 1])
                        .append("\"]");
            }
            b.append("]}");
        }
        return b.append("]}}").toString();
    }

    private VerificationResult read(ExpectedSamples expected, String match) throws IOException {
        ExportComparison comparison = new ExportComparison(expected, 0);
        new QueryApiReader(
                        prom.url("/prom").newBuilder().build(),
                        r -> ReadBackVerifier.defaultClient().newCall(r).execute())
                .read(expected, match, T, comparison);
        return comparison.result();
    }

    @Test
    void postsOneRangeVectorQueryPerWindowAndComparesEverySample() throws Exception {
        // two points 60 s apart, M = 2 at 60 s: samples at T, T+30s, T+60s, T+90s; the answer holds every sample of the
        // store, the window boundaries are the reader's to respect
        ExpectedSamples e =
                ExpectedSamples.of(List.of(point("m", "k", T, 1), point("m", "k", T + 60_000, 2)), 2, 1, 60_000);
        prom.setDispatcher(answering(f -> matrix(T, 1, T + 30_000, 1, T + 60_000, 2, T + 90_000, 2)));

        VerificationResult r = read(e, null);

        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(4);
        assertThat(queries).hasSize(1);
        Map<String, String> q = queries.get(0);
        assertThat(q.get("method")).isEqualTo("POST");
        assertThat(q.get("path")).isEqualTo("/prom/api/v1/query");
        long after = T - 600_000 - 1;
        long end = T + 90_000 + 600_000;
        assertThat(q.get("query")).isEqualTo("{__name__=\"m\",productKey=\"k\"}[" + (end - after) + "ms]");
        assertThat(q.get("time")).isEqualTo(QueryApiReader.seconds(end));
    }

    @Test
    void aSampleAtAWindowsStartIsReadOnceThoughPrometheusTwoAnswersItInBothWindows() throws Exception {
        // 1 ms spacing (M = 1000 at 1 s): windows of 11,000 ms; a sample at every window boundary
        List<SourcePoint> points = new ArrayList<>();
        for (long t = T; t < T + 40_000; t += 1000) {
            points.add(point("m", "k", t, 1));
        }
        ExpectedSamples e = ExpectedSamples.of(points, 1000, 1, 1000);
        prom.setDispatcher(answering(f -> {
            long at = new BigDecimal(f.get("time")).movePointRight(3).longValueExact();
            String q = f.get("query");
            long range = Long.parseLong(q.substring(q.indexOf('[') + 1, q.indexOf("ms]")));
            List<Long> tv = new ArrayList<>();
            for (long t = Math.max(T, at - range); t <= Math.min(at, T + 40_000 - 1); t++) { // closed, as Prometheus 2
                tv.add(t);
                tv.add(1L);
            }
            return matrix(tv.stream().mapToLong(Long::longValue).toArray());
        }));

        VerificationResult r = read(e, null);

        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.duplicateSamples()).isZero();
        assertThat(r.foundSamples()).isEqualTo(40_000);
        assertThat(queries).hasSizeGreaterThan(4);
    }

    @Test
    void aWindowRefusedForTooManySamplesIsReadInHalves() throws Exception {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("m", "k", T, 1)), 1, 1, 60_000);
        prom.setDispatcher(new Dispatcher() {
            private final Dispatcher ok = answering(f -> {
                long at = new BigDecimal(f.get("time")).movePointRight(3).longValueExact();
                String q = f.get("query");
                long range = Long.parseLong(q.substring(q.indexOf('[') + 1, q.indexOf("ms]")));
                return at - range < T && T <= at ? matrix(T, 1) : matrix();
            });

            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                MockResponse r = ok.dispatch(request);
                String q = queries.get(queries.size() - 1).get("query");
                long range = Long.parseLong(q.substring(q.indexOf('[') + 1, q.indexOf("ms]")));
                return range > 400_000
                        ? new MockResponse()
                                .setResponseCode(422)
                                .setBody("{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query "
                                        + "processing would load too many samples into memory in query execution\"}")
                        : r;
            }
        });

        VerificationResult r = read(e, null);

        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(queries).hasSize(1 + 2 + 4); // 1,200,001 ms refused, its halves too, its quarters (300,000 ms) not
    }

    @Test
    void withAMatchItReadsThatSelectorAndReportsWhatElseItSelects() throws Exception {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("x", "k", T, 1)), 1, 1, 60_000);
        prom.setDispatcher(answering(f -> matrix(T, 1)));

        VerificationResult r = read(e, "{productKey=\"k\"}");

        assertThat(queries.get(0).get("query")).startsWith("{productKey=\"k\"}[");
        assertThat(r.passed()).isFalse();
        assertThat(r.unexpectedSeries()).isEqualTo(1);
        assertThat(r.missingSamples()).isEqualTo(1);
    }

    @Test
    void anAnswerOtherThan2xxFailsNamingTheUrlAndTheError() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("m", "k", T, 1)), 1, 1, 60_000);
        prom.enqueue(new MockResponse()
                .setResponseCode(400)
                .setBody("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}"));

        assertThatThrownBy(() -> read(e, null))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("POST " + prom.url("/prom/api/v1/query") + " answered 400: ")
                .hasMessageContaining("parse error");
    }

    @Test
    void anAnswerThatIsNoRangeVectorFailsNamingTheUrl() {
        ExpectedSamples e = ExpectedSamples.of(List.of(point("m", "k", T, 1)), 1, 1, 60_000);
        prom.enqueue(new MockResponse()
                .setBody("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"));

        assertThatThrownBy(() -> read(e, null))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("POST " + prom.url("/prom/api/v1/query") + ": ")
                .hasMessageContaining("not a range vector");
    }

    @Test
    void nothingExpectedAndNoMatchQueriesNothing() throws Exception {
        VerificationResult r = read(ExpectedSamples.of(List.of(), 1, 1, 60_000), null);

        assertThat(r.passed()).isTrue();
        assertThat(prom.getRequestCount()).isZero();
    }
}
