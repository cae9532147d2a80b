package io.tsdbwriter.lab;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Locale;

/** The machine line that heads a {@code bench} or {@code capacity} report. Stateless; thread-safe. */
public final class Machine {

    private Machine() {}

    /**
     * One line describing the machine: its cores ({@link SystemCpu#cores()}, whatever CPUs this process is placed on),
     * memory, JDK of the writer, VictoriaMetrics version, load.
     */
    public static String line(String vmVersion) {
        long mem = 0;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            mem = os.getTotalMemorySize();
        }
        return String.format(
                Locale.ROOT,
                "%d cores, %.1f GiB, %s %s (%s), Java %s, VictoriaMetrics %s, load %.2f at %s",
                SystemCpu.cores(),
                mem / (1024.0 * 1024 * 1024),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.version(),
                vmVersion,
                SystemCpu.loadAverage(),
                Instant.now().toString().substring(0, 19) + "Z");
    }
}
