package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.tsdbwriter.capacity.targets.ReadBack;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact read-back pass against a loopback VictoriaMetrics export: every sample the search fed compared with what
 * the export returns (missing, more, mismatched), the batches of metric names, and each reason the count stands instead.
 */
class ReadBackExactTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long NEWEST = 1_795_301_997_000L;

    private HttpServer server;
    /** The export's lines: one sample each, {@code [metric, line]}. */
    private final List<String[]> lines = new CopyOnWriteArrayList<>();

    private final List<String> exports = new CopyOnWriteArrayList<>();

    private String start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/internal/force_flush", ex -> {
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.createContext("/api/v1/export", ex -> {
            String form = URLDecoder.decode(
                    new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            exports.add(form);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (String[] l : lines) {
                if (form.contains("__name__=\"" + l[0] + "\"")) {
                    body.writeBytes((l[1] + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            ex.sendResponseHeaders(200, body.size() == 0 ? -1 : body.size());
            ex.getResponseBody().write(body.toByteArray());
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

    /** The export line of one sample of {@code p}'s series (M = N = 1: the series as fed). */
    private static String line(SourcePoint p, long timestampMs, double value) {
        ObjectNode metric = JSON.createObjectNode().put("__name__", p.metric());
        p.seriesLabels().forEach(metric::put);
        ObjectNode line = JSON.createObjectNode();
        line.set("metric", metric);
        line.putArray("values").add(value);
        line.putArray("timestamps").add(timestampMs);
        return line.toString();
    }

    /** A search that fed {@code points} of a synthetic feed (3 series), its writers at M = 1. */
    private static FedSamples synthetic(long points) {
        FedSamples fed = new FedSamples(SourceFeed.synthetic(3, 30, NEWEST, 60_000), 0);
        fed.fed(false, points, 1);
        return fed;
    }

    /** The target holds every sample fed, each changed by {@code change} (null: left out). */
    private void holds(FedSamples fed, UnaryOperator<String[]> change) {
        fed.replay((p, m) -> {
            String[] l = change.apply(new String[] {p.metric(), line(p, p.timestampMs(), p.value())});
            if (l != null) {
                lines.add(l);
            }
        });
    }

    private ReadBack compare(FedSamples fed, List<String> writerArgs) throws Exception {
        ReadBackExact.Outcome o = new ReadBackExact(new OkHttpClient(), Duration.ZERO, Duration.ofMillis(1), 5_000_000)
                .compare(start(), 29, fed, 1, writerArgs);
        assertThat(o.whyNot()).isNull();
        return o.readBack();
    }

    @Test
    void everySampleFedReadBackIsAllOfThem() throws Exception {
        FedSamples fed = synthetic(30);
        holds(fed, l -> l);
        ReadBack back = compare(fed, List.of());
        assertThat(back.isExact()).isTrue();
        assertThat(back.exact()).isEqualTo(new ReadBack.Exact(30, 30, 0, 0));
        assertThat(back.readBack()).isEqualTo(30);
        assertThat(back.written()).isEqualTo(29);
        assertThat(back.missing()).isFalse();
        assertThat(back.cell()).isEqualTo("all 30");
        assertThat(back.source())
                .startsWith("VictoriaMetrics' export, `http://127.0.0.1:")
                .contains("/api/v1/export` after `/internal/force_flush` (1 metric name in 1 batch; M=1, N=1,"
                        + " source interval 60000 ms)")
                .doesNotContain("SECRET");
        assertThat(back.line())
                .startsWith("read back: all 30 samples fed, compared sample by sample on VictoriaMetrics'");
        assertThat(exports).hasSize(1);
    }

    @Test
    void aSampleNotReadBackIsMissing() throws Exception {
        FedSamples fed = synthetic(30);
        int[] i = {0};
        holds(fed, l -> i[0]++ == 7 ? null : l);
        ReadBack back = compare(fed, List.of());
        assertThat(back.exact()).isEqualTo(new ReadBack.Exact(30, 29, 0, 0));
        assertThat(back.missing()).isTrue();
        assertThat(back.cell()).isEqualTo("29 of 30");
        assertThat(back.source()).contains("; e.g. missing: ");
    }

    @Test
    void aValueThatDiffersIsMismatchedAndAnotherSampleIsMore() throws Exception {
        FedSamples fed = synthetic(30);
        List<SourcePoint> points = new ArrayList<>();
        fed.replay((p, m) -> points.add(p));
        holds(fed, l -> l);
        SourcePoint first = points.get(0);
        lines.set(0, new String[] {first.metric(), line(first, first.timestampMs(), first.value() + 1)});
        lines.add(new String[] {first.metric(), line(first, first.timestampMs() + 1, 5)}); // not fed
        ReadBack back = compare(fed, List.of());
        assertThat(back.exact()).isEqualTo(new ReadBack.Exact(30, 30, 1, 1));
        assertThat(back.readBack()).isEqualTo(31);
        assertThat(back.missing()).as("a mismatched value is not held").isTrue();
        assertThat(back.cell()).isEqualTo("all 30 (+1 more, 1 mismatched)");
        assertThat(back.source()).contains("; e.g. mismatched: ", "unexpected: ");
    }

    @Test
    void aSampleReadBackTwiceIsMore() throws Exception {
        FedSamples fed = synthetic(30);
        holds(fed, l -> l);
        lines.add(lines.get(3));
        ReadBack back = compare(fed, List.of());
        assertThat(back.exact()).isEqualTo(new ReadBack.Exact(30, 30, 1, 0));
        assertThat(back.missing()).isFalse();
        assertThat(back.cell()).isEqualTo("all 30 (+1 more)");
    }

    @Test
    void theMetricNamesAreReadInBatchesOfTheBound() throws Exception {
        SourceFeed feed = SourceFeed.real(
                NodeExporterFiles.all(), 10_140, "node", NEWEST + SourceFeed.CYCLE_HEADROOM_MS + 30_000);
        FedSamples fed = new FedSamples(feed, 0);
        fed.fed(false, 10_140, 1);
        holds(fed, l -> l);
        ReadBackExact.Outcome o = new ReadBackExact(new OkHttpClient(), Duration.ZERO, Duration.ofMillis(1), 2_000)
                .compare(start(), 10_140, fed, 1, List.of());
        assertThat(o.readBack().cell()).isEqualTo("all 10,140");
        assertThat(exports.size()).isGreaterThanOrEqualTo(6);
        assertThat(o.readBack().source()).contains(" batches; M=1, N=1");
    }

    @Test
    void nothingFedIsAllOfNothing() throws Exception {
        ReadBackExact.Outcome o =
                new ReadBackExact(new OkHttpClient()).compare("http://127.0.0.1:1", 0, synthetic(0), 1, List.of());
        assertThat(o.readBack().cell()).isEqualTo("all 0");
        assertThat(o.readBack().isExact()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--relabel-config=r.yaml|the writers' --relabel-config changes what they write from what they were fed",
                "--churn-interval|the writers' --churn-interval changes what they write from what they were fed",
                "--source-interval=soon|the writers' --source-interval 'soon' is no duration",
                "--source-interval=0s|the writers' --source-interval '0s' is below 1 ms",
            })
    void writerArgumentsThatChangeTheSamplesLeaveTheCount(String arg, String why) throws Exception {
        ReadBackExact.Outcome o = new ReadBackExact(new OkHttpClient())
                .compare("http://127.0.0.1:1", 30, synthetic(30), 1, List.of("--max-retries", "3", arg, "1m"));
        assertThat(o.readBack()).isNull();
        assertThat(o.whyNot()).isEqualTo(why);
    }

    @Test
    void stepsOfDifferentMAndTooManySamplesLeaveTheCount() throws Exception {
        FedSamples mixed = synthetic(10);
        mixed.fed(false, 10, 2);
        assertThat(new ReadBackExact(new OkHttpClient())
                        .compare("http://127.0.0.1:1", 30, mixed, 1, List.of())
                        .whyNot())
                .isEqualTo("the steps' M differ (--vary time-multiplier)");
        assertThat(new ReadBackExact(new OkHttpClient(), Duration.ZERO, Duration.ofMillis(1), 20)
                        .compare("http://127.0.0.1:1", 30, synthetic(30), 1, List.of())
                        .whyNot())
                .isEqualTo("the metric synthetic_metric alone has 30 samples fed, more than the 20 compared at once");
        assertThat(new ReadBackExact(new OkHttpClient())
                        .compare("http://127.0.0.1:1", 30, synthetic(1_001), 100_000, List.of())
                        .whyNot())
                .isEqualTo("100,100,000 samples fed, more than the 50,000,000 compared at most");
    }

    @Test
    void aSeriesScheduleLeavesTheCount() throws Exception {
        FedSamples scheduled = synthetic(10);
        scheduled.fed(true, 10, 1);
        assertThat(new ReadBackExact(new OkHttpClient())
                        .compare("http://127.0.0.1:1", 20, scheduled, 1, List.of())
                        .whyNot())
                .isEqualTo("a series schedule (--series-mode) fed the steps");
    }

    @Test
    void anUnreachableTargetLeavesTheCountWithTheReason() throws Exception {
        FedSamples fed = synthetic(30);
        ReadBackExact.Outcome o = new ReadBackExact(new OkHttpClient(), Duration.ZERO, Duration.ofMillis(1), 5_000_000)
                .compare("http://user:SECRET@127.0.0.1:1", 30, fed, 1, List.of());
        assertThat(o.readBack()).isNull();
        assertThat(o.whyNot()).startsWith("reading back failed: ").doesNotContain("SECRET");
    }

    @Test
    void theSourceIntervalIsTheWritersLastOneElseSixtySeconds() {
        assertThat(ReadBackExact.sourceIntervalMs(List.of())).isEqualTo(60_000);
        assertThat(ReadBackExact.sourceIntervalMs(List.of("--source-interval", "30s")))
                .isEqualTo(30_000);
        assertThat(ReadBackExact.sourceIntervalMs(List.of("--source-interval=500ms", "--source-interval=PT2M")))
                .isEqualTo(120_000);
        assertThat(ReadBackExact.sourceIntervalMs(List.of("--source-interval=1h")))
                .isEqualTo(3_600_000);
        assertThatThrownBy(() -> ReadBackExact.sourceIntervalMs(List.of("--source-interval=x")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void batchesKeepNameOrderAndTheBoundAndANameAboveItAlone() {
        assertThat(ReadBackExact.batches(Map.of("a", 3L, "b", 3L, "c", 5L, "d", 9L, "e", 1L), 6))
                .containsExactly(Set.of("a", "b"), Set.of("c"), Set.of("d"), Set.of("e"));
        assertThat(ReadBackExact.batches(Map.of(), 6)).isEmpty();
    }
}
