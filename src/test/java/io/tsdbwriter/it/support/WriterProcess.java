package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tsdb-writer jar run as a child JVM, the way an operator runs it: {@code <this JVM's java> [jvmArgs] -jar
 * <jar> <args>}.
 *
 * <p>The jar is {@code -Dtsdbwriter.jar} (failsafe sets it to {@code target/tsdb-writer.jar}), default
 * {@code target/tsdb-writer.jar} relative to the working directory. stdout and stderr go, merged, to the given log
 * file (truncated at start); {@link #output()} reads it. No ports are opened by this class (the writer's own flags
 * decide). The child is started through {@code setpriv --pdeathsig KILL} when available and killed by a shutdown hook
 * and by {@link #close()} if still running, so a failed test leaves no writer behind.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class WriterProcess implements AutoCloseable {

    private final Process process;
    private final Path logFile;
    private final List<String> command;

    private WriterProcess(Process process, Path logFile, List<String> command) {
        this.process = process;
        this.logFile = logFile;
        this.command = command;
    }

    /** Starts {@code java -jar <jar> args...}, output to {@code logFile}. */
    public static WriterProcess start(Path logFile, List<String> args) {
        return start(logFile, List.of(), args);
    }

    /**
     * The durability window of every {@code run} these tests start without {@code --durability-window}: 2 s. The
     * default (16 s against VictoriaMetrics, 30 s behind a proxy) is {@code DurabilityIT}'s subject, which names it;
     * elsewhere it would add its length to each of the suite's ~60 {@code --stop-at-end} jobs and stops.
     */
    public static final String IT_DURABILITY_WINDOW = "2s";

    /** Starts {@code java <jvmArgs> -jar <jar> args...}, output to {@code logFile}. */
    public static WriterProcess start(Path logFile, List<String> jvmArgs, List<String> args) {
        if (!args.isEmpty()
                && args.get(0).equals("run")
                && args.stream().noneMatch(a -> a.startsWith("--durability-window"))) {
            args = new ArrayList<>(args);
            args.addAll(List.of("--durability-window", IT_DURABILITY_WINDOW));
        }
        Path jar = jar();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("writer jar " + jar
                    + " not found: build it with `mvn -B package -DskipTests`" + " (or set -Dtsdbwriter.jar)");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildProcesses.javaBinary());
        cmd.addAll(jvmArgs);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(args);
        Path log = logFile.toAbsolutePath();
        try {
            if (log.getParent() != null) {
                Files.createDirectories(log.getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new WriterProcess(ChildProcesses.start(cmd, log, false), log, List.copyOf(cmd));
    }

    /** The jar that {@link #start} runs. */
    public static Path jar() {
        return Path.of(System.getProperty("tsdbwriter.jar", "target/tsdb-writer.jar"))
                .toAbsolutePath();
    }

    /**
     * Waits for the process to exit and returns its exit code.
     *
     * @throws IllegalStateException if it is still running after {@code timeout} (the process is left running; the
     *     message carries the tail of its output)
     */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("writer still running after " + timeout + ": "
                        + String.join(" ", command) + "; " + ChildProcesses.tailMessage(logFile));
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the writer", e);
        }
    }

    /** Sends SIGTERM (graceful shutdown request); does not wait. */
    public void sigterm() {
        process.destroy();
    }

    /** kill -9 and waits until it is gone. */
    public void kill() {
        ChildProcesses.kill(process);
    }

    /** True while running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** Everything the process printed so far (stdout and stderr merged). */
    public String output() {
        try {
            return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The log file holding {@link #output()}. */
    public Path logFile() {
        return logFile;
    }

    /** The full command line. */
    public List<String> command() {
        return command;
    }

    /** Kills the process (kill -9) if it is still running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
