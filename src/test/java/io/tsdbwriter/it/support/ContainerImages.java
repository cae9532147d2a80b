package io.tsdbwriter.it.support;

import static io.tsdbwriter.it.support.ContainerEndpoint.client;

import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Image;
import io.tsdbwriter.it.support.Components.VmVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.AppInfoParser;
import org.testcontainers.DockerClientFactory;

/**
 * The Docker engine and the local images of {@link ContainerComponents}: whether an engine answers, the images' names,
 * the VictoriaMetrics image holding a given binary (by its label {@value #SOURCE_LABEL}), building the images
 * ({@link #ensureImages()}), and which image serves a host port. See {@link ContainerComponents}'s class doc for what
 * the images hold. Stateless but for a cache of binaries' SHA-256; thread-safe.
 */
public final class ContainerImages {

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

    private static final Duration IMAGES_SCRIPT_TIMEOUT = Duration.ofMinutes(10);
    private static final Map<Path, String> SHA256 = new ConcurrentHashMap<>();

    private ContainerImages() {}

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
        String sha = SHA256.computeIfAbsent(binary, ContainerImages::sha256);
        List<Image> images = client().listImagesCmd()
                .withLabelFilter(Map.of(SOURCE_LABEL, sha))
                .exec();
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
        Map<String, String> labels =
                client().inspectImageCmd(image).exec().getConfig().getLabels();
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
        return still.isEmpty()
                ? Optional.empty()
                : Optional.of(IMAGES_SCRIPT + " ran but " + still + " still missing; "
                        + LocalStack.ChildProcesses.tailMessage(log));
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
