package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Components.KafkaEndpoint;
import io.tsdbwriter.it.support.Components.KafkaOptions;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.Components.VmVersion;
import io.tsdbwriter.it.support.ContainerComponents;
import io.tsdbwriter.it.support.ContainerImages;
import io.tsdbwriter.it.support.VictoriaMetrics;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container path of the fixture, proven end to end whatever {@code Components.choose()} picked: Kafka (KRaft) and
 * VictoriaMetrics started through {@link ContainerComponents} — the {@code Components} implementation the
 * {@code Stack} uses where a Docker engine answers — run as Docker containers (images built locally by
 * {@code scripts/container-images.sh} from the binaries the local-process path runs, Ryuk off). The writer jar, a
 * local process, reads the real scrapes from the containerized broker and writes them to the containerized
 * VictoriaMetrics: exact read-back and committed offsets at the end offsets. Then the endpoints' lifecycle contract:
 * {@code kill()} (docker kill) and {@code restart()} (docker start of the same container) keep the address and the
 * data, for both.
 *
 * <p>Runs only where a Docker engine answers and the images exist or can be built ({@link WhereDockerAnswers});
 * otherwise the class is skipped (not failed) with the reason. {@code mvn -B verify -P '!vm-current' -Dit.test=ContainerPathIT}.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ExtendWith(ContainerPathIT.WhereDockerAnswers.class)
class ContainerPathIT {

    /**
     * Enables the class only where a Docker engine answers and the local images exist or can be built
     * ({@link ContainerComponents#ensureImages()}); otherwise disables it with the reason (reported as skipped).
     * Evaluated once.
     */
    static final class WhereDockerAnswers implements ExecutionCondition {

        private static ConditionEvaluationResult result;

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            synchronized (WhereDockerAnswers.class) {
                if (result == null) {
                    result = evaluate();
                }
                return result;
            }
        }

        private static ConditionEvaluationResult evaluate() {
            if (!ContainerImages.dockerAvailable()) {
                return ConditionEvaluationResult.disabled("no Docker engine answers (Testcontainers found none):"
                        + " the container path is not run; the other ITs run the components as local processes");
            }
            Optional<String> notReady = ContainerImages.ensureImages();
            return notReady.map(why -> ConditionEvaluationResult.disabled("the local images cannot be built: " + why))
                    .orElseGet(() -> ConditionEvaluationResult.enabled("a Docker engine answers and "
                            + ContainerImages.kafkaImage() + ", " + ContainerImages.vmImage() + " are built"));
        }
    }

    @TempDir
    static Path work;

    static final ContainerComponents containers = ContainerComponents.INSTANCE;
    static final List<AutoCloseable> started = new ArrayList<>();
    static KafkaEndpoint kafka;
    static VmEndpoint vm;
    static List<SourcePoint> points;

    @BeforeAll
    static void startContainers() throws Exception {
        kafka = own(containers.startKafka(work.resolve("stack"), KafkaOptions.PLAIN));
        vm = own(containers.startVictoriaMetrics(work.resolve("stack"), VmVersion.CONFIGURED, List.of()));
        points = Scenario.realPoints();
    }

    @AfterAll
    static void stopContainers() throws Exception {
        for (AutoCloseable c : started.reversed()) {
            c.close(); // each writes its container's log under work/ first
        }
    }

    private static <T extends AutoCloseable> T own(T c) {
        started.add(c);
        return c;
    }

    @Test
    void realScrapesGoFromTheKafkaContainerToTheVictoriaMetricsContainerExactly() throws Exception {
        // both endpoints are containers of the local images, not delegated local processes
        assertThat(ContainerImages.imageServing(port(kafka.bootstrapServers())))
                .isEqualTo(ContainerImages.kafkaImage());
        assertThat(ContainerImages.imageServing(vm.port())).isEqualTo(ContainerImages.vmImage());
        // the VictoriaMetrics image holds the very binary the local-process path runs
        Path binary = Path.of(System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY));
        assertThat(ContainerImages.sourceLabel(ContainerImages.vmImage())).isEqualTo(sha256(binary));
        assertThat(get(vm.url() + "/metrics")).contains("vm_app_version");

        String topic = "container-path";
        kafka.createTopic(topic, 3);
        int records = Scenario.produce(kafka.bootstrapServers(), topic, 3, points, 1);
        assertThat(records).isEqualTo(points.size());
        Path summary = work.resolve("container-summary.json");

        WriterProcess writer = WriterProcess.start(
                work.resolve("container-writer.log"),
                Scenario.runArgs(
                        kafka.bootstrapServers(),
                        vm.url(),
                        topic,
                        "container-job",
                        2,
                        3,
                        3,
                        "--stop-at-end",
                        "--summary-json",
                        summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 2, 3);
        assertThat(expected.sampleCount()).isEqualTo(points.size() * 6L);
        Scenario.assertExactReadBack(vm.url(), expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("decode_errors").asLong()).isZero();
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_refused").asLong()).isZero();

        assertThat(Scenario.committedOffsets(kafka.bootstrapServers(), "container-job", topic))
                .isEqualTo(Scenario.endOffsets(kafka.bootstrapServers(), topic));
    }

    @Test
    void killAndRestartKeepTheAddressAndTheDataOfBothContainers() throws Exception {
        // VictoriaMetrics: a sample survives docker stop + start (SIGTERM: it stores what it holds), then docker kill +
        // start (it was on disk before the kill: no waiting out VictoriaMetrics' own ~16 s window), same URL
        try (VmEndpoint v =
                containers.startVictoriaMetrics(work.resolve("vm-lifecycle"), VmVersion.CONFIGURED, List.of())) {
            String url = v.url();
            assertThat(v.importLines(
                            "{\"metric\":{\"__name__\":\"lifecycle\"},\"values\":[1],\"timestamps\":[1700000000000]}"))
                    .isEqualTo(204);
            assertThat(v.awaitExport("lifecycle", l -> l.size() == 1, Duration.ofSeconds(30)))
                    .hasSize(1);
            v.stop();
            assertThat(ContainerImages.imageServing(v.port()))
                    .as("stopped: nothing publishes the port")
                    .isNull();
            v.restart();
            assertThat(v.url()).isEqualTo(url);
            assertThat(v.awaitExport("lifecycle", l -> l.size() == 1, Duration.ofSeconds(30)))
                    .hasSize(1)
                    .first()
                    .asString()
                    .contains("\"values\":[1]");
            v.kill();
            assertThat(ContainerImages.imageServing(v.port()))
                    .as("killed: nothing publishes the port")
                    .isNull();
            v.restart();
            assertThat(v.url()).isEqualTo(url);
            assertThat(ContainerImages.imageServing(v.port())).isEqualTo(ContainerImages.vmImage());
            assertThat(v.awaitExport("lifecycle", l -> l.size() == 1, Duration.ofSeconds(30)))
                    .hasSize(1);
            assertThat(get(url + "/metrics")).contains("vm_app_version");
        }
        // Kafka: records survive docker kill + docker start, same bootstrap address (the advertised listener)
        String bootstrap = kafka.bootstrapServers();
        String topic = "lifecycle";
        kafka.createTopic(topic, 2);
        Scenario.produce(bootstrap, topic, 2, points.subList(0, 10), 1);
        kafka.kill();
        kafka.restart();
        assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
        assertThat(Scenario.readAll(bootstrap, topic, 10)).hasSize(10);
        kafka.stop();
        kafka.restart();
        assertThat(Scenario.readAll(bootstrap, topic, 10)).hasSize(10);
    }

    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static String get(String url) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(url).isEqualTo(200);
            return response.body();
        }
    }
}
