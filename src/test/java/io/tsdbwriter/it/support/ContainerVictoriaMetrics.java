package io.tsdbwriter.it.support;

import static io.tsdbwriter.it.support.ContainerEndpoint.client;
import static io.tsdbwriter.it.support.ContainerEndpoint.createDirectories;

import com.github.dockerjava.api.exception.DockerException;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A single-node VictoriaMetrics of {@link ContainerComponents} as a {@link GenericContainer} of a local image on a
 * fixed host port (see {@link ContainerComponents}'s class doc); its HTTP side is {@link VmHttp}'s.
 */
final class ContainerVictoriaMetrics extends ContainerEndpoint implements VmEndpoint {

    /** VictoriaMetrics' HTTP port in the container. */
    private static final int VM_PORT = 8428;

    private static final Duration VM_START_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final String image;
    private String url;
    private VmHttp http; // from the start on (the host is known once the container runs)

    private ContainerVictoriaMetrics(
            GenericContainer<?> container, FreePorts.Reservation port, Path dir, String image) {
        super(container, port, dir.resolve("victoria-metrics.log"));
        this.image = image;
    }

    static ContainerVictoriaMetrics start(Path workDir, String image, List<String> flags) {
        Path dir = workDir.toAbsolutePath();
        createDirectories(dir);
        List<String> command = new ArrayList<>(List.of(
                "-storageDataPath=/victoria-metrics-data",
                "-httpListenAddr=:" + VM_PORT,
                "-retentionPeriod=100y",
                "-dedup.minScrapeInterval=1ms",
                "-search.disableCache",
                "-loggerLevel=ERROR"));
        command.addAll(flags);
        return start(port -> {
            GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                    .withExposedPorts(VM_PORT)
                    .withCommand(command.toArray(String[]::new))
                    .waitingFor(Wait.forHttp("/health")
                            .forPort(VM_PORT)
                            .forStatusCode(200)
                            .withStartupTimeout(VM_START_TIMEOUT));
            container.setPortBindings(List.of(port.port() + ":" + VM_PORT));
            return new ContainerVictoriaMetrics(container, port, dir, image);
        });
    }

    @Override
    void started() {
        url = "http://" + hostAndPort();
        http = new VmHttp(url);
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
        http.forceFlush();
    }

    @Override
    public List<String> export(String match) {
        return http.export(match);
    }

    @Override
    public List<String> awaitExport(String match, Predicate<List<String>> done, Duration timeout) {
        return http.awaitExport(match, done, timeout);
    }

    @Override
    public int importLines(String jsonLines) {
        return http.importLines(jsonLines);
    }

    @Override
    public HttpResponse<String> get(String pathAndQuery) {
        return http.get(pathAndQuery);
    }

    /** {@code docker stop}: SIGTERM to VictoriaMetrics (the container's first process; it flushes), 30 s, then SIGKILL. */
    @Override
    public synchronized void stop() {
        if (!running()) {
            return;
        }
        try {
            client().stopContainerCmd(container.getContainerId())
                    .withTimeout((int) STOP_TIMEOUT.toSeconds())
                    .exec();
        } catch (DockerException e) {
            // not running any more
        }
        awaitExit(Duration.ofSeconds(10));
    }

    /** {@code docker start} of the same container (same port, same data), stopped cleanly first if it runs; waits for health. */
    @Override
    public synchronized void restart() {
        startAgain("victoria-metrics");
        http.renew(); // pooled connections to the previous process are dead
        String unhealthy;
        try {
            unhealthy = http.awaitHealthy(VM_START_TIMEOUT, this::running);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting victoria-metrics", e);
        }
        if (unhealthy != null) {
            throw new IllegalStateException(
                    "victoria-metrics container on " + url + " " + unhealthy + " while restarting; " + tail());
        }
    }

    /** Closes the HTTP client ({@link #close()} wrote the container's log to {@code <dir>/victoria-metrics.log}). */
    @Override
    void released() {
        if (http != null) {
            http.close();
        }
    }

    @Override
    public String toString() {
        return "VictoriaMetricsContainer[" + image + " " + url + "]";
    }
}
