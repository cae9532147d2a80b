package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.ContainerComponents;
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
import java.util.HexFormat;
import java.time.Duration;
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
 * The container path of the fixture, proven end to end: Kafka (KRaft) and VictoriaMetrics run as Docker containers
 * through Testcontainers ({@link ContainerComponents}: images built locally by {@code scripts/container-images.sh}
 * from the binaries the local-process path runs, Ryuk off), the writer jar as a local process reads the real scrapes
 * from the containerized broker and writes them to the containerized VictoriaMetrics; exact read-back and committed
 * offsets at the end offsets.
 *
 * <p>Runs only where a Docker engine answers and the two images exist or can be built ({@link WhereDockerAnswers});
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
            if (!ContainerComponents.dockerAvailable()) {
                return ConditionEvaluationResult.disabled("no Docker engine answers (Testcontainers found none):"
                        + " the container path is not run; the other ITs run the components as local processes");
            }
            Optional<String> notReady = ContainerComponents.ensureImages();
            return notReady.map(why -> ConditionEvaluationResult.disabled("the local images cannot be built: " + why))
                    .orElseGet(() -> ConditionEvaluationResult.enabled("a Docker engine answers and "
                            + ContainerComponents.kafkaImage() + ", " + ContainerComponents.vmImage() + " are built"));
        }
    }

    @TempDir
    static Path work;

    static ContainerComponents containers;
    static List<SourcePoint> points;

    @BeforeAll
    static void startContainers() throws Exception {
        containers = ContainerComponents.start();
        points = Scenario.realPoints();
    }

    @AfterAll
    static void stopContainers() {
        if (containers != null) {
            containers.saveLogs(work.resolve("container-logs"));
            containers.close();
        }
    }

    @Test
    void realScrapesGoFromTheKafkaContainerToTheVictoriaMetricsContainerExactly() throws Exception {
        assertThat(containers.kafkaContainer().isRunning()).isTrue();
        assertThat(containers.vmContainer().isRunning()).isTrue();
        assertThat(containers.kafkaContainer().getDockerImageName()).isEqualTo(ContainerComponents.kafkaImage());
        assertThat(containers.vmContainer().getDockerImageName()).isEqualTo(ContainerComponents.vmImage());
        // the VictoriaMetrics image holds the very binary the local-process path runs
        Path binary = Path.of(System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY));
        assertThat(ContainerComponents.sourceLabel(ContainerComponents.vmImage())).isEqualTo(sha256(binary));
        assertThat(get(containers.vmUrl() + "/metrics")).contains("vm_app_version");

        String topic = "container-path";
        containers.createTopic(topic, 3);
        int records = Scenario.produce(containers.bootstrapServers(), topic, 3, points, 1);
        assertThat(records).isEqualTo(points.size());
        Path summary = work.resolve("container-summary.json");

        WriterProcess writer = WriterProcess.start(work.resolve("container-writer.log"),
                Scenario.runArgs(containers.bootstrapServers(), containers.vmUrl(), topic, "container-job", 2, 3, 3,
                        "--stop-at-end", "--summary-json", summary.toString()));
        assertThat(writer.waitFor(Scenario.PROCESS_TIMEOUT)).as(writer.output()).isZero();

        ExpectedSamples expected = Scenario.expected(points, 2, 3);
        assertThat(expected.sampleCount()).isEqualTo(points.size() * 6L);
        Scenario.assertExactReadBack(containers.vmUrl(), expected);

        JsonNode s = Scenario.summary(summary);
        assertThat(s.get("records").asLong()).isEqualTo(records);
        assertThat(s.get("points").asLong()).isEqualTo(points.size());
        assertThat(s.get("decode_errors").asLong()).isZero();
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected.sampleCount());
        assertThat(s.get("samples_failed").asLong()).isZero();

        assertThat(Scenario.committedOffsets(containers.bootstrapServers(), "container-job", topic))
                .isEqualTo(Scenario.endOffsets(containers.bootstrapServers(), topic));
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static String get(String url) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(url).isEqualTo(200);
            return response.body();
        }
    }
}
