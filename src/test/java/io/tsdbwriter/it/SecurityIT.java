package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.ChildServer;
import io.tsdbwriter.it.support.Components.KafkaOptions;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.KafkaBroker;
import io.tsdbwriter.it.support.MtlsProxy;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.TestPki;
import io.tsdbwriter.it.support.VictoriaMetrics;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connecting to production (issue 13), all with real components on loopback: a Kafka broker with a SASL_SSL
 * listener (SCRAM-SHA-512 users created at format time, TLS from a CA made by {@link TestPki}); VictoriaMetrics
 * with {@code -httpAuth.*}, with {@code -tls}; {@code vmauth} routing by bearer token; a TLS proxy requiring a client
 * certificate. Each scenario ends with the exact read-back and committed == end offsets. The last test scans every
 * writer output, summary and {@code /metrics} body of the class for the secrets used.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecurityIT {

    static final String KAFKA_PASSWORD = "kafka-Pw-4f1c9e";
    static final String VM_PASSWORD = "vm-Pw-8a2d71";
    static final String WRONG_PASSWORD = "wrong-Pw-33b0aa";
    static final String TOKEN_1 = "token-one-5e7f20";
    static final String TOKEN_2 = "token-two-c4d913";
    static final String WRONG_KAFKA_PASSWORD = "wrong-kafka-Pw-9d1e07";
    static final List<String> SECRETS =
            List.of(KAFKA_PASSWORD, VM_PASSWORD, WRONG_PASSWORD, TOKEN_1, TOKEN_2, WRONG_KAFKA_PASSWORD);

    /** Live scenarios wait this long for the writer to catch up (a loaded 2-core machine is slow). */
    static final Duration READ_BACK_TIMEOUT = Duration.ofSeconds(90);

    static TestPki pki;

    /**
     * The broker with a SASL_SSL listener (its key store from the CA made in the work dir); the work dir under
     * target/it-work (kept after the run, for the logs), fresh per run.
     */
    @RegisterExtension
    static final Stack stack = Stack.withKafka(work -> {
                pki = TestPki.create(work.resolve("pki"));
                return KafkaOptions.saslSsl(new KafkaBroker.SaslSsl(
                        pki.serverP12(), TestPki.STORE_PASSWORD, Map.of("writer", KAFKA_PASSWORD)));
            })
            .keepWorkUnder(Path.of("target", "it-work"));

    static Path work;
    static List<SourcePoint> points;
    static Path secrets;
    static Path kafkaConfig;
    /** Writer outputs, summaries and /metrics bodies to scan for secrets at the end. */
    static final List<Path> outputs = new CopyOnWriteArrayList<>();

    static final List<String> metricsBodies = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        work = stack.work();
        points = Scenario.realPoints();
        secrets = Files.createDirectories(work.resolve("secrets"));
        Files.writeString(secrets.resolve("kafka.properties"), "kafka.password=" + KAFKA_PASSWORD + "\n");
        // the writer's Kafka settings: no secret in the file itself, Kafka's FileConfigProvider reads it
        kafkaConfig = work.resolve("kafka-client.properties");
        Files.writeString(
                kafkaConfig,
                String.join(
                        "\n",
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "config.providers=file,env",
                        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
                        "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"writer\" password=\"${file:"
                                + secrets.resolve("kafka.properties") + ":kafka.password}\";",
                        "ssl.truststore.type=PEM",
                        "ssl.truststore.location=" + pki.caPem(),
                        ""));
    }

    private static List<String> runArgs(String vmUrl, String topic, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "run",
                "--bootstrap-servers",
                stack.kafka().saslSslBootstrapServers(),
                "--kafka-config",
                kafkaConfig.toString(),
                "--topic",
                topic,
                "--group-id",
                "g-" + topic,
                "--vm-url",
                vmUrl,
                "--metrics-port",
                "0",
                "--metrics-address",
                "127.0.0.1",
                "--report-interval",
                "5s",
                "--segment-size",
                "2000"));
        a.addAll(List.of(more));
        return a;
    }

    private static WriterProcess writer(String name, List<String> args) {
        WriterProcess w = stack.writer(name + "-writer", args);
        outputs.add(w.logFile());
        return w;
    }

    /** Produces the real points (one per record) over PLAINTEXT. */
    private static void produce(String topic, List<SourcePoint> pts) {
        List<byte[]> values = pts.stream().map(PointRecords::encode).toList();
        produceValues(topic, values);
    }

    /** In order, every send checked, not idempotent (Scenario.produce: why). */
    private static void produceValues(String topic, List<byte[]> values) {
        stack.produce(values.stream()
                .map(v -> new ProducerRecord<byte[], byte[]>(topic, v))
                .toList());
    }

    private static OkHttpClient client(HttpAuthConfig auth, String... urls) {
        return HttpClientSecurity.of(auth, List.of(urls))
                .configure(new OkHttpClient.Builder().readTimeout(Duration.ofMinutes(1)))
                .build();
    }

    private static HttpAuthConfig ca() {
        return new HttpAuthConfig(null, null, null, List.of(), pki.caPem(), null, null, null, false);
    }

    private static void assertExactReadBack(String vmUrl, OkHttpClient http, ExpectedSamples expected)
            throws Exception {
        VerificationResult r = new ReadBackVerifier(
                        vmUrl, ReadBackVerifier.ALL_SERIES, ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE, http)
                .verifyWithin(expected, READ_BACK_TIMEOUT, Duration.ofMillis(500));
        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
    }

    private static void assertPresent(String vmUrl, ExpectedSamples expected) throws Exception {
        ReadBackVerifier verifier = new ReadBackVerifier(vmUrl);
        long deadline = System.nanoTime() + READ_BACK_TIMEOUT.toNanos();
        VerificationResult r = verifier.verify(expected);
        while (r.missingSamples() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
            r = verifier.verify(expected);
        }
        assertThat(r.missingSamples()).as(r.summary()).isZero();
    }

    private static void assertCommittedAtEnd(String topic) throws Exception {
        Map<TopicPartition, Long> end = stack.endOffsets(topic);
        // the commits follow the writes by the durability window (16 s, 30 s behind a proxy whose storage is not seen)
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Map<TopicPartition, Long> c = stack.committedOffsets("g-" + topic, topic);
        while (!c.equals(end) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            c = stack.committedOffsets("g-" + topic, topic);
        }
        assertThat(c).isEqualTo(end);
    }

    private static void awaitOutput(WriterProcess w, String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!w.output().contains(text)) {
            if (System.nanoTime() > deadline || !w.isAlive()) {
                throw new AssertionError("writer never printed '" + text + "': " + w.output());
            }
            Thread.sleep(100);
        }
    }

    /** GET the writer's own /metrics (port from its log line) and keep the body for the secret scan. */
    private static String scrapeWriterMetrics(WriterProcess w) throws Exception {
        awaitOutput(w, "/metrics", Duration.ofSeconds(30));
        Matcher m = Pattern.compile("metrics on (http://[0-9.:]+)/metrics").matcher(w.output());
        assertThat(m.find()).as(w.output()).isTrue();
        try (Response r = new OkHttpClient()
                .newCall(new Request.Builder().url(m.group(1) + "/metrics").build())
                .execute()) {
            String body = r.body().string();
            metricsBodies.add(body);
            return body;
        }
    }

    private static void replaceAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static VmEndpoint vm(String name, String... flags) {
        return stack.startVm("vm-" + name, flags);
    }

    // ------------------------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void saslSslScramWithConfigProvidersProduceRunAndDeadLetterTopic() throws Exception {
        String topic = "sec-sasl";
        String dlq = topic + "-dlq";
        stack.createTopic(topic, 1);
        stack.createTopic(dlq, 1);
        // produce's producer over SASL_SSL with the same --kafka-config

        List<String> produceArgs = new ArrayList<>(List.of(
                "produce",
                "--bootstrap-servers",
                stack.kafka().saslSslBootstrapServers(),
                "--kafka-config",
                kafkaConfig.toString(),
                "--topic",
                topic,
                "--instance",
                Scenario.INSTANCE,
                "--product-key",
                "node",
                "--keep-timestamps")); // the read-back below expects the files' own scrape times
        NodeExporterFiles.all().forEach(f -> produceArgs.add(f.toString()));
        WriterProcess producer = stack.writer("sasl-produce", produceArgs);
        outputs.add(producer.logFile());
        assertThat(producer.waitFor(Scenario.PROCESS_TIMEOUT))
                .as(producer.output())
                .isZero();
        List<byte[]> malformed = List.of(
                "{not json".getBytes(StandardCharsets.UTF_8),
                "{\"timestamp\":1795300857000,\"value\":1}".getBytes(StandardCharsets.UTF_8),
                "[]".getBytes(StandardCharsets.UTF_8));
        produceValues(topic, malformed);

        try (VmEndpoint vm = vm("sasl")) {
            Path summary = work.resolve("sasl-summary.json");
            outputs.add(summary);
            try (WriterProcess w = writer(
                    "sasl",
                    runArgs(
                            vm.url(),
                            topic,
                            "--stop-at-end",
                            "--dead-letter-topic",
                            dlq,
                            "--summary-json",
                            summary.toString()))) {
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
                assertExactReadBack(vm.url(), client(HttpAuthConfig.NONE), Scenario.expected(points, 1, 1));
                JsonNode s = Scenario.summary(summary);
                assertThat(s.get("decode_errors").asLong()).isEqualTo(malformed.size());
            }
        }
        assertThat(stack.readAll(dlq)).hasSize(malformed.size());
        assertCommittedAtEnd(topic);
    }

    @Test
    @Order(2)
    void basicAuthFromTheUrlsUserinfoForWritesAndTheCapacityProbe() throws Exception {
        String topic = "sec-basic";
        stack.createTopic(topic, 1);
        produce(topic, points);
        try (VmEndpoint vm = vm("basic", "-httpAuth.username=writer", "-httpAuth.password=" + VM_PASSWORD)) {
            String url = vm.url().replace("http://", "http://writer:" + VM_PASSWORD + "@");
            Path summary = work.resolve("basic-summary.json");
            outputs.add(summary);
            try (WriterProcess w = writer("basic", runArgs(url, topic, "--summary-json", summary.toString()))) {
                assertExactReadBack(vm.url(), client(HttpAuthConfig.NONE, url), Scenario.expected(points, 1, 1));
                assertCommittedAtEnd(topic);
                String metrics = scrapeWriterMetrics(w);
                assertThat(metrics).contains("endpoint=\"" + vm.url() + "\"");
                w.sigterm();
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
                assertThat(w.output()).contains(vm.url());
            }
        }
    }

    @Test
    @Order(3)
    void wrongPasswordWritesNothingAndCommitsNothingThenTheRightPasswordFileWritesEverything() throws Exception {
        String topic = "sec-wrong";
        stack.createTopic(topic, 1);
        produce(topic, points);
        Path pw = secrets.resolve("vm-password");
        Files.writeString(pw, WRONG_PASSWORD + "\n");
        try (VmEndpoint vm = vm("wrong", "-httpAuth.username=writer", "-httpAuth.password=" + VM_PASSWORD)) {
            try (WriterProcess w = writer(
                    "wrong",
                    runArgs(
                            vm.url(),
                            topic,
                            "--vm-basic-auth-username",
                            "writer",
                            "--vm-basic-auth-password-file",
                            pw.toString(),
                            "--max-retries",
                            "1",
                            "--max-backoff",
                            "1s"))) {
                awaitOutput(w, "401", Duration.ofSeconds(60));
                Thread.sleep(1500); // a commit interval would have passed
                assertThat(stack.committedOffsets("g-" + topic, topic).values()).allMatch(o -> o == 0);
                scrapeWriterMetrics(w);
                replaceAtomically(pw, VM_PASSWORD + "\n");
                HttpAuthConfig right = new HttpAuthConfig("writer", pw, null, List.of(), null, null, null, null, false);
                assertExactReadBack(vm.url(), client(right), Scenario.expected(points, 1, 1));
                assertCommittedAtEnd(topic);
                w.sigterm();
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            }
        }
    }

    @Test
    @Order(4)
    void bearerTokenFileRotatedMidRunThroughVmauthRoutingByToken() throws Exception {
        String topic = "sec-token";
        stack.createTopic(topic, 1);
        List<SourcePoint> first = points.subList(0, points.size() / 2);
        List<SourcePoint> second = points.subList(points.size() / 2, points.size());
        produce(topic, first);
        Path token = secrets.resolve("vm-token");
        Files.writeString(token, TOKEN_1 + "\n");
        Path authConfig = work.resolve("vmauth.yml");
        try (VmEndpoint vm = vm("token")) {
            String routes = "users:\n- bearer_token: \"%s\"\n  url_prefix: \"" + vm.url() + "\"\n";
            Files.writeString(authConfig, routes.formatted(TOKEN_1));
            try (ChildServer vmauth = stack.own(ChildServer.start(
                    ChildServer.VMAUTH,
                    work.resolve("vmauth"),
                    "vmauth",
                    false,
                    new OkHttpClient(),
                    port -> List.of("-auth.config=" + authConfig)))) {
                // vmauth forwards, VictoriaMetrics behind it stores: its /metrics is watched too (the window 16 s, not
                // 30 s)
                try (WriterProcess w = writer(
                        "token",
                        runArgs(
                                vmauth.url(),
                                topic,
                                "--vm-bearer-token-file",
                                token.toString(),
                                "--max-retries",
                                "1",
                                "--max-backoff",
                                "1s",
                                "--tsdb-metrics-url",
                                vm.url() + "/metrics"))) {
                    OkHttpClient direct = client(HttpAuthConfig.NONE);
                    assertPresent(vm.url(), Scenario.expected(first, 1, 1));
                    // rotate: the new token in the file, vmauth accepts only the new one from now on
                    replaceAtomically(token, TOKEN_2 + "\n");
                    replaceAtomically(authConfig, routes.formatted(TOKEN_2));
                    vmauth.sighup();
                    OkHttpClient old = client(new HttpAuthConfig(
                            null,
                            null,
                            null,
                            List.of("Authorization: Bearer " + TOKEN_1),
                            null,
                            null,
                            null,
                            null,
                            false));
                    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                    while (true) {
                        try (Response r = old.newCall(new Request.Builder()
                                        .url(vmauth.url() + "/api/v1/export?match[]=x")
                                        .build())
                                .execute()) {
                            // vmauth 1.79 answers 400 "cannot find the provided auth token", current releases 401
                            if (r.code() == 401 || r.code() == 400 || System.nanoTime() > deadline) {
                                assertThat(r.code())
                                        .as("vmauth still accepts the old token")
                                        .isIn(400, 401);
                                break;
                            }
                        }
                        Thread.sleep(200);
                    }
                    produce(topic, second);
                    assertExactReadBack(vm.url(), direct, Scenario.expected(points, 1, 1));
                    assertCommittedAtEnd(topic);
                    scrapeWriterMetrics(w);
                    w.sigterm();
                    assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT))
                            .as(w.output())
                            .isZero();
                }
            }
        }
    }

    @Test
    @Order(5)
    void tlsWithACaFileForWritesAndTheCapacityProbe() throws Exception {
        String topic = "sec-tls";
        stack.createTopic(topic, 1);
        produce(topic, points);
        OkHttpClient https = client(ca());
        Path data = work.resolve("vm-tls-data");
        try (ChildServer vm = stack.own(ChildServer.start(
                Path.of(System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY)),
                work.resolve("vm-tls"),
                "victoria-metrics",
                true,
                https,
                port -> List.of(
                        "-storageDataPath=" + data,
                        "-retentionPeriod=100y",
                        "-dedup.minScrapeInterval=1ms",
                        "-search.disableCache",
                        "-tls",
                        "-tlsCertFile=" + pki.serverPem(),
                        "-tlsKeyFile=" + pki.serverKey())))) {
            try (WriterProcess w = writer(
                    "tls",
                    runArgs(
                            vm.url(),
                            topic,
                            "--stop-at-end",
                            "--vm-tls-ca-file",
                            pki.caPem().toString()))) {
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
                assertThat(w.output())
                        .containsPattern(
                                "vm_concurrent_insert_capacity \\d+ from " + Pattern.quote(vm.url() + "/metrics"));
                assertExactReadBack(vm.url(), https, Scenario.expected(points, 1, 1));
            }
        }
        assertCommittedAtEnd(topic);
    }

    @Test
    @Order(6)
    void clientCertificateRequiredByATlsProxyWithServerNameOverride() throws Exception {
        String topic = "sec-mtls";
        stack.createTopic(topic, 1);
        produce(topic, points);
        try (VmEndpoint vm = vm("mtls");
                MtlsProxy proxy = new MtlsProxy(pki, vm.port())) {
            assertThatThrownBy(() -> client(ca())
                            .newCall(new Request.Builder()
                                    .url(proxy.url() + "/health")
                                    .build())
                            .execute()
                            .close())
                    .isInstanceOf(IOException.class);
            try (WriterProcess w = writer(
                    "mtls",
                    runArgs(
                            proxy.url(),
                            topic,
                            "--stop-at-end",
                            "--vm-tls-ca-file",
                            pki.caPem().toString(),
                            "--vm-tls-cert-file",
                            pki.clientPem().toString(),
                            "--vm-tls-key-file",
                            pki.clientKey().toString(),
                            "--vm-tls-server-name",
                            "localhost"))) {
                assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
                assertThat(w.output())
                        .containsPattern(
                                "vm_concurrent_insert_capacity \\d+ from " + Pattern.quote(proxy.url() + "/metrics"));
                assertExactReadBack(vm.url(), client(HttpAuthConfig.NONE), Scenario.expected(points, 1, 1));
                assertThat(proxy.refusedHandshakes()).isPositive();
            }
        }
        assertCommittedAtEnd(topic);
    }

    @Test
    @Order(7)
    void noSecretInAnyOutputLogMetricsBodySummaryOrHelp() throws Exception {
        // --help with a secret in the environment default of --vm-url
        ProcessBuilder pb = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-jar",
                        WriterProcess.jar().toString(),
                        "run",
                        "--help")
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("help-writer.log").toFile());
        pb.environment().put("TSDB_WRITER_VM_URL", "http://writer:" + VM_PASSWORD + "@127.0.0.1:1");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        outputs.add(work.resolve("help-writer.log"));
        assertThat(Files.readString(work.resolve("help-writer.log"))).contains("--vm-url");

        // wrong Kafka credentials given on the command line: one clear line, exit 1, the password never printed
        stack.createTopic("sec-wrong-kafka", 1);
        try (WriterProcess w = writer(
                "wrong-kafka",
                runArgs(
                        "http://127.0.0.1:1",
                        "sec-wrong-kafka",
                        "--kafka-property",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"writer\" password=\""
                                + WRONG_KAFKA_PASSWORD + "\";"))) {
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(1);
            assertThat(w.output())
                    .contains("refused this client")
                    .contains("credentials or ACLs, not an outage")
                    .doesNotContain("\tat org.apache.kafka");
        }

        assertThat(outputs).hasSizeGreaterThanOrEqualTo(10);
        assertThat(metricsBodies).hasSizeGreaterThanOrEqualTo(3);
        List<String> leaks = new ArrayList<>();
        for (Path f : outputs) {
            if (Files.exists(f)) {
                String text = Files.readString(f);
                SECRETS.stream().filter(text::contains).forEach(s -> leaks.add(f.getFileName() + " contains " + s));
            }
        }
        for (String body : metricsBodies) {
            SECRETS.stream().filter(body::contains).forEach(s -> leaks.add("/metrics contains " + s));
        }
        assertThat(leaks).isEmpty();
    }
}
