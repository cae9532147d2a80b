package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A Go server of the VictoriaMetrics family started with flags the {@link VictoriaMetrics} fixture does not speak
 * (TLS on its listener; {@code vmauth}), on a free loopback port, health-checked with a caller-supplied OkHttp client
 * (so HTTPS with the test CA works). stdout+stderr to {@code <dir>/<name>.log}. Started through {@code setpriv
 * --pdeathsig KILL} like the other fixtures; {@link #close()} stops it (SIGTERM) and releases the port.
 * Thread-safe lifecycle (synchronized).
 */
public final class ChildServer implements AutoCloseable {

    /** {@code /usr/bin/vmauth} from the Debian {@code victoria-metrics} package. */
    public static final Path VMAUTH = Path.of("/usr/bin/vmauth");

    private final FreePorts.Reservation port;
    private final String url;
    private final Path log;
    private Process process;
    private boolean closed;

    private ChildServer(FreePorts.Reservation port, String url, Path log) {
        this.port = port;
        this.url = url;
        this.log = log;
    }

    /**
     * Starts {@code binary} with {@code -httpListenAddr=127.0.0.1:<free port>} plus {@code flags(port)} and waits until
     * {@code GET <scheme>://127.0.0.1:<port>/health} answers 200 through {@code health}.
     */
    public static synchronized ChildServer start(
            Path binary,
            Path dir,
            String name,
            boolean https,
            OkHttpClient health,
            Function<Integer, List<String>> flags) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FreePorts.Reservation port = FreePorts.reserve();
        ChildServer s = new ChildServer(
                port, (https ? "https" : "http") + "://127.0.0.1:" + port.port(), dir.resolve(name + ".log"));
        List<String> cmd = new ArrayList<>(
                List.of(binary.toString(), "-httpListenAddr=127.0.0.1:" + port.port(), "-loggerLevel=WARN"));
        cmd.addAll(flags.apply(port.port()));
        ChildProcesses.appendMarker(s.log, "starting " + String.join(" ", cmd));
        s.process = ChildProcesses.start(cmd, s.log, true);
        Instant deadline = Instant.now().plusSeconds(60);
        String last = "no answer";
        while (true) {
            if (!s.process.isAlive()) {
                port.close();
                throw new IllegalStateException(
                        name + " exited with " + s.process.exitValue() + "; " + ChildProcesses.tailMessage(s.log));
            }
            try (Response r = health.newCall(
                            new Request.Builder().url(s.url + "/health").build())
                    .execute()) {
                if (r.code() == 200) {
                    return s;
                }
                last = "HTTP " + r.code();
            } catch (IOException e) {
                last = e.toString();
            }
            if (Instant.now().isAfter(deadline)) {
                s.close();
                throw new IllegalStateException(
                        name + " not healthy on " + s.url + " (" + last + "); " + ChildProcesses.tailMessage(s.log));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                s.close();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** {@code http(s)://127.0.0.1:<port>}. */
    public String url() {
        return url;
    }

    /** The server's log. */
    public Path logFile() {
        return log;
    }

    /** Sends SIGHUP (vmauth re-reads {@code -auth.config}). */
    public synchronized void sighup() {
        try {
            Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM (kill -9 after 30 s), releases the port. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process != null) {
                ChildProcesses.terminate(process, Duration.ofSeconds(30));
            }
        } finally {
            port.close();
        }
    }
}
