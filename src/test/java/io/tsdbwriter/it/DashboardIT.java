package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.DashboardFigures;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.FreePorts;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Grafana dashboard tested for real (issue "Tested for real"): VictoriaMetrics scrapes a running writer and
 * itself ({@code -promscrape.config}, 1 s interval), the writer consumes the real input produced over time (with
 * malformed records and records VictoriaMetrics refuses) through a fault run, and then every query of every panel of
 * {@code grafana/dashboards/tsdb-writer-efficiency.json} — hidden targets included — is evaluated through
 * {@code /api/v1/query_range} with the template variables substituted. A query that errors or returns no series
 * fails the test, naming the panel and the query.
 *
 * <p>The fault run: the writer has two endpoints, the first behind a {@link FaultProxy}, the second a port where
 * nothing listens. The first answers 503 (retried), then 429 with {@code Retry-After: 1} (the TSDB's "too many
 * requests": retried), then 401 (a configuration fault, class {@code 4xx}) while the second refuses connections (class
 * {@code connect}); then both pass. The write-fault panel must show, at the end of the run, exactly the
 * {@code tsdbwriter_write_faults_total} counts per endpoint and class the writer's own {@code /metrics} has (and the
 * 4xx count is the proxy's number of 401 answers); the write-request panels must show the 503, 429 and 401 statuses.
 *
 * <p>Scrape jobs: {@code tsdb-writer} (the writer's {@code --metrics-port}) and {@code vminsert} (this single-node
 * VictoriaMetrics, which plays vminsert's role here: it takes the writer's imports and exports the same
 * {@code vm_concurrent_insert_*} gauges), the job names of {@code examples/vmagent/scrape.yml}.
 *
 * <p>Template variables are substituted twice, as Grafana would: (1) "All", the dashboard's saved selection: each
 * variable's {@code allValue}; (2) every value the variable's own {@code label_values(...)} query returns (asked
 * through {@code /api/v1/label/<name>/values}, filtered by the variable's regex), formatted as Grafana's Prometheus
 * datasource formats a multi-value variable (regex-escaped, {@code (a|b)} when several). The second pass also
 * checks that the variable queries find the writer's job and instance and the vminsert job.
 *
 * <p>Grafana's built-ins, for a 1 s scrape interval: {@code $__interval} = the step (2 s);
 * {@code $__rate_interval} = 10 s (Grafana's lower bound is 4 × the scrape interval; 10 s keeps ≥ 2 scrapes in every
 * window even with scrape jitter); {@code $__range} = the evaluated time range (the whole run). VictoriaMetrics runs
 * with {@code -search.latencyOffset=1s} so that the last seconds of the run are queryable at once (its default
 * hides the newest 30 s).
 *
 * <p>It runs in the default failsafe execution, beside another class: it asserts that queries answer with series and
 * that the fault counts shown equal the counts the writer and the proxy kept, none of which a neighbour's load changes
 * (it delays the phases, each of which waits for what it needs). Its second run, against today's VictoriaMetrics
 * ({@code vmcurrent.it.test}: MetricsQL and VictoriaMetrics' own gauges are the release's), runs beside the other
 * vm-current classes the same way.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DashboardIT {

    static final Path DASHBOARD = Path.of("grafana/dashboards/tsdb-writer-efficiency.json");
    static final String WRITER_JOB = "tsdb-writer";
    static final String VMINSERT_JOB = "vminsert";
    static final int PARTITIONS = 3;
    static final int M = 2;
    static final int N = 3;
    /** The real input goes in as this many slices (one real scrape each), one slice every {@link #SLICE_PERIOD}. */
    static final int SLICES = 20;

    static final Duration SLICE_PERIOD = Duration.ofMillis(1500);
    static final Duration FAULT_PHASE = Duration.ofSeconds(5);
    /** What the writer appends to a --vm-url: the endpoint tag of its write-fault meter is base URL + this. */
    static final String IMPORT_PATH = "/api/v1/import";

    static final String WRITE_FAULTS = "tsdbwriter_write_faults_total";
    static final Duration STEP = Duration.ofSeconds(2);
    static final String RATE_INTERVAL = "10s";
    static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\$(\\w+)|\\[\\[(\\w+)]]");
    static final Pattern LABEL_VALUES =
            Pattern.compile("^\\s*label_values\\((.*),\\s*(\\w+)\\s*\\)\\s*$", Pattern.DOTALL);

    /** A broker; the VictoriaMetrics is started by the test, whose scrape config must name the writer first. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    @Test
    void everyPanelQueryReturnsSeriesFromALiveWriterAndVictoriaMetrics() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Files.readAllBytes(DASHBOARD));
        List<SourcePoint> points = Scenario.realPoints();
        Path scrapeConfig = stack.path("scrape.yml");
        try (FreePorts.Reservation metricsPort = FreePorts.reserve()) {
            String writerTarget = "127.0.0.1:" + metricsPort.port();
            // VictoriaMetrics' own port is known only once it runs: start with the writer's job, then add its own
            // job and reload (/-/reload).
            Files.writeString(scrapeConfig, scrapeConfig(writerTarget, null));
            try (VmEndpoint vm =
                    stack.startVm("vm", "-promscrape.config=" + scrapeConfig, "-search.latencyOffset=1s")) {
                String vmTarget = "127.0.0.1:" + vm.port();
                Files.writeString(scrapeConfig, scrapeConfig(writerTarget, vmTarget));
                assertThat(vm.get("/-/reload").statusCode() / 100)
                        .as("/-/reload")
                        .isEqualTo(2);
                awaitTargetUp(vm, VMINSERT_JOB, vmTarget, Duration.ofSeconds(30));

                String topic = "dashboard-input";
                String dlq = topic + "-dlq";
                stack.createTopic(topic, PARTITIONS);
                stack.createTopic(dlq, 1);
                // Two endpoints: the first behind a fault proxy, the second a port where nothing listens until the
                // fault run's last phase (a refused connection), then a proxy of its own.
                FaultProxy second = null;
                try (FaultProxy proxy = new FaultProxy(vm.url());
                        FreePorts.Reservation secondPort = FreePorts.reserve()) {
                    String secondUrl = "http://127.0.0.1:" + secondPort.port();
                    proxy.mode(new FaultProxy.Status(503, -1));
                    Instant start = Instant.now();
                    WriterProcess writer = stack.writer(
                            "writer",
                            List.of("-Xmx96m"),
                            List.of(
                                    "run",
                                    "--bootstrap-servers",
                                    stack.bootstrapServers(),
                                    "--topic",
                                    topic,
                                    "--group-id",
                                    "dashboard",
                                    "--vm-url",
                                    proxy.url() + "," + secondUrl,
                                    "--time-multiplier",
                                    Integer.toString(M),
                                    "--instance-multiplier",
                                    Integer.toString(N),
                                    "--parallelism",
                                    "2",
                                    "--segment-size",
                                    "100",
                                    "--commit-interval",
                                    "1s",
                                    "--batch-samples",
                                    "2000",
                                    "--metrics-address",
                                    "127.0.0.1",
                                    "--metrics-port",
                                    Integer.toString(metricsPort.port()),
                                    "--report-interval",
                                    "2s",
                                    "--dead-letter-topic",
                                    dlq,
                                    "--max-retries",
                                    "2",
                                    "--max-backoff",
                                    "1s",
                                    "--call-timeout",
                                    "5s"));
                    Thread producer = null;
                    try {
                        awaitTargetUp(vm, WRITER_JOB, writerTarget, Duration.ofSeconds(30));
                        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
                        producer = Thread.ofPlatform()
                                .name("dashboard-producer")
                                .daemon(true)
                                .start(() -> {
                                    try {
                                        produceOverTime(stack.bootstrapServers(), topic, points);
                                    } catch (Throwable t) {
                                        producerFailure.set(t);
                                    }
                                });
                        // 503 for at least FAULT_PHASE and until a few import requests got one (retries, then
                        // failures by status once --max-retries is used up).
                        Thread.sleep(FAULT_PHASE.toMillis());
                        awaitAnswered(proxy, 503, writer);
                        // 429 with Retry-After: 1, the TSDB's "too many requests": retried, never a configuration
                        // fault.
                        proxy.mode(new FaultProxy.Status(429, 1));
                        Thread.sleep(FAULT_PHASE.toMillis());
                        awaitAnswered(proxy, 429, writer);
                        // 401, a configuration fault (class 4xx) of the first endpoint, until the second has refused
                        // a connection too (class connect): both hold their batches.
                        proxy.mode(new FaultProxy.Status(401, -1));
                        awaitAnswered(proxy, 401, writer);
                        String secondEndpoint = secondUrl + IMPORT_PATH;
                        long deadline =
                                System.nanoTime() + Duration.ofSeconds(30).toNanos();
                        while (writerFaults(writerTarget).getOrDefault(List.of(secondEndpoint, "connect"), 0L) < 1
                                && System.nanoTime() < deadline) {
                            Thread.sleep(100);
                        }
                        // From now on everything passes but the records marked "poison": 400, split, dead-lettered.
                        proxy.mode(new FaultProxy.RejectContaining("\"poison\""));
                        second = new FaultProxy(vm.url(), secondPort.port());
                        second.mode(new FaultProxy.RejectContaining("\"poison\""));
                        producer.join(Duration.ofSeconds(90).toMillis());
                        assertThat(producer.isAlive())
                                .as("producer still running")
                                .isFalse();
                        assertThat(producerFailure.get()).as("producer failure").isNull();
                        awaitCommittedAtEnd(
                                stack.bootstrapServers(), topic, "dashboard", writer, Duration.ofSeconds(60));
                        Thread.sleep(3000); // a few more scrapes of the settled state
                        assertThat(writer.isAlive()).as(tail(writer)).isTrue();

                        // The faults as the writer counted them, and as the proxy answered them (the refused
                        // connections have no one to count them but the writer): exactly one 4xx fault per 401.
                        String firstEndpoint = proxy.url() + IMPORT_PATH;
                        Map<List<String>, Long> counted = writerFaults(writerTarget);
                        assertThat(counted.keySet())
                                .as("the writer's tsdbwriter_write_faults_total{endpoint,class}")
                                .containsExactlyInAnyOrder(
                                        List.of(firstEndpoint, "4xx"), List.of(secondEndpoint, "connect"));
                        assertThat(counted.get(List.of(firstEndpoint, "4xx")))
                                .as("4xx faults of " + firstEndpoint + " vs the proxy's 401 answers")
                                .isEqualTo(proxy.answered(401));
                        assertThat(counted.get(List.of(secondEndpoint, "connect")))
                                .as("refused connections to " + secondEndpoint)
                                .isPositive();

                        vm.forceFlush();
                        Instant end = Instant.now();
                        List<String> failures = evaluateDashboard(vm, dashboard, start, end, writerTarget);
                        DashboardFigures.write(
                                FIGURES,
                                "tsdb-writer dashboard, DashboardIT live run: M=" + M + " N=" + N
                                        + ", 503, 429 and 401 phases, a refused connection, malformed and refused records, "
                                        + (Duration.between(start, end).toSeconds()) + " s",
                                figures(vm, dashboard, start, end));
                        System.out.println("DashboardIT: the panels' figures in " + FIGURES.toAbsolutePath());
                        assertThat(failures)
                                .as("dashboard queries that error or return no series (of the run " + start + " .. "
                                        + end + "):\n  " + String.join("\n  ", failures))
                                .isEmpty();
                        assertFaultPanels(vm, dashboard, start, end, counted);
                    } finally {
                        if (producer != null) {
                            producer.interrupt();
                        }
                        writer.sigterm();
                    }
                    assertThat(writer.waitFor(Duration.ofSeconds(60)))
                            .as(tail(writer))
                            .isZero();
                } finally {
                    if (second != null) {
                        second.close();
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ input

    /**
     * The real input, one real scrape (slice) every {@link #SLICE_PERIOD}, one point per record, record i to
     * partition i % PARTITIONS; one malformed record (a different decode error reason each) in every other slice,
     * and a record VictoriaMetrics refuses (label {@code marker="poison"}) in every fifth.
     */
    private static void produceOverTime(String bootstrap, String topic, List<SourcePoint> points) throws Exception {
        List<byte[]> malformed = List.of(
                "{not json".getBytes(StandardCharsets.UTF_8),
                "{\"timestamp\":1795300857000,\"value\":1}".getBytes(StandardCharsets.UTF_8),
                "{\"metric\":\"m\",\"timestamp\":1795300857000}".getBytes(StandardCharsets.UTF_8),
                "{\"metric\":\"1bad\",\"timestamp\":1795300857000,\"value\":1}".getBytes(StandardCharsets.UTF_8),
                "{\"metric\":\"m\",\"timestamp\":1795300857,\"value\":1}".getBytes(StandardCharsets.UTF_8));
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                false); // in order, one request in flight, every send checked: Scenario.produce says why
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        int sliceSize = (points.size() + SLICES - 1) / SLICES;
        long next = System.nanoTime();
        int record = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int s = 0; s < SLICES; s++) {
                List<byte[]> values = new ArrayList<>();
                for (SourcePoint point : points.subList(s * sliceSize, Math.min(points.size(), (s + 1) * sliceSize))) {
                    values.add(PointRecords.encode(point));
                }
                if (s % 2 == 1) {
                    values.add(values.size() / 2, malformed.get((s / 2) % malformed.size()));
                }
                if (s % 5 == 4) {
                    values.add(("{\"metric\":\"poisoned_metric\",\"timestamp\":1795300857000,\"value\":" + s
                                    + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"marker\":\"poison\"}}")
                            .getBytes(StandardCharsets.UTF_8));
                }
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (byte[] v : values) {
                    sent.add(producer.send(new ProducerRecord<>(topic, record++ % PARTITIONS, null, v)));
                }
                producer.flush();
                for (var f : sent) {
                    f.get(); // throws when Kafka did not take the record
                }
                next += SLICE_PERIOD.toNanos();
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                }
            }
        }
    }

    private static void awaitCommittedAtEnd(
            String bootstrap, String topic, String group, WriterProcess writer, Duration timeout) throws Exception {
        Map<TopicPartition, Long> end = Scenario.endOffsets(bootstrap, topic);
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, Long> committed = Map.of();
        while (System.nanoTime() < deadline) {
            committed = Scenario.committedOffsets(bootstrap, group, topic);
            if (committed.equals(end)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(
                "committed " + committed + " never reached the end offsets " + end + "; " + tail(writer));
    }

    /** Waits (at most 30 s) until the proxy has answered a few import requests with {@code status} itself. */
    private static void awaitAnswered(FaultProxy proxy, int status, WriterProcess writer) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (proxy.answered(status) < 4 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(proxy.answered(status))
                .as("import requests answered " + status + ": " + tail(writer))
                .isGreaterThanOrEqualTo(4);
    }

    /** The writer's own {@code tsdbwriter_write_faults_total}, read from its /metrics: [endpoint, class] to count. */
    static Map<List<String>, Long> writerFaults(String writerTarget) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://" + writerTarget + "/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("writer /metrics").isEqualTo(200);
        Map<List<String>, Long> out = new HashMap<>();
        Matcher line =
                Pattern.compile("(?m)^" + WRITE_FAULTS + "\\{([^}]*)} (\\S+)$").matcher(r.body());
        while (line.find()) {
            Map<String, String> labels = new HashMap<>();
            Matcher l = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(line.group(1));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            out.put(List.of(labels.get("endpoint"), labels.get("class")), (long) Double.parseDouble(line.group(2)));
        }
        return out;
    }

    /**
     * The write-fault panel shows, at the end of the run, exactly the faults the writer counted per endpoint and
     * class; the retries panel shows the 503, 429 and 401 answers of the fault run by status.
     */
    private static void assertFaultPanels(
            VmEndpoint vm, JsonNode dashboard, Instant start, Instant end, Map<List<String>, Long> counted)
            throws Exception {
        Map<String, String> all = allSelection(dashboard, start, end);
        int faultTargets = 0;
        Set<String> statuses = new TreeSet<>();
        for (JsonNode panel : panels(dashboard)) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                String query = substitute(expr, all);
                if (expr.contains(WRITE_FAULTS)) {
                    faultTargets++;
                    Map<List<String>, Long> shown = new HashMap<>();
                    for (JsonNode series : queryRangeResult(vm, query, start, end)) {
                        JsonNode values = series.path("values");
                        double last = Double.parseDouble(
                                values.get(values.size() - 1).path(1).asText());
                        assertThat(last)
                                .as(
                                        "%s: %s at the end of the run is a whole count",
                                        panel.path("title").asText(), series.path("metric"))
                                .isEqualTo(Math.rint(last));
                        shown.put(
                                List.of(
                                        series.path("metric").path("endpoint").asText(),
                                        series.path("metric").path("class").asText()),
                                (long) last);
                    }
                    assertThat(shown)
                            .as(
                                    "panel \"%s\" [%s] at the end of the run: %s",
                                    panel.path("title").asText(),
                                    target.path("refId").asText(),
                                    query)
                            .isEqualTo(counted);
                    System.out.printf(
                            "DashboardIT: panel \"%s\" at the end of the run: %s (the writer counted %s)%n",
                            panel.path("title").asText(), shown, counted);
                }
                if (expr.contains("tsdbwriter_write_requests_total") && expr.contains("status")) {
                    for (JsonNode series : queryRangeResult(vm, query, start, end)) {
                        statuses.add(series.path("metric").path("status").asText());
                    }
                }
            }
        }
        assertThat(faultTargets)
                .as("panels whose queries show " + WRITE_FAULTS + " (write faults by endpoint and class)")
                .isPositive();
        assertThat(statuses).as("statuses the write-request panels show").contains("503", "429", "401");
    }

    /** The series of a range query over the run (an error fails the test). */
    private static JsonNode queryRangeResult(VmEndpoint vm, String query, Instant start, Instant end) throws Exception {
        HttpResponse<String> r =
                vm.get("/api/v1/query_range?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&start="
                        + start.getEpochSecond() + "&end=" + end.getEpochSecond() + "&step=" + STEP.toSeconds() + "s");
        assertThat(r.statusCode()).as(query + ": " + r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body()).path("data").path("result");
    }

    /** The built-ins and every variable at its {@code allValue}: the dashboard's saved selection. */
    private static Map<String, String> allSelection(JsonNode dashboard, Instant start, Instant end) {
        long rangeSeconds = Duration.between(start, end).toSeconds() + 1;
        Map<String, String> all = new LinkedHashMap<>(Map.of(
                "__interval", STEP.toSeconds() + "s", "__rate_interval", RATE_INTERVAL, "__range", rangeSeconds + "s"));
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if ("query".equals(v.path("type").asText())) {
                all.put(v.path("name").asText(), v.path("allValue").asText());
            }
        }
        return all;
    }

    // ------------------------------------------------------------------------------------------------ scraping

    private static String scrapeConfig(String writerTarget, String vmTarget) {
        StringBuilder y = new StringBuilder(
                """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: %s
                    static_configs:
                      - targets: ["%s"]
                """
                        .formatted(WRITER_JOB, writerTarget));
        if (vmTarget != null) {
            y.append(
                    """
                      - job_name: %s
                        static_configs:
                          - targets: ["%s"]
                    """
                            .formatted(VMINSERT_JOB, vmTarget));
        }
        return y.toString();
    }

    private static void awaitTargetUp(VmEndpoint vm, String job, String target, Duration timeout) throws Exception {
        ObjectMapper json = new ObjectMapper();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = vm.get("/api/v1/targets").body();
            for (JsonNode t : json.readTree(last).path("data").path("activeTargets")) {
                if (job.equals(t.path("labels").path("job").asText())
                        && target.equals(t.path("labels").path("instance").asText())
                        && "up".equals(t.path("health").asText())) {
                    return;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("scrape target " + job + "/" + target + " not up within " + timeout + ": " + last);
    }

    // ------------------------------------------------------------------------------------------------ the dashboard

    /** Every non-row panel, the panels of collapsed rows included (as scripts/check_deploy.py walks them). */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            out.add(p);
            for (JsonNode inner : p.path("panels")) {
                out.add(inner);
            }
        }
        out.removeIf(p -> "row".equals(p.path("type").asText()));
        return out;
    }

    /** Evaluates every target of every panel under both substitutions; returns one line per failing query. */
    private static List<String> evaluateDashboard(
            VmEndpoint vm, JsonNode dashboard, Instant start, Instant end, String writerTarget) throws Exception {
        long rangeSeconds = Duration.between(start, end).toSeconds() + 1;
        Map<String, String> builtins = Map.of(
                "__interval", STEP.toSeconds() + "s",
                "__rate_interval", RATE_INTERVAL,
                "__range", rangeSeconds + "s");
        List<String> failures = new ArrayList<>();

        // (1) "All": every variable at its allValue, the dashboard's saved selection.
        Map<String, String> all = new LinkedHashMap<>(builtins);
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if ("query".equals(v.path("type").asText())) {
                assertThat(v.path("current").path("value").toString())
                        .as("saved selection of $" + v.path("name").asText())
                        .contains("$__all");
                all.put(v.path("name").asText(), v.path("allValue").asText());
            }
        }
        // (2) every value the variables' own queries return, in dashboard order (instance's query uses $job).
        Map<String, String> selected = new LinkedHashMap<>(builtins);
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (!"query".equals(v.path("type").asText())) {
                continue;
            }
            String name = v.path("name").asText();
            String query = v.path("query").isObject()
                    ? v.path("query").path("query").asText()
                    : v.path("query").asText();
            List<String> found =
                    labelValues(vm, substitute(query, selected), v.path("regex").asText(), start, end);
            values.put(name, found);
            selected.put(name, multiValue(found));
        }
        assertThat(values.get("job")).as("$job values").contains(WRITER_JOB);
        assertThat(values.get("instance")).as("$instance values").containsExactly(writerTarget);
        assertThat(values.get("vminsert")).as("$vminsert values").containsExactly(VMINSERT_JOB);

        int evaluated = 0;
        for (JsonNode panel : panels(dashboard)) {
            String title =
                    panel.path("title").asText("panel id " + panel.path("id").asText());
            if (panel.path("targets").isEmpty()) {
                failures.add(title + ": no targets");
            }
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                for (Map.Entry<String, Map<String, String>> mode :
                        Map.of("All", all, "selected values", selected).entrySet()) {
                    String query = substitute(expr, mode.getValue());
                    String problem = queryRange(vm, query, start, end);
                    evaluated++;
                    if (problem != null) {
                        failures.add(title + " [" + target.path("refId").asText() + ", $vars=" + mode.getKey() + "]: "
                                + problem + "\n      " + query);
                    }
                }
            }
        }
        System.out.printf(
                "DashboardIT: %d panels, %d query evaluations, variables %s, %d failing%n",
                panels(dashboard).size(), evaluated, values, failures.size());
        return failures;
    }

    /** Replaces {@code $name}, {@code ${name}}, {@code ${name:fmt}} and {@code [[name]]}; an unknown name is an error. */
    static String substitute(String text, Map<String, String> vars) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            String value = vars.get(name);
            if (value == null) {
                throw new AssertionError("no value for template variable $" + name + " in " + text);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * A multi-value selection as Grafana's Prometheus datasource interpolates it into {@code =~"..."}: each value
     * regex-escaped (the backslashes doubled for the PromQL string literal), several joined as {@code (a|b)}.
     */
    static String multiValue(List<String> values) {
        List<String> escaped = new ArrayList<>();
        for (String v : values) {
            escaped.add(v.replace("\\", "\\\\\\\\").replaceAll("[$^*+?.()|]", "\\\\\\\\$0"));
        }
        return escaped.size() == 1 ? escaped.get(0) : "(" + String.join("|", escaped) + ")";
    }

    /** A {@code label_values(selector, label)} variable query through {@code /api/v1/label/<label>/values}. */
    private static List<String> labelValues(
            VmEndpoint vm, String variableQuery, String regex, Instant start, Instant end) throws Exception {
        Matcher m = LABEL_VALUES.matcher(variableQuery);
        assertThat(m.matches())
                .as("variable query %s is label_values(selector, label)", variableQuery)
                .isTrue();
        HttpResponse<String> r = vm.get("/api/v1/label/" + m.group(2) + "/values?match%5B%5D="
                + URLEncoder.encode(m.group(1).trim(), StandardCharsets.UTF_8)
                + "&start=" + start.getEpochSecond() + "&end=" + (end.getEpochSecond() + 1));
        assertThat(r.statusCode()).as(variableQuery + ": " + r.body()).isEqualTo(200);
        Pattern filter = regex.isEmpty() ? null : Pattern.compile(regex.replaceAll("^/(.*)/$", "$1"));
        List<String> out = new ArrayList<>();
        for (JsonNode v : new ObjectMapper().readTree(r.body()).path("data")) {
            if (filter == null || filter.matcher(v.asText()).matches()) {
                out.add(v.asText());
            }
        }
        assertThat(out)
                .as("values of " + variableQuery + " (regex " + regex + ")")
                .isNotEmpty();
        return out;
    }

    /** null when the query succeeds with at least one series (with at least one point), else what went wrong. */
    private static String queryRange(VmEndpoint vm, String query, Instant start, Instant end) throws Exception {
        HttpResponse<String> r =
                vm.get("/api/v1/query_range?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&start="
                        + start.getEpochSecond() + "&end=" + end.getEpochSecond() + "&step=" + STEP.toSeconds() + "s");
        if (r.statusCode() != 200) {
            return "HTTP " + r.statusCode() + ": " + r.body().strip();
        }
        JsonNode body = new ObjectMapper().readTree(r.body());
        if (!"success".equals(body.path("status").asText())) {
            return "status " + body.path("status").asText() + ": "
                    + body.path("error").asText();
        }
        JsonNode result = body.path("data").path("result");
        if (result.isEmpty()) {
            return "no series";
        }
        int points = 0;
        double max = Double.NEGATIVE_INFINITY;
        for (JsonNode series : result) {
            for (JsonNode point : series.path("values")) {
                points++;
                max = Math.max(max, Double.parseDouble(point.path(1).asText()));
            }
        }
        if (points == 0) {
            return "series without points";
        }
        System.out.printf("DashboardIT:   %d series, %d points, max %.4g: %s%n", result.size(), points, max, query);
        return null;
    }

    /** Where the figures of the run go (docs/dashboard.png is one of them, copied by hand). */
    static final Path FIGURES = Path.of("target", "dashboard", "dashboard.png");

    /** Every panel's series under the dashboard's saved selection ("All"), for the figure. */
    private static List<DashboardFigures.Panel> figures(VmEndpoint vm, JsonNode dashboard, Instant start, Instant end)
            throws Exception {
        Map<String, String> all = allSelection(dashboard, start, end);
        List<DashboardFigures.Panel> out = new ArrayList<>();
        for (JsonNode panel : panels(dashboard)) {
            List<DashboardFigures.Series> series = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                if (target.path("hide").asBoolean(false)) {
                    continue;
                }
                String query = substitute(target.path("expr").asText(), all);
                HttpResponse<String> r = vm.get("/api/v1/query_range?query="
                        + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&start=" + start.getEpochSecond()
                        + "&end=" + end.getEpochSecond() + "&step=" + STEP.toSeconds() + "s");
                for (JsonNode s :
                        new ObjectMapper().readTree(r.body()).path("data").path("result")) {
                    JsonNode values = s.path("values");
                    double[] t = new double[values.size()];
                    double[] v = new double[values.size()];
                    for (int i = 0; i < values.size(); i++) {
                        t[i] = values.get(i).path(0).asDouble();
                        v[i] = Double.parseDouble(values.get(i).path(1).asText());
                    }
                    series.add(new DashboardFigures.Series(
                            target.path("legendFormat")
                                            .asText(target.path("refId").asText())
                                            .replaceAll("\\{\\{\\s*(\\w+)\\s*}}", "")
                                    + " " + s.path("metric").toString().replaceAll("[{}\"]", ""),
                            t,
                            v));
                }
            }
            out.add(new DashboardFigures.Panel(
                    panel.path("title").asText(), panel.path("type").asText(), series));
        }
        return out;
    }

    private static String tail(WriterProcess writer) {
        String[] lines = writer.output().split("\n");
        return "writer output (last lines):\n"
                + String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 40), lines.length));
    }
}
