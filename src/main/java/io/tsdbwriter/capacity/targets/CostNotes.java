package io.tsdbwriter.capacity.targets;

import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@link TargetComparison} says of its cost columns: per figure how it was measured and, per target, the metrics
 * it came from or which were missing — as Markdown lines under the table, and on the console as one line per unknown
 * figure under the table. Targets whose search failed (no figures) are left out. Stateless; thread-safe.
 */
final class CostNotes {

    /** The CPU column's head. */
    static final String CPU = "CPU-s/1M samples";
    /** The memory column's head. */
    static final String MEMORY = "RSS bytes/series";
    /** The disk column's head. */
    static final String DISK = "disk bytes/sample";

    private record Kind(String head, String how, Function<CostFigures, CostFigures.Figure> figure) {
    }

    private static final List<Kind> KINDS = List.of(
            new Kind(CPU, "CPU seconds the TSDB's process used per million samples written: the growth of its `" + CpuPerSamples.CPU
                    + "` from the first to the last reading of each step's measured window, summed over the steps, ÷ the samples "
                    + "the writers wrote in the same windows (`" + CpuPerSamples.WRITTEN + "`) × 10⁶", CostFigures::cpuSecondsPerMillion),
            new Kind(MEMORY, "the TSDB process's resident memory per active series, read once after the last step: `" + CostFigures.RSS
                    + "` ÷ VictoriaMetrics' `" + CostFigures.VM_ACTIVE + "` (the series with a sample in the current hour; when it counts "
                    + "none, as for older data, `" + CostFigures.VM_TSIDS + "`: the series the process registered) or "
                    + "Prometheus' and Thanos receive's `" + CostFigures.PROM_ACTIVE + "` (the head's series)", CostFigures::residentBytesPerSeries),
            new Kind(DISK, "storage bytes per stored sample, read once after the last step: VictoriaMetrics, after `/internal/force_flush` "
                    + "on its page's host (its buffered rows written into parts), `sum(" + CostFigures.VM_SIZE
                    + ")` ÷ `sum(" + CostFigures.VM_ROWS + "{type=~\"storage/.*\"})`; Prometheus and Thanos receive (`"
                    + CostFigures.PROM_BLOCKS + "` + `" + CostFigures.PROM_WAL + "` + `" + CostFigures.PROM_HEAD_CHUNKS
                    + "` when exposed) ÷ `" + CostFigures.PROM_APPENDED + "`", CostFigures::bytesPerSample));

    private CostNotes() {
    }

    /**
     * The Markdown lines under the table: a sentence, then per figure a bullet saying how it was measured and, for each
     * target with figures, {@code NAME: `metrics`}, what was missing and the note.
     */
    static String markdown(List<TargetComparison.Row> rows) {
        StringBuilder b = new StringBuilder("How the cost figures were measured, each from the target's own `/metrics` "
                + "(– where a metric was absent or a divisor 0; the target's entry says which):\n\n");
        for (Kind k : KINDS) {
            b.append("- **").append(k.head()).append("**: ").append(k.how()).append('.');
            List<String> per = new ArrayList<>();
            for (TargetComparison.Row r : rows) {
                if (r.costs() != null) {
                    per.add(TargetComparison.cell(r.name()) + ": " + source(k.figure().apply(r.costs())));
                }
            }
            if (!per.isEmpty()) {
                b.append(' ').append(String.join("; ", per)).append('.');
            }
            b.append('\n');
        }
        return b.append('\n').toString();
    }

    /** The console's lines under the table: {@code NAME: HEAD unknown: source}, one per unknown figure of a target with figures. */
    static String unknown(List<TargetComparison.Row> rows) {
        StringBuilder b = new StringBuilder();
        for (TargetComparison.Row r : rows) {
            for (Kind k : KINDS) {
                CostFigures.Figure f = r.costs() == null ? null : k.figure().apply(r.costs());
                if (f != null && !f.known()) {
                    b.append(r.name()).append(": ").append(k.head()).append(" unknown: ").append(f.source().replace('\n', ' ')).append('\n');
                }
            }
        }
        return b.toString();
    }

    /** One figure's source in Markdown: its metrics as code, the missing metrics as code, the note as text. */
    private static String source(CostFigures.Figure f) {
        StringBuilder b = new StringBuilder(code(f.metrics()));
        if (!f.missing().isEmpty()) {
            b.append(", missing ").append(String.join(", ", f.missing().stream().map(CostNotes::code).toList()));
        }
        if (f.note() != null) {
            b.append(" (").append(TargetComparison.cell(f.note())).append(')');
        }
        return b.toString();
    }

    /** Inline code; a backtick inside cannot end it (metric names have none, a page's text might). */
    private static String code(String s) {
        return "`" + s.replace("`", "'").replace('\n', ' ') + "`";
    }
}
