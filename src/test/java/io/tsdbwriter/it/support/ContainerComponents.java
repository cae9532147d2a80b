package io.tsdbwriter.it.support;

import static io.tsdbwriter.it.support.ContainerImages.dockerAvailable;
import static io.tsdbwriter.it.support.ContainerImages.ensureImages;
import static io.tsdbwriter.it.support.ContainerImages.kafkaImage;
import static io.tsdbwriter.it.support.ContainerImages.vmBinary;
import static io.tsdbwriter.it.support.ContainerImages.vmImage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;

/**
 * {@link Components} as Docker containers through Testcontainers, where a Docker engine answers
 * ({@link Components#choose()} picks it then; {@link LocalComponents} otherwise).
 *
 * <p><b>What runs in a container, what stays local, and why</b>:
 * <ul>
 *   <li><b>Kafka</b>, plain ({@link KafkaOptions#PLAIN}): Testcontainers' own {@link KafkaContainer} on the local image
 *       {@link ContainerImages#kafkaImage()}. <b>Local</b> ({@link LocalComponents}) when {@link KafkaOptions#saslSsl()} is set: the
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
 * {@link ContainerImages#ensureImages()} runs that script; it rebuilds only images whose sources changed.
 *
 * <p><b>Ryuk is off</b> ({@code TESTCONTAINERS_RYUK_DISABLED=true} with {@code TESTCONTAINERS_CHECKS_DISABLE=true} in
 * pom.xml's failsafe environment): its image would come from Docker Hub, which this project's machines cannot reach.
 * Cleanup is the endpoints' {@code close()} (the {@link Stack} owns them) and Testcontainers' JVM shutdown hook; after
 * a kill -9 of the test JVM: {@code docker rm -f $(docker ps -aq --filter label=org.testcontainers=true)}.
 *
 * <p>Broker settings as {@link KafkaBroker}'s where a writer scenario cares: no topic auto-creation, unlimited time
 * retention, replication factor 1 for the internal topics, no initial rebalance delay.
 *
 * <p>The parts: this class (the choice and the delegations), {@link ContainerImages} (engine and images),
 * {@link ContainerKafka} and {@link ContainerVictoriaMetrics} (the endpoints), {@link ContainerDocker} (what both do
 * with their container).
 *
 * <p>Stateless but for caches; thread-safe. Endpoints: lifecycle methods synchronized, the rest from any thread.
 */
public final class ContainerComponents implements Components {

    /** The one instance (stateless). */
    public static final ContainerComponents INSTANCE = new ContainerComponents();

    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private ContainerComponents() {}

    // ------------------------------------------------------------------------------------------------ Components

    /** See the class doc: a container for the plain broker; SASL_SSL or format-time features run locally. */
    @Override
    public KafkaEndpoint startKafka(Path dir, KafkaOptions options) {
        if (options.saslSsl() != null) {
            return local("Kafka with a SASL_SSL listener runs locally: its key store and SCRAM users are the host's"
                            + " and the image's run script cannot take them")
                    .startKafka(dir, options);
        }
        if (!options.features().isEmpty()) {
            return local("Kafka with format-time features runs locally: the image's run script formats without"
                            + " --feature")
                    .startKafka(dir, options);
        }
        return ContainerKafka.start(dir);
    }

    /** See the class doc: a container from the image holding the same binary; locally when none or a flag is the host's. */
    @Override
    public VmEndpoint startVictoriaMetrics(Path dir, VmVersion version, List<String> flags) {
        String image = vmImage(version);
        if (image == null) {
            return local("VictoriaMetrics " + version + " runs locally: no local image holds its binary "
                            + vmBinary(version) + " (scripts/container-images.sh)")
                    .startVictoriaMetrics(dir, version, flags);
        }
        for (String flag : flags) {
            if (hostBound(flag)) {
                return local("VictoriaMetrics with " + flag.replaceFirst("=.*", "=...") + " runs locally: the flag"
                                + " names a file or a listener of the host")
                        .startVictoriaMetrics(dir, version, flags);
            }
        }
        return ContainerVictoriaMetrics.start(dir, image, flags);
    }

    /** Always local: no Prometheus image is built. */
    @Override
    public PrometheusEndpoint startPrometheus(
            Path dir,
            PrometheusVersion version,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            String... acceptedMessages) {
        return local("Prometheus runs locally: no image is built for it")
                .startPrometheus(dir, version, outOfOrderWindow, remoteWriteReceiver, acceptedMessages);
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

        private Choice() {}

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
                    Optional<String> notReady = dockerAvailable()
                            ? ensureImages()
                            : Optional.of("no Docker engine answers (Testcontainers found none)");
                    if (notReady.isEmpty()) {
                        chosen = INSTANCE;
                        why = (forced ? "-D" + PROPERTY + "=containers; " : "")
                                + "a Docker engine answers and the images " + kafkaImage() + ", " + vmImage()
                                + " exist";
                    } else if (forced) {
                        throw new IllegalStateException("-D" + PROPERTY + "=containers, but " + notReady.get());
                    } else {
                        chosen = LocalComponents.INSTANCE;
                        why = notReady.get();
                    }
                }
                default ->
                    throw new IllegalStateException(
                            "-D" + PROPERTY + "=" + mode + ": expected local, containers or auto");
            }
            System.err.println("[components] the ITs' components: " + chosen + " (" + why + ")");
            return chosen;
        }
    }
}
