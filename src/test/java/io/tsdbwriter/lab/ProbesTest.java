package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.write.WriteTarget;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class ProbesTest {

    private static final String METRICS =
            """
            # HELP x
            process_cpu_seconds_total_extra 9
            process_cpu_seconds_total 12.34
            vm_rows_inserted_total{type="vmimport"} 5 1700000000000
            vm_app_version{version="victoria-metrics-20230404-v1.79.5", short_version="v1.79.5"} 1
            """;

    @Test
    void readsOneSeriesOutOfExpositionText() {
        assertThat(PromText.value(METRICS, "process_cpu_seconds_total")).hasValue(12.34);
        assertThat(PromText.value(METRICS, "vm_rows_inserted_total{type=\"vmimport\"}"))
                .hasValue(5);
        assertThat(PromText.value(METRICS, "missing")).isEmpty();
        assertThat(PromText.label(METRICS, "vm_app_version", "version")).isEqualTo("victoria-metrics-20230404-v1.79.5");
        assertThat(PromText.label(METRICS, "vm_app_version", "nope")).isNull();
        assertThat(PromText.label("vm_app_version{version=\"\"} 1", "vm_app_version", "version"))
                .isEmpty();
    }

    @Test
    void aProbeGivenAMetricsUrlReadsThatPageNotTheWriteUrlsHost() throws Exception {
        // Thanos receive serves remote write on one port and /metrics on another: capacity --target …,metrics-url=…
        HttpServer page = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        page.createContext("/metrics", ex -> {
            byte[] body = METRICS.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        page.start();
        try {
            String url = "http://127.0.0.1:" + page.getAddress().getPort() + "/metrics";
            assertThat(new VmProbe(new OkHttpClient(), url).cpuSeconds()).isEqualTo(12.34);
            WriteTarget elsewhere =
                    new WriteTarget("http://127.0.0.1:" + page.getAddress().getPort() + "/api/v1/receive");
            assertThat(new VmProbe(new OkHttpClient(), elsewhere).cpuSeconds()).isEqualTo(12.34);
        } finally {
            page.stop(0);
        }
    }

    @Test
    void readsTheSampleNotItsExemplar() {
        // issue 41: the line without labels was series 'http_requests_total 7 #{trace_id="x"}' with the value 2
        String page =
                "http_requests_total 7 # {trace_id=\"x\"} 2\nhttp_requests_total{code=\"500\"} 1 # {trace_id=\"y\"} 3\n";
        assertThat(PromText.value(page, "http_requests_total")).hasValue(7);
        assertThat(PromText.value(page, "http_requests_total{code=\"500\"}")).hasValue(1);
        assertThat(PromText.label(page, "http_requests_total", "trace_id")).isNull();
    }

    @Test
    void busySecondsFromProcStat() {
        String stat = "cpu  100 20 30 4000 50 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        // user+nice+system+irq+softirq+steal = 100+20+30+6+7+8 = 171 ticks
        assertThat(SystemCpu.busySeconds(stat)).isEqualTo(1.71);
        assertThat(SystemCpu.busySeconds("nothing")).isNaN();
    }

    @Test
    void theMachinesCoresAreTheCpuLinesOfProcStat() {
        assertThat(
                        SystemCpu.cores(
                                "cpu  100 20 30 4000 50 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 1 2 3 4 5 6 7 8 0 0\nintr 1\n"))
                .isEqualTo(2);
        assertThat(SystemCpu.cores("nothing")).isZero();
    }

    @Test
    void syntheticFeedHasExactlyTheRecordsAndCyclesWithShiftedTimestamps() {
        SourceFeed feed = SourceFeed.synthetic(3, 7, 1_800_000_000_000L, 60_000);
        List<SourcePoint> pass = new ArrayList<>();
        feed.forEach(pass::add);
        assertThat(pass).hasSize(7);
        assertThat(feed.spanMs()).isEqualTo(3 * 60_000);
        Iterator<SourcePoint> cycle = feed.cycle();
        for (int i = 0; i < 7; i++) {
            assertThat(cycle.next()).isEqualTo(pass.get(i));
        }
        SourcePoint again = cycle.next();
        assertThat(again.timestampMs()).isEqualTo(pass.get(0).timestampMs() + feed.spanMs());
        assertThat(again.labels()).isEqualTo(pass.get(0).labels());
    }

    @Test
    void theRealFeedIsRelativeToThePresent() throws Exception {
        long year = Duration.ofDays(365).toMillis();
        long newest = 1795301997000L; // the newest shipped scrape
        // the clock a year (and 30 s) after the shipped scrapes: 2 instances' worth of the 10,140 points
        SourceFeed feed = SourceFeed.real(NodeExporterFiles.all(), 20_280, "node", newest + year + 30_000);

        List<SourcePoint> pass = new ArrayList<>();
        feed.forEach(pass::add);
        // a year later, less the week of headroom the cycled passes move forward into: the newest 7 days and 30 s ago
        long shift = year - SourceFeed.CYCLE_HEADROOM_MS;
        assertThat(pass.get(0).timestampMs()).as("the oldest scrape").isEqualTo(1795300857000L + shift);
        assertThat(pass.get(pass.size() - 1).timestampMs()).as("the newest").isEqualTo(newest + shift);
        assertThat(pass.stream().mapToLong(SourcePoint::timestampMs).max().orElseThrow())
                .isEqualTo(newest + shift);
        assertThat(feed.spanMs()).as("20 one-minute scrapes").isEqualTo(20 * 60_000);
    }

    @Test
    void instanceNamesCountFromOne() {
        assertThat(SourceFeed.instanceName(0)).isEqualTo("node-0001");
        assertThat(SourceFeed.instanceName(41)).isEqualTo("node-0042");
    }
}
