package io.tsdbwriter.it.support;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Image;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.AppInfoParser;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * {@link Components} as Docker containers through Testcontainers, where a Docker engine answers
 * ({@link Components#choose()} picks it then; {@link LocalComponents} otherwise).
 *
 * <p><b>What runs in a container, what stays local, and why</b>:
 * <ul>
 *   <li><b>Kafka</b>, plain ({@link KafkaOptions#PLAIN}): Testcontainers' own {@link KafkaContainer} on the local image
 *       {@link #kafkaImage()}. <b>Local</b> ({@link LocalComponents}) when {@link KafkaOptions#saslSsl()} is set: the
 *       listener needs the key store the test made on the host and SCRAM users added at format time, which the image's
 *       run script cannot take; and when {@link KafkaOptions#features()} are set: the run script formats the storage
 *       with no {@code --feature} argument.</li>
 *   <li><b>VictoriaMetrics</b>, both {@link VmVersion}s: a {@link GenericContainer} on the local image that holds the
 *       very binary the local path would run (found by its label {@code tsdbwriter.source}, the binary's SHA-256).
 *       <b>Local</b> when no such image exists, or when a flag names something of the host the container cannot
 *       reach: a file ({@code -promscrape.config=/path}: a value starting with {@code /}) or a listener of its own
 *       ({@code -graphiteListenAddr=127.0.0.1:<port>}: a flag ending in {@code ListenAddr}, which would listen inside
 *       the container's network). A scrape config also names targets on the host's loopback.</li>
 *   <li><b>Prometheus</b>: always local. No image is built for it ({@code scripts/container-images.sh} makes none).</li>
 * </ul>
 * Each delegation is named once on stderr ({@code [components] ...}).
 *
 * <p><b>Addresses and lifecycle</b>: each container publishes its port on a fixed host port reserved with
 * {@link FreePorts} (the same way the local path reserves its ports), so {@code stop()}, {@code kill()} ({@code docker
 * kill}, SIGKILL) and {@code restart()} ({@code docker start} of the same container) keep the address; the data live
 * in the container's own file system ({@code /var/lib/kafka/data}, {@code /victoria-metrics-data}), kept across a stop
 * and a start of the same container. {@code close()} writes the container's log under the component's directory
 * ({@code <dir>/kafka/broker.log}, {@code <dir>/victoria-metrics.log}), then removes the container and releases the
 * port. Addresses are on the Docker host ({@code localhost} here: pom.xml's {@code TESTCONTAINERS_HOST_OVERRIDE}),
 * reachable from this JVM and from a writer it starts.
 *
 * <p><b>Images</b>: no registry is used. {@code scripts/container-images.sh} builds, from the binaries the local path
 * runs, root file systems fed to {@code docker import}:
 * <ul>
 *   <li>{@code local/tsdb-writer-victoria-metrics:<version>}: the VictoriaMetrics binary (the Debian package, tag
 *       {@code 1.79.5}; today's build in {@code ~/.cache/tsdb-writer/bin}, tag {@code v1.150.0}) and the shared
 *       libraries it links.</li>
 *   <li>{@code local/tsdb-writer-kafka:<kafka version>}: the JDK, the jars of the test classpath (the ones
 *       {@link KafkaBroker}'s child JVM runs), bash and sleep, and an {@code /etc/kafka/docker/run} that follows the
 *       {@code apache/kafka} image's contract, so {@link KafkaContainer} runs it as a compatible substitute.</li>
 * </ul>
 * {@link #ensureImages()} runs that script; it rebuilds only images whose sources changed.
 *
 * <p><b>Ryuk is off</b> ({@code TESTCONTAINERS_RYUK_DISABLED=true} with {@code TESTCONTAINERS_CHECKS_DISABLE=true} in
 * pom.xml's failsafe environment): its image would come from Docker Hub, which this project's machines cannot reach.
 * Cleanup is the endpoints' {@code close()} (the {@link Stack} owns them) and Testcontainers' JVM shutdown hook; after
 * a kill -9 of the test JVM: {@code docker rm -f $(docker ps -aq --filter label=org.testcontainers=true)}.
 *
 * <p>Broker settings as {@link KafkaBroker}'s where a writer scenario cares: no topic auto-creation, unlimited time
 * retention, replication factor 1 for the internal topics, no initial rebalance delay.
 *
 * <p>Stateless but for caches; thread-safe. Endpoints: lifecycle methods synchronized, the rest from any thread.
 */
public final class ContainerComponents implements Components {

    /** VictoriaMetrics image tag when {@code -Dtsdbwriter.vm.version} is unset: the Debian package's version. */
    public static final String DEFAULT_VM_VERSION = "1.79.5";
    /** The local VictoriaMetrics image repository (tag: the version). */
    public static final String VM_IMAGE = "local/tsdb-writer-victoria-metrics";
    /** The local Kafka image repository (tag: the Kafka version). */
    public static final String KAFKA_IMAGE = "local/tsdb-writer-kafka";
    /** The script that builds the images. */
    public static final Path IMAGES_SCRIPT = Path.of("scripts/container-images.sh");
    /** The image label naming an image's sources (for VictoriaMetrics: the SHA-256 of its binary). */
    public static final String SOURCE_LABEL = "tsdbwriter.source";

    /** The one instance (stateless). */
    public static final ContainerComponents INSTANCE = new ContainerComponents();

    private static final int VM_PORT = 8428;
    private static final int KAFKA_PORT = 9092;
    private static final int START_ATTEMPTS = 3;
    private static final Duration IMAGES_SCRIPT_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration KAFKA_START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration VM_START_TIMEOUT = Duration.ofMinutes(1);
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    private static final Map<Path, String> SHA256 = new ConcurrentHashMap<>();

    private ContainerComponents() {
    }

    // ------------------------------------------------------------------------------------------------ Components

    /** See the class doc: a container for the plain broker; SASL_SSL or format-time features run locally. */
    @Override
    public KafkaEndpoint startKafka(Path dir, KafkaOptions options) {
        if (options.saslSsl() != null) {
            return local("Kafka with a SASL_SSL listener runs locally: its key store and SCRAM users are the host's"
                    + " and the image's run script cannot take them").startKafka(dir, options);
        }
        if (!options.features().isEmpty()) {
            return local("Kafka with format-time features runs locally: the image's run script formats without"
                    + " --feature").startKafka(dir, options);
        }
        return KafkaInContainer.start(dir);
    }

    /** See the class doc: a container from the image holding the same binary; locally when none or a flag is the host's. */
    @Override
    public VmEndpoint startVictoriaMetrics(Path dir, VmVersion version, List<String> flags) {
        String image = vmImage(version);
        if (image == null) {
            return local("VictoriaMetrics " + version + " runs locally: no local image holds its binary "
                    + vmBinary(version) + " (scripts/container-images.sh)").startVictoriaMetrics(dir, version, flags);
        }
        for (String flag : flags) {
            if (hostBound(flag)) {
                return local("VictoriaMetrics with " + flag.replaceFirst("=.*", "=...") + " runs locally: the flag"
                        + " names a file or a listener of the host").startVictoriaMetrics(dir, version, flags);
            }
        }
        return VmInContainer.start(dir, image, flags);
    }

    /** Always local: no Prometheus image is built. */
    @Override
    public PrometheusEndpoint startPrometheus(Path dir, PrometheusVersion version, Duration outOfOrderWindow,
                                              boolean remoteWriteReceiver, String... acceptedMessages) {
        return local("Prometheus runs locally: no image is built for it").startPrometheus(dir, version, outOfOrderWindow,
                remoteWriteReceiver, acceptedMessages);
    }

    /** Null when a container or (delegated) a local process can start it; otherwise the local path's reason. */
    @Override
    public String unavailable(VmVersion version) {
        return vmImage(version) != null ? null : LocalComponents.INSTANCE.unavailable(version);
    }

    @Override
    public String unavailable(PrometheusVersion version) {
        return LocalComponents.INSTANCE.unavailable(version);
    }

    @Override
    public String toString() {
        return "Docker containers (Testcontainers; Prometheus, SASL_SSL and feature-formatted Kafka, host-bound"
                + " VictoriaMetrics flags: local child processes)";
    }

    /** True for a VictoriaMetrics flag that names a host file ({@code =/...}) or a listener ({@code *ListenAddr=}). */
    static boolean hostBound(String flag) {
        int eq = flag.indexOf('=');
        if (eq < 0) {
            return false;
        }
        return flag.startsWith("/", eq + 1) || flag.substring(0, eq).endsWith("ListenAddr");
    }

    private static LocalComponents local(String why) {
        if (SAID.add(why)) {
            System.err.println("[components] " + why);
        }
        return LocalComponents.INSTANCE;
    }

    // ------------------------------------------------------------------------------------------------ engine, images

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

    /** {@code local/tsdb-writer-victoria-metrics:<-Dtsdbwriter.vm.version, default 1.79.5>}: the configured build's tag. */
    public static String vmImage() {
        return VM_IMAGE + ":" + System.getProperty("tsdbwriter.vm.version", DEFAULT_VM_VERSION);
    }

    /**
     * The local VictoriaMetrics image whose label {@value #SOURCE_LABEL} is the SHA-256 of the binary the local path
     * runs for {@code version} ({@code -Dtsdbwriter.vm.binary} or the Debian package; {@link VictoriaMetrics#CURRENT_BINARY}),
     * or null when that binary or such an image does not exist. The configured tag ({@link #vmImage()}) when it carries
     * that label, else any tag that does.
     */
    public static String vmImage(VmVersion version) {
        Path binary = vmBinary(version);
        if (!Files.isRegularFile(binary)) {
            return null;
        }
        String sha = SHA256.computeIfAbsent(binary, ContainerComponents::sha256);
        List<Image> images = client().listImagesCmd().withLabelFilter(Map.of(SOURCE_LABEL, sha)).exec();
        List<String> tags = new ArrayList<>();
        for (Image image : images) {
            for (String tag : image.getRepoTags() == null ? new String[0] : image.getRepoTags()) {
                if (tag.startsWith(VM_IMAGE + ":")) {
                    tags.add(tag);
                }
            }
        }
        if (tags.isEmpty()) {
            return null;
        }
        return version == VmVersion.CONFIGURED && tags.contains(vmImage()) ? vmImage() : tags.getFirst();
    }

    /** The binary the local path runs for {@code version}. */
    static Path vmBinary(VmVersion version) {
        return switch (version) {
            case CONFIGURED -> Path.of(System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY));
            case CURRENT -> VictoriaMetrics.CURRENT_BINARY;
        };
    }

    /** The label {@value #SOURCE_LABEL} of an image, or null. */
    public static String sourceLabel(String image) {
        Map<String, String> labels = client().inspectImageCmd(image).exec().getConfig().getLabels();
        return labels == null ? null : labels.get(SOURCE_LABEL);
    }

    /** The images the container path needs that the engine does not have: the Kafka one, the configured VictoriaMetrics one. */
    public static List<String> missingImages() {
        List<String> missing = new ArrayList<>();
        for (String image : List.of(kafkaImage(), vmImage())) {
            try {
                client().inspectImageCmd(image).exec();
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
     * @return empty when the images exist afterwards; otherwise why not
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

    // ------------------------------------------------------------------------------------------------ the choice

    /**
     * {@link Components#choose()}'s answer, decided once per JVM from {@code -Dtsdbwriter.it.components}:
     * {@code local} — local child processes; {@code containers} — containers, failing (every IT's start) with the
     * reason when no engine answers or the images cannot be built; unset or {@code auto} — containers when a Docker
     * engine answers and the images exist or can be built, else local. Said once on stderr.
     */
    static final class Choice {
        /** The property. */
        static final String PROPERTY = "tsdbwriter.it.components";
        /** The chosen implementation, or null when the choice failed ({@link #FAILURE}). */
        private static final Components CHOSEN;
        private static final String FAILURE;

        static {
            Components chosen = null;
            String failure = null;
            try {
                chosen = decide();
            } catch (RuntimeException e) {
                failure = e.getMessage();
                System.err.println("[components] " + failure);
            }
            CHOSEN = chosen;
            FAILURE = failure;
        }

        private Choice() {
        }

        /** The choice; throws (every time) when it failed. */
        static Components components() {
            if (CHOSEN == null) {
                throw new IllegalStateException(FAILURE);
            }
            return CHOSEN;
        }

        private static Components decide() {
            String mode = System.getProperty(PROPERTY, "auto").trim();
            Components chosen;
            String why;
            switch (mode) {
                case "local" -> {
                    chosen = LocalComponents.INSTANCE;
                    why = "-D" + PROPERTY + "=local";
                }
                case "containers", "auto", "" -> {
                    boolean forced = mode.equals("containers");
                    Optional<String> notReady = dockerAvailable() ? ensureImages()
                            : Optional.of("no Docker engine answers (Testcontainers found none)");
                    if (notReady.isEmpty()) {
                        chosen = INSTANCE;
                        why = (forced ? "-D" + PROPERTY + "=containers; " : "")
                                + "a Docker engine answers and the images " + kafkaImage() + ", " + vmImage() + " exist";
                    } else if (forced) {
                        throw new IllegalStateException("-D" + PROPERTY + "=containers, but " + notReady.get());
                    } else {
                        chosen = LocalComponents.INSTANCE;
                        why = notReady.get();
                    }
                }
                default -> throw new IllegalStateException("-D" + PROPERTY + "=" + mode
                        + ": expected local, containers or auto");
            }
            System.err.println("[components] the ITs' components: " + chosen + " (" + why + ")");
            return chosen;
        }
    }

    /**
     * The image of the running container that publishes {@code hostPort} on the Docker host, or null when none does
     * (e.g. a component that runs as a local process).
     */
    public static String imageServing(int hostPort) {
        for (var c : client().listContainersCmd().exec()) {
            for (var p : c.getPorts()) {
                if (p.getPublicPort() != null && p.getPublicPort() == hostPort) {
                    return c.getImage();
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------------ Kafka

    /** The plain broker as a {@link KafkaContainer} on a fixed host port. */
    static final class KafkaInContainer implements KafkaEndpoint {

        private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

        private final KafkaContainer container;
        private final FreePorts.Reservation port;
        private final Path dir;
        private String bootstrapServers;
        private boolean closed;

        private KafkaInContainer(KafkaContainer container, FreePorts.Reservation port, Path dir) {
            this.container = container;
            this.port = port;
            this.dir = dir;
        }

        static KafkaInContainer start(Path workDir) {
            Path dir = workDir.toAbsolutePath().resolve("kafka");
            if (Files.exists(dir)) {
                throw new IllegalStateException(dir + " already exists: startKafka needs a fresh directory");
            }
            createDirectories(dir);
            RuntimeException last = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                FreePorts.Reservation port = FreePorts.reserve();
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
                KafkaInContainer kafka = new KafkaInContainer(container, port, dir);
                try {
                    container.start();
                    kafka.bootstrapServers = container.getHost() + ":" + port.port();
                    return kafka;
                } catch (RuntimeException e) {
                    last = e;
                    kafka.close();
                    if (!portTaken(e)) {
                        throw e;
                    }
                }
            }
            throw last;
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
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdbwriter-fixture-admin");
            return props;
        }

        @Override
        public void createTopic(String name, int partitions) {
            createTopic(name, partitions, Map.of());
        }

        @Override
        public void createTopic(String name, int partitions, Map<String, String> configs) {
            Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
            LocalStack.ChildProcesses.quietKafkaClientLogs();
            try (Admin admin = Admin.create(adminProperties())) {
                NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
                while (true) {
                    try {
                        admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                        break;
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof TopicExistsException) {
                            throw new IllegalStateException("topic " + name + " already exists", e.getCause());
                        }
                        if (!(e.getCause() instanceof RetriableException) || Instant.now().isAfter(deadline)) {
                            throw new IllegalStateException("cannot create topic " + name + " on " + bootstrapServers,
                                    e.getCause());
                        }
                        Thread.sleep(200);
                    }
                }
                while (true) {
                    try {
                        TopicDescription d = admin.describeTopics(List.of(name)).allTopicNames().get(10, TimeUnit.SECONDS)
                                .get(name);
                        if (d.partitions().size() == partitions
                                && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                            return;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        // metadata not propagated yet
                    }
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException("topic " + name + " created but its partitions got no leader");
                    }
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while creating topic " + name, e);
            } catch (TimeoutException e) {
                throw new IllegalStateException("timed out creating topic " + name, e);
            }
        }

        /**
         * Clean shutdown: SIGTERM to the broker's JVM ({@code docker exec}: the container's first process is the shell
         * of Testcontainers' start script, which as pid 1 ignores SIGTERM, so {@code docker stop} would wait for its
         * timeout and kill), waits up to 60 s for the container to exit (then SIGKILL). No-op when not running.
         */
        @Override
        public synchronized void stop() {
            String id = container.getContainerId();
            if (id == null || !running(id)) {
                return;
            }
            try {
                var exec = client().execCreateCmd(id).withCmd("bash", "-c",
                        "for p in /proc/[0-9]*; do read -r -d '' c < \"$p/cmdline\" || true;"
                                + " [[ $c == */java ]] && kill -TERM \"${p#/proc/}\"; done; true").exec();
                client().execStartCmd(exec.getId()).start().awaitCompletion(10, TimeUnit.SECONDS);
            } catch (DockerException e) {
                // it exited meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!awaitExit(id, STOP_TIMEOUT)) {
                System.err.println("[components] Kafka container " + id.substring(0, 12) + " ignored SIGTERM for "
                        + STOP_TIMEOUT + ": kill");
                kill();
            }
        }

        /** Crash: {@code docker kill} (SIGKILL to every process of the container); waits until it is gone. */
        @Override
        public synchronized void kill() {
            killContainer(container);
        }

        /**
         * {@code docker start} of the same container (same host port, same data), stopping it cleanly first if it
         * runs; Testcontainers' start script, still in the container, advertises the same address. Waits until the
         * broker answers describeCluster.
         */
        @Override
        public synchronized void restart() {
            if (closed) {
                throw new IllegalStateException("broker closed");
            }
            stop();
            client().startContainerCmd(container.getContainerId()).exec();
            Instant deadline = Instant.now().plus(KAFKA_START_TIMEOUT);
            LocalStack.ChildProcesses.quietKafkaClientLogs();
            String last = "no answer";
            try (Admin admin = Admin.create(adminProperties())) {
                while (true) {
                    if (!running(container.getContainerId())) {
                        throw new IllegalStateException("Kafka container exited while restarting; " + tail(container));
                    }
                    try {
                        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                            return;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        last = String.valueOf(e.getCause() != null ? e.getCause() : e);
                    }
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException("Kafka container on " + bootstrapServers + " not ready after "
                                + KAFKA_START_TIMEOUT + " (" + last + "); " + tail(container));
                    }
                    Thread.sleep(200);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while restarting Kafka", e);
            }
        }

        /** Writes the container's log to {@code <dir>/kafka/broker.log}, removes the container, releases the port. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                saveLog(container, dir.resolve("broker.log"));
                container.stop();
            } finally {
                port.close();
            }
        }

        @Override
        public String toString() {
            return "KafkaContainer[" + kafkaImage() + " " + bootstrapServers + "]";
        }
    }

    // ------------------------------------------------------------------------------------------------ VictoriaMetrics

    /** A single-node VictoriaMetrics as a {@link GenericContainer} on a fixed host port. */
    static final class VmInContainer implements VmEndpoint {

        private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

        private final GenericContainer<?> container;
        private final FreePorts.Reservation port;
        private final Path dir;
        private final String image;
        private String url;
        private volatile HttpClient http = newHttpClient();
        private boolean closed;

        private VmInContainer(GenericContainer<?> container, FreePorts.Reservation port, Path dir, String image) {
            this.container = container;
            this.port = port;
            this.dir = dir;
            this.image = image;
        }

        static VmInContainer start(Path workDir, String image, List<String> flags) {
            Path dir = workDir.toAbsolutePath();
            createDirectories(dir);
            List<String> command = new ArrayList<>(List.of("-storageDataPath=/victoria-metrics-data",
                    "-httpListenAddr=:" + VM_PORT, "-retentionPeriod=100y", "-dedup.minScrapeInterval=1ms",
                    "-search.disableCache", "-loggerLevel=ERROR"));
            command.addAll(flags);
            RuntimeException last = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                FreePorts.Reservation port = FreePorts.reserve();
                GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                        .withExposedPorts(VM_PORT)
                        .withCommand(command.toArray(String[]::new))
                        .waitingFor(Wait.forHttp("/health").forPort(VM_PORT).forStatusCode(200)
                                .withStartupTimeout(VM_START_TIMEOUT));
                container.setPortBindings(List.of(port.port() + ":" + VM_PORT));
                VmInContainer vm = new VmInContainer(container, port, dir, image);
                try {
                    container.start();
                    vm.url = "http://" + container.getHost() + ":" + port.port();
                    return vm;
                } catch (RuntimeException e) {
                    last = e;
                    vm.close();
                    if (!portTaken(e)) {
                        throw e;
                    }
                }
            }
            throw last;
        }

        @Override
        public String url() {
            return url;
        }

        @Override
        public int port() {
            return port.port();
        }

        @Override
        public void forceFlush() {
            HttpResponse<String> response = get("/internal/force_flush");
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException("force_flush answered " + response.statusCode() + ": " + response.body());
            }
        }

        @Override
        public List<String> export(String match) {
            long end = Instant.now().plus(Duration.ofDays(2)).getEpochSecond();
            HttpResponse<String> response = get("/api/v1/export?match%5B%5D="
                    + URLEncoder.encode(match, StandardCharsets.UTF_8) + "&start=0&end=" + end);
            if (response.statusCode() != 200) {
                throw new IllegalStateException("export answered " + response.statusCode() + ": " + response.body());
            }
            return response.body().lines().filter(line -> !line.isBlank()).toList();
        }

        @Override
        public List<String> awaitExport(String match, Predicate<List<String>> done, Duration timeout) {
            Instant deadline = Instant.now().plus(timeout);
            while (true) {
                forceFlush();
                List<String> lines = export(match);
                if (done.test(lines) || Instant.now().isAfter(deadline)) {
                    return lines;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return lines;
                }
            }
        }

        @Override
        public int importLines(String jsonLines) {
            return send(HttpRequest.newBuilder(URI.create(url + "/api/v1/import")).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(jsonLines, StandardCharsets.UTF_8)).build()).statusCode();
        }

        @Override
        public HttpResponse<String> get(String pathAndQuery) {
            return send(HttpRequest.newBuilder(URI.create(url + pathAndQuery)).timeout(Duration.ofSeconds(30)).GET().build());
        }

        /** {@code docker stop}: SIGTERM to VictoriaMetrics (the container's first process; it flushes), 30 s, then SIGKILL. */
        @Override
        public synchronized void stop() {
            String id = container.getContainerId();
            if (id == null || !running(id)) {
                return;
            }
            try {
                client().stopContainerCmd(id).withTimeout((int) STOP_TIMEOUT.toSeconds()).exec();
            } catch (DockerException e) {
                // not running any more
            }
            awaitExit(id, Duration.ofSeconds(10));
        }

        /** Crash: {@code docker kill} (SIGKILL); waits until the container is gone. Port and data are kept. */
        @Override
        public synchronized void kill() {
            killContainer(container);
        }

        /** {@code docker start} of the same container (same port, same data), stopped cleanly first if it runs; waits for health. */
        @Override
        public synchronized void restart() {
            if (closed) {
                throw new IllegalStateException("victoria-metrics closed");
            }
            stop();
            HttpClient old = http;
            http = newHttpClient();
            old.close();
            client().startContainerCmd(container.getContainerId()).exec();
            Instant deadline = Instant.now().plus(VM_START_TIMEOUT);
            String last = "no answer";
            while (true) {
                if (!running(container.getContainerId())) {
                    throw new IllegalStateException("victoria-metrics container exited while restarting; " + tail(container));
                }
                try {
                    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(url + "/health"))
                            .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (health.statusCode() == 200 && health.body().trim().equals("OK")) {
                        return;
                    }
                    last = health.statusCode() + " " + health.body();
                } catch (IOException e) {
                    last = e.toString();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while restarting victoria-metrics", e);
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("victoria-metrics container on " + url + " not healthy after "
                            + VM_START_TIMEOUT + " (" + last + "); " + tail(container));
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while restarting victoria-metrics", e);
                }
            }
        }

        /** Writes the container's log to {@code <dir>/victoria-metrics.log}, removes the container, releases the port. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                saveLog(container, dir.resolve("victoria-metrics.log"));
                container.stop();
            } finally {
                port.close();
                http.close();
            }
        }

        @Override
        public String toString() {
            return "VictoriaMetricsContainer[" + image + " " + url + "]";
        }

        private HttpResponse<String> send(HttpRequest request) {
            try {
                return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted: " + request.method() + " " + request.uri(), e);
            }
        }

        private static HttpClient newHttpClient() {
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static DockerClient client() {
        return DockerClientFactory.instance().client();
    }

    private static boolean running(String id) {
        try {
            InspectContainerResponse.ContainerState state = client().inspectContainerCmd(id).exec().getState();
            return Boolean.TRUE.equals(state.getRunning());
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Polls until the container is not running; false when it still runs after {@code timeout}. */
    private static boolean awaitExit(String id, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (running(id)) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !running(id);
            }
        }
        return true;
    }

    private static void killContainer(GenericContainer<?> container) {
        String id = container.getContainerId();
        if (id == null || !running(id)) {
            return;
        }
        try {
            client().killContainerCmd(id).exec(); // SIGKILL
        } catch (DockerException e) {
            // exited meanwhile
        }
        if (!awaitExit(id, Duration.ofSeconds(30))) {
            throw new IllegalStateException("container " + id + " still runs 30 s after docker kill");
        }
    }

    /** True when a start failed because the fixed host port was taken meanwhile (then it is retried on another). */
    private static boolean portTaken(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("port is already allocated") || m.contains("address already in use")) {
                return true;
            }
        }
        return false;
    }

    private static void saveLog(GenericContainer<?> container, Path file) {
        if (container.getContainerId() == null) {
            return;
        }
        try {
            Files.writeString(file, container.getLogs(), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            System.err.println("[components] cannot save the log of " + container.getDockerImageName() + " to " + file
                    + ": " + e);
        }
    }

    private static String tail(GenericContainer<?> container) {
        try {
            List<String> lines = container.getLogs().lines().toList();
            return "last lines of its log:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (RuntimeException e) {
            return "(no log: " + e + ")";
        }
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(Path file) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            try (var in = Files.newInputStream(file)) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    digest.update(buffer, 0, n);
                }
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
