package io.tsdbwriter.bench;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.wire.Output;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The grid of a benchmark run: the flags' comma-separated lists ({@code --parallelism 1,3,6},
 * {@code --time-multiplier 1,6,12}, {@code --instance-multiplier 1}, {@code --write-mode async,sync}) and the cells
 * they span. Cells are ordered by N, then M, then P, then write mode, so the cells of one batch shape run together,
 * right after that shape's ceiling. Stateless; thread-safe.
 */
public final class BenchGrid {

    private BenchGrid() {}

    /**
     * Parses {@code 1,3,6} into distinct positive integers in the given order.
     *
     * @throws IllegalArgumentException naming {@code flag} when the list is empty, has a non-number, a value below 1
     *     or above {@code max}, or a duplicate
     */
    public static List<Integer> parsePositiveInts(String flag, String text, int max) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(flag + " needs at least one value");
        }
        Set<Integer> values = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String p = part.trim();
            int v;
            try {
                v = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + ": '" + p + "' is not a whole number (expected e.g. 1,3,6)");
            }
            if (v < 1 || v > max) {
                throw new IllegalArgumentException(flag + ": " + v + " is out of range 1.." + max);
            }
            if (!values.add(v)) {
                throw new IllegalArgumentException(flag + ": " + v + " is listed twice");
            }
        }
        return List.copyOf(values);
    }

    /**
     * Parses {@code async,sync}: the write modes of {@code run --write-mode}, distinct, case-insensitive.
     *
     * @throws IllegalArgumentException when a mode is neither async nor sync, or repeated
     */
    public static List<String> parseWriteModes(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--write-mode needs at least one of async, sync");
        }
        Set<String> modes = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String m = part.trim().toLowerCase(Locale.ROOT);
            if (!m.equals("async") && !m.equals("sync")) {
                throw new IllegalArgumentException("--write-mode: '" + part.trim() + "' is neither async nor sync");
            }
            if (!modes.add(m)) {
                throw new IllegalArgumentException("--write-mode: " + m + " is listed twice");
            }
        }
        return List.copyOf(modes);
    }

    /**
     * Parses {@code import,remote-write,remote-write-2}: the outputs of {@code run --output}, distinct; {@code remote-write-2}
     * is remote write in Remote-Write 2.0.
     *
     * @throws IllegalArgumentException when an output is neither, or repeated
     */
    public static List<String> parseOutputs(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--output needs at least one of import, remote-write, remote-write-2");
        }
        Set<String> outputs = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String o = BenchCell.REMOTE_WRITE_2.equals(part.trim().toLowerCase(Locale.ROOT))
                    ? BenchCell.REMOTE_WRITE_2
                    : Output.parse(part).flag();
            if (!outputs.add(o)) {
                throw new IllegalArgumentException("--output: " + o + " is listed twice");
            }
        }
        return List.copyOf(outputs);
    }

    /** Every combination, ordered by N, M, P, write mode, then output (each list in its given order). */
    public static List<BenchCell> cells(
            List<Integer> parallelism,
            List<Integer> timeMultipliers,
            List<Integer> instanceMultipliers,
            List<String> writeModes,
            List<String> outputs) {
        return cells(parallelism, timeMultipliers, instanceMultipliers, writeModes, outputs, List.of());
    }

    /**
     * Every combination, ordered by N, M, P, write mode, output, then receiver: with two or more
     * {@code remoteWriteUrls} each remote-write cell is run once per receiver (in the given order), so that receivers are
     * measured in one run; with one or none the remote-write cells name no receiver (the runner's default).
     */
    public static List<BenchCell> cells(
            List<Integer> parallelism,
            List<Integer> timeMultipliers,
            List<Integer> instanceMultipliers,
            List<String> writeModes,
            List<String> outputs,
            List<String> remoteWriteUrls) {
        List<BenchCell> cells = new ArrayList<>();
        for (BenchCell c : cells(parallelism, timeMultipliers, instanceMultipliers, writeModes)) {
            for (String o : outputs) {
                if (o.startsWith("remote-write") && remoteWriteUrls.size() > 1) {
                    for (String url : remoteWriteUrls) {
                        cells.add(new BenchCell(
                                c.parallelism(), c.timeMultiplier(), c.instanceMultiplier(), c.writeMode(), o, url));
                    }
                } else {
                    cells.add(new BenchCell(
                            c.parallelism(), c.timeMultiplier(), c.instanceMultiplier(), c.writeMode(), o));
                }
            }
        }
        return List.copyOf(cells);
    }

    /** Every combination, ordered by N, M, P, then write mode (each list in its given order). */
    public static List<BenchCell> cells(
            List<Integer> parallelism,
            List<Integer> timeMultipliers,
            List<Integer> instanceMultipliers,
            List<String> writeModes) {
        List<BenchCell> cells = new ArrayList<>();
        for (int n : instanceMultipliers) {
            for (int m : timeMultipliers) {
                for (int p : parallelism) {
                    for (String mode : writeModes) {
                        cells.add(new BenchCell(p, m, n, mode));
                    }
                }
            }
        }
        return List.copyOf(cells);
    }

    /**
     * {@code cells}, each followed by its share-mode cells: one per {@code shareProcesses} value K (K writer processes in
     * one share group, {@code shareParallelism} share consumers each), for the cells of the first {@code --parallelism}
     * only (a share cell does not depend on the segments' P).
     */
    public static List<BenchCell> withShareCells(
            List<BenchCell> cells, List<Integer> shareProcesses, int shareParallelism) {
        if (shareProcesses.isEmpty() || cells.isEmpty()) {
            return cells;
        }
        int firstP = cells.get(0).parallelism();
        List<BenchCell> out = new ArrayList<>();
        for (BenchCell c : cells) {
            out.add(c);
        }
        for (BenchCell c : cells) {
            if (c.parallelism() == firstP) {
                for (int k : shareProcesses) {
                    out.add(c.share(k, shareParallelism));
                }
            }
        }
        return List.copyOf(out);
    }

    /** The distinct batch shapes of {@code cells}, in first-seen order. */
    public static List<BenchCell.Shape> shapes(List<BenchCell> cells) {
        Set<BenchCell.Shape> shapes = new LinkedHashSet<>();
        for (BenchCell c : cells) {
            shapes.add(c.shape());
        }
        return List.copyOf(shapes);
    }
}
