package io.tsdbwriter.capacity.targets;

import io.tsdbwriter.tsdbmetrics.CostFigures;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@link TargetComparison} says of its cost columns: per figure how it was measured and, per target, the metrics
 * it came from or which were missing — as Markdown lines under the table, the same lines as HTML under
 * {@link ComparisonPage}'s table, and on the console as one line per unknown figure under the table. Targets whose
 * search failed (no figures) are left out. Stateless; thread-safe.
 */
final class CostNotes {

    /** The CPU column's head. */
    static final String CPU = "CPU-s/1M samples";
    /** The memory column's head. */
    static final String MEMORY = "RSS bytes/series";
    /** The disk column's head. */
    static final String DISK = "disk bytes/sample";

    private record Kind(String head, String how, Function<CostFigures, CostFigures.Figure> figure) {}

    private static final List<Kind> KINDS = List.of(
            new Kind(
                    CPU,
                    "CPU seconds the TSDB's process used per million samples written: the growth of its `"
                            + CpuPerSamples.CPU
                            + "` from the first to the last reading of each step's measured window, summed over the steps, ÷ the samples "
                            + "the writers wrote in the same windows (`" + CpuPerSamples.WRITTEN + "`) × 10⁶",
                    CostFigures::cpuSecondsPerMillion),
            new Kind(
                    MEMORY,
                    "the TSDB process's resident memory per active series, read once after the last step: `"
                            + CostFigures.RSS
                            + "` ÷ VictoriaMetrics' `" + CostFigures.VM_ACTIVE
                            + "` (the series with a sample in the current hour; when it counts "
                            + "none, as for older data, `" + CostFigures.VM_TSIDS
                            + "`: the series the process registered) or "
                            + "Prometheus' and Thanos receive's `" + CostFigures.PROM_ACTIVE + "` (the head's series)",
                    CostFigures::residentBytesPerSeries),
            new Kind(
                    DISK,
                    "storage bytes per stored sample, read once after the last step: VictoriaMetrics, after `/internal/force_flush` "
                            + "on its page's host (its buffered rows written into parts), `sum(" + CostFigures.VM_SIZE
                            + ")` ÷ `sum(" + CostFigures.VM_ROWS
                            + "{type=~\"storage/.*\"})`; Prometheus and Thanos receive (`"
                            + CostFigures.PROM_BLOCKS + "` + `" + CostFigures.PROM_WAL + "` + `"
                            + CostFigures.PROM_HEAD_CHUNKS
                            + "` when exposed) ÷ `" + CostFigures.PROM_APPENDED + "`",
                    CostFigures::bytesPerSample));

    private CostNotes() {}

    /** How a note's parts are written: inline code, plain text, a figure's name. */
    private interface Format {
        String code(String s);

        String text(String s);

        String head(String s);
    }

    private static final Format MARKDOWN = new Format() {
        @Override
        public String code(String s) {
            return "`" + s.replace("`", "'").replace('\n', ' ') + "`"; // a backtick inside cannot end it
        }

        @Override
        public String text(String s) {
            return TargetComparison.cell(s);
        }

        @Override
        public String head(String s) {
            return "**" + s + "**";
        }
    };

    private static final Format HTML = new Format() {
        @Override
        public String code(String s) {
            return "<code>" + Html.escape(s.replace('\n', ' ')) + "</code>";
        }

        @Override
        public String text(String s) {
            return Html.escape(s.replace('\n', ' ').replace('\r', ' '));
        }

        @Override
        public String head(String s) {
            return "<b>" + Html.escape(s) + "</b>";
        }
    };

    private static final String INTRO = "How the cost figures were measured, each from the target's own `/metrics` "
            + "(– where a metric was absent or a divisor 0; the target's entry says which):";

    /**
     * The Markdown lines under the table: a sentence, then per figure a bullet saying how it was measured and, for each
     * target with figures, {@code NAME: `metrics`}, what was missing and the note.
     */
    static String markdown(List<TargetComparison.Row> rows) {
        StringBuilder b = new StringBuilder(spans(INTRO, MARKDOWN)).append("\n\n");
        for (String line : lines(rows, MARKDOWN)) {
            b.append("- ").append(line).append('\n');
        }
        return b.append('\n').toString();
    }

