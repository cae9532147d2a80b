package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real Apache Kafka 4.x broker (the {@code kafka_2.13} artifact on the test classpath) running in KRaft mode as a
 * single combined broker+controller node, in a child JVM.
 *
 * <p>What it starts: {@code <this JVM's java> -Xmx512m ... kafka.Kafka server.properties}, with this JVM's classpath,
 * after formatting the storage in this JVM with {@code kafka.tools.StorageTool format -t <random cluster id> -c
 * server.properties --standalone} (a dynamic KRaft quorum of one voter). Files, all under {@code <workDir>/kafka/}:
 * {@code server.properties}, {@code logback.xml} (INFO for the broker), {@code classpath.args} (a java @argfile),
 * {@code format.log}, {@code broker.log} (stdout+stderr of every start, appended) and {@code data/} (log.dirs).
 *
 * <p>Ports: two free loopback ports reserved with {@link FreePorts}: PLAINTEXT on 127.0.0.1 (the one in
 * {@link #bootstrapServers()}) and CONTROLLER on 127.0.0.1. They are kept across {@link #stop()}, {@link #kill()} and
 * {@link #restart()} (the same data dir too: a restart is a crash-and-recover or a clean restart of the same broker),
 * and released by {@link #close()}. Broker settings for a one-node cluster: replication factor 1 for the offsets and
 * transaction topics, {@code group.initial.rebalance.delay.ms=0}, {@code num.partitions=1},
 * {@code auto.create.topics.enable=false}, unlimited time retention (the project replays old timestamps).
 *
 * <p>Process hygiene: the child is started through {@code setpriv --pdeathsig KILL} when available (it dies with this
 * JVM even on kill -9 of this JVM), is registered with a shutdown hook that stops it, and is stopped by
 * {@link #close()}.
 *
 * <p>Thread-safety: lifecycle methods ({@link #stop()}, {@link #kill()}, {@link #restart()}, {@link #close()}) are
 * synchronized; the accessors and {@link #createTopic(String, int)} may be called from any thread.
 */
public final class KafkaBroker implements Components.KafkaEndpoint {

    /** How long start/restart wait for the broker to answer describeCluster. Override: -Dtsdbwriter.kafka.startTimeout=PT3M */
    private static final Duration START_TIMEOUT =
            Duration.parse(System.getProperty("tsdbwriter.kafka.startTimeout", "PT2M"));

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final int START_ATTEMPTS = 3;

    private final Path dir;
    private final Path dataDir;
    private final Path propsFile;
    private final Path logFile;
    private final Path argFile;
    private final Path logbackFile;
    private final FreePorts.Reservation brokerPort;
    private final FreePorts.Reservation controllerPort;
    private final String bootstrapServers;
    private SaslSsl saslSsl;
    private FreePorts.Reservation saslSslPort;
    private Process process;
    private boolean closed;

    /**
     * An extra {@code SASL_SSL} listener on 127.0.0.1 (its own free port): SCRAM-SHA-512 with the given users created
     * at storage format time ({@code kafka-storage format --add-scram}), TLS with the given PKCS#12 key store. The
     * PLAINTEXT listener stays for the fixtures and inter-broker traffic.
     *
     * @param keyStore         PKCS#12 with the broker's key and certificate chain
     * @param keyStorePassword its password (also the key's)
     * @param scramUsers       user → password
     */
    public record SaslSsl(Path keyStore, String keyStorePassword, Map<String, String> scramUsers) {}

    private KafkaBroker(Path dir, FreePorts.Reservation brokerPort, FreePorts.Reservation controllerPort) {
        this.dir = dir;
        this.dataDir = dir.resolve("data");
        this.propsFile = dir.resolve("server.properties");
        this.logFile = dir.resolve("broker.log");
        this.argFile = dir.resolve("classpath.args");
        this.logbackFile = dir.resolve("logback.xml");
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
        this.bootstrapServers = "127.0.0.1:" + brokerPort.port();
    }

    /**
     * Formats a fresh KRaft storage under {@code <workDir>/kafka} and starts the broker; returns once it answers
     * describeCluster. The {@code kafka} sub-directory must not exist yet. If a picked port turns out to be taken by
     * the time the broker binds it (another program grabbed it), it retries with new ports (3 attempts).
     *
     * @throws IllegalStateException with the tail of the broker log when the broker does not come up
     */
    public static KafkaBroker start(Path workDir) {
        return start(workDir, null);
    }

    /** As {@link #start(Path)}, with a {@code SASL_SSL} listener when {@code saslSsl} is not null. */
    public static KafkaBroker start(Path workDir, SaslSsl saslSsl) {
        return start(workDir, saslSsl, List.of());
    }

    /**
     * As {@link #start(Path)}, with features finalized at format time ({@code kafka-storage format --feature}), e.g.
     * {@code share.version=0}: a cluster with share groups disabled.
     */
    public static KafkaBroker startWithFeatures(Path workDir, String... features) {
        return start(workDir, null, List.of(features));
    }

    /** As {@link #start(Path)}, with a {@code SASL_SSL} listener when {@code saslSsl} is not null and the given features. */
    static KafkaBroker start(Path workDir, SaslSsl saslSsl, List<String> features) {
        Path dir = workDir.toAbsolutePath().resolve("kafka");
        if (Files.exists(dir)) {
            throw new IllegalStateException(dir + " already exists: KafkaBroker.start needs a fresh directory"
                    + " (use restart() to start the same broker again)");
        }
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            FreePorts.Reservation broker = FreePorts.reserve();
            FreePorts.Reservation controller = FreePorts.reserve();
            KafkaBroker kafka = new KafkaBroker(dir, broker, controller);
            kafka.features = features;
            if (saslSsl != null) {
                kafka.saslSsl = saslSsl;
                kafka.saslSslPort = FreePorts.reserve();
            }
            try {
                kafka.prepare();
                kafka.format();
                synchronized (kafka) {
                    kafka.launchAndAwait();
                }
                return kafka;
            } catch (RuntimeException e) {
                last = e;
                kafka.close();
                boolean portClash = ChildProcesses.tail(kafka.logFile, 400).contains("Address already in use");
                if (!portClash) {
                    throw e;
                }
                ChildProcesses.moveAside(dir, "port-clash-" + attempt);
            }
        }
        throw last;
    }

    /** {@code 127.0.0.1:<port>} of the PLAINTEXT listener. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** {@code 127.0.0.1:<port>} of the SASL_SSL listener. @throws IllegalStateException when started without one */
    public String saslSslBootstrapServers() {
        if (saslSslPort == null) {
            throw new IllegalStateException("broker started without a SASL_SSL listener");
        }
        return "127.0.0.1:" + saslSslPort.port();
    }

    /** The PLAINTEXT (client) port. */
    public int port() {
        return brokerPort.port();
    }

    /** The CONTROLLER listener port. */
    public int controllerPort() {
        return controllerPort.port();
    }

    /** The broker's stdout+stderr (all starts, appended). */
    public Path logFile() {
        return logFile;
    }

    /** The broker's {@code log.dirs}. */
    public Path dataDir() {
        return dataDir;
    }

    /** True while the broker process is alive. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Pid of the current broker process. */
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("broker not started");
        }
        return process.pid();
    }

    /** Admin client properties for this broker (short timeouts, suitable for tests). */
    public Properties adminProperties() {
        return adminProperties(bootstrapServers);
    }

    /** Admin client properties for the broker at {@code bootstrapServers} (also {@link ContainerKafka}'s). */
    static Properties adminProperties(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdbwriter-fixture-admin");
        return props;
    }

    /**
     * Creates a topic with replication factor 1 and waits until every partition has a leader.
     *
     * @throws IllegalStateException if the topic exists or cannot be created within two minutes
     */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /** As {@link #createTopic(String, int)}, with topic configs (e.g. {@code cleanup.policy}). */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        createTopic(adminProperties(), name, partitions, configs);
    }

    /**
     * Creates a topic with replication factor 1 on the broker {@code adminProperties} name and waits until every
     * partition has a leader (also {@link ContainerKafka}'s).
     *
     * @throws IllegalStateException if the topic exists or cannot be created within two minutes
     */
    static void createTopic(Properties adminProperties, String name, int partitions, Map<String, String> configs) {
        Object bootstrapServers = adminProperties.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        ChildProcesses.quietKafkaClientLogs();
        try (Admin admin = Admin.create(adminProperties)) {
            NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
            while (true) {
                try {
                    admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof TopicExistsException) {
                        throw new IllegalStateException("topic " + name + " already exists", e.getCause());
                    }
                    if (!(e.getCause() instanceof RetriableException)
                            || Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(
                                "cannot create topic " + name + " on " + bootstrapServers, e.getCause());
                    }
                    sleep(200);
                }
            }
            while (true) {
                try {
                    TopicDescription description = admin.describeTopics(List.of(name))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(name);
                    if (description.partitions().size() == partitions
                            && description.partitions().stream()
                                    .allMatch(p ->
                                            p.leader() != null && !p.leader().isEmpty())) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // metadata not propagated yet
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("topic " + name + " created but its partitions got no leader");
                }
                sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out creating topic " + name, e);
        }
    }

    /** Clean shutdown: SIGTERM, waits up to 60 s (then kill -9). No-op when not running. Ports and data are kept. */
    public synchronized void stop() {
        if (process != null) {
            ChildProcesses.terminate(process, STOP_TIMEOUT);
        }
    }

    /** Crash: kill -9 ({@code destroyForcibly}) and wait for the process to be gone. Ports and data are kept. */
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.kill(process);
        }
    }

    /**
     * Starts the same broker again (same ports, same data dir) and waits until it answers; if it is still running,
     * it is stopped cleanly first. After a {@link #kill()} this is a crash recovery.
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("broker closed");
        }
        stop();
        launchAndAwait();
    }

    /** Stops the broker (clean shutdown) and releases its ports. The files are left in the work dir. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            brokerPort.close();
            controllerPort.close();
            if (saslSslPort != null) {
                saslSslPort.close();
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaBroker[" + bootstrapServers + ", controller 127.0.0.1:" + controllerPort.port() + ", " + dir + "]";
    }

    // ----------------------------------------------------------------------------------------------------------------

    private void prepare() {
        try {
            Files.createDirectories(dataDir);
            String props = String.join(
                    "\n",
                    "# generated by " + KafkaBroker.class.getName(),
                    "process.roles=broker,controller",
                    "node.id=1",
                    "listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port() + ",CONTROLLER://127.0.0.1:"
                            + controllerPort.port(),
                    "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port(),
                    "controller.listener.names=CONTROLLER",
                    "inter.broker.listener.name=PLAINTEXT",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    "controller.quorum.bootstrap.servers=127.0.0.1:" + controllerPort.port(),
                    "log.dirs=" + dataDir,
                    "num.partitions=1",
                    "auto.create.topics.enable=false",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=10",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    // KIP-848 (--group-protocol consumer): enabled by default in Kafka 4.x KRaft (group.version
                    // feature;
                    // group.coordinator.rebalance.protocols defaults to classic,consumer,streams). Its session timeout
                    // is
                    // the broker's (45 s, minimum 45 s by default): 6 s here, as tests give classic members, so a
                    // killed member's partitions move on quickly; heartbeats every second carry assignments promptly.
                    "group.consumer.min.session.timeout.ms=6000",
                    "group.consumer.session.timeout.ms=6000",
                    "group.consumer.min.heartbeat.interval.ms=1000",
                    "group.consumer.heartbeat.interval.ms=1000",
                    // share groups (KIP-932, --consumer-mode share): a killed member's records come back after a 6 s
                    // lock (default 30 s, min 15 s) and its membership ends after 6 s, as for the consumer groups above
                    "group.share.record.lock.duration.ms=6000",
                    "group.share.min.record.lock.duration.ms=1000",
                    "group.share.session.timeout.ms=6000",
                    "group.share.min.session.timeout.ms=6000",
                    "group.share.heartbeat.interval.ms=1000",
                    "group.share.min.heartbeat.interval.ms=1000",
                    "log.retention.ms=-1",
                    "num.network.threads=2",
                    "num.io.threads=4",
                    "num.recovery.threads.per.data.dir=1",
                    "");
            if (saslSsl != null) {
                String sasl = "127.0.0.1:" + saslSslPort.port();
                props = props.replace(
                                        "listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port() + ",",
                                        "listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port() + ",SASL_SSL://" + sasl
                                                + ",")
                                .replace(
                                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port(),
                                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort.port()
                                                + ",SASL_SSL://" + sasl)
                                .replace(
                                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,",
                                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,")
                        + String.join(
                                "\n",
                                "sasl.enabled.mechanisms=SCRAM-SHA-512",
                                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
                                "ssl.keystore.type=PKCS12",
                                "ssl.keystore.location=" + saslSsl.keyStore().toAbsolutePath(),
                                "ssl.keystore.password=" + saslSsl.keyStorePassword(),
                                "ssl.key.password=" + saslSsl.keyStorePassword(),
                                "");
            }
            Files.writeString(propsFile, props);
            Files.writeString(
                    logbackFile,
                    """
                    <configuration>
                      <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                      </appender>
                      <logger name="org.apache.kafka.clients" level="WARN"/>
                      <logger name="org.apache.kafka.common.config" level="WARN"/>
                      <logger name="kafka.server.KafkaConfig" level="WARN"/>
                      <root level="INFO"><appender-ref ref="OUT"/></root>
                    </configuration>
                    """);
            ChildProcesses.writeClasspathArgFile(argFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
    }

    private List<String> javaCommand(String heap, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildProcesses.javaBinary());
        cmd.add("-Xms64m");
        cmd.add(heap);
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-Djava.awt.headless=true");
        cmd.add("-Dlogback.configurationFile=" + logbackFile);
        cmd.addAll(ChildProcesses.quietJvmFlags());
        cmd.add("@" + argFile);
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return cmd;
    }

    private List<String> features = List.of();

    /**
     * Formats the storage in this JVM ({@code StorageTool.execute}, what {@code kafka-storage format} runs; its output
     * into {@code format.log}): a JVM of its own for it cost about a CPU-second per broker.
     */
    private void format() {
        Path formatLog = dir.resolve("format.log");
        String clusterId = Uuid.randomUuid().toString();
        List<String> args =
                new ArrayList<>(List.of("format", "-t", clusterId, "-c", propsFile.toString(), "--standalone"));
        for (String f : features) {
            args.add("--feature");
            args.add(f);
        }
        if (saslSsl != null) {
            saslSsl.scramUsers().forEach((user, password) -> {
                args.add("--add-scram");
                args.add("SCRAM-SHA-512=[name=" + user + ",password=" + password + "]");
            });
        }
        int exit;
        try (PrintStream out = new PrintStream(Files.newOutputStream(formatLog), true, StandardCharsets.UTF_8)) {
            synchronized (KafkaBroker.class) {
                exit = StorageTool.execute(args.toArray(String[]::new), out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + formatLog, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "kafka storage format failed: StorageTool " + String.join(" ", args) + "; "
                            + ChildProcesses.tailMessage(formatLog),
                    e);
        }
        if (exit != 0 || !Files.exists(dataDir.resolve("meta.properties"))) {
            throw new IllegalStateException("kafka storage format failed (exit " + exit + "): StorageTool "
                    + String.join(" ", args) + "; " + ChildProcesses.tailMessage(formatLog));
        }
    }

    private void launchAndAwait() {
        ChildProcesses.appendMarker(logFile, "starting kafka.Kafka on " + bootstrapServers);
        process = ChildProcesses.start(
                ChildProcesses.onCpus(
                        ChildProcesses.KAFKA_CPUS, javaCommand("-Xmx512m", "kafka.Kafka", propsFile.toString())),
                logFile,
                true);
        awaitReady();
    }

    private void awaitReady() {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        awaitListening(deadline);
        ChildProcesses.quietKafkaClientLogs();
        Properties props = adminProperties();
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (Admin admin = Admin.create(props)) {
            String lastError = "no answer yet";
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("kafka broker exited with code " + process.exitValue()
                            + " while starting on " + bootstrapServers + "; " + ChildProcesses.tailMessage(logFile));
                }
                try {
                    Collection<Node> nodes = admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
                    if (!nodes.isEmpty()) {
                        return;
                    }
                    lastError = "describeCluster returned no nodes";
                } catch (ExecutionException | TimeoutException e) {
                    lastError = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
                if (Instant.now().isAfter(deadline)) {
                    ChildProcesses.kill(process);
                    throw new IllegalStateException("kafka broker on " + bootstrapServers + " not ready after "
                            + START_TIMEOUT + " (" + lastError + "); " + ChildProcesses.tailMessage(logFile));
                }
                sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ChildProcesses.kill(process);
            throw new IllegalStateException("interrupted while waiting for kafka", e);
        }
    }

    /** Waits for the PLAINTEXT port to accept TCP connections (so the admin client does not log refused connects). */
    private void awaitListening(Instant deadline) {
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("kafka broker exited with code " + process.exitValue()
                        + " while starting on " + bootstrapServers + "; " + ChildProcesses.tailMessage(logFile));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", brokerPort.port()), 500);
                return;
            } catch (IOException e) {
                // not listening yet
            }
            if (Instant.now().isAfter(deadline)) {
                ChildProcesses.kill(process);
                throw new IllegalStateException("kafka broker never listened on " + bootstrapServers + " within "
                        + START_TIMEOUT + "; " + ChildProcesses.tailMessage(logFile));
            }
            try {
                sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ChildProcesses.kill(process);
                throw new IllegalStateException("interrupted while waiting for kafka", e);
            }
        }
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /** Lines of the broker log (for assertions on broker behaviour). */
    public List<String> logLines() {
        try (Stream<String> lines = Files.lines(logFile, StandardCharsets.UTF_8)) {
            return lines.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
