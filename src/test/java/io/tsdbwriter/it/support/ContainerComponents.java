package io.tsdbwriter.it.support;

import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.utils.AppInfoParser;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The container path of the fixture: a Kafka KRaft broker and a single-node VictoriaMetrics run as Docker containers
 * through Testcontainers, where a Docker engine answers; {@link LocalStack} runs the same components as local
 * processes. {@link #start()} returns once both are ready; {@link #bootstrapServers()} and {@link #vmUrl()} are on
 * the Docker host ({@code localhost:<mapped port>} with a local engine), reachable from this JVM and from a writer it
 * starts.
 *
 * <p>Images: no registry is used. {@code scripts/container-images.sh} builds, from the binaries the local-process
 * path runs, root file systems fed to {@code docker import}:
 * <ul>
 *   <li>{@code local/tsdb-writer-victoria-metrics:<version>}: the VictoriaMetrics binary ({@code /usr/bin/victoria-metrics},
 *       the Debian package, tag {@code 1.79.5}; or today's build in {@code ~/.cache/tsdb-writer/bin}, tag
 *       {@code v1.150.0}) and the shared libraries it links. {@link #start()} picks the tag
 *       {@code -Dtsdbwriter.vm.version} names (failsafe sets it), default {@value #DEFAULT_VM_VERSION}.</li>
 *   <li>{@code local/tsdb-writer-kafka:<kafka version>}: the JDK the scripts find, the jars of the test classpath (the
 *       ones {@link KafkaBroker}'s child JVM runs; the tag is the version of the kafka-clients jar on this classpath),
 *       bash and sleep, and an {@code /etc/kafka/docker/run} that follows the {@code apache/kafka} image's contract
 *       ({@code KAFKA_*} variables become server.properties keys). So Testcontainers' own
 *       {@link KafkaContainer} runs it, declared a compatible substitute for {@code apache/kafka}: it sets the KRaft
 *       listeners, advertises {@code PLAINTEXT://<host>:<mapped port>} and waits for "Transitioning from RECOVERY to
 *       RUNNING".</li>
 * </ul>
 * {@link #ensureImages()} runs that script (with this JVM's classpath as {@code KAFKA_CLASSPATH}); it rebuilds only
 * images whose sources changed (each carries a label {@code tsdbwriter.source}: for VictoriaMetrics the binary's
 * SHA-256).
 *
 * <p>Ryuk is off ({@code TESTCONTAINERS_RYUK_DISABLED=true}, set with {@code TESTCONTAINERS_CHECKS_DISABLE=true} in
 * pom.xml's failsafe environment): its image {@code testcontainers/ryuk} would come from Docker Hub, which machines
 * without a route to an image registry (this project's) cannot pull, and Testcontainers fails before the first
 * container when Ryuk cannot start. Cleanup is then {@link #close()} (stops and removes both containers) and, for a
 * JVM that exits without it, Testcontainers' JVM shutdown hook; after a kill -9 of the test JVM:
 * {@code docker rm -f $(docker ps -aq --filter label=org.testcontainers=true)}.
 *
 * <p>Broker settings as {@link KafkaBroker}'s where a writer scenario cares: no topic auto-creation, unlimited time
 * retention (old timestamps are replayed), replication factor 1 for the internal topics, no initial rebalance delay.
 * Data live in the containers' own file systems and go with them.
 *
 * <p>Thread-safety: the accessors may be called from any thread; {@link #close()} is idempotent and synchronized.
 */
public final class ContainerComponents implements AutoCloseable {

    /** VictoriaMetrics image tag when {@code -Dtsdbwriter.vm.version} is unset: the Debian package's version. */
    public static final String DEFAULT_VM_VERSION = "1.79.5";
    /** The local VictoriaMetrics image repository (tag: the version). */
    public static final String VM_IMAGE = "local/tsdb-writer-victoria-metrics";
    /** The local Kafka image repository (tag: the Kafka version). */
    public static final String KAFKA_IMAGE = "local/tsdb-writer-kafka";
    /** The script that builds both images. */
    public static final Path IMAGES_SCRIPT = Path.of("scripts/container-images.sh");

    private static final int VM_PORT = 8428;
    private static final Duration IMAGES_SCRIPT_TIMEOUT = Duration.ofMinutes(10);

    private final KafkaContainer kafka;
    private final GenericContainer<?> vm;
    private boolean closed;

    private ContainerComponents(KafkaContainer kafka, GenericContainer<?> vm) {
        this.kafka = kafka;
        this.vm = vm;
    }

    /** True when Testcontainers finds a Docker engine that answers (never throws). */
    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** {@code local/tsdb-writer-kafka:<version of the kafka-clients jar on this classpath>}. */
    public static String kafkaImage() {
        return KAFKA_IMAGE + ":" + AppInfoParser.getVersion();
    }

    /** {@code local/tsdb-writer-victoria-metrics:<-Dtsdbwriter.vm.version, default 1.79.5>}. */
    public static String vmImage() {
        return VM_IMAGE + ":" + System.getProperty("tsdbwriter.vm.version", DEFAULT_VM_VERSION);
    }

    /** The label {@code tsdbwriter.source} of an image (for VictoriaMetrics: the SHA-256 of its binary), or null. */
    public static String sourceLabel(String image) {
        Map<String, String> labels = DockerClientFactory.instance().client().inspectImageCmd(image).exec().getConfig()
                .getLabels();
        return labels == null ? null : labels.get("tsdbwriter.source");
    }

    /** The images {@link #start()} runs that the engine does not have (empty when both are there). */
    public static List<String> missingImages() {
        List<String> missing = new ArrayList<>();
        for (String image : List.of(kafkaImage(), vmImage())) {
            try {
                DockerClientFactory.instance().client().inspectImageCmd(image).exec();
            } catch (NotFoundException e) {
                missing.add(image);
            }
        }
        return missing;
    }

    /**
     * Runs {@link #IMAGES_SCRIPT} (from the project directory, the working directory of failsafe's JVM) with this
     * JVM's classpath as the Kafka image's jars: it builds the images that are missing or whose sources changed, and
     * keeps the others (a few seconds then).
     *
     * @return empty when both images exist afterwards; otherwise why not (the script's exit code and the tail of its
     *     output, or the image it did not build)
     */
    public static Optional<String> ensureImages() {
        if (!Files.isRegularFile(IMAGES_SCRIPT)) {
            return Optional.of(IMAGES_SCRIPT.toAbsolutePath() + " not found (run from the project directory)");
        }
        Path log;
        try {
            log = Files.createTempFile("container-images", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder builder = new ProcessBuilder("bash", IMAGES_SCRIPT.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("KAFKA_CLASSPATH", classpath);
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(IMAGES_SCRIPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return Optional.of(IMAGES_SCRIPT + " did not finish in " + IMAGES_SCRIPT_TIMEOUT + "; "
                        + LocalStack.ChildProcesses.tailMessage(log));
            }
            if (process.exitValue() != 0) {
                return Optional.of(IMAGES_SCRIPT + " exited with " + process.exitValue() + "; "
                        + LocalStack.ChildProcesses.tailMessage(log));
            }
        } catch (IOException e) {
            return Optional.of("cannot run " + IMAGES_SCRIPT + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while running " + IMAGES_SCRIPT);
        }
        List<String> still = missingImages();
        return still.isEmpty() ? Optional.empty()
                : Optional.of(IMAGES_SCRIPT + " ran but " + still + " still missing; "
                        + LocalStack.ChildProcesses.tailMessage(log));
    }

    /**
     * Starts VictoriaMetrics, then Kafka, as containers from the local images (which must exist: {@link #ensureImages()});
     * returns once VictoriaMetrics answers {@code /health} and the broker is RUNNING.
     */
    public static ContainerComponents start() {
        GenericContainer<?> vm = new GenericContainer<>(DockerImageName.parse(vmImage()))
                .withExposedPorts(VM_PORT)
                .withCommand("-storageDataPath=/victoria-metrics-data", "-httpListenAddr=:" + VM_PORT,
                        "-retentionPeriod=100y", "-dedup.minScrapeInterval=1ms", "-search.disableCache",
                        "-loggerLevel=ERROR")
                .waitingFor(Wait.forHttp("/health").forPort(VM_PORT).forStatusCode(200)
                        .withStartupTimeout(Duration.ofMinutes(1)));
        KafkaContainer kafka = new KafkaContainer(
                DockerImageName.parse(kafkaImage()).asCompatibleSubstituteFor("apache/kafka"))
                .withEnv(Map.of(
                        "KAFKA_HEAP_OPTS", "-Xmx512m",
                        "KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false",
                        "KAFKA_NUM_PARTITIONS", "1",
                        "KAFKA_LOG_RETENTION_MS", "-1",
                        "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1",
                        "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1",
                        "KAFKA_NUM_RECOVERY_THREADS_PER_DATA_DIR", "1"));
        kafka.withStartupTimeout(Duration.ofMinutes(2));
        try {
            vm.start();
            kafka.start();
        } catch (RuntimeException e) {
            stopQuietly(kafka, e);
            stopQuietly(vm, e);
            throw e;
        }
        return new ContainerComponents(kafka, vm);
    }

    /** {@code <docker host>:<mapped port>} of the broker's PLAINTEXT listener. */
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    /** {@code http://<docker host>:<mapped port>} of VictoriaMetrics (no trailing slash). */
    public String vmUrl() {
        return "http://" + vm.getHost() + ":" + vm.getMappedPort(VM_PORT);
    }

    /** The Kafka container (its id, logs, state). */
    public KafkaContainer kafkaContainer() {
        return kafka;
    }

    /** The VictoriaMetrics container. */
    public GenericContainer<?> vmContainer() {
        return vm;
    }

    /** Creates a topic with replication factor 1 on the containerized broker (within a minute). */
    public void createTopic(String name, int partitions) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        LocalStack.ChildProcesses.quietKafkaClientLogs();
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(1, TimeUnit.MINUTES);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + name + " on " + bootstrapServers(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
    }

    /** Stops and removes both containers. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = new IllegalStateException("stopping the containers failed");
        stopQuietly(kafka, failure);
        stopQuietly(vm, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    /** Writes both containers' logs to {@code dir} (kafka.log, victoria-metrics.log), for a failed test's report. */
    public void saveLogs(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("kafka.log"), kafka.getLogs(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("victoria-metrics.log"), vm.getLogs(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "ContainerComponents[kafka " + kafkaImage() + " " + bootstrapServers() + ", victoria-metrics " + vmImage()
                + " " + vmUrl() + "]";
    }

    private static void stopQuietly(GenericContainer<?> container, RuntimeException into) {
        try {
            container.stop();
        } catch (RuntimeException e) {
            into.addSuppressed(e);
        }
    }
}
