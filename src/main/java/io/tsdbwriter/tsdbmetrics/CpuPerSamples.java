package io.tsdbwriter.tsdbmetrics;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * CPU seconds a target's processes used per million samples written, over the measured windows of a search's steps:
 * the growth of {@value #CPU} on the target's pages from each window's first reading to its last, summed over the
 * windows, ÷ the samples the writer wrote in the same windows ({@value #WRITTEN}'s growth), × 10⁶. A window counts
 * only when every page of the target was read at both of its ends with {@value #CPU}, the counter did not fall (a
 * restart) and the writer wrote something in it; the others are left out and counted.
 *
 * <p>Not thread-safe: filled by one thread (the search's), read after it.
 */
public final class CpuPerSamples {

    /** The process's CPU time (user + system), seconds. */
    public static final String CPU = "process_cpu_seconds_total";
    /** The writer's samples written (2xx), the divisor. */
    public static final String WRITTEN = "tsdbwriter_samples_written_total";

    private static final String METRICS = CPU + " ÷ " + WRITTEN + " × 10⁶";

    private double cpuSeconds;
    private double samples;
    private int windows;
    private int unreadable;
    private int withoutCpu;
    private int fell;
    private int nothingWritten;

    /**
     * One measured window.
     *
     * @param start          the target's pages at the window's start, one per process (an element null when unreadable)
     * @param end            the same pages at the window's end
     * @param samplesWritten samples the writer wrote between the two (NaN when unknown)
     */
    public void add(List<PromSnapshot> start, List<PromSnapshot> end, double samplesWritten) {
        if (start.isEmpty()
                || start.size() != end.size()
                || start.stream().anyMatch(Objects::isNull)
                || end.stream().anyMatch(Objects::isNull)) {
            unreadable++;
            return;
        }
        double used = 0;
        for (int i = 0; i < start.size(); i++) {
            used += end.get(i).sum(CPU) - start.get(i).sum(CPU);
        }
        if (Double.isNaN(used)) {
            withoutCpu++;
        } else if (used < 0) {
            fell++;
        } else if (!(samplesWritten > 0)) {
            nothingWritten++;
        } else {
            cpuSeconds += used;
            samples += samplesWritten;
            windows++;
        }
    }

    /** Windows counted so far. */
    public int windows() {
        return windows;
    }

    /**
     * CPU seconds per million samples written over the windows counted; unknown (NaN) without one, saying why: the
     * metric missing from the pages, or which windows were left out.
     */
    public CostFigures.Figure figure() {
        String left = leftOut();
        if (windows > 0) {
            return CostFigures.Figure.of(
                    cpuSeconds / samples * 1e6,
                    METRICS,
                    plural(windows, "measured window") + (left.isEmpty() ? "" : "; left out " + left));
        }
        if (withoutCpu > 0) {
            return CostFigures.Figure.unknown(METRICS, List.of(CPU), null);
        }
        return CostFigures.Figure.unknown(METRICS, List.of(), left.isEmpty() ? "no step measured" : "left out " + left);
    }

    private String leftOut() {
        StringBuilder b = new StringBuilder();
        append(b, unreadable, "page unreadable");
        append(b, withoutCpu, "CPU not exposed");
        append(b, fell, "CPU counter fell");
        append(b, nothingWritten, "nothing written");
        return b.toString();
    }

    private static void append(StringBuilder b, int n, String why) {
        if (n > 0) {
            b.append(b.isEmpty() ? "" : ", ")
                    .append(plural(n, "window"))
                    .append(": ")
                    .append(why);
        }
    }

    private static String plural(int n, String what) {
        return String.format(Locale.ROOT, "%d %s%s", n, what, n == 1 ? "" : "s");
    }
}
