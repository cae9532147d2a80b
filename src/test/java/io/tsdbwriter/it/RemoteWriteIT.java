package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.decode.NativeHistogramBuilder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.RemoteWriteDecoderTest;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.Components.VmVersion;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.xerial.snappy.Snappy;

/**
 * {@code --output remote-write} end to end (issue 15): the main job on the real scrapes (M=6, N=3, P=3,
 * {@code --stop-at-end}) into real receivers — Prometheus 2.42 ({@code --web.enable-remote-write-receiver}, out-of-order
 * window on) and VictoriaMetrics {@code /api/v1/write} (Debian 1.79.5, and the current release when built) — with
 * exact read-back and committed == end offsets; a receiver refusing some series with 400 (only those are
 * dead-lettered); and the delivery scenarios that depend on response codes (503, 429 + Retry-After, an outage), at
 * N = 1 (the encoder's verbatim path).
 * One Kafka broker for all; a fresh receiver per scenario, so each reads back only its own samples.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RemoteWriteIT {

    static final int PARTITIONS = 3;
    static final int M = 6;
    static final int N = 3;
    static final int P = 3;
    /** One broker; each scenario starts its own receivers. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static List<SourcePoint> points;
    static final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    static void loadInput() throws Exception {
        GoBuilds.built(
                PrometheusServer
                        .CURRENT_BINARY); // the test command may still build it: wait here, outside the tests' timeouts
        points = Scenario.realPoints();
    }

    private static Fixture realInput(String name) {
        return stack.realInput(name, PARTITIONS, points);
    }

    private static WriterProcess writer(Fixture f, String name, String remoteWriteUrl, String... more) {
        return writer(f, name, N, remoteWriteUrl, more);
    }

    private static WriterProcess writer(Fixture f, String name, int n, String remoteWriteUrl, String... more) {
        List<String> args = stack.runArgs("http://127.0.0.1:1", f.topic(), f.group(), M, n, P, more);
        args.addAll(List.of(
                "--output",
                "remote-write",
                "--remote-write-url",
                remoteWriteUrl,
                "--segment-size",
                "500",
                "--commit-interval",
                "500ms"));
        return stack.writer(name, args);
    }

    /** Runs the main job into {@code url} and checks the summary and the committed offsets. */
    private static JsonNode mainJob(String name, String url, String... more) throws Exception {
        return mainJob(realInput(name), name, url, more);
    }

    private static JsonNode mainJob(Fixture f, String name, String url, String... more) throws Exception {
        Path summary = stack.path(name + ".json");
        List<String> args = new ArrayList<>(List.of("--stop-at-end", "--summary-json", summary.toString()));
        args.addAll(List.of(more));
        WriterProcess w = writer(f, name, url, args.toArray(String[]::new));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        assertThat(w.output()).contains("output=remote-write");
        JsonNode s = Scenario.summary(summary);
        long expected = points.size() * (long) M * N;
        assertThat(s.get("samples_expected").asLong()).isEqualTo(expected);
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected);
        assertThat(s.get("samples_refused").asLong()).isZero();
        stack.assertCommittedAtEnd(f);
        return s;
    }

    // ---------------------------------------------------------------- Remote-Write 2.0 (issue 29)

    private static void assumePrometheus3() {
        stack.assumeAvailable(PrometheusVersion.CURRENT);
    }

    /**
     * The main job in Remote-Write 2.0 into Prometheus 3 accepting {@code io.prometheus.write.v2.Request}: exact
     * read-back, committed at the end; the same job in 1.0 into a second Prometheus 3 beside it, for the bytes on the
     * wire of both (printed; 2.0 must send fewer).
     */
    @Test
    void remoteWrite2IntoPrometheus3ReadsBackExactlyWithFewerBytesThanOneZero() throws Exception {
        assumePrometheus3();
        ExpectedSamples expected = Scenario.expected(points, M, N);
        long[] bytes = new long[2];
        for (String version : List.of("1", "2")) {
            try (PrometheusEndpoint prom = stack.startPrometheus(
                    "prom3-v" + version,
                    PrometheusVersion.CURRENT,
                    Duration.ofDays(30),
                    true,
                    "prometheus.WriteRequest",
                    "io.prometheus.write.v2.Request")) {
                JsonNode s = mainJob("prom3-v" + version, prom.remoteWriteUrl(), "--remote-write-version", version);
                bytes[Integer.parseInt(version) - 1] = s.get("request_bytes").asLong();
                VerificationResult r = prom.readBackWithin("{productKey=\"node\"}", expected, Duration.ofSeconds(20));
                assertThat(r.passed()).as(r.summary()).isTrue();
                assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
                assertThat(r.unexpectedSeries()).isZero();
            }
        }
        System.err.printf(
                "RemoteWriteIT: M=%d N=%d, %d samples: bytes on the wire 1.0 %d, 2.0 %d (%.1f %%)%n",
                M, N, expected.sampleCount(), bytes[0], bytes[1], 100.0 * bytes[1] / bytes[0]);
        assertThat(bytes[1]).isLessThan(bytes[0]);
    }

    /**
     * Remote-Write 2.0 into receivers that take 1.0 only: Prometheus 3 accepting {@code prometheus.WriteRequest} only
     * answers 415; Prometheus 2.42 answers 204 without {@code X-Prometheus-Remote-Write-Samples-Written} (it reads the
     * 2.0 message as an empty 1.0 request). Both are configuration faults: the job ends with exit 1 and one line
     * saying to use {@code --remote-write-version 1}, nothing counted written, nothing committed; the same group then
     * run in 1.0 writes everything, exactly.
     */
    @Test
    void remoteWrite2IntoOneZeroReceiversIsAFaultThatLosesNothing() throws Exception {
        assumePrometheus3();
        try (PrometheusEndpoint only1 = stack.startPrometheus(
                        "prom3-only1",
                        PrometheusVersion.CURRENT,
                        Duration.ofDays(30),
                        true,
                        "prometheus.WriteRequest");
                PrometheusEndpoint old = stack.startPrometheus("prom242-v2")) {
            for (PrometheusEndpoint prom : List.of(only1, old)) {
                String name = prom == old ? "prom242-v2" : "prom3-only1";
                Fixture f = realInput(name);
                Path summary = stack.path(name + "-v2.json");
                WriterProcess w = writer(
                        f,
                        name + "-v2",
                        prom.remoteWriteUrl(),
                        "--remote-write-version",
                        "2",
                        "--stop-at-end",
                        "--write-fault-timeout",
                        "5s",
                        "--summary-json",
                        summary.toString());
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
                assertThat(w.output())
                        .contains(prom == old ? "a Remote-Write 1.0 receiver?" : "415 Unsupported Media Type")
                        .contains("--remote-write-version 1");
                assertThat(Scenario.summary(summary).get("samples_written").asLong())
                        .isZero();
                assertThat(stack.committedOffsets(f.group(), f.topic()).values())
                        .as("nothing committed")
                        .allSatisfy(o -> assertThat(o).isZero());
                mainJob(f, name + "-v1", prom.remoteWriteUrl(), "--remote-write-version", "1");
                ExpectedSamples expected = Scenario.expected(points, M, N);
                VerificationResult r = prom.readBackWithin("{productKey=\"node\"}", expected, Duration.ofSeconds(20));
                assertThat(r.passed()).as(name + ": " + r.summary()).isTrue();
            }
        }
    }

    @Test
    void mainJobIntoPrometheusReadsBackExactly() throws Exception {
        try (PrometheusEndpoint prom = stack.startPrometheus("prom-main")) {
            mainJob("prom-main", prom.remoteWriteUrl());
            ExpectedSamples expected = Scenario.expected(points, M, N);
            VerificationResult r = prom.readBackWithin("{productKey=\"node\"}", expected, Duration.ofSeconds(20));
            assertThat(r.passed()).as(r.summary()).isTrue();
            assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
            assertThat(r.unexpectedSeries()).isZero();
        }
    }

    @Test
    void mainJobIntoVictoriaMetricsRemoteWriteReadsBackExactly() throws Exception {
        VmEndpoint vm = stack.startVm("vm-main");
        try (vm) {
            mainJob("vm-main", vm.url() + "/api/v1/write");
            Scenario.assertExactReadBack(vm.url(), Scenario.expected(points, M, N));
        }
    }

    @Test
    void mainJobIntoCurrentVictoriaMetricsRemoteWriteReadsBackExactly() throws Exception {
        stack.assumeAvailable(VmVersion.CURRENT);
        VmEndpoint vm = stack.startVm("vm-current", VmVersion.CURRENT);
        try (vm) {
            mainJob("vm-current", vm.url() + "/api/v1/write");
            Scenario.assertExactReadBack(vm.url(), Scenario.expected(points, M, N));
        }
    }

    // ---------------------------------------------------------------- every float64 (issue 53 item 3)

    private static final double STALE = Double.longBitsToDouble(Rejections.STALE_MARKER_BITS);

    /** A topic of one remote write record: NaN, +Inf, -Inf, a series ended by a staleness marker, and a control. */
    private static String specialValuesTopic(long t) throws Exception {
        String topic = stack.createTopic("special-" + names.incrementAndGet(), 1);
        byte[] record = Snappy.compress(RemoteWriteDecoderTest.writeRequest(
                new Object[][] {{"__name__", "v_nan", "job", "special"}, {Double.NaN, t}},
                new Object[][] {{"__name__", "v_pinf", "job", "special"}, {Double.POSITIVE_INFINITY, t}},
                new Object[][] {{"__name__", "v_ninf", "job", "special"}, {Double.NEGATIVE_INFINITY, t}},
                new Object[][] {{"__name__", "v_stale", "job", "special"}, {1.0, t, STALE, t + 60_000}},
                new Object[][] {{"__name__", "v_control", "job", "special"}, {1.0, t}}));
        stack.produceRaw(topic, 1, List.of(record));
        return topic;
    }

    private static JsonNode relay(String topic, String name, String url, String... more) throws Exception {
        Path summary = stack.path(name + ".json");
        List<String> args = stack.runArgs(
                url,
                topic,
                name,
                1,
                1,
                1,
                "--input-format",
                "promremotewrite",
                "--stop-at-end",
                "--summary-json",
                summary.toString(),
                "--commit-interval",
                "500ms");
        args.addAll(List.of(more));
        WriterProcess w = stack.writer(name, args);
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        return Scenario.summary(summary);
    }

    /** Prometheus' instant query: {@code metric -> value} as its API spells the value ("NaN", "+Inf"). */
    private static Map<String, String> instant(String promUrl, String query, long atMs) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(promUrl + "/api/v1/query?query="
                                        + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&time="
                                        + atMs / 1000.0))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, String> out = new TreeMap<>();
        for (JsonNode series :
                new ObjectMapper().readTree(r.body()).path("data").path("result")) {
            out.put(
                    series.path("metric").path("__name__").asText(),
                    series.path("value").get(1).asText());
        }
        return out;
    }

    /**
     * NaN, ±Inf and a staleness marker through remote write 1.0 and 2.0 into a Prometheus 3 with its defaults: each value
     * reads back as Prometheus spells it, and the series the marker ended is gone from an instant query that still sees
     * the control series (the remote write specification: a sample is any float64; staleness markers SHOULD be sent).
     * Into VictoriaMetrics' import API: ±Inf read back, NaN and the marker counted (it answers 2xx to NaN and drops it).
     */
    @Test
    void everyFloat64ReachesPrometheus3AsItIsAndTheImportApiWhatItStores() throws Exception {
        assumePrometheus3();
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 10 * 60_000;
        String topic = specialValuesTopic(t);
        for (String version : List.of("1", "2")) {
            try (PrometheusEndpoint prom = stack.startPrometheus(
                    "prom3-special-v" + version,
                    PrometheusVersion.CURRENT,
                    null,
                    true,
                    "prometheus.WriteRequest",
                    "io.prometheus.write.v2.Request")) {
                JsonNode s = relay(
                        topic,
                        "special-rw" + version,
                        "http://127.0.0.1:1",
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        prom.remoteWriteUrl(),
                        "--remote-write-version",
                        version);
                assertThat(s.get("decode_errors").asLong()).isZero();
                assertThat(s.get("samples_written").asLong()).isEqualTo(6);
                assertThat(instant(prom.url(), "{job=\"special\"}", t))
                        .containsExactlyInAnyOrderEntriesOf(Map.of(
                                "v_nan", "NaN", "v_pinf", "+Inf", "v_ninf", "-Inf", "v_stale", "1", "v_control", "1"));
                assertThat(instant(prom.url(), "{job=\"special\"}", t + 90_000))
                        .as("the marker ended v_stale")
                        .doesNotContainKey("v_stale")
                        .containsEntry("v_control", "1");
            }
        }
        VmEndpoint vm = stack.startVm("vm-special");
        try (vm) {
            JsonNode s = relay(topic, "special-import", vm.url());
            assertThat(s.get("decode_errors").asLong())
                    .as("NaN and the marker, counted")
                    .isEqualTo(2);
            assertThat(s.get("samples_written").asLong()).isEqualTo(4);
            vm.forceFlush();
            String lines = String.join("\n", vm.export("{job=\"special\"}"));
            assertThat(lines)
                    .contains("\"v_pinf\"")
                    .contains("\"v_ninf\"")
                    .contains("\"v_stale\"")
                    .contains("\"v_control\"")
                    .doesNotContain("v_nan");
            assertThat(lines.replace("\"Infinity\"", "+Inf").replace("\"-Infinity\"", "-Inf"))
                    .contains("+Inf")
                    .contains("-Inf");
        }
    }

    // ---------------------------------------------------------------- native histograms into the import API

    /**
     * A remote write request (snappy) of native histograms of every kind, series of job {@code job}: integer schema 0
     * with a zero and a negative bucket and a bound that is a tie at four digits, schemas -4 and 8, a float histogram
     * (counts of 0, NaN and below 0 among its buckets), custom buckets (schema -53, two buckets: VictoriaMetrics puts
     * every bucket after the first into one "NaN...+Inf" series).
     */
    private static byte[] histogramsRequest(String job, long t) throws IOException {
        ByteArrayOutputStream r = new ByteArrayOutputStream();
        r.writeBytes(NativeHistogramBuilder.series(
                new String[] {"__name__", "h_int", "job", job},
                new NativeHistogramBuilder()
                        .countInt(8)
                        .sum(10.5)
                        .zeroThreshold(1e-128)
                        .zeroCountInt(1)
                        .positiveSpan(-7, 1)
                        .positiveSpan(5, 2)
                        .positiveSpan(2, 1)
                        .positiveDeltas(1, 1, -1, 3)
                        .negativeSpan(1, 1)
                        .negativeDeltas(1)
                        .timestamp(t)
                        .bytes(),
                new NativeHistogramBuilder()
                        .countInt(9)
                        .sum(12)
                        .zeroThreshold(1e-128)
                        .zeroCountInt(2)
                        .positiveSpan(-1, 2)
                        .positiveDeltas(2, 2)
                        .timestamp(t + 60_000)
                        .bytes()));
        r.writeBytes(NativeHistogramBuilder.series(
                new String[] {"__name__", "h_coarse", "job", job},
                new NativeHistogramBuilder()
                        .countInt(3)
                        .sum(70000)
                        .schema(-4)
                        .positiveSpan(0, 3)
                        .positiveDeltas(1, -1, 2)
                        .timestamp(t)
                        .bytes()));
        r.writeBytes(NativeHistogramBuilder.series(
                new String[] {"__name__", "h_fine", "job", job},
                new NativeHistogramBuilder()
                        .countInt(2)
                        .sum(2.5)
                        .schema(8)
                        .positiveSpan(-7, 1)
                        .positiveSpan(7, 1)
                        .positiveDeltas(1, 0)
                        .timestamp(t)
                        .bytes()));
        r.writeBytes(NativeHistogramBuilder.series(
                new String[] {"__name__", "h_float", "job", job},
                new NativeHistogramBuilder()
                        .countFloat(5.5)
                        .sum(3)
                        .schema(1)
                        .zeroThreshold(0.001)
                        .zeroCountFloat(0.5)
                        .positiveSpan(0, 5)
                        .positiveCounts(1.5, 0, Double.NaN, -1, 2)
                        .negativeSpan(0, 1)
                        .negativeCounts(1.5)
                        .timestamp(t)
                        .bytes()));
        r.writeBytes(NativeHistogramBuilder.series(
                new String[] {"__name__", "h_nhcb", "job", job},
                new NativeHistogramBuilder()
                        .countInt(3)
                        .sum(4)
                        .schema(-53)
                        .positiveSpan(0, 2)
                        .positiveDeltas(1, 1)
                        .customValues(1, 2)
                        .timestamp(t)
                        .bytes()));
        return Snappy.compress(r.toByteArray());
    }

    /** Job {@code job}'s exported series without their job label: labels → values and timestamps as exported. */
    private static Map<String, String> exportedWithoutJob(VmEndpoint vm, String job) throws IOException {
        Map<String, String> out = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : vm.export("{job=\"" + job + "\"}")) {
            JsonNode n = json.readTree(line);
            Map<String, String> labels = new TreeMap<>();
            n.get("metric")
                    .properties()
                    .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
            labels.remove("job");
            out.put(labels.toString(), n.get("values") + " @ " + n.get("timestamps"));
        }
        return out;
    }

    /**
     * Remote write input's native histograms into the import API are what current VictoriaMetrics stores of the same
     * histograms sent to its own {@code /api/v1/write}: series for series ({@code _count}, {@code _sum},
     * {@code _bucket{vmrange}}), sample for sample.
     */
    @Test
    void remoteWriteHistogramsReachTheImportApiAsCurrentVictoriaMetricsConvertsThemItself() throws Exception {
        stack.assumeAvailable(VmVersion.CURRENT);
        long t = System.currentTimeMillis() / 60_000 * 60_000 - 10 * 60_000;
        String topic = stack.createTopic("histograms-" + names.incrementAndGet(), 1);
        stack.produceRaw(topic, 1, List.of(histogramsRequest("writer", t)));
        VmEndpoint vm = stack.startVm("vm-current-histograms", VmVersion.CURRENT);
        try (vm) {
            HttpResponse<String> direct = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(vm.url() + "/api/v1/write"))
                                    .header("Content-Encoding", "snappy")
                                    .header("Content-Type", "application/x-protobuf")
                                    .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(histogramsRequest("direct", t)))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(direct.statusCode()).as(direct.body()).isEqualTo(204);
            JsonNode s = relay(topic, "histograms-import", vm.url());
            assertThat(s.get("decode_errors").asLong()).isZero();
            assertThat(s.get("histograms_written").asLong())
                    .as("samples in the import API")
                    .isZero();
            vm.forceFlush();
            Map<String, String> viaWriter = exportedWithoutJob(vm, "writer");
            assertThat(viaWriter).containsKey("{__name__=h_nhcb_bucket, vmrange=NaN...+Inf}");
            assertThat(viaWriter).isEqualTo(exportedWithoutJob(vm, "direct"));
            long samples = 0;
            for (String line : vm.export("{job=\"writer\"}")) {
                samples += new ObjectMapper().readTree(line).get("values").size();
            }
            assertThat(s.get("samples_written").asLong()).isEqualTo(samples);
        }
    }

    @Test
    void seriesTheReceiverRefusesWith400AreIsolatedAndOnlyTheyAreDeadLettered() throws Exception {
        String topic = "rw-refused-" + names.incrementAndGet();
        String dlq = topic + "-dlq";
        stack.createTopic(topic, PARTITIONS);
        stack.createTopic(dlq, 1);
        List<byte[]> values = new ArrayList<>();
        List<byte[]> poisoned = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            values.add(PointRecords.encode(points.get(i)));
            if (i % 3000 == 1500) {
                byte[] p = ("{\"metric\":\"poisoned_metric\",\"timestamp\":1795300857000,\"value\":" + i
                                + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"marker\":\"poison\"}}")
                        .getBytes(StandardCharsets.UTF_8);
                values.add(p);
                poisoned.add(p);
            }
        }
        stack.produceRaw(topic, PARTITIONS, values);
        Fixture f = new Fixture(topic, "g-" + topic, values.size());
        Path summary = stack.path("rw-refused.json");
        VmEndpoint vm = stack.startVm("vm-refused");
        try (vm;
                FaultProxy proxy = new FaultProxy(vm.url())) {
            proxy.mode(new FaultProxy.RejectLabel("marker", "poison"));
            WriterProcess w = writer(
                    f,
                    "rw-refused",
                    proxy.url() + "/api/v1/write",
                    "--stop-at-end",
                    "--dead-letter-topic",
                    dlq,
                    "--summary-json",
                    summary.toString());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            assertThat(proxy.faulted()).isPositive();
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("samples_dead_lettered").asLong()).isEqualTo(poisoned.size() * (long) M * N);
            assertThat(s.get("samples_written").asLong()).isEqualTo(points.size() * (long) M * N);
            List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
            assertThat(sorted(dead.stream().map(ConsumerRecord::value).toList()))
                    .isEqualTo(sorted(poisoned));
            assertThat(dead).allSatisfy(r -> assertThat(new String(
                            r.headers().lastHeader("tsdbwriter.reason").value(), StandardCharsets.UTF_8))
                    .isEqualTo("vm_rejected"));
            Scenario.assertExactReadBack(vm.url(), Scenario.expected(points, M, N));
            stack.assertCommittedAtEnd(f);
        }
    }

    @Test
    void answers503And429WithRetryAfterAndAnOutageAreRetriedUntilEverythingIsWritten() throws Exception {
        Fixture f = realInput("rw-flaky");
        VmEndpoint vm = stack.startVm("vm-flaky");
        try (vm;
                FaultProxy proxy = new FaultProxy(vm.url())) {
            proxy.mode(new FaultProxy.Status(503, -1));
            Path summary = stack.path("rw-flaky.json");
            // N = 1: the remote write encoder's verbatim path (labels copied from the record, no series cache)
            WriterProcess w = writer(
                    f,
                    "rw-flaky",
                    1,
                    proxy.url() + "/api/v1/write",
                    "--stop-at-end",
                    "--max-retries",
                    "2",
                    "--max-backoff",
                    "1s",
                    "--summary-json",
                    summary.toString());
            int after503 = awaitFaulted(proxy, 2, w); // the writer JVM's start takes a few seconds on a loaded machine
            proxy.mode(new FaultProxy.Status(429, 1));
            int before = awaitFaulted(proxy, after503 + 2, w);
            vm.stop(); // outage: the proxy answers 502 (connection refused behind it)
            proxy.mode(new FaultProxy.Pass());
            Thread.sleep(3000);
            assertThat(w.isAlive()).as(w.output()).isTrue();
            vm.restart();
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            assertThat(after503).isPositive();
            assertThat(before).as("429s answered").isGreaterThan(after503);
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("retries").asLong()).isPositive();
            // VictoriaMetrics restarted behind the proxy: the writer re-read from its last commit (at-least-once)
            assertThat(s.get("durability").get("tsdb_restarts").asLong())
                    .as(s.toString())
                    .isPositive();
            assertThat(s.get("samples_written").asLong()).isGreaterThanOrEqualTo(points.size() * (long) M);
            assertThat(s.get("samples_dead_lettered").asLong()).isZero();
            Scenario.assertExactReadBack(vm.url(), Scenario.expected(points, M, 1));
            stack.assertCommittedAtEnd(f);
        }
    }

    /** Waits (at most 60 s) until the proxy has answered {@code atLeast} requests with a fault; returns the count. */
    private static int awaitFaulted(FaultProxy proxy, int atLeast, WriterProcess w) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (proxy.faulted() < atLeast && System.nanoTime() < deadline) {
            assertThat(w.isAlive()).as(w.output()).isTrue();
            Thread.sleep(100);
        }
        assertThat(proxy.faulted()).as("faulted requests").isGreaterThanOrEqualTo(atLeast);
        return proxy.faulted();
    }

    private static List<String> sorted(List<byte[]> values) {
        List<String> out = new ArrayList<>();
        for (byte[] v : values) {
            out.add(Arrays.toString(v));
        }
        out.sort(null);
        return out;
    }
}
