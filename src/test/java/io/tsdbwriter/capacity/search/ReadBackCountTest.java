package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.produce.SourcePoint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The read-back pass against a loopback query API: the count, its query, the re-reads, and each unknown. */
class ReadBackCountTest {

    private HttpServer server;
    private final List<String> queries = new CopyOnWriteArrayList<>();
    /** The counts answered, one per request; the last one repeats. */
    private final List<String> answers = new ArrayList<>();

    private int status = 200;
    private final AtomicLong clock = new AtomicLong();
    private final List<Duration> slept = new ArrayList<>();

    /** The metric names the label values API lists. */
    private List<String> names = List.of("node_load1");

    private final List<String> listed = new CopyOnWriteArrayList<>();

    private String start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/api/v1/label/__name__/values", ex -> {
            listed.add(URLDecoder.decode(ex.getRequestURI().getRawQuery(), StandardCharsets.UTF_8));
            byte[] body = ("{\"status\":\"success\",\"data\":["
                            + String.join(
                                    ",",
                                    names.stream()
                                            .map(n -> "\""
                                                    + n.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                                            .toList())
                            + "]}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.createContext("/api/v1/query", ex -> {
            queries.add(URLDecoder.decode(ex.getRequestURI().getRawQuery(), StandardCharsets.UTF_8));
            String count = answers.get(Math.min(queries.size(), answers.size()) - 1);
            byte[] body = (status != 200
                            ? "{\"status\":\"error\",\"error\":\"query processing would load too many samples\"}"
                            : count == null
                                    ? "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"
                                    : "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1700000000.5,\""
                                            + count + "\"]}]}}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        return "http://user:SECRET@127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private ReadBackCount counter() {
        return new ReadBackCount(new OkHttpClient(), clock::get, d -> {
            slept.add(d);
            clock.addAndGet(d.toNanos());
        });
    }

    private static SampleSpan span(long oldestMs, long newestMs) {
        SampleSpan span = new SampleSpan();
        span.add(newestMs);
        span.add(oldestMs);
        return span;
    }

    @Test
    void everySampleCountedIsOneQueryPerMetricNameOverTheWholeSpanWithItsMargins() throws Exception {
        names = List.of("node_load1", "node_cpu_seconds_total", "odd\"name");
        answers.addAll(List.of("1000000", "234567", "0"));
        ReadBack back = counter().count(start(), 1_234_567, span(1_700_000_000_000L, 1_700_000_060_000L));
        long from = 1_700_000_000_000L - ReadBackCount.MARGIN_MS;
        long at = 1_700_000_060_000L + ReadBackCount.MARGIN_MS;
        assertThat(listed).containsExactly("start=" + from / 1000 + ".000&end=" + at / 1000 + ".000");
        // count_over_time drops the name: over every series at once Prometheus refuses series that differ only in it
        assertThat(queries)
                .containsExactly(
                        "query=sum(count_over_time({__name__=\"node_load1\"}[" + (at - from) + "ms]))&time=" + at / 1000
                                + ".000",
                        "query=sum(count_over_time({__name__=\"node_cpu_seconds_total\"}[" + (at - from) + "ms]))&time="
                                + at / 1000 + ".000",
                        "query=sum(count_over_time({__name__=\"odd\\\"name\"}[" + (at - from) + "ms]))&time="
                                + at / 1000 + ".000");
        assertThat(back.known()).isTrue();
        assertThat(back.missing()).isFalse();
        assertThat(back.cell()).isEqualTo("all 1,234,567");
        assertThat(back.source())
                .contains(
                        "at " + at + " ms on http://127.0.0.1:",
                        "/api/v1/query for each metric name of http://127.0.0.1:")
                .endsWith("/api/v1/label/__name__/values (3 names)")
                .doesNotContain("SECRET");
        assertThat(back.line())
                .startsWith("read back: all 1,234,567 samples written, counted by `sum(count_over_time(");
        assertThat(slept).isEmpty();
    }

    @Test
    void aCountBelowTheSamplesWrittenIsReadAgainUntilItMatches() throws Exception {
        answers.addAll(List.of("900", "990", "1000"));
        ReadBack back = counter().count(start(), 1000, span(1, 2));
        assertThat(queries).hasSize(3);
        assertThat(listed).hasSize(3);
        assertThat(slept).containsExactly(ReadBackCount.POLL, ReadBackCount.POLL);
        assertThat(back.cell()).isEqualTo("all 1,000");
    }

    @Test
    void aCountThatStaysBelowIsMissingSamplesOnceTheSettleTimePassed() throws Exception {
        answers.add("990");
        ReadBack back = counter().count(start(), 1000, span(1, 2));
        assertThat(queries).hasSize((int) (ReadBackCount.SETTLE.toNanos() / ReadBackCount.POLL.toNanos()) + 1);
        assertThat(back.missing()).isTrue();
        assertThat(back.cell()).isEqualTo("990 of 1,000");
    }

    @Test
    void moreThanWrittenIsEverySamplePlusTheDuplicatesTheTargetKept() throws Exception {
        answers.add("1012");
        ReadBack back = counter().count(start(), 1000, span(1, 2));
        assertThat(back.missing()).isFalse();
        assertThat(back.cell()).isEqualTo("all 1,000 (+12 more)");
    }

    @Test
    void anEmptyResultCountsNothing() throws Exception {
        answers.add(null);
        ReadBack back = counter().count(start(), 0, span(1, 2));
        assertThat(back.cell()).isEqualTo("all 0");
    }

    @Test
    void noMetricNameInTheSpanCountsNothing() throws Exception {
        names = List.of();
        ReadBack back = counter().count(start(), 0, span(1, 2));
        assertThat(queries).isEmpty();
        assertThat(back.cell()).isEqualTo("all 0");
    }

    @Test
    void aRefusedQueryLeavesTheCountUnknownWithTheAnswer() throws Exception {
        answers.add("1");
        status = 422;
        ReadBack back = counter().count(start(), 1000, span(1, 2));
        assertThat(back.known()).isFalse();
        assertThat(back.missing()).isFalse();
        assertThat(back.cell()).isEqualTo("–");
        assertThat(back.source()).contains("answered 422", "too many samples").doesNotContain("SECRET");
        assertThat(back.line()).startsWith("read back: unknown: `sum(count_over_time(");
    }

    @Test
    void noAnswerLeavesTheCountUnknown() throws Exception {
        String url = start();
        server.stop(0);
        server = null;
        ReadBack back = counter().count(url, 1000, span(1, 2));
        assertThat(back.known()).isFalse();
        assertThat(back.source()).doesNotContain("SECRET");
    }

    @Test
    void aTargetWithoutAQueryApiIsUnknownAndSaysWhichOptionGivesOne() throws Exception {
        ReadBack back = counter().count(null, 1000, span(1, 2));
        assertThat(back.line())
                .isEqualTo(
                        "read back: unknown: no query API given: a remote write receiver is read back through --query-url (a --target's query-url=)");
    }

    @Test
    void theSpanIsTheOldestAndNewestPointTimeHandedOut() {
        SampleSpan span = new SampleSpan();
        assertThat(span.isEmpty()).isTrue();
        var points = span.track(List.of(point(50), point(10), point(90)).iterator());
        points.forEachRemaining(p -> {});
        assertThat(span.isEmpty()).isFalse();
        assertThat(span.oldestMs()).isEqualTo(10);
        assertThat(span.newestMs()).isEqualTo(90);
    }

    private static SourcePoint point(long ms) {
        return new SourcePoint("m", Map.of(), "k", ms, 1.0);
    }
}
