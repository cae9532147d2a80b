package io.tsdbwriter.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * Where {@code bench} and {@code capacity} put the TSDB and the writer side (the writer processes, this command's own
 * JVM with the ceiling's client and the Kafka feeder, a local Kafka broker): on the same CPUs as everything else
 * ({@link #SHARED}), or on disjoint CPU sets ({@code --tsdb-cpus}, {@code --writer-cpus}). On one machine the writer's
 * CPU is taken from the TSDB, which caps the share of the ceiling a writer can reach near 1 ÷ (1 + writer/TSDB CPU
 * ratio); in production the TSDB has its own machine, which disjoint sets imitate.
 *
 * @param tsdbCpus   the TSDB's CPUs; null when the TSDB is not placed
 * @param writerCpus the writer side's CPUs; null when shared
 *
 * <p>Immutable; thread-safe.
 */
public record Placement(CpuList tsdbCpus, CpuList writerCpus) {

    /** Nothing placed: every process on every CPU. */
    public static final Placement SHARED = new Placement(null, null);

    /**
     * The placement of the flags {@code --tsdb-cpus} and {@code --writer-cpus} (either may be null: not given).
     *
     * @param available the CPUs processes may be placed on (online, within the cpuset)
     * @throws IllegalArgumentException naming the flag when a list does not parse, holds a CPU outside
     *     {@code available}, {@code --tsdb-cpus} comes without {@code --writer-cpus}, or the two sets overlap
     */
    public static Placement of(String tsdbCpus, String writerCpus, CpuList available) {
        if (tsdbCpus == null && writerCpus == null) {
            return SHARED;
        }
        if (writerCpus == null) {
            throw new IllegalArgumentException(
                    "--tsdb-cpus needs --writer-cpus (the writer side's CPUs, disjoint from the TSDB's)");
        }
        CpuList tsdb = tsdbCpus == null ? null : list("--tsdb-cpus", tsdbCpus, available);
        CpuList writer = list("--writer-cpus", writerCpus, available);
        if (tsdb != null && !tsdb.disjoint(writer)) {
            throw new IllegalArgumentException("--tsdb-cpus " + tsdb + " and --writer-cpus " + writer + " share CPU "
                    + tsdb.intersect(writer) + ": the two sets must be disjoint");
        }
        return new Placement(tsdb, writer);
    }

    private static CpuList list(String flag, String text, CpuList available) {
        CpuList cpus;
        try {
            cpus = CpuList.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": " + e.getMessage());
        }
        CpuList missing = cpus.minus(available);
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(flag + " " + cpus + ": CPU " + missing
                    + " is not online or not in this machine's cpuset" + " (available: " + available + ")");
        }
        return cpus;
    }

    /** True when nothing is placed. */
    public boolean shared() {
        return writerCpus == null;
    }

    /** The placement column and header: {@code shared}, {@code tsdb=0 writer=1}, or {@code writer=1} (TSDB not placed). */
    public String label() {
        if (shared()) {
            return "shared";
        }
        return (tsdbCpus == null ? "" : "tsdb=" + tsdbCpus + " ") + "writer=" + writerCpus;
    }

    /**
     * A writer-side process's command: {@code taskset -c <writer CPUs> <command…>} (taskset execs the command, so the
     * process keeps its pid), or {@code command} itself when shared.
     */
    public List<String> writerCommand(List<String> command) {
        return shared() ? command : startCommand(writerCpus, command);
    }

    /** {@code taskset -c <cpus> <command…>}: the command started on {@code cpus}. */
    public static List<String> startCommand(CpuList cpus, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of("taskset", "-c", cpus.toString()));
        cmd.addAll(command);
        return cmd;
    }

    /** {@code taskset -a -p -c <cpus> <pid>}: every thread of a running process moved onto {@code cpus}. */
    public static List<String> pinCommand(long pid, CpuList cpus) {
        return List.of("taskset", "-a", "-p", "-c", cpus.toString(), Long.toString(pid));
    }
}
