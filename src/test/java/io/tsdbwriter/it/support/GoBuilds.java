package io.tsdbwriter.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The Go-built receivers of the test command: {@code scripts/test.sh} builds them in the background while the
 * integration tests already run, and its marker file {@code target/go-builds.running} (system property
 * {@code tsdbwriter.gobuilds.marker}) holds the PID of the shell that builds them and, one a line, the file names of
 * the binaries whose build has not ended, until every build ended. A binary is waited for only while it is listed and
 * the process lives: not once its build ended without it (the cluster's, where its tag is not served), nor on a
 * marker left by a killed run. Each binary appears at once, whole (the scripts
 * build it beside its place and rename it). {@link #built} waits for one while the marker is there, so a test that
 * needs it neither skips nor fails because it started before its build ended. Thread-safe.
 */
public final class GoBuilds {

    /** How long one binary is waited for, at most (the slowest build, Thanos, takes about 4 minutes on a new machine). */
    static final Duration MAX_WAIT = Duration.ofMinutes(15);

    private static final Path MARKER =
            Path.of(System.getProperty("tsdbwriter.gobuilds.marker", "target/go-builds.running"));

    private GoBuilds() {}

    /**
     * Whether {@code binary} is an executable file, after waiting for it while the builds run (polling every second, at
     * most {@link #MAX_WAIT}); at once without the marker. Interrupted: the answer of that moment.
     */
    public static boolean built(Path binary) {
        return built(binary, MARKER, MAX_WAIT);
    }

    /** As {@link #built(Path)} with {@code marker} and at most {@code maxWait}. */
    static boolean built(Path binary, Path marker, Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        boolean said = false;
        while (!Files.isExecutable(binary)
                && building(marker, binary.getFileName().toString())
                && System.nanoTime() < deadline) {
            if (!said) {
                System.err.println("waiting for the Go build of " + binary + " (" + marker
                        + " exists: scripts/test.sh is building it)");
                said = true;
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return Files.isExecutable(binary);
    }

    /** Whether the marker names a live process and lists {@code name} as not built yet. */
    private static boolean building(Path marker, String name) {
        try {
            List<String> lines =
                    Files.readAllLines(marker).stream().map(String::strip).toList();
            long pid = Long.parseLong(lines.get(0));
            return lines.subList(1, lines.size()).contains(name)
                    && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException | RuntimeException e) {
            return false; // no marker, or not yet written
        }
    }
}
