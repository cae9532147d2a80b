package io.tsdbwriter.lab;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The machine line that heads a {@code bench} or {@code capacity} report. Stateless; thread-safe. */
public final class Machine {

    private Machine() {}

    /**
     * One line describing the machine: its cores ({@link SystemCpu#cores()}, whatever CPUs this process is placed on)
     * and their model (Linux' {@code /proc/cpuinfo}; the ratio of the writer's CPU to a TSDB's differs between CPU
     * models, so figures compare only on the same one), memory, JDK of the writer, VictoriaMetrics version, load.
     */
    public static String line(String vmVersion) {
        long mem = 0;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            mem = os.getTotalMemorySize();
        }
        return String.format(
                Locale.ROOT,
                "%d cores%s, %.1f GiB, %s %s (%s), Java %s, VictoriaMetrics %s, load %.2f at %s",
                SystemCpu.cores(),
                cpuModel().isEmpty() ? "" : " (" + cpuModel() + ")",
                mem / (1024.0 * 1024 * 1024),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.version(),
                vmVersion,
                SystemCpu.loadAverage(),
                Instant.now().toString().substring(0, 19) + "Z");
    }

    /** The CPU model this machine reports in {@code /proc/cpuinfo}, or empty where there is none (not Linux). */
    static String cpuModel() {
        try {
            return cpuModel(Files.readAllLines(Path.of("/proc/cpuinfo")));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * The first {@code model name} of {@code /proc/cpuinfo}'s lines, blanks collapsed (x86: "AMD EPYC", "Intel(R)
     * Xeon(R) Processor"); empty when no line names one.
     */
    static String cpuModel(List<String> cpuinfo) {
        for (String l : cpuinfo) {
            int colon = l.indexOf(':');
            if (colon > 0 && l.substring(0, colon).strip().equals("model name")) {
                return l.substring(colon + 1).strip().replaceAll("\\s+", " ");
            }
        }
        return "";
    }
}
