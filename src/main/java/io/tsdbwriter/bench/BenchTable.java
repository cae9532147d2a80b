package io.tsdbwriter.bench;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import io.tsdbwriter.lab.Figures;
import io.tsdbwriter.lab.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's table, as text (a Markdown table, so it pastes into docs as is) and as CSV; a cell's ingest delay
 * p50/p99 (acknowledged, committed: {@link io.tsdbwriter.lab.IngestDelays}) stands beside its rates. One row per
 * ceiling (before the cells of its shape) and one per cell; every row names the run's {@link Placement#label() placement}
 * (the ceiling's client runs on the writer CPUs, so the ceiling row has it too). When a cell had a histogram share
 * ({@code --histogram-series}), the histograms' columns ({@link #HISTOGRAM_HEADER}, {@link #HISTOGRAM_CSV_HEADER}) stand
 * before the placement: the share of the samples expected that were the histograms', and the native histograms written
 * with their buckets. Stateless; thread-safe.
 */
public final class BenchTable {

    /** Columns of the printed table. */
    static final List<String> HEADER = List.of(
            "mode",
            "P",
            "M",
            "N",
            "samples/min expected",
            "samples/min actual",
            "efficiency",
            "ack delay p50/p99 s",
            "commit delay p50/p99 s",
            "writer CPU-s / M samples",
            "VM CPU-s / M samples",
            "writer/VM CPU",
            "peak heap",
            "vs ceiling",
            "placement");

    /** Columns of the CSV. */
    static final List<String> CSV_HEADER = List.of(
            "kind",
            "mode",
            "parallelism",
            "time_multiplier",
            "instance_multiplier",
            "exit_code",
            "points",
            "samples_expected",
            "samples_written",
            "seconds",
            "samples_per_min_expected",
            "samples_per_min_actual",
            "efficiency",
            "writer_cpu_seconds",
            "vm_cpu_seconds",
            "writer_cpu_s_per_million",
            "vm_cpu_s_per_million",
            "writer_to_vm_cpu",
            "peak_heap_bytes",
            "ceiling_samples_per_min",
            "ratio_to_ceiling",
            "input_points_per_second",
            "other_cpu_seconds",
            "load_average",
            "concurrency",
            "client_cpu_s_per_million",
            "ingest_delay_acknowledged_p50_seconds",
            "ingest_delay_acknowledged_p99_seconds",
            "ingest_delay_committed_p50_seconds",
            "ingest_delay_committed_p99_seconds",
            "placement");

    /** The printed table's histogram columns, before the placement when a cell had a histogram share. */
    static final List<String> HISTOGRAM_HEADER = List.of("histogram share", "native histograms (buckets)");

    /** The CSV's histogram columns, before the placement when a cell had a histogram share. */
    static final List<String> HISTOGRAM_CSV_HEADER =
            List.of("histogram_samples_expected", "histograms_written", "histogram_buckets_written");

    private BenchTable() {}

    /** Whether a cell had a histogram share: the histogram columns are shown. */
    static boolean histograms(List<CellResult> cells) {
        return cells.stream().anyMatch(r -> r.histograms().samples() != 0);
    }

    /** {@code columns}, with {@code histogramColumns} before the last (the placement) when {@code histograms}. */
    static List<String> withHistograms(List<String> columns, boolean histograms, List<String> histogramColumns) {
        if (!histograms) {
            return columns;
        }
        List<String> all = new ArrayList<>(columns.subList(0, columns.size() - 1));
        all.addAll(histogramColumns);
        all.add(columns.get(columns.size() - 1));
        return all;
    }

    /** A cell's printed histogram columns: {@code 45%}, {@code 1,200 (96,000)} or {@code –} through the import API. */
    static List<String> histogramCells(CellResult r) {
        CellResult.Histograms h = r.histograms();
        return List.of(
                h.samples() < 0
                        ? "–"
                        : Figures.percent(
                                r.samplesExpected() > 0 ? (double) h.samples() / r.samplesExpected() : Double.NaN),
                h.written() > 0 ? String.format(Locale.ROOT, "%,d (%,d)", h.written(), h.buckets()) : "–");
    }

    /** The rows in print order: each shape's ceiling, then that shape's cells in run order. */
    static List<List<String>> rows(String placement, List<CeilingResult> ceilings, List<CellResult> cells) {
        List<List<String>> rows = new ArrayList<>();
        boolean histograms = histograms(cells);
        List<String> noHistograms = List.of("–", "–");
        List<BenchCell.Shape> shapes = new ArrayList<>();
        ceilings.forEach(c -> shapes.add(c.shape()));
        cells.forEach(r -> {
            if (!shapes.contains(r.cell().shape())) {
                shapes.add(r.cell().shape());
            }
        });
        for (BenchCell.Shape shape : shapes) {
            CeilingResult ceiling = null;
            for (CeilingResult c : ceilings) {
                if (c.shape().equals(shape)) {
                    ceiling = c;
                    rows.add(withHistograms(
                            List.of(
                                    "ceiling" + (shape.remoteWrite() ? " " + shape.output() : "") + " (C="
                                            + c.concurrency() + ")",
                                    "–",
                                    Integer.toString(shape.timeMultiplier()),
                                    Integer.toString(shape.instanceMultiplier()),
                                    "–",
                                    Figures.count(c.perMinute()),
                                    "–",
                                    "–",
                                    "–",
                                    "–",
                                    decimal(c.vmCpuPerMillion(), 2),
                                    "–",
                                    "–",
                                    "100%",
                                    placement),
                            histograms,
                            noHistograms));
                }
            }
            for (CellResult r : cells) {
                if (!r.cell().shape().equals(shape)) {
                    continue;
                }
                BenchCell cell = r.cell();
                rows.add(withHistograms(
                        List.of(
                                r.modeLabel() + (r.ok() ? "" : " (exit " + r.exitCode() + ")"),
                                Integer.toString(cell.parallelism()),
                                Integer.toString(cell.timeMultiplier()),
                                Integer.toString(cell.instanceMultiplier()),
                                Figures.count(r.expectedPerMinute()),
                                Figures.count(r.actualPerMinute()),
                                Figures.percent(r.efficiency()),
                                r.delays().acknowledged(),
                                r.delays().committed(),
                                decimal(r.writerCpuPerMillion(), 2),
                                decimal(r.vmCpuPerMillion(), 2),
                                decimal(r.writerToVmCpu(), 2),
                                mebibytes(r.peakHeapBytes()),
                                Figures.percent(Ceilings.ratio(r, ceiling)),
                                placement),
                        histograms,
                        histogramCells(r)));
            }
        }
        return rows;
    }

    /**
     * The table as aligned Markdown (header, separator, rows), numbers right-aligned; {@code placement} is the
     * placement column of every row ({@code shared}, {@code tsdb=0 writer=1}).
     */
    public static String format(String placement, List<CeilingResult> ceilings, List<CellResult> cells) {
        List<List<String>> rows = rows(placement, ceilings, cells);
        List<String> header = withHistograms(HEADER, histograms(cells), HISTOGRAM_HEADER);
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
            for (List<String> row : rows) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        line(b, header, width, false);
        b.append('|');
        for (int i = 0; i < width.length; i++) {
            b.append(i == 0 ? ":" : "")
                    .append("-".repeat(width[i] + 1))
                    .append(i == 0 ? "" : ":")
                    .append('|');
        }
        b.append('\n');
        for (List<String> row : rows) {
            line(b, row, width, true);
        }
        return b.toString();
    }

    private static void line(StringBuilder b, List<String> cells, int[] width, boolean alignNumbers) {
        b.append('|');
        for (int i = 0; i < width.length; i++) {
            String c = cells.get(i);
            String pad = " ".repeat(width[i] - c.length());
            b.append(' ');
            if (alignNumbers && i > 0 && i < width.length - 1) { // the last column, the placement, is text
                b.append(pad).append(c);
            } else {
                b.append(c).append(pad);
            }
            b.append(" |");
        }
        b.append('\n');
    }

    /**
     * The CSV: a header line, then one line per ceiling and per cell, raw numbers (NaN as empty); {@code placement} is
     * the last column of every line.
     */
    public static String csv(String placement, List<CeilingResult> ceilings, List<CellResult> cells) {
        boolean histograms = histograms(cells);
        List<String> noHistograms = List.of("", "", "");
        StringBuilder b = new StringBuilder(
                        String.join(",", withHistograms(CSV_HEADER, histograms, HISTOGRAM_CSV_HEADER)))
                .append('\n');
        for (CeilingResult c : ceilings) {
            BenchCell.Shape s = c.shape();
            csvLine(
                    b,
                    withHistograms(
                            List.of(
                                    "ceiling",
                                    "preserialized" + (s.remoteWrite() ? " " + s.output() : ""),
                                    "",
                                    Integer.toString(s.timeMultiplier()),
                                    Integer.toString(s.instanceMultiplier()),
                                    "",
                                    "",
                                    "",
                                    Long.toString(c.samples()),
                                    raw(c.seconds()),
                                    "",
                                    raw(c.perMinute()),
                                    "",
                                    "",
                                    raw(c.vmCpuSeconds()),
                                    "",
                                    raw(c.vmCpuPerMillion()),
                                    "",
                                    "",
                                    raw(c.perMinute()),
                                    "1",
                                    "",
                                    "",
                                    "",
                                    Integer.toString(c.concurrency()),
                                    raw(c.clientCpuPerMillion()),
                                    "",
                                    "",
                                    "",
                                    "",
                                    placement),
                            histograms,
                            noHistograms));
        }
        for (CellResult r : cells) {
            BenchCell cell = r.cell();
            CeilingResult ceiling = Ceilings.forCell(cell, ceilings);
            CellResult.Histograms h = r.histograms();
            csvLine(
                    b,
                    withHistograms(
                            List.of(
                                    r.live() ? "live" : "backlog",
                                    cell.writeMode(),
                                    Integer.toString(cell.parallelism()),
                                    Integer.toString(cell.timeMultiplier()),
                                    Integer.toString(cell.instanceMultiplier()),
                                    Integer.toString(r.exitCode()),
                                    Long.toString(r.points()),
                                    Long.toString(r.samplesExpected()),
                                    Long.toString(r.samplesWritten()),
                                    raw(r.seconds()),
                                    raw(r.expectedPerMinute()),
                                    raw(r.actualPerMinute()),
                                    raw(r.efficiency()),
                                    raw(r.writerCpuSeconds()),
                                    raw(r.vmCpuSeconds()),
                                    raw(r.writerCpuPerMillion()),
                                    raw(r.vmCpuPerMillion()),
                                    raw(r.writerToVmCpu()),
                                    Long.toString(r.peakHeapBytes()),
                                    ceiling == null ? "" : raw(ceiling.perMinute()),
                                    raw(Ceilings.ratio(r, ceiling)),
                                    raw(r.inputPointsPerSecond()),
                                    raw(r.otherCpuSeconds()),
                                    raw(r.loadAverage()),
                                    ceiling == null ? "" : Integer.toString(ceiling.concurrency()),
                                    "",
                                    raw(r.delays().acknowledgedP50()),
                                    raw(r.delays().acknowledgedP99()),
                                    raw(r.delays().committedP50()),
                                    raw(r.delays().committedP99()),
                                    placement),
                            histograms,
                            List.of(
                                    h.samples() < 0 ? "" : Long.toString(h.samples()),
                                    Long.toString(h.written()),
                                    Long.toString(h.buckets()))));
        }
        return b.toString();
    }

    private static void csvLine(StringBuilder b, List<String> fields) {
        b.append(String.join(",", fields)).append('\n');
    }

    /** A number for CSV: up to 4 decimals, no grouping; empty for NaN/Inf. */
    static String raw(double v) {
        if (!Double.isFinite(v)) {
            return "";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** Fixed decimals; {@code –} for NaN. */
    static String decimal(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "–";
    }

    /** {@code 512 MiB}; {@code –} for unknown (≤ 0). */
    static String mebibytes(long bytes) {
        return bytes > 0 ? String.format(Locale.ROOT, "%.0f MiB", bytes / (1024.0 * 1024.0)) : "–";
    }
}
