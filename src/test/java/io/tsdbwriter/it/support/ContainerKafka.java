package io.tsdbwriter.it.support;

import static io.tsdbwriter.it.support.ContainerEndpoint.client;
import static io.tsdbwriter.it.support.ContainerEndpoint.createDirectories;
import static io.tsdbwriter.it.support.ContainerImages.kafkaImage;

import com.github.dockerjava.api.exception.DockerException;
import io.tsdbwriter.it.support.Components.KafkaEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The plain broker of {@link ContainerComponents} as a {@link KafkaContainer} of the local image
 * {@link ContainerImages#kafkaImage()} on a fixed host port (see {@link ContainerComponents}'s class doc).
 */
final class ContainerKafka extends ContainerEndpoint implements KafkaEndpoint {

    /** The broker's port in the container. */
    private static final int KAFKA_PORT = 9092;

    private static final Duration KAFKA_START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private String bootstrapServers;

    private ContainerKafka(KafkaContainer container, FreePorts.Reservation port, Path dir) {
        super(container, port, dir.resolve("broker.log"));
    }

    static ContainerKafka start(Path workDir) {
        Path dir = workDir.toAbsolutePath().resolve("kafka");
        if (Files.exists(dir)) {
            throw new IllegalStateException(dir + " already exists: startKafka needs a fresh directory");
        }
        createDirectories(dir);
        return start(port -> {
            KafkaContainer container = new KafkaContainer(
                            DockerImageName.parse(kafkaImage()).asCompatibleSubstituteFor("apache/kafka"))
                    .withEnv(Map.of(
                            "KAFKA_HEAP_OPTS", "-Xmx512m",
                            "KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false",
                            "KAFKA_NUM_PARTITIONS", "1",
                            "KAFKA_LOG_RETENTION_MS", "-1",
                            "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0",
                            "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1",
                            "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1",
                            "KAFKA_NUM_RECOVERY_THREADS_PER_DATA_DIR", "1"));
            container.setPortBindings(List.of(port.port() + ":" + KAFKA_PORT));
            container.withStartupTimeout(KAFKA_START_TIMEOUT);
            return new ContainerKafka(container, port, dir);
        });
    }

    @Override
    void started() {
        bootstrapServers = hostAndPort();
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public String saslSslBootstrapServers() {
        throw new IllegalStateException("no SASL_SSL listener: a broker with one runs locally (ContainerComponents)");
    }

    @Override
    public Properties adminProperties() {
        return KafkaBroker.adminProperties(bootstrapServers);
    }

    @Override
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    @Override
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        KafkaBroker.createTopic(adminProperties(), name, partitions, configs);
    }

    /**
     * Clean shutdown: SIGTERM to the broker's JVM ({@code docker exec}: the container's first process is the shell
     * of Testcontainers' start script, which as pid 1 ignores SIGTERM, so {@code docker stop} would wait for its
     * timeout and kill), waits up to 60 s for the container to exit (then SIGKILL). No-op when not running.
     */
    @Override
    public synchronized void stop() {
        if (!running()) {
            return;
        }
        String id = container.getContainerId();
        try {
            var exec = client().execCreateCmd(id)
                    .withCmd(
                            "bash",
                            "-c",
                            "for p in /proc/[0-9]*; do read -r -d '' c < \"$p/cmdline\" || true;"
                                    + " [[ $c == */java ]] && kill -TERM \"${p#/proc/}\"; done; true")
                    .exec();
            client().execStartCmd(exec.getId()).start().awaitCompletion(10, TimeUnit.SECONDS);
        } catch (DockerException e) {
            // it exited meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!awaitExit(STOP_TIMEOUT)) {
            System.err.println("[components] Kafka container " + id.substring(0, 12) + " ignored SIGTERM for "
                    + STOP_TIMEOUT + ": kill");
            kill();
        }
    }

    /**
     * {@code docker start} of the same container (same host port, same data), stopping it cleanly first if it
     * runs; Testcontainers' start script, still in the container, advertises the same address. Waits until the
     * broker answers describeCluster.
     */
    @Override
    public synchronized void restart() {
        startAgain("broker");
        Instant deadline = Instant.now().plus(KAFKA_START_TIMEOUT);
        LocalStack.ChildProcesses.quietKafkaClientLogs();
        String last = "no answer";
        try (Admin admin = Admin.create(adminProperties())) {
            while (true) {
                if (!running()) {
                    throw new IllegalStateException("Kafka container exited while restarting; " + tail());
                }
                try {
                    if (!admin.describeCluster()
                            .nodes()
                            .get(5, TimeUnit.SECONDS)
                            .isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    last = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("Kafka container on " + bootstrapServers + " not ready after "
                            + KAFKA_START_TIMEOUT + " (" + last + "); " + tail());
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting Kafka", e);
        }
    }

    @Override
    public String toString() {
        return "KafkaContainer[" + kafkaImage() + " " + bootstrapServers + "]";
    }
}
