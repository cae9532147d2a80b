package io.tsdbwriter.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * The real stack in one work dir: a {@link KafkaBroker} ({@code <workDir>/kafka/}) and a {@link VictoriaMetrics}
 * ({@code <workDir>/vm-data}, {@code <workDir>/victoria-metrics.log}), each on its own free loopback ports.
 *
 * <p>In tests: {@code try (LocalStack stack = LocalStack.start(dir)) { ... }}. From a shell (the demo), {@link #main}
 * starts the same stack and writes an env file:
 *
 * <pre>
 * java -cp target/test-classes:$(cat target/test.classpath) io.tsdbwriter.it.support.LocalStack \
 *      WORK_DIR ENV_FILE [--topic NAME:PARTITIONS]... [--vm-flag FLAG]... [--prometheus|--prometheus3] [--thanos]
 *      [--tsdb-cpus LIST] [--writer-cpus LIST] [--no-stdin] [--exit-with-parent]
 * </pre>
 *
 * <p>{@code --tsdb-cpus LIST} starts VictoriaMetrics (and Prometheus) under {@code taskset -c LIST}, {@code --writer-cpus
 * LIST} the Kafka broker: {@code bench}/{@code capacity --tsdb-cpus --writer-cpus} then find the TSDB already on its
 * CPUs, its GOMAXPROCS and concurrency limits sized for them.
 *
 * <p>{@code --prometheus3} starts Prometheus 3 instead, taking Remote-Write 1.0 and 2.0 ({@link PrometheusServer#startCurrent}).
 * {@code --prometheus} also starts a {@link PrometheusServer} ({@code <workDir>/prometheus/}, remote write receiver,
 * out-of-order window 30 days) and adds {@code PROMETHEUS_URL=} to the env file: a second remote write receiver for
 * {@code bench --output remote-write}. {@code --thanos} also starts a {@link ThanosReceive} ({@code <workDir>/thanos/},
 * at its defaults: no out-of-order window) and adds {@code THANOS_URL=} (its HTTP address: {@code /metrics}) and
 * {@code THANOS_REMOTE_WRITE_URL=}: with {@code --prometheus3}, the three receivers {@code scripts/compare-tsdbs.sh}
 * compares.
 *
 * <p>The env file gets {@code BOOTSTRAP_SERVERS=}, {@code VM_URL=}, {@code KAFKA_LOG=}, {@code VM_LOG=},
 * {@code STACK_PID=} lines, written to a temp file and moved into place atomically once both servers are ready and
 * the topics exist (so "the file exists" means "ready"). The process then stays up until SIGTERM/SIGINT, end of
 * standard input (unless {@code --no-stdin}), or — with {@code --exit-with-parent} — the exit of its parent process;
 * a shutdown hook stops both servers. Exit code 1 when the stack cannot start.
 *
 * <p>Thread-safety: the accessors may be called from any thread; {@link #close()} is idempotent and synchronized.
 */
public final class LocalStack implements AutoCloseable {

    private final KafkaBroker kafka;
    private final VictoriaMetrics vm;
    private boolean closed;

    private LocalStack(KafkaBroker kafka, VictoriaMetrics vm) {
        this.kafka = kafka;
        this.vm = vm;
    }

    /** Starts VictoriaMetrics, then Kafka, in {@code workDir}; returns when both are ready. */
    public static LocalStack start(Path workDir, String... vmExtraFlags) {
        VictoriaMetrics vm = VictoriaMetrics.start(workDir, vmExtraFlags);
        try {
            return new LocalStack(KafkaBroker.start(workDir), vm);
        } catch (RuntimeException e) {
            try {
                vm.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The broker. */
    public KafkaBroker kafka() {
        return kafka;
    }

    /** The VictoriaMetrics server. */
    public VictoriaMetrics vm() {
        return vm;
    }

    /** Same as {@code kafka().bootstrapServers()}. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** Same as {@code vm().url()}. */
    public String vmUrl() {
        return vm.url();
    }

    /** Writes the env file described in the class doc (temp file + atomic move). */
    public void writeEnvFile(Path envFile) {
        writeEnvFile(envFile, Map.of());
    }

    /** Writes the env file described in the class doc with {@code extra} lines after the stack's own. */
    public void writeEnvFile(Path envFile, Map<String, String> extra) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("BOOTSTRAP_SERVERS", bootstrapServers());
        env.put("VM_URL", vmUrl());
        env.put("KAFKA_LOG", kafka.logFile().toString());
        env.put("VM_LOG", vm.logFile().toString());
        env.put("STACK_PID", Long.toString(ProcessHandle.current().pid()));
        env.putAll(extra);
        StringBuilder text = new StringBuilder();
        env.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Path target = envFile.toAbsolutePath();
        try {
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(
                    target.getParent(), target.getFileName().toString(), ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    /** Stops Kafka and VictoriaMetrics (clean shutdown) and releases their ports. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (AutoCloseable part : List.<AutoCloseable>of(kafka, vm)) {
            try {
                part.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("stopping the local stack failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "LocalStack[" + kafka + ", " + vm + "]";
    }

    /** See the class doc for the arguments. */
    public static void main(String[] args) throws InterruptedException {
        List<String> positional = new ArrayList<>();
        Map<String, Integer> topics = new LinkedHashMap<>();
        List<String> vmFlags = new ArrayList<>();
        boolean watchStdin = true;
        boolean exitWithParent = false;
        boolean prometheus = false;
        boolean prometheus3 = false;
        boolean thanos = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--topic" -> {
                    String spec = requireValue(args, ++i, arg);
                    int colon = spec.lastIndexOf(':');
                    try {
                        topics.put(
                                colon < 0 ? spec : spec.substring(0, colon),
                                colon < 0 ? 1 : Integer.parseInt(spec.substring(colon + 1)));
                    } catch (NumberFormatException e) {
                        usage("bad --topic " + spec + " (expected NAME:PARTITIONS)");
                    }
                }
                case "--vm-flag" -> vmFlags.add(requireValue(args, ++i, arg));
                case "--tsdb-cpus" -> System.setProperty(ChildProcesses.TSDB_CPUS, requireValue(args, ++i, arg));
                case "--writer-cpus" -> System.setProperty(ChildProcesses.KAFKA_CPUS, requireValue(args, ++i, arg));
                case "--prometheus" -> prometheus = true;
                case "--prometheus3" -> prometheus3 = true;
                case "--thanos" -> thanos = true;
                case "--no-stdin" -> watchStdin = false;
                case "--exit-with-parent" -> exitWithParent = true;
                case "-h", "--help" -> usage(null);
                default -> {
                    if (arg.startsWith("--")) {
                        usage("unknown option " + arg);
                    }
                    positional.add(arg);
                }
            }
        }
        if (positional.size() != 2) {
            usage("expected WORK_DIR and ENV_FILE");
        }
        Path workDir = Path.of(positional.get(0)).toAbsolutePath();
        Path envFile = Path.of(positional.get(1)).toAbsolutePath();

        LocalStack stack;
        try {
            stack = start(workDir, vmFlags.toArray(String[]::new));
        } catch (RuntimeException e) {
            System.err.println("LocalStack: cannot start the stack in " + workDir + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        PrometheusServer[] receiver = new PrometheusServer[1];
        ThanosReceive[] thanosReceive = new ThanosReceive[1];
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            System.err.println("LocalStack: stopping Kafka and VictoriaMetrics");
                            if (receiver[0] != null) {
                                receiver[0].close();
                            }
                            if (thanosReceive[0] != null) {
                                thanosReceive[0].close();
                            }
                            stack.close();
                            System.err.println("LocalStack: stopped");
                        },
                        "localstack-shutdown"));
        try {
            topics.forEach((name, partitions) -> stack.kafka().createTopic(name, partitions));
            if (prometheus) {
                receiver[0] = PrometheusServer.start(workDir.resolve("prometheus"), Duration.ofDays(30));
            } else if (prometheus3) {
                receiver[0] = PrometheusServer.startCurrent(
                        workDir.resolve("prometheus"),
                        Duration.ofDays(30),
                        "prometheus.WriteRequest",
                        "io.prometheus.write.v2.Request");
            }
            Map<String, String> env = new LinkedHashMap<>();
            if (receiver[0] != null) {
                env.put("PROMETHEUS_URL", receiver[0].url());
            }
            if (thanos) {
                String missing = ThanosReceive.unavailable();
                if (missing != null) {
                    throw new IllegalStateException("--thanos: " + missing);
                }
                thanosReceive[0] = ThanosReceive.start(workDir.resolve("thanos"));
                env.put("THANOS_URL", thanosReceive[0].url());
                env.put("THANOS_REMOTE_WRITE_URL", thanosReceive[0].remoteWriteUrl());
            }
            stack.writeEnvFile(envFile, env);
        } catch (RuntimeException e) {
            System.err.println("LocalStack: " + e.getMessage());
            System.exit(1);
        }
        System.out.println("LocalStack ready: BOOTSTRAP_SERVERS=" + stack.bootstrapServers() + " VM_URL="
                + stack.vmUrl() + (topics.isEmpty() ? "" : " topics=" + topics) + " (env: " + envFile + ")");
        System.out.flush();

        if (watchStdin) {
            Thread stdin = new Thread(
                    () -> {
                        try {
                            InputStream in = System.in;
                            byte[] buffer = new byte[256];
                            while (in.read(buffer) >= 0) {
                                // ignore whatever is typed; only end-of-input matters
                            }
                        } catch (IOException e) {
                            // treat like end of input
                        }
                        System.err.println("LocalStack: end of standard input, shutting down");
                        System.exit(0);
                    },
                    "localstack-stdin");
            stdin.setDaemon(true);
            stdin.start();
        }
        if (exitWithParent) {
            ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
                System.err.println("LocalStack: parent process " + parent.pid() + " exited, shutting down");
                System.exit(0);
            }));
        }
        new CountDownLatch(1).await();
    }

    private static String requireValue(String[] args, int index, String option) {
        if (index >= args.length) {
            usage(option + " needs a value");
        }
        return args[index];
    }

    private static void usage(String problem) {
        if (problem != null) {
            System.err.println("LocalStack: " + problem);
        }
        System.err.println(
                "usage: LocalStack WORK_DIR ENV_FILE [--topic NAME:PARTITIONS]... [--vm-flag FLAG]..."
                        + " [--prometheus|--prometheus3] [--thanos] [--tsdb-cpus LIST] [--writer-cpus LIST] [--no-stdin] [--exit-with-parent]");
        System.exit(problem == null ? 0 : 2);
    }

    /**
     * Child-process plumbing shared by the fixtures of this package: one long-lived spawner thread (so that
     * {@code setpriv --pdeathsig KILL}, which is tied to the thread that forked the child, only fires when this JVM
     * dies), a registry of live children with a shutdown hook that stops them, and log helpers.
     */
    static final class ChildProcesses {

        private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
        private static final ExecutorService SPAWNER = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "tsdbwriter-fixture-spawner");
            thread.setDaemon(true);
            return thread;
        });
        private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
        private static final boolean USE_SETPRIV =
                Files.isExecutable(SETPRIV) && !Boolean.getBoolean("tsdbwriter.noPdeathsig");
        private static final Duration REAPER_GRACE = Duration.ofSeconds(30);
        private static final AtomicBoolean QUIETED = new AtomicBoolean();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::reapAll, "tsdbwriter-fixture-reaper"));
        }

        private ChildProcesses() {}

        /** The running JVM's java launcher. */
        static String javaBinary() {
            return ProcessHandle.current()
                    .info()
                    .command()
                    .filter(c -> c.endsWith("/java"))
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                            .toString());
        }

        /** JVM flags that silence warnings of newer JDKs about libraries' Unsafe/native use. */
        static List<String> quietJvmFlags() {
            if (Runtime.version().feature() >= 24) {
                return List.of("--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED");
            }
            return List.of();
        }

        /** Writes a java @argfile with {@code -cp <this JVM's test classpath>}. */
        static void writeClasspathArgFile(Path argFile) throws IOException {
            String cp = System.getProperty("surefire.test.class.path");
            if (cp == null || cp.isBlank()) {
                cp = System.getProperty("java.class.path");
            }
            String quoted = cp.replace("\\", "\\\\").replace("\"", "\\\"");
            Files.writeString(argFile, "-cp \"" + quoted + "\"\n", StandardCharsets.UTF_8);
        }

        /** System property: the CPUs (a cpulist) the TSDBs (VictoriaMetrics, Prometheus) start on; unset = all. */
        static final String TSDB_CPUS = "tsdbwriter.tsdb.cpus";
        /** System property: the CPUs (a cpulist) the Kafka broker starts on; unset = all. */
        static final String KAFKA_CPUS = "tsdbwriter.kafka.cpus";

        /**
         * {@code taskset -c <cpus> command…} when the system property {@code cpusProperty} ({@link #TSDB_CPUS},
         * {@link #KAFKA_CPUS}) is set, else {@code command}: a Go TSDB sizes GOMAXPROCS (and VictoriaMetrics
         * {@code -maxConcurrentInserts}) from its CPU affinity at its start, so it starts on its CPUs.
         */
        static List<String> onCpus(String cpusProperty, List<String> command) {
            String cpus = System.getProperty(cpusProperty, "");
            if (cpus.isBlank()) {
                return command;
            }
            List<String> cmd = new ArrayList<>(List.of("taskset", "-c", cpus));
            cmd.addAll(command);
            return cmd;
        }

        /**
         * Starts {@code command} with stdout+stderr to {@code log} (appended or truncated), stdin a pipe that is never
         * written, from the spawner thread; registers it for the shutdown hook.
         */
        static Process start(List<String> command, Path log, boolean append) {
            List<String> cmd = new ArrayList<>();
            if (USE_SETPRIV) {
                cmd.addAll(List.of(SETPRIV.toString(), "--pdeathsig", "KILL", "--"));
            }
            cmd.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(
                            append
                                    ? ProcessBuilder.Redirect.appendTo(log.toFile())
                                    : ProcessBuilder.Redirect.to(log.toFile()));
            try {
                Process process = SPAWNER.submit(builder::start).get();
                LIVE.add(process);
                process.onExit().thenRun(() -> LIVE.remove(process));
                return process;
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot start " + String.join(" ", cmd), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + command.get(0), e);
            }
        }

        /** SIGTERM, wait up to {@code grace}, then kill -9; descendants that outlive it are killed too. */
        static void terminate(Process process, Duration grace) {
            if (!process.isAlive()) {
                return;
            }
            List<ProcessHandle> descendants = process.descendants().toList();
            process.destroy();
            try {
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    System.err.println(
                            "[fixtures] pid " + process.pid() + " ignored SIGTERM for " + grace + ": kill -9");
                    kill(process);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill(process);
            }
            descendants.forEach(ProcessHandle::destroyForcibly);
        }

        /** kill -9 the process and its descendants; waits until the process is gone. */
        static void kill(Process process) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            boolean interrupted = false;
            while (true) {
                try {
                    process.waitFor();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        private static void reapAll() {
            List<Process> live = List.copyOf(LIVE);
            if (live.isEmpty()) {
                return;
            }
            for (Process process : live) {
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
            }
            Instant deadline = Instant.now().plus(REAPER_GRACE);
            for (Process process : live) {
                try {
                    long left = Math.max(
                            1, Duration.between(Instant.now(), deadline).toMillis());
                    if (!process.waitFor(left, TimeUnit.MILLISECONDS)) {
                        process.descendants().forEach(ProcessHandle::destroyForcibly);
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                }
            }
        }

        /** Appends a "=== time message" line to a log file (creating it). */
        static void appendMarker(Path log, String message) {
            try {
                Files.createDirectories(log.toAbsolutePath().getParent());
                Files.writeString(
                        log,
                        "=== " + Instant.now() + " [fixtures] " + message + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static long size(Path file) {
            try {
                return Files.exists(file) ? Files.size(file) : 0;
            } catch (IOException e) {
                return 0;
            }
        }

        /** The file's text from byte {@code offset} on ("" if unreadable). */
        static String readFrom(Path file, long offset) {
            if (!Files.exists(file)) {
                return "";
            }
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
                long start = Math.min(Math.max(0, offset), raf.length());
                byte[] bytes = new byte[(int) Math.min(raf.length() - start, 4 << 20)];
                raf.seek(raf.length() - bytes.length);
                raf.readFully(bytes);
                return new String(bytes, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }

        /** The last {@code lines} lines of a file ("" if unreadable). */
        static String tail(Path file, int lines) {
            String text = readFrom(file, Math.max(0, size(file) - 256 * 1024));
            String[] all = text.split("\n", -1);
            int from = Math.max(0, all.length - lines - 1);
            return String.join("\n", Arrays.asList(all).subList(from, all.length))
                    .strip();
        }

        /** "last 60 lines of FILE:\n..." for exception messages. */
        static String tailMessage(Path file) {
            return "last 60 lines of " + file + ":\n" + tail(file, 60);
        }

        /** Renames a directory to {@code <dir>.<suffix>} (to keep the logs of a failed attempt). */
        static void moveAside(Path dir, String suffix) {
            try {
                if (Files.exists(dir)) {
                    Files.move(
                            dir,
                            dir.resolveSibling(dir.getFileName() + "." + suffix),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * Kafka clients log a lot at logback's default level (DEBUG, when no logback config is on the classpath):
         * then, and only then, set {@code org.apache.kafka} to WARN in this JVM.
         */
        static void quietKafkaClientLogs() {
            if (!QUIETED.compareAndSet(false, true) || System.getProperty("logback.configurationFile") != null) {
                return;
            }
            ClassLoader loader = ChildProcesses.class.getClassLoader();
            if (loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null) {
                return;
            }
            if (LoggerFactory.getLogger("org.apache.kafka") instanceof ch.qos.logback.classic.Logger logger
                    && logger.getLevel() == null) {
                logger.setLevel(ch.qos.logback.classic.Level.WARN);
            }
        }
    }
}
