package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.RealInput;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ProduceCommandTest {

    /** The newest bundled scrape, {@code node-exporter-1795301997.prom}. */
    private static final long NEWEST_SCRAPE_MS = 1795301997000L;

    private static final long YEAR_MS = Duration.ofDays(365).toMillis();
    /** The clock a year after the bundled data: 365 days and 30 s after its newest scrape. */
    private static final long A_YEAR_AHEAD_MS = NEWEST_SCRAPE_MS + YEAR_MS + 30_000;

    private final MockProducer<byte[], byte[]> producer =
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final List<Properties> configs = new ArrayList<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(MockProducer<byte[], byte[]> p, String... args) {
        CommandLine cl = new CommandLine(new ProduceCommand(props -> {
            configs.add(props);
            return p;
        }));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private int run(String... args) {
        return run(producer, args);
    }

    /** Runs the command with its clock at {@code nowMs}. */
    private int runAt(long nowMs, String... args) {
        CommandLine cl = new CommandLine(new ProduceCommand(props -> producer, () -> Instant.ofEpochMilli(nowMs)));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    /** The timestamps of every point sent, in send order. */
    private List<Long> sentTimestamps() throws Exception {
        List<Long> ts = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            ts.add(PointRecords.objectMapper()
                    .readTree(r.value())
                    .get("timestamp")
                    .asLong());
        }
        return ts;
    }

    /** The timestamps of the shipped scrapes as their files say, plus {@code shiftMs}, in file then line order. */
    private static List<Long> shippedTimestampsPlus(long shiftMs) throws Exception {
        return RealInput.load(NodeExporterFiles.all(), "node-0001", "node", OptionalLong.empty()).stream()
                .map(p -> p.timestampMs() + shiftMs)
                .toList();
    }

    private static List<String> files() {
        return NodeExporterFiles.all().stream().map(Path::toString).toList();
    }

    private String lastOutLine() {
        String[] lines = out.toString().strip().split("\n");
        return lines[lines.length - 1];
    }

    @Test
    void sendsOnePointRecordPerSampleOfTheRealScrapes() throws Exception {
        List<String> args =
                new ArrayList<>(List.of("--topic", "points", "--instance", "node-0001", "--keep-timestamps"));
        args.addAll(files());

        int code = run(args.toArray(String[]::new));

        assertThat(code).as(err.toString()).isZero();
        assertThat(producer.history()).hasSize(10_140);
        assertThat(lastOutLine()).matches("10140 records sent, [0-9.]+ records/sec \\([0-9.]+ MB/sec\\), points=10140");
        ProducerRecord<byte[], byte[]> first = producer.history().get(0);
        assertThat(first.topic()).isEqualTo("points");
        assertThat(first.key()).isNull();
        JsonNode record = PointRecords.objectMapper().readTree(first.value());
        assertThat(record.get("metric").asText()).isEqualTo("go_gc_duration_seconds");
        assertThat(record.get("timestamp").asLong()).isEqualTo(1795300857000L);
        assertThat(record.get("value").asDouble()).isEqualTo(1.5943e-05);
        assertThat(record.get("dimensions").get("instanceNo").asText()).isEqualTo("node-0001");
        assertThat(record.get("dimensions").get("quantile").asText()).isEqualTo("0");
        assertThat(record.get("productKey").asText()).isEqualTo("node");
        assertThat(err.toString()).contains("10140 points from 20 files");
    }

    @Test
    void configuresAnIdempotentLz4ProducerWithAcksAll() {
        run(
                "--topic",
                "t",
                "--bootstrap-servers",
                "k1:9092,k2:9092",
                NodeExporterFiles.first().toString());

        Properties p = configs.get(0);
        assertThat(p)
                .containsEntry("bootstrap.servers", "k1:9092,k2:9092")
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", "true")
                .containsEntry("linger.ms", "20")
                .containsEntry("batch.size", "262144")
                .containsEntry("compression.type", "lz4");
    }

    @Test
    void packsSeveralPointsIntoArrayRecords() throws Exception {
        int code = run(
                "--topic",
                "t",
                "--points-per-record",
                "100",
                NodeExporterFiles.first().toString());

        assertThat(code).isZero();
        assertThat(producer.history()).hasSize(6); // 507 points
        assertThat(PointRecords.objectMapper()
                        .readTree(producer.history().get(0).value()))
                .hasSize(100);
        assertThat(PointRecords.objectMapper()
                        .readTree(producer.history().get(5).value()))
                .hasSize(7);
        assertThat(lastOutLine()).startsWith("6 records sent, ").endsWith("points=507");
    }

    @Test
    void otlpSendsOneRecordPerScrapeKeyedByItsInstance() throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--topic", "t", "--record-format", "otlp", "--keyed", "--instance", "node-0001", "--keep-timestamps"));
        args.addAll(files());

        int code = run(args.toArray(String[]::new));

        assertThat(code).as(err.toString()).isZero();
        assertThat(producer.history()).hasSize(20); // one record per file: one instance, one scrape each
        assertThat(lastOutLine()).startsWith("20 records sent, ").endsWith("points=10140");
        ProducerRecord<byte[], byte[]> first = producer.history().get(0);
        assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("node-0001");
        var request = ExportMetricsServiceRequest.parseFrom(first.value());
        assertThat(request.getResourceMetricsCount()).isEqualTo(1);
        var metrics = request.getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
        assertThat(metrics.get(0).getName()).isEqualTo("go_gc_duration_seconds");
        assertThat(metrics.get(0).getGauge().getDataPointsCount()).isEqualTo(5); // its quantiles
        assertThat(metrics.get(0).getGauge().getDataPoints(0).getTimeUnixNano()).isEqualTo(1795300857000L * 1_000_000L);
    }

    @Test
    void otlpPointsSendsPointsPerRecordAsOtlpGauges() throws Exception {
        int code = run(
                "--topic",
                "t",
                "--record-format",
                "otlp-points",
                "--points-per-record",
                "100",
                NodeExporterFiles.first().toString());

        assertThat(code).as(err.toString()).isZero();
        assertThat(producer.history()).hasSize(6); // 507 points
        var metrics = ExportMetricsServiceRequest.parseFrom(
                        producer.history().get(0).value())
                .getResourceMetrics(0)
                .getScopeMetrics(0)
                .getMetricsList();
        assertThat(metrics.stream()
                        .mapToInt(m -> m.getGauge().getDataPointsCount())
                        .sum())
                .isEqualTo(100);
        assertThat(lastOutLine()).startsWith("6 records sent, ").endsWith("points=507");
    }

    @Test
    void otlpRefusesPointsPerRecordAndUnknownFormatsAreRefused() {
        assertThat(run(
                        "--topic",
                        "t",
                        "--record-format",
                        "otlp",
                        "--points-per-record",
                        "10",
                        NodeExporterFiles.first().toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--record-format otlp sends one record per scrape");
        assertThat(run("--topic", "t", "--record-format", "protobuf", "--synthetic"))
                .isEqualTo(2);
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void keysRecordsByTheSeriesOfTheirFirstPoint() {
        run(
                "--topic",
                "t",
                "--keyed",
                "--instance",
                "h",
                NodeExporterFiles.first().toString());

        assertThat(new String(producer.history().get(0).key(), StandardCharsets.UTF_8))
                .isEqualTo("go_gc_duration_seconds{instanceNo=\"h\",productKey=\"node\",quantile=\"0\"}");
    }

    @Test
    void generatesSyntheticSeriesEndingAtTheTimestamp() throws Exception {
        int code = run(
                "--topic",
                "t",
                "--synthetic",
                "--series",
                "5",
                "--points-per-series",
                "3",
                "--instance",
                "h",
                "--timestamp",
                "1795305000000",
                "--source-interval",
                "10s");

        assertThat(code).isZero();
        assertThat(producer.history()).hasSize(15);
        JsonNode last =
                PointRecords.objectMapper().readTree(producer.history().get(14).value());
        assertThat(last.get("metric").asText()).isEqualTo("synthetic_metric");
        assertThat(last.get("timestamp").asLong()).isEqualTo(1795305000000L);
        assertThat(last.get("dimensions").get("series").asText()).isEqualTo("4");
        JsonNode firstRecord =
                PointRecords.objectMapper().readTree(producer.history().get(0).value());
        assertThat(firstRecord.get("timestamp").asLong()).isEqualTo(1795305000000L - 20_000);
    }

    @Test
    void syntheticTimestampsGoBackFromNow() throws Exception {
        long before = System.currentTimeMillis();
        run("--topic", "t", "--synthetic", "--series", "1", "--points-per-series", "2");

        long newest = PointRecords.objectMapper()
                .readTree(producer.history().get(1).value())
                .get("timestamp")
                .asLong();
        assertThat(newest).isLessThanOrEqualTo(System.currentTimeMillis()).isGreaterThan(before - 60_000);
        assertThat(newest % 60_000).isZero();
    }

    @Test
    void limitsTheRecordRate() {
        long start = System.nanoTime();
        int code = run(
                "--topic",
                "t",
                "--synthetic",
                "--series",
                "11",
                "--points-per-series",
                "1",
                "--records-per-second",
                "50");

        assertThat(code).isZero();
        assertThat((System.nanoTime() - start) / 1e6)
                .as("11 records at 50/s take 200 ms")
                .isGreaterThanOrEqualTo(190);
    }

    @Test
    void exitsOneWhenASendFails() {
        MockProducer<byte[], byte[]> failing =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()) {
                    @Override
                    public synchronized Future<RecordMetadata> send(
                            ProducerRecord<byte[], byte[]> record, Callback callback) {
                        callback.onCompletion(
                                null, new TimeoutException("Topic t not present in metadata after 60000 ms."));
                        return CompletableFuture.failedFuture(new TimeoutException("no broker"));
                    }
                };

        int code = run(failing, "--topic", "t", NodeExporterFiles.first().toString());

        assertThat(code).isEqualTo(1);
        assertThat(lastOutLine()).startsWith("0 records sent, ");
        assertThat(err.toString()).contains("first error").contains("not present in metadata");
    }

    @Test
    void exitsOneWithTheLineWhenAFileIsNotExpositionText(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path bad = dir.resolve("node-exporter-1795300857.prom");
        Files.writeString(bad, "up 1\nbroken{ 1\n");

        int code = run("--topic", "t", bad.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("cannot read the input").contains(bad + ":line 2: ");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void withoutFilesTheBundledRealScrapesAreSentFromAnyDirectory() {
        assertThat(run("--topic", "t", "--instance", "node-0001"))
                .as(err.toString())
                .isZero();
        assertThat(producer.history()).hasSize(10_140); // the 20 scrapes in the jar, one point a record
        assertThat(err.toString()).startsWith("produce: 10140 points from 20 files");
    }

    @Test
    void theBundledScrapesAreProducedRelativeToThePresentByDefault() throws Exception {
        // the clock a year (365 days) and 30 s after the newest bundled scrape: the data is a year old
        int code = runAt(A_YEAR_AHEAD_MS, "--topic", "t", "--instance", "node-0001");

        assertThat(code).as(err.toString()).isZero();
        // every scrape moved by the same whole minutes (365 days): order and 1-minute spacing kept, newest 30 s ago
        assertThat(sentTimestamps().get(0))
                .as("the oldest scrape's first sample")
                .isEqualTo(1795300857000L + YEAR_MS);
        assertThat(sentTimestamps()).isEqualTo(shippedTimestampsPlus(YEAR_MS));
        assertThat(Collections.max(sentTimestamps())).isEqualTo(A_YEAR_AHEAD_MS - 30_000);
        assertThat(err.toString())
                .contains("timestamps relative to --now " + A_YEAR_AHEAD_MS + ": the scrape times moved by +" + YEAR_MS
                        + " ms (newest " + Instant.ofEpochMilli(A_YEAR_AHEAD_MS - 30_000)
                        + "); --keep-timestamps keeps them");
    }

    @Test
    void filesGivenAreProducedRelativeToThePresentToo() throws Exception {
        List<String> args = new ArrayList<>(List.of("--topic", "t", "--instance", "node-0001"));
        args.addAll(files());

        assertThat(runAt(A_YEAR_AHEAD_MS, args.toArray(String[]::new)))
                .as(err.toString())
                .isZero();

        assertThat(sentTimestamps()).isEqualTo(shippedTimestampsPlus(YEAR_MS));
    }

    @Test
    void nowGivesThePresentTheTimestampsAreRelativeTo() throws Exception {
        long now = NEWEST_SCRAPE_MS + 2 * 60_000 + 59_999; // 2 whole minutes and 59.999 s after the newest scrape

        assertThat(runAt(A_YEAR_AHEAD_MS, "--topic", "t", "--instance", "node-0001", "--now", Long.toString(now)))
                .as(err.toString())
                .isZero();

        assertThat(sentTimestamps()).isEqualTo(shippedTimestampsPlus(120_000));
    }

    @Test
    void keepTimestampsSendsTheScrapeTimesOfTheFilesUnchanged() throws Exception {
        assertThat(runAt(A_YEAR_AHEAD_MS, "--topic", "t", "--instance", "node-0001", "--keep-timestamps"))
                .as(err.toString())
                .isZero();

        assertThat(sentTimestamps()).isEqualTo(shippedTimestampsPlus(0));
        assertThat(sentTimestamps().get(0)).isEqualTo(1795300857000L);
    }

    @Test
    void keepTimestampsAndNowRefuseWhatTheyCannotMeanTogether() {
        String file = NodeExporterFiles.first().toString();
        assertThat(run("--topic", "t", "--keep-timestamps", "--timestamp", "1795300857000", file))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--keep-timestamps");
        assertThat(run("--topic", "t", "--keep-timestamps", "--synthetic")).isEqualTo(2);
        assertThat(run("--topic", "t", "--keep-timestamps", "--now", "1795300857000", file))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--now", "1795300857", file))
                .as("seconds")
                .isEqualTo(2);
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void exitsTwoOnBadFlags() {
        assertThat(run(NodeExporterFiles.first().toString())).as("no --topic").isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--topic=TOPIC'");
        assertThat(run("--topic", "t", "--synthetic", NodeExporterFiles.first().toString()))
                .as("both inputs")
                .isEqualTo(2);
        assertThat(run(
                        "--topic",
                        "t",
                        "--timestamp",
                        "1795300857",
                        NodeExporterFiles.first().toString()))
                .as("seconds")
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--points-per-record", "0", "--synthetic"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--records-per-second", "-1", "--synthetic"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--source-interval", "soon", "--synthetic"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "/no/such/file.prom")).isEqualTo(2);
        assertThat(run("--topic", "t", "--bogus")).isEqualTo(2);
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void sendsOtlpExponentialHistogramsWithHistogramSeries() throws Exception {
        long newest = 1795305000000L;
        int code = run(
                "--topic",
                "h",
                "--histogram-series",
                "20",
                "--points-per-series",
                "3",
                "--points-per-record",
                "8",
                "--timestamp",
                Long.toString(newest),
                "--instance",
                "host-1",
                "--keyed");

        assertThat(code).as(err.toString()).isZero();
        assertThat(producer.history()).hasSize(8); // 60 points, 8 to a record
        assertThat(lastOutLine()).matches("8 records sent, [0-9.]+ records/sec \\([0-9.]+ MB/sec\\), points=60");
        assertThat(err.toString())
                .contains("60 OTLP exponential histogram points of http.server.request.duration (20 series x 3 points,"
                        + " 60s apart, newest at " + newest + "); the writer reads them with --input-format otlp");
        ProducerRecord<byte[], byte[]> first = producer.history().get(0);
        assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("frontend-0 GET / 200");
        ExportMetricsServiceRequest req = ExportMetricsServiceRequest.parseFrom(first.value());
        var dp = req.getResourceMetrics(0)
                .getScopeMetrics(0)
                .getMetrics(0)
                .getExponentialHistogram()
                .getDataPoints(0);
        assertThat(dp.getTimeUnixNano()).isEqualTo((newest - 2 * 60_000) * 1_000_000L);
        assertThat(dp.getCount()).isPositive();
        ExportMetricsServiceRequest last =
                ExportMetricsServiceRequest.parseFrom(producer.history().get(7).value());
        assertThat(last.getResourceMetricsList())
                .flatExtracting(rm -> rm.getScopeMetrics(0)
                        .getMetrics(0)
                        .getExponentialHistogram()
                        .getDataPointsList())
                .extracting(p -> p.getTimeUnixNano())
                .containsOnly(newest * 1_000_000L);
    }

    @Test
    void histogramSeriesRefusesTheFlagsOfPointRecords() {
        assertThat(run("--topic", "t", "--histogram-series", "5", "--synthetic"))
                .isEqualTo(2);
        assertThat(run(
                        "--topic",
                        "t",
                        "--histogram-series",
                        "5",
                        NodeExporterFiles.first().toString()))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "5", "--series", "3"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "5", "--product-key", "x"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "5", "--keep-timestamps"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "-1")).isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "5", "--timestamp", "1795300857"))
                .isEqualTo(2);
        assertThat(run("--topic", "t", "--histogram-series", "5", "--points-per-series", "0"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("--series is a flag of point records; --histogram-series sends OTLP histograms");
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void formatsTheSummaryLikeTheKafkaPerfTest() {
        assertThat(ProduceCommand.summary(1000, 2 * 1024 * 1024, 5000, 2.0))
                .isEqualTo("1000 records sent, 500.0 records/sec (1.00 MB/sec), points=5000");
    }
}
