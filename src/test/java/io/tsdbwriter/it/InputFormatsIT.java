package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tsdbwriter.decode.RemoteWriteDecoderTest;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.xerial.snappy.Snappy;

/**
 * Every input format against VictoriaMetrics itself (issue 14's oracle): the same record payloads go (a) through the
 * writer at M = N = 1 into VictoriaMetrics A and (b) straight into VictoriaMetrics B through B's own endpoint for the
 * format ({@code /write}, {@code /api/v1/write}, {@code /api/v1/import/prometheus}, {@code /api/v1/import}, Graphite
 * plaintext on {@code -graphiteListenAddr}); the exports of A and B must be identical, series for series, sample for
 * sample. Then the same records at M = 6, N = 3 into VictoriaMetrics C must read back exactly B's samples amplified.
 *
 * <p>Payloads come from real producers: Telegraf 1.37.2 ({@code inputs.file} reading a node_exporter scrape of
 * {@code examples/data}, {@code outputs.kafka} in influx, prometheusremotewrite and graphite formats; built by
 * scripts/test.sh's ensure_telegraf, found through {@code TSDB_WRITER_TELEGRAF_BINARY} or
 * {@code -Dtsdbwriter.telegraf.binary}); the scrape files themselves (prometheus); what VictoriaMetrics'
 * {@code /api/v1/export} returns for the demo's points (jsonline). One broker, four VictoriaMetrics (A, B, C and a
 * scratch one the jsonline payloads are exported from).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InputFormatsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final int M = 6;
    private static final int N = 3;

    /** One broker; the class's VictoriaMetrics are started in {@link #start()} (stopped after the class). */
    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static VmEndpoint relay;
    static VmEndpoint direct;
    static VmEndpoint amplified;
    static FreePorts.Reservation graphitePort;
    static Path telegraf;

    /** Per format: its topic, the instance label its data carries, and the records (value + Kafka timestamp). */
    record Feed(String format, String topic, String instanceLabel, List<ConsumerRecord<byte[], byte[]>> records) {}

    static final Map<String, Feed> feeds = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        graphitePort = FreePorts.reserve();
        int gport = graphitePort.port();
        graphitePort.close();
        relay = stack.startVm("vm-relay");
        direct = stack.startVm("vm-direct", "-graphiteListenAddr=127.0.0.1:" + gport);
        amplified = stack.startVm("vm-amplified");
        String bin = System.getProperty("tsdbwriter.telegraf.binary", System.getenv("TSDB_WRITER_TELEGRAF_BINARY"));
        if (bin == null) {
            Path cached = Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/telegraf");
            bin = GoBuilds.built(cached) ? cached.toString() : null;
        } else {
            GoBuilds.built(Path.of(
                    bin)); // the test command may still be building it: wait, then the checks below say what is missing
        }
        telegraf = bin == null ? null : Path.of(bin);

        if (telegraf != null) {
            feeds.putAll(telegrafFeeds());
        } else {
            System.err.println(
                    "InputFormatsIT: no Telegraf (go missing, see scripts/lib.sh ensure_telegraf): influx, promremotewrite and graphite skipped");
        }
        feeds.put("prometheus", prometheusFeed());
        feeds.put("jsonline", jsonlineFeed());
    }

    // ---------------------------------------------------------------- the oracle

    @Test
    @Order(1)
    void relayReadsBackExactlyWhatVictoriaMetricsStoresFromItsOwnEndpoints() throws Exception {
        long expectedSamples = 0;
        for (Feed f : feeds.values()) {
            JsonNode s = runWriter(f, relay, 1, 1, "relay");
            assertThat(s.get("decode_errors").asLong()).as(f.format()).isZero();
            assertThat(s.get("samples_written").asLong())
                    .as(f.format())
                    .isEqualTo(s.get("points").asLong());
            expectedSamples += s.get("points").asLong();
            writeDirect(f);
        }
        final long total = expectedSamples;
        Map<String, TreeMap<Long, String>> viaWriter = normalize(
                relay.awaitExport("{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        Map<String, TreeMap<Long, String>> viaVm = normalize(
                direct.awaitExport("{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        assertThat(samples(viaWriter)).isEqualTo(total);
        assertIdentical(viaWriter, viaVm);
        System.err.printf(
                "InputFormatsIT: relay == VictoriaMetrics' own endpoints: %d series, %d samples over %s%n",
                viaVm.size(), total, feeds.keySet());
    }

    @Test
    @Order(2)
    void amplifiedReadBackIsExactlyTheOracleTimesMTimesN() throws Exception {
        long points = 0;
        for (Feed f : feeds.values()) {
            JsonNode s = runWriter(f, amplified, M, N, "amplified");
            assertThat(s.get("samples_written").asLong())
                    .as(f.format())
                    .isEqualTo(s.get("points").asLong() * M * N);
            points += s.get("points").asLong();
        }
        Map<String, TreeMap<Long, String>> oracle = normalize(direct.export("{__name__=~\".+\"}"));
        Map<String, TreeMap<Long, String>> expected = new TreeMap<>();
        for (Map.Entry<String, TreeMap<Long, String>> e : oracle.entrySet()) {
            Map<String, String> labels = parseKey(e.getKey());
            String label = instanceLabelOf(labels);
            String base = labels.getOrDefault(label, "unknown");
            for (int j = 0; j < N; j++) {
                Map<String, String> variant = new TreeMap<>(labels);
                variant.put(label, j == 0 ? base : base + "-" + j);
                TreeMap<Long, String> samples = expected.computeIfAbsent(key(variant), k -> new TreeMap<>());
                for (Map.Entry<Long, String> s : e.getValue().entrySet()) {
                    for (int i = 0; i < M; i++) {
                        samples.put(s.getKey() + i * 60_000L / M, s.getValue());
                    }
                }
            }
        }
        final long total = points * M * N;
        assertThat(samples(expected)).isEqualTo(total);
        Map<String, TreeMap<Long, String>> actual = normalize(amplified.awaitExport(
                "{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        assertIdentical(actual, expected);
        System.err.printf("InputFormatsIT: M=%d N=%d read back exactly: %d samples%n", M, N, total);
    }

    @Test
    @Order(3)
    void brokenLinesAreCountedByFormatDeadLetteredAndTheLinesAroundThemWritten() throws Exception {
        String influx = "bad-influx";
        String rw = "bad-rw";
        String dlq = "bad-dlq";
        stack.createTopic(influx, 1);
        stack.createTopic(rw, 1);
        stack.createTopic(dlq, 1);
        long t = 1_795_300_857_000L;
        byte[] brokenInflux = ("badtest,host=h v=1 " + t * 1_000_000 + "\nthis_line_has_no_fields\nbadtest,host=h v=2 "
                        + (t + 60_000) * 1_000_000 + "\n")
                .getBytes(StandardCharsets.UTF_8);
        byte[] nanInflux = ("badtest,host=h v=NaN " + (t + 120_000) * 1_000_000).getBytes(StandardCharsets.UTF_8);
        byte[] garbageRw = "neither snappy nor zstd".getBytes(StandardCharsets.UTF_8);
        byte[] goodRw = Snappy.compress(RemoteWriteDecoderTest.writeRequest(
                new Object[][] {{"__name__", "badtest_rw", "host", "h"}, {5.0, t}}));
        produce(List.of(
                new ProducerRecord<>(influx, 0, t, null, brokenInflux),
                new ProducerRecord<>(influx, 0, t, null, nanInflux),
                new ProducerRecord<>(rw, 0, t, null, garbageRw),
                new ProducerRecord<>(rw, 0, t, null, goodRw)));

        Path summary = stack.path("bad-summary.json");
        WriterProcess writer = stack.writer(
                "bad",
                stack.runArgs(
                        relay.url(),
                        influx + "," + rw,
                        "bad",
                        1,
                        1,
                        1,
                        "--input-format",
                        "influx",
                        "--topic-format",
                        rw + "=promremotewrite",
                        "--instance-label",
                        "host",
                        "--dead-letter-topic",
                        dlq,
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("decode_errors").asLong()).isEqualTo(3); // invalid_line, non_finite_value, invalid_compression
        assertThat(s.get("points").asLong()).isEqualTo(3);
        assertThat(s.get("samples_written").asLong()).isEqualTo(3);
        assertThat(writer.output())
                .contains("bad-influx-0@0: invalid_line")
                .contains("bad-rw-0@0: invalid_compression")
                .contains("bad-influx-0@1: non_finite_value");
        for (String topic : List.of(influx, rw)) {
            assertThat(stack.committedOffsets("bad", topic)).isEqualTo(stack.endOffsets(topic));
        }
        List<ConsumerRecord<byte[], byte[]>> dead = consumeAll(dlq);
        assertThat(dead).hasSize(2); // the NaN record is not malformed: counted, not dead-lettered
        Map<String, byte[]> byReason = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            byReason.put(
                    new String(r.headers().lastHeader("tsdbwriter.reason").value(), StandardCharsets.UTF_8), r.value());
        }
        assertThat(byReason.get("invalid_line")).isEqualTo(brokenInflux);
        assertThat(byReason.get("invalid_compression")).isEqualTo(garbageRw);
        Map<String, TreeMap<Long, String>> back = normalize(relay.awaitExport(
                "{__name__=~\"badtest.*\"}", l -> samples(normalize(l)) >= 3, Duration.ofSeconds(30)));
        assertThat(back)
                .containsOnlyKeys(
                        "{\"__name__\":\"badtest_rw\",\"host\":\"h\"}", "{\"__name__\":\"badtest_v\",\"host\":\"h\"}");
        assertThat(back.get("{\"__name__\":\"badtest_v\",\"host\":\"h\"}"))
                .containsExactly(Map.entry(t, "1"), Map.entry(t + 60_000, "2"));
    }

    /**
     * Issue 41: OpenMetrics exemplars through the writer. The exemplar's labels and value are never the sample's (they
     * were on a line without labels: series {@code w_requests_total 7 1795300857000 #{trace_id="def"}} = 2); a line
     * whose exemplar breaks the grammar is counted, the others written. Not in the oracle above: VictoriaMetrics' own
     * {@code /api/v1/import/prometheus} (1.79.5 and v1.150.0) stores that wrong series.
     */
    @Test
    @Order(4)
    void exemplarsAreDroppedAndNeverTheSampleValue() throws Exception {
        String topic = stack.createTopic("prom-exemplars", 1);
        long t = 1_795_300_857_000L;
        String record =
                """
                # HELP w_requests_total Requests.
                # TYPE w_requests counter
                w_requests_total 7 1795300857000 # {trace_id="def"} 2.0 1795300857
                w_requests_total{a="b"} 8 1795300857000 # {trace_id="def"} 2.0 1795300857
                w_latency_seconds 0.25 # {trace_id="abc"} 9
                w_labelled{path="/x # y"} 3 1795300857000 # {} 4
                w_broken 5 # {trace_id="x"}
                """;
        produce(List.of(new ProducerRecord<>(topic, 0, t + 60_000, null, record.getBytes(StandardCharsets.UTF_8))));
        Feed feed = new Feed("prometheus", topic, "instance", List.of());
        JsonNode s = runWriter(feed, relay, 1, 1, "exemplars");
        assertThat(s.get("decode_errors").asLong()).isEqualTo(1); // w_broken: an exemplar without a value
        assertThat(s.get("points").asLong()).isEqualTo(4);
        assertThat(s.get("samples_written").asLong()).isEqualTo(4);
        Map<String, TreeMap<Long, String>> back = normalize(
                relay.awaitExport("{__name__=~\"w_.*\"}", l -> samples(normalize(l)) >= 4, Duration.ofSeconds(30)));
        assertThat(back)
                .containsOnlyKeys(
                        "{\"__name__\":\"w_requests_total\"}",
                        "{\"__name__\":\"w_requests_total\",\"a\":\"b\"}",
                        "{\"__name__\":\"w_latency_seconds\"}",
                        "{\"__name__\":\"w_labelled\",\"path\":\"/x # y\"}");
        assertThat(back.get("{\"__name__\":\"w_requests_total\"}")).containsExactly(Map.entry(t, "7"));
        assertThat(back.get("{\"__name__\":\"w_requests_total\",\"a\":\"b\"}")).containsExactly(Map.entry(t, "8"));
        assertThat(back.get("{\"__name__\":\"w_latency_seconds\"}")).containsExactly(Map.entry(t + 60_000, "0.25"));
        assertThat(back.get("{\"__name__\":\"w_labelled\",\"path\":\"/x # y\"}"))
                .containsExactly(Map.entry(t, "3"));
    }

    /**
     * Which instance label a series of the oracle belongs to: the feeds' labels, by the one the series carries; a
     * series with none comes from the exposition feed (scrapes carry no instance label, and at N = 1 none is added:
     * DESIGN §3), whose variants take that feed's label with the base "unknown".
     */
    private static String instanceLabelOf(Map<String, String> labels) {
        for (String l : List.of("host", "instanceNo", "instance")) {
            if (labels.containsKey(l)) {
                return l;
            }
        }
        Feed exposition = feeds.get("prometheus");
        if (exposition == null) {
            throw new AssertionError("series without an instance label: " + labels);
        }
        return exposition.instanceLabel();
    }

    // ---------------------------------------------------------------- payloads from real producers

    private static Map<String, Feed> telegrafFeeds() throws Exception {
        Path scrape = NodeExporterFiles.first();
        Map<String, String> topics =
                Map.of("influx", "tg-influx", "promremotewrite", "tg-rw", "graphite", "tg-graphite");
        for (String t : topics.values()) {
            stack.createTopic(t, 1);
        }
        String conf =
                """
                [agent]
                  hostname = "node-a"
                  omit_hostname = false
                  quiet = true
                [[inputs.file]]
                  files = ["%s"]
                  data_format = "prometheus"
                [[outputs.kafka]]
                  brokers = ["%s"]
                  topic = "tg-influx"
                  data_format = "influx"
                [[outputs.kafka]]
                  brokers = ["%s"]
                  topic = "tg-rw"
                  data_format = "prometheusremotewrite"
                [[outputs.kafka]]
                  brokers = ["%s"]
                  topic = "tg-graphite"
                  data_format = "graphite"
                  graphite_tag_support = true
                """
                        .formatted(
                                scrape, stack.bootstrapServers(), stack.bootstrapServers(), stack.bootstrapServers());
        Path confFile = stack.path("telegraf.conf");
        Files.writeString(confFile, conf);
        Path log = stack.path("telegraf.log");
        Process p = new ProcessBuilder(telegraf.toString(), "--config", confFile.toString(), "--once")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("telegraf --once did not finish: " + Files.readString(log));
        }
        assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        Map<String, Feed> out = new LinkedHashMap<>();
        for (String format : List.of("influx", "promremotewrite", "graphite")) {
            String topic = topics.get(format);
            List<ConsumerRecord<byte[], byte[]>> records = consumeAll(topic);
            assertThat(records).as(topic + ": " + Files.readString(log)).isNotEmpty();
            out.put(format, new Feed(format, topic, "host", records));
        }
        return out;
    }

    /** The scrape files themselves, one record each, timestamped with the scrape's time (samples carry none). */
    private static Feed prometheusFeed() throws Exception {
        String topic = stack.createTopic("prom", 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Path f : NodeExporterFiles.all().subList(0, 2)) {
            String name = f.getFileName().toString(); // node-exporter-<epoch seconds>.prom
            long ts = Long.parseLong(name.replaceAll("\\D", "")) * 1000;
            records.add(new ProducerRecord<>(topic, 0, ts, null, Files.readAllBytes(f)));
        }
        produce(records);
        return new Feed("prometheus", topic, "instance", consumeAll(topic));
    }

    /** What /api/v1/export returns for the demo's points (2 scrapes, instanceNo and productKey), 40 lines a record. */
    private static Feed jsonlineFeed() throws Exception {
        List<SourcePoint> points = Scenario.realPoints().stream()
                .filter(p -> p.timestampMs() < 1_795_300_857_000L + 120_000)
                .toList();
        StringBuilder lines = new StringBuilder();
        for (SourcePoint p : points) {
            ObjectNode line = JSON.createObjectNode();
            ObjectNode metric = line.putObject("metric");
            metric.put("__name__", p.metric());
            p.labels().forEach(metric::put);
            if (p.productKey() != null) {
                metric.put("productKey", p.productKey());
            }
            line.putArray("values").add(p.value());
            line.putArray("timestamps").add(p.timestampMs());
            lines.append(JSON.writeValueAsString(line)).append('\n');
        }
        List<String> exported;
        try (VmEndpoint scratch = stack.startVm("vm-scratch")) {
            assertThat(scratch.importLines(lines.toString())).isEqualTo(204);
            exported = scratch.awaitExport(
                    "{__name__=~\".+\"}", l -> samples(normalize(l)) >= points.size(), Duration.ofSeconds(30));
        }
        assertThat(samples(normalize(exported))).isEqualTo(points.size());
        String topic = stack.createTopic("jsonl", 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < exported.size(); i += 40) {
            String value = String.join("\n", exported.subList(i, Math.min(exported.size(), i + 40))) + "\n";
            records.add(new ProducerRecord<>(
                    topic, 0, System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8)));
        }
        produce(records);
        return new Feed("jsonline", topic, "instanceNo", consumeAll(topic));
    }

    // ---------------------------------------------------------------- (b): straight into VictoriaMetrics

    private static void writeDirect(Feed f) throws Exception {
        switch (f.format()) {
            case "influx" -> post("/write", joinLines(f.records()), null);
            case "jsonline" -> post("/api/v1/import", joinLines(f.records()), null);
            case "promremotewrite" -> {
                for (ConsumerRecord<byte[], byte[]> r : f.records()) {
                    post("/api/v1/write", r.value(), "snappy");
                }
            }
            case "prometheus" -> {
                for (ConsumerRecord<byte[], byte[]> r : f.records()) {
                    // the writer gives samples without a timestamp the record's: the same through VictoriaMetrics' own
                    // query arg; at N = 1 a series without the instance label stays without it (DESIGN §3: a plain
                    // copy)
                    post("/api/v1/import/prometheus?timestamp=" + r.timestamp(), r.value(), null);
                }
            }
            case "graphite" -> {
                try (Socket s = new Socket("127.0.0.1", graphiteListenPort())) {
                    OutputStream out = s.getOutputStream();
                    out.write(joinLines(f.records()));
                    out.flush();
                }
            }
            default -> throw new IllegalArgumentException(f.format());
        }
    }

    private static int graphiteListenPort() {
        return graphitePort.port();
    }

    private static byte[] joinLines(List<ConsumerRecord<byte[], byte[]>> records) {
        StringBuilder sb = new StringBuilder();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String v = new String(r.value(), StandardCharsets.UTF_8);
            sb.append(v);
            if (!v.endsWith("\n")) {
                sb.append('\n');
            }
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void post(String pathAndQuery, byte[] body, String contentEncoding) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(direct.url() + pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentEncoding != null) {
            b.header("Content-Encoding", contentEncoding)
                    .header("Content-Type", "application/x-protobuf")
                    .header("X-Prometheus-Remote-Write-Version", "0.1.0");
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(pathAndQuery + ": " + r.body()).isBetween(200, 299);
    }

    // ---------------------------------------------------------------- (a): through the writer

    private static JsonNode runWriter(Feed f, VmEndpoint vm, int m, int n, String name) throws Exception {
        Path summary = stack.path(name + "-" + f.format() + "-summary.json");
        WriterProcess writer = stack.writer(
                name + "-" + f.format(),
                stack.runArgs(
                        vm.url(),
                        f.topic(),
                        name + "-" + f.format(),
                        m,
                        n,
                        1,
                        "--input-format",
                        f.format(),
                        "--instance-label",
                        f.instanceLabel(),
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();
        assertThat(stack.committedOffsets(name + "-" + f.format(), f.topic())).isEqualTo(stack.endOffsets(f.topic()));
        return Scenario.summary(summary);
    }

    // ---------------------------------------------------------------- Kafka

    private static void produce(List<ProducerRecord<byte[], byte[]>> records) {
        stack.produce(records);
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeAll(String topic) throws Exception {
        return Scenario.consumeAll(stack.bootstrapServers(), topic);
    }

    // ---------------------------------------------------------------- export comparison

    /** Export lines → series key (sorted labels) → timestamp → value text as VictoriaMetrics printed it. */
    static Map<String, TreeMap<Long, String>> normalize(List<String> lines) {
        Map<String, TreeMap<Long, String>> out = new TreeMap<>();
        for (String line : lines) {
            try {
                JsonNode n = JSON.readTree(line);
                Map<String, String> labels = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = n.get("metric").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    labels.put(e.getKey(), e.getValue().asText());
                }
                TreeMap<Long, String> samples = out.computeIfAbsent(key(labels), k -> new TreeMap<>());
                JsonNode values = n.get("values");
                JsonNode timestamps = n.get("timestamps");
                for (int i = 0; i < values.size(); i++) {
                    samples.put(timestamps.get(i).asLong(), values.get(i).asText());
                }
            } catch (IOException e) {
                throw new IllegalStateException(line, e);
            }
        }
        return out;
    }

    static long samples(Map<String, TreeMap<Long, String>> series) {
        return series.values().stream().mapToLong(Map::size).sum();
    }

    static String key(Map<String, String> labels) {
        try {
            return JSON.writeValueAsString(labels);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> parseKey(String key) throws IOException {
        return new TreeMap<>(JSON.readValue(key, Map.class));
    }

    static void assertIdentical(
            Map<String, TreeMap<Long, String>> actual, Map<String, TreeMap<Long, String>> expected) {
        List<String> diff = new ArrayList<>();
        for (String k : expected.keySet()) {
            if (!actual.containsKey(k)) {
                diff.add("missing " + k + " " + expected.get(k));
            } else if (!actual.get(k).equals(expected.get(k))) {
                diff.add("differs " + k + " expected " + expected.get(k) + " got " + actual.get(k));
            }
        }
        for (String k : actual.keySet()) {
            if (!expected.containsKey(k)) {
                diff.add("extra " + k + " " + actual.get(k));
            }
        }
        assertThat(diff).as(diff.size() + " series differ; first ones").isEmpty();
    }
}
