package io.tsdbwriter.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's CPU use from Linux {@code /proc/stat} and {@code /proc/loadavg}, to tell how busy the rest of the
 * machine was while a cell ran (others may share it). NaN where the files are missing. Stateless; thread-safe.
 */
public final class SystemCpu {

    /** Kernel clock ticks per second ({@code USER_HZ}); 100 on every mainstream Linux. */
    static final double USER_HZ = 100.0;

    private SystemCpu() {}

    /** Busy CPU-seconds of all cores since boot (user+nice+system+irq+softirq+steal), or NaN. */
    public static double busySeconds() {
        try {
            return busySeconds(Files.readString(Path.of("/proc/stat")));
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Parses the aggregate {@code cpu} line of {@code /proc/stat}. */
    static double busySeconds(String procStat) {
        for (String line : procStat.split("\n")) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+");
                // cpu user nice system idle iowait irq softirq steal guest guest_nice
                long busy = 0;
                int[] fields = {1, 2, 3, 6, 7, 8};
                for (int i : fields) {
                    if (i < f.length) {
                        busy += Long.parseLong(f[i]);
                    }
                }
                return busy / USER_HZ;
            }
        }
        return Double.NaN;
    }

    /**
     * The machine's CPUs: the {@code cpuN} lines of {@code /proc/stat} (the CPUs {@link #busySeconds()} sums), else
     * this JVM's {@code availableProcessors()} — which is not the machine's once the process is pinned to a CPU set
     * ({@code --writer-cpus}).
     */
    public static int cores() {
        try {
            int n = cores(Files.readString(Path.of("/proc/stat")));
            return n > 0 ? n : Runtime.getRuntime().availableProcessors();
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** The {@code cpuN} lines of a {@code /proc/stat} text. */
    static int cores(String procStat) {
        int n = 0;
        for (String line : procStat.split("\n")) {
            if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
                n++;
            }
        }
        return n;
    }

    /** The 1-minute load average, or NaN. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(
                    Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
