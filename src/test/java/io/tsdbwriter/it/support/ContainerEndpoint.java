package io.tsdbwriter.it.support;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * What {@link ContainerKafka} and {@link ContainerVictoriaMetrics} share: one container publishing its port on a host
 * port reserved with {@link FreePorts} (see {@link ContainerComponents}'s class doc), started again on another port
 * when that one was taken meanwhile; {@link #kill()}; {@code docker start} of the same container for
 * {@code restart()}; {@link #close()}, which saves the container's log, removes it and releases the port.
 *
 * <p>Lifecycle methods synchronized (on the endpoint).
 */
abstract class ContainerEndpoint implements AutoCloseable {

    private static final int START_ATTEMPTS = 3;

    /** The container (created, not necessarily running). */
    final GenericContainer<?> container;
    /** The host port it publishes its port on. */
    final FreePorts.Reservation port;

    private final Path log;
    private boolean closed;

    /** {@code log}: where {@link #close()} writes the container's log. */
    ContainerEndpoint(GenericContainer<?> container, FreePorts.Reservation port, Path log) {
        this.container = container;
        this.port = port;
        this.log = log;
    }

    /**
     * Creates an endpoint on a freshly reserved host port ({@code create}: its container bound to that port) and starts
     * its container; on another port when that one was taken meanwhile, up to {@value #START_ATTEMPTS} times.
     */
    static <E extends ContainerEndpoint> E start(Function<FreePorts.Reservation, E> create) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            E endpoint = create.apply(FreePorts.reserve());
            try {
                endpoint.container.start();
                endpoint.started();
                return endpoint;
            } catch (RuntimeException e) {
                last = e;
                endpoint.close();
                if (!portTaken(e)) {
                    throw e;
                }
            }
        }
        throw last;
    }

    /** Called once the container first runs: the endpoint learns its address ({@link #hostAndPort()}). */
    abstract void started();

    /** Clean shutdown of the container; no-op when it does not run. */
    public abstract void stop();

    /** {@code <Docker host>:<reserved host port>}. */
    final String hostAndPort() {
        return container.getHost() + ":" + port.port();
    }

    /** Crash: {@code docker kill} (SIGKILL to every process of the container); waits until it is gone. Port and data are kept. */
    public synchronized void kill() {
        if (!running()) {
            return;
        }
        String id = container.getContainerId();
        try {
            client().killContainerCmd(id).exec();
        } catch (DockerException e) {
            // exited meanwhile
        }
        if (!awaitExit(Duration.ofSeconds(30))) {
            throw new IllegalStateException("container " + id + " still runs 30 s after docker kill");
        }
    }

    /** The first half of {@code restart()}: {@link #stop()} if it runs, then {@code docker start} of the same container. */
    final synchronized void startAgain(String what) {
        if (closed) {
            throw new IllegalStateException(what + " closed");
        }
        stop();
        client().startContainerCmd(container.getContainerId()).exec();
    }

    /** Writes the container's log, removes the container, releases the port, then {@link #released()}. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            saveLog();
            container.stop();
        } finally {
            port.close();
            released();
        }
    }

    /** After {@link #close()}: releases what else the endpoint holds. Nothing by default. */
    void released() {}

    /** True while the container runs (false before it is created). */
    final boolean running() {
        String id = container.getContainerId();
        if (id == null) {
            return false;
        }
        try {
            InspectContainerResponse.ContainerState state =
                    client().inspectContainerCmd(id).exec().getState();
            return Boolean.TRUE.equals(state.getRunning());
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Polls until the container is not running; false when it still runs after {@code timeout}. */
    final boolean awaitExit(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (running()) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !running();
            }
        }
        return true;
    }

    /** The last 20 lines of the container's log, for an exception's message. */
    final String tail() {
        try {
            List<String> lines = container.getLogs().lines().toList();
            return "last lines of its log:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (RuntimeException e) {
            return "(no log: " + e + ")";
        }
    }

    static DockerClient client() {
        return DockerClientFactory.instance().client();
    }

    static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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

    private void saveLog() {
        if (container.getContainerId() == null) {
            return;
        }
        try {
            Files.writeString(log, container.getLogs(), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            System.err.println(
                    "[components] cannot save the log of " + container.getDockerImageName() + " to " + log + ": " + e);
        }
    }
}
