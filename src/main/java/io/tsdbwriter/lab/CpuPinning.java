package io.tsdbwriter.lab;

import io.tsdbwriter.write.http.SafeUrl;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Placement} carried out on this Linux machine: the processes that listen on the TSDB's and Kafka's ports
 * found with {@code ss -Htlnp 'sport = :PORT'}, their CPU affinity read from {@code /proc/PID/status}
 * ({@code Cpus_allowed_list}) and set with {@code taskset -a -p -c} (util-linux). {@link #plan} checks everything that
 * can be checked before a run (the refusals are usage errors); {@link Plan#apply} moves the processes. Stateless
 * static methods; thread-safe.
 */
public final class CpuPinning {

    private static final Pattern PID = Pattern.compile("pid=(\\d+)");
    private static final Pattern ALLOWED = Pattern.compile("(?m)^Cpus_allowed_list:\\s*(\\S+)\\s*$");

    private CpuPinning() {}

    /**
     * The CPUs a process of this machine may be placed on: {@code /sys/devices/system/cpu/online}, within this
     * process's cgroup cpuset when one is readable (cgroup v2 {@code cpuset.cpus.effective}, v1
     * {@code cpuset.effective_cpus}). Not this process's own affinity: taskset may widen it within the cpuset.
     *
     * @throws IOException when the online CPUs are unreadable
     */
    public static CpuList available() throws IOException {
        CpuList online =
                CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online"), StandardCharsets.US_ASCII)
                        .strip());
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"), StandardCharsets.UTF_8)) {
                String[] f = line.split(":", 3); // hierarchy-id:controllers:path
                Path cpuset = f.length < 3
                        ? null
                        : f[1].isEmpty()
                                ? Path.of("/sys/fs/cgroup" + f[2], "cpuset.cpus.effective")
                                : List.of(f[1].split(",")).contains("cpuset")
                                        ? Path.of("/sys/fs/cgroup/cpuset" + f[2], "cpuset.effective_cpus")
                                        : null;
                if (cpuset != null && Files.isReadable(cpuset)) {
                    String text =
                            Files.readString(cpuset, StandardCharsets.US_ASCII).strip();
                    if (!text.isEmpty()) {
                        return online.intersect(CpuList.parse(text));
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            // no readable cpuset: the online CPUs
        }
        return online;
    }

    /** The {@code Cpus_allowed_list} of a process, empty when it is gone or unreadable. */
    public static Optional<CpuList> cpusAllowed(long pid) {
        try {
            return cpusAllowedOf(Files.readString(Path.of("/proc/" + pid + "/status"), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The {@code Cpus_allowed_list} of a {@code /proc/PID/status} text. */
    static Optional<CpuList> cpusAllowedOf(String status) {
        Matcher m = ALLOWED.matcher(status);
        return m.find() ? Optional.of(CpuList.parse(m.group(1))) : Optional.empty();
    }

    /** The pids {@code ss -Htlnp} prints ({@code users:(("name",pid=1234,fd=7))}), distinct, in order. */
    static List<Long> pidsOf(String ssOutput) {
        List<Long> pids = new ArrayList<>();
        Matcher m = PID.matcher(ssOutput);
        while (m.find()) {
            long pid = Long.parseLong(m.group(1));
            if (!pids.contains(pid)) {
                pids.add(pid);
            }
        }
        return pids;
    }

    /**
     * Who listens on a TCP port of this machine: {@code listening} when {@code ss} shows a listener, {@code pids} the
     * processes it names (empty when they belong to another user).
     */
    record Listener(boolean listening, List<Long> pids) {}

    static Listener listener(int port) throws IOException {
        String out = run(List.of("ss", "-Htlnp", "sport = :" + port));
        return new Listener(!out.isBlank(), pidsOf(out));
    }

    /** True when {@code executable} is a file on the PATH that may be executed. */
    static boolean onPath(String executable) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, executable))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks a placement against this machine before a run and finds the processes to move: the TSDB's listeners on
     * the ports of {@code tsdbUrls} (when the placement has TSDB CPUs) and Kafka's on the ports of the local
     * {@code bootstrapServers}. Nothing when shared.
     *
     * @throws IllegalArgumentException one line: not Linux, {@code taskset} or {@code ss} missing, the CPU lists
     *     unreadable, or a TSDB URL with no process of this machine (of this user) listening on its port
     */
    public static Plan plan(Placement placement, List<String> tsdbUrls, String bootstrapServers) {
        if (placement.shared()) {
            return new Plan(placement, Map.of(), Map.of());
        }
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            throw new IllegalArgumentException(
                    "--tsdb-cpus and --writer-cpus work on Linux only (this is " + System.getProperty("os.name") + ")");
        }
        for (String tool : List.of("taskset", "ss")) {
            if (!onPath(tool)) {
                throw new IllegalArgumentException("--tsdb-cpus/--writer-cpus need " + tool + " on the PATH ("
                        + (tool.equals("ss") ? "iproute2" : "util-linux") + "): install it, e.g. apt-get install -y "
                        + (tool.equals("ss") ? "iproute2" : "util-linux"));
            }
        }
        Map<Long, String> tsdb = new LinkedHashMap<>();
        Map<Long, String> kafka = new LinkedHashMap<>();
        try {
            if (placement.tsdbCpus() != null) {
                for (String url : tsdbUrls) {
                    URI u = URI.create(url);
                    int port = u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
                    Listener l = local(u.getHost()) ? listener(port) : new Listener(false, List.of());
                    if (!l.listening()) {
                        throw new IllegalArgumentException("--tsdb-cpus: no process of this machine listens on port "
                                + port + " of " + SafeUrl.redact(url) + " (the TSDB runs elsewhere): drop --tsdb-cpus");
                    }
                    if (l.pids().isEmpty()) {
                        throw new IllegalArgumentException("--tsdb-cpus: the process listening on port " + port
                                + " belongs to another user: run as that user or root to place it");
                    }
                    l.pids().forEach(pid -> tsdb.putIfAbsent(pid, url));
                }
            }
            for (String server : bootstrapServers.split(",")) {
                int colon = server.lastIndexOf(':');
                if (colon > 0 && local(server.substring(0, colon).strip())) {
                    listener(Integer.parseInt(server.substring(colon + 1).strip()))
                            .pids()
                            .forEach(pid -> kafka.putIfAbsent(pid, server.strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--tsdb-cpus/--writer-cpus: cannot find the local processes: " + e.getMessage());
        }
        return new Plan(placement, tsdb, kafka);
    }

    /** True when {@code host} names this machine (loopback, the wildcard, or an address of one of its interfaces). */
    static boolean local(String host) {
        try {
            InetAddress a = InetAddress.getByName(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
            return a.isLoopbackAddress() || a.isAnyLocalAddress() || NetworkInterface.getByInetAddress(a) != null;
        } catch (UnknownHostException | SocketException e) {
            return false;
        }
    }

    /**
     * What a placement moves: the TSDB's processes (pid → the URL they were found by) and the local Kafka broker's
     * (pid → bootstrap server), and whether this process goes with the broker onto the writer CPUs ({@code placesSelf};
     * false for a search side by side with others: {@link #beside}). Immutable.
     */
    public record Plan(Placement placement, Map<Long, String> tsdb, Map<Long, String> kafka, boolean placesSelf) {

        /** No placement: {@link Placement#SHARED}, nothing to move. */
        public static final Plan SHARED = new Plan(Placement.SHARED, Map.of(), Map.of());

        /** A plan that places this process and Kafka too ({@link #apply}). */
        public Plan(Placement placement, Map<Long, String> tsdb, Map<Long, String> kafka) {
            this(placement, tsdb, kafka, true);
        }

        /**
         * This plan without this process and Kafka: {@link #apply} moves the TSDB's processes and starts the writers on
         * the writer CPUs, and leaves this process and the broker where they are (searches side by side share them:
         * {@link #placeSelf} of another plan put them on CPUs of their own).
         */
        public Plan beside() {
            return new Plan(placement, tsdb, Map.of(), false);
        }

        /**
         * Moves this JVM (all its threads: the ceiling's client, the Kafka feeder) and the local Kafka broker onto the
         * writer CPUs, and each TSDB process whose affinity differs from the TSDB CPUs onto them, with a warning: a Go
         * TSDB sized GOMAXPROCS and its concurrency limits (VictoriaMetrics' {@code -maxConcurrentInserts}) from its
         * affinity at its start. One line per move on {@code progress}.
         *
         * @throws IOException when {@code taskset} fails
         */
        public void apply(Consumer<String> progress) throws IOException {
            if (placement.shared()) {
                return;
            }
            CpuList writer = placement.writerCpus();
            if (placesSelf) {
                placeSelf(progress);
            }
            for (var e : tsdb.entrySet()) {
                CpuList tsdbCpus = placement.tsdbCpus();
                Optional<CpuList> now = cpusAllowed(e.getKey());
                if (now.isPresent() && now.get().equals(tsdbCpus)) {
                    progress.accept("placement: TSDB (pid " + e.getKey() + ") started on CPUs " + tsdbCpus);
                    continue;
                }
                pin(e.getKey(), tsdbCpus);
                progress.accept("placement: warning: TSDB (pid " + e.getKey() + ") was on CPUs "
                        + now.map(CpuList::toString).orElse("?")
                        + ", moved to " + tsdbCpus
                        + "; its GOMAXPROCS and concurrency limits were sized at its start: start it with"
                        + " taskset -c " + tsdbCpus + " for figures as on a machine of its own");
            }
            progress.accept("placement: writer processes start with taskset -c " + writer);
        }

        /**
         * Moves this JVM (all its threads: the ceiling's client, the Kafka producers) and the local Kafka broker onto the
         * writer CPUs, one line each on {@code progress}; nothing when shared ({@link #apply}'s first part).
         *
         * @throws IOException when {@code taskset} fails
         */
        public void placeSelf(Consumer<String> progress) throws IOException {
            if (placement.shared()) {
                return;
            }
            CpuList writer = placement.writerCpus();
            pin(ProcessHandle.current().pid(), writer);
            progress.accept("placement: this process (the ceiling's client, the Kafka producer) on CPUs " + writer);
            for (var e : kafka.entrySet()) {
                pin(e.getKey(), writer);
                progress.accept("placement: Kafka (pid " + e.getKey() + ", " + e.getValue() + ") on CPUs " + writer);
            }
            if (kafka.isEmpty()) {
                progress.accept(
                        "placement: no Kafka broker of this machine listens on the bootstrap servers: not placed");
            }
        }
    }

    /**
     * Moves every thread of a running process onto {@code cpus} ({@link Placement#pinCommand}).
     *
     * @throws IOException when taskset fails (its output in the message)
     */
    public static void pin(long pid, CpuList cpus) throws IOException {
        run(Placement.pinCommand(pid, cpus));
    }

    private static String run(List<String> cmd) throws IOException {
        Process p = ChildProcess.of(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not end in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.strip());
        }
        return out;
    }
}