    /**
     * The same lines as HTML: a {@code <p class="notes">} with the sentence, then a {@code <ul class="notes">} with one
     * {@code <li>} per figure; metric names in {@code <code>}, every text escaped ({@link Html#escape}).
     */
    static String html(List<TargetComparison.Row> rows) {
        StringBuilder b = new StringBuilder("<p class=\"notes\">")
                .append(spans(INTRO, HTML))
                .append("</p>\n<ul class=\"notes\">\n");
        for (String line : lines(rows, HTML)) {
            b.append("<li>").append(line).append("</li>\n");
        }
        return b.append("</ul>\n").toString();
    }

    /** Per figure: its head, how it was measured and, per target with figures, its source. */
    private static List<String> lines(List<TargetComparison.Row> rows, Format f) {
        List<String> lines = new ArrayList<>();
        for (Kind k : KINDS) {
            StringBuilder b = new StringBuilder(f.head(k.head()))
                    .append(": ")
                    .append(spans(k.how(), f))
                    .append('.');
            List<String> per = new ArrayList<>();
            for (TargetComparison.Row r : rows) {
                if (r.costs() != null) {
                    per.add(f.text(r.name()) + ": " + source(k.figure().apply(r.costs()), f));
                }
            }
            if (!per.isEmpty()) {
                b.append(' ').append(String.join("; ", per)).append('.');
            }
            lines.add(b.toString());
        }
        StringBuilder b = new StringBuilder(f.head(ReadBack.HEAD))
                .append(": ")
                .append(spans(READ_BACK, f))
                .append('.');
        List<String> per = new ArrayList<>();
        for (TargetComparison.Row r : rows) {
            if (r.readBack() != null) {
                per.add(f.text(r.name()) + ": " + (r.readBack().known() ? "" : "unknown, ")
                        + spans(r.readBack().source(), f));
            }
        }
        if (!per.isEmpty()) {
            b.append(' ').append(String.join("; ", per)).append('.');
        }
        lines.add(b.toString());
        return lines;
    }

    /** How the read-back column was measured. */
    private static final String READ_BACK =
            "after the last step, the samples the target holds in the search's sample span, on its query API (the import "
                    + "URL's or the query-url's), compared sample by sample with every sample the search fed (its points × M × N, "
                    + "as `tsdb-writer verify` expects them): VictoriaMetrics' `/api/v1/export`, else `/api/v1/query` of "
                    + "range-vector selectors; `all N` when every one was read back, `K of N` when some are missing, `(+K more)` "
                    + "for samples read back that were not fed or more than once, `(K mismatched)` for values that differ. "
                    + "Where it cannot compare (the reason follows), counted: per metric name `/api/v1/label/__name__/values` "
                    + "lists in the span, `sum(count_over_time({__name__=\"NAME\"}[SPAN]))` on `/api/v1/query`, summed, "
                    + "against the samples the writers wrote (their summaries' `samples_written`)";

    /** A constant text whose {@code `…`} spans are code: the parts between backticks alternate text and code. */
    private static String spans(String s, Format f) {
        String[] parts = s.split("`", -1);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            b.append(i % 2 == 0 ? f.text(parts[i]) : f.code(parts[i]));
        }
        return b.toString();
    }

    /** The console's lines under the table: {@code NAME: HEAD unknown: source}, one per unknown figure of a target with figures. */
    static String unknown(List<TargetComparison.Row> rows) {
        StringBuilder b = new StringBuilder();
        for (TargetComparison.Row r : rows) {
            for (Kind k : KINDS) {
                CostFigures.Figure f = r.costs() == null ? null : k.figure().apply(r.costs());
                if (f != null && !f.known()) {
                    b.append(r.name())
                            .append(": ")
                            .append(k.head())
                            .append(" unknown: ")
                            .append(f.source().replace('\n', ' '))
                            .append('\n');
                }
            }
            if (r.readBack() != null && !r.readBack().known()) {
                b.append(r.name())
                        .append(": ")
                        .append(ReadBack.HEAD)
                        .append(" unknown: ")
                        .append(r.readBack().source().replace('\n', ' '))
                        .append('\n');
            }
        }
        return b.toString();
    }

    /** One figure's source: its metrics as code, the missing metrics as code, the note as text. */
    private static String source(CostFigures.Figure fig, Format f) {
        StringBuilder b = new StringBuilder(f.code(fig.metrics()));
        if (!fig.missing().isEmpty()) {
            b.append(", missing ")
                    .append(String.join(
                            ", ", fig.missing().stream().map(f::code).toList()));
        }
        if (fig.note() != null) {
            b.append(" (").append(f.text(fig.note())).append(')');
        }
        return b.toString();
    }
}
