package io.tsdbwriter.it;

import static io.tsdbwriter.it.InputFormatsIT.assertIdentical;
import static io.tsdbwriter.it.InputFormatsIT.normalize;
import static io.tsdbwriter.it.InputFormatsIT.samples;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.Components.VmVersion;
import io.tsdbwriter.it.support.OtlpRequests;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OTLP in (issue 29) against VictoriaMetrics' own OpenTelemetry endpoint as the oracle, as {@link InputFormatsIT} does
 * for the other formats: requests built with the official {@code opentelemetry-proto} classes from real node_exporter
 * scrapes ({@link OtlpRequests}: sums, gauges, a summary, an explicit-bucket and an exponential histogram), two hosts,
 * one topic of {@code otlp} (protobuf) and one of {@code otlp-json}; (a) through the writer at M = N = 1 into
 * VictoriaMetrics A, (b) the same requests POSTed to VictoriaMetrics B's {@code /opentelemetry/v1/metrics}: exports
 * identical, series for series, sample for sample. Then M = 6, N = 3 with {@code --instance-label host.name} into C:
 * exactly B's samples amplified. Then malformed and unsupported records: counted per reason, dead-lettered, the rest
 * written. Every VictoriaMetrics is today's build (v1.150.0: the Debian 1.79.5 has no OpenTelemetry endpoint).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OtlpIT {

    private static final int M = 6;
    private static final int N = 3;

    /** One broker, if today's VictoriaMetrics is built; the three VictoriaMetrics are started in {@link #start()}. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().assuming(VmVersion.CURRENT);

    static VmEndpoint relay;
    static VmEndpoint direct;
    static VmEndpoint amplified;
    static final List<ExportMetricsServiceRequest> requests = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        relay = stack.startVm("vm-relay", VmVersion.CURRENT);
        direct = stack.startVm("vm-direct", VmVersion.CURRENT);
        amplified = stack.startVm("vm-amplified", VmVersion.CURRENT);
        stack.createTopic("otlp", 1);
        stack.createTopic("otlp-json", 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Path f : NodeExporterFiles.all().subList(0, 3)) {
            long ts = Long.parseLong(f.getFileName().toString().replaceAll("\\D", "")) * 1000;
            ExportMetricsServiceRequest a = OtlpRequests.fromScrape(f, "node-a", ts);
            ExportMetricsServiceRequest b = OtlpRequests.fromScrape(f, "node-b", ts);
            requests.add(a);
            requests.add(b);
            records.add(new ProducerRecord<>("otlp", 0, ts, null, a.toByteArray()));
            records.add(new ProducerRecord<>(
                    "otlp-json", 0, ts, null, JsonFormat.printer().print(b).getBytes(StandardCharsets.UTF_8)));
        }
        produce(records);
    }

    @Test
    @Order(1)
    void relayReadsBackExactlyWhatVictoriaMetricsStoresFromItsOwnOpenTelemetryEndpoint() throws Exception {
        JsonNode s = runWriter(relay, 1, 1, "relay", "otlp,otlp-json");
        assertThat(s.get("decode_errors").asLong()).isZero();
        long total = s.get("points").asLong();
        assertThat(s.get("samples_written").asLong()).isEqualTo(total);
        for (ExportMetricsServiceRequest r : requests) {
            OtlpRequests.post(direct.url() + "/opentelemetry/v1/metrics", r, 200);
        }
        Map<String, TreeMap<Long, String>> viaWriter = normalize(
                relay.awaitExport("{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        Map<String, TreeMap<Long, String>> viaVm = normalize(
                direct.awaitExport("{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        assertThat(samples(viaVm)).isEqualTo(total);
        assertIdentical(viaWriter, viaVm);
        assertThat(viaVm.keySet())
                .anyMatch(k -> k.contains("vmrange"))
                .anyMatch(k -> k.contains("\"le\""))
                .anyMatch(k -> k.contains("quantile"))
                .anyMatch(k -> k.contains("scope.name"));
        System.err.printf(
                "OtlpIT: relay == VictoriaMetrics' /opentelemetry/v1/metrics: %d series, %d samples%n",
                viaVm.size(), total);
    }

    @Test
    @Order(2)
    void amplifiedReadBackIsExactlyTheOracleTimesMTimesN() throws Exception {
        JsonNode s = runWriter(amplified, M, N, "amplified", "otlp,otlp-json");
        long total = s.get("points").asLong() * M * N;
        assertThat(s.get("samples_written").asLong()).isEqualTo(total);
        Map<String, TreeMap<Long, String>> expected = new TreeMap<>();
        for (Map.Entry<String, TreeMap<Long, String>> e :
                normalize(direct.export("{__name__=~\".+\"}")).entrySet()) {
            Map<String, String> labels = InputFormatsIT.parseKey(e.getKey());
            String base = labels.get("host.name");
            for (int j = 0; j < N; j++) {
                Map<String, String> variant = new TreeMap<>(labels);
                variant.put("host.name", j == 0 ? base : base + "-" + j);
                TreeMap<Long, String> out = expected.computeIfAbsent(InputFormatsIT.key(variant), k -> new TreeMap<>());
                for (Map.Entry<Long, String> sample : e.getValue().entrySet()) {
                    for (int i = 0; i < M; i++) {
                        out.put(sample.getKey() + i * 60_000L / M, sample.getValue());
                    }
                }
            }
        }
        assertThat(samples(expected)).isEqualTo(total);
        Map<String, TreeMap<Long, String>> actual = normalize(amplified.awaitExport(
                "{__name__=~\".+\"}", l -> samples(normalize(l)) >= total, Duration.ofSeconds(30)));
        assertIdentical(actual, expected);
        System.err.printf("OtlpIT: M=%d N=%d read back exactly: %d samples%n", M, N, total);
    }

    @Test
    @Order(3)
    void malformedAndUnsupportedRecordsAreCountedDeadLetteredAndTheRestWritten() throws Exception {
        stack.createTopic("otlp-bad", 1);
        stack.createTopic("otlp-dlq", 1);
        long t = 1_795_300_857_000L;
        long ns = t * 1_000_000L;
        ExportMetricsServiceRequest mixed = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(OtlpRequests.attr("host.name", "bad-host")))
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .addMetrics(Metric.newBuilder()
                                        .setName("otlp_bad_requests")
                                        .setSum(Sum.newBuilder()
                                                .setIsMonotonic(true)
                                                .setAggregationTemporality(
                                                        AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                                                .addDataPoints(NumberDataPoint.newBuilder()
                                                        .setTimeUnixNano(ns)
                                                        .setAsInt(3))))
                                .addMetrics(Metric.newBuilder()
                                        .setName("otlp_bad_kept")
                                        .setGauge(Gauge.newBuilder()
                                                .addDataPoints(NumberDataPoint.newBuilder()
                                                        .setTimeUnixNano(ns)
                                                        .setAsDouble(7))))))
                .build();
        byte[] garbage = "not an ExportMetricsServiceRequest".getBytes(StandardCharsets.UTF_8);
        produce(List.of(
                new ProducerRecord<>("otlp-bad", 0, t, null, garbage),
                new ProducerRecord<>("otlp-bad", 0, t, null, mixed.toByteArray())));
        Path summary = stack.path("bad-summary.json");
        WriterProcess w = stack.writer(
                "bad",
                stack.runArgs(
                        relay.url(),
                        "otlp-bad",
                        "bad",
                        1,
                        1,
                        1,
                        "--input-format",
                        "otlp",
                        "--dead-letter-topic",
                        "otlp-dlq",
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("decode_errors").asLong()).isEqualTo(2);
        assertThat(s.get("samples_written").asLong()).isEqualTo(1);
        assertThat(w.output())
                .contains("otlp-bad-0@0: invalid_protobuf")
                .contains("otlp-bad-0@1: unsupported_temporality");
        assertThat(stack.committedOffsets("bad", "otlp-bad")).isEqualTo(stack.endOffsets("otlp-bad"));
        Map<String, byte[]> byReason = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : consumeAll("otlp-dlq")) {
            byReason.put(
                    new String(r.headers().lastHeader("tsdbwriter.reason").value(), StandardCharsets.UTF_8), r.value());
        }
        assertThat(byReason).containsOnlyKeys("invalid_protobuf", "unsupported_temporality");
        assertThat(byReason.get("invalid_protobuf")).isEqualTo(garbage);
        assertThat(byReason.get("unsupported_temporality")).isEqualTo(mixed.toByteArray());
        Map<String, TreeMap<Long, String>> back = normalize(relay.awaitExport(
                "{__name__=~\"otlp_bad.*\"}", l -> samples(normalize(l)) >= 1, Duration.ofSeconds(30)));
        assertThat(back).containsOnlyKeys("{\"__name__\":\"otlp_bad_kept\",\"host.name\":\"bad-host\"}");
    }

    private static JsonNode runWriter(VmEndpoint vm, int m, int n, String name, String topics) throws Exception {
        Path summary = stack.path(name + "-summary.json");
        WriterProcess writer = stack.writer(
                name,
                stack.runArgs(
                        vm.url(),
                        topics,
                        name,
                        m,
                        n,
                        1,
                        "--input-format",
                        "otlp",
                        "--topic-format",
                        "otlp-json=otlp-json",
                        "--instance-label",
                        "host.name",
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();
        for (String topic : topics.split(",")) {
            assertThat(stack.committedOffsets(name, topic)).isEqualTo(stack.endOffsets(topic));
        }
        return Scenario.summary(summary);
    }

    private static void produce(List<ProducerRecord<byte[], byte[]>> records) {
        stack.produce(records);
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeAll(String topic) throws Exception {
        return Scenario.consumeAll(stack.bootstrapServers(), topic);
    }
}
