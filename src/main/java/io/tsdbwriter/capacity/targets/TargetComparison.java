package io.tsdbwriter.capacity.targets;

import io.tsdbwriter.tsdbmetrics.CostFigures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The targets of one {@code capacity --target …} run side by side: per target its name, protocol, the capacity found
 * (samples/min), the best passing step's efficiency and write p99, the figures TSDBs are compared on
 * ({@link CostFigures}: CPU seconds per million samples, resident memory bytes per active series, disk bytes per sample),
 * and the verdict line, or the line saying why its search failed. Renders them as a plain-text table (the console's
 * end) and as the Markdown section {@value #HEADING}, whose lines under the table say how each figure was measured and
 * from which metrics ({@link CostNotes}); {@link ComparisonPage} renders the same rows as an HTML page. Rows stay in
 * the order given (the order of the {@code --target} flags). Pure
 * and stateless; thread-safe.
 */
public final class TargetComparison {

    /** The Markdown section's heading text. */
    public static final String HEADING = "Targets side by side";

    /** The sentence under the heading, before the table. */
    static final String INTRO =
            "The same input, load model, series mode and read load against each target, one after another (in this "
                    + "order). Capacity is the highest sustained samples/min of a passing step; efficiency and write p99 are that step's.";

    static final String NONE = "–";
    /** The table's heads without a read load, one per {@link Row#cells(boolean)} cell. */
    static final List<String> HEADS = List.of(
            "target",
            "protocol",
            "capacity samples/min",
            "efficiency",
            "write p99 s",
            CostNotes.CPU,
            CostNotes.MEMORY,
            CostNotes.DISK,
            ReadBack.HEAD,
            "verdict");
    /** The heads of the read load's columns, after the disk figure's when any target had one. */
    static final List<String> QUERY_HEADS = List.of("query p50 s", "query p99 s");
    /** The columns of numbers, right-aligned: capacity … disk bytes/sample (… query p99 s with a read load). */
    static final int FIRST_NUMBER = 2;

    static final int LAST_NUMBER = 7;

    /**
     * One target's outcome.
     *
     * @param name              the target's NAME
     * @param protocol          its protocol as {@link SearchTarget#protocol()} names it
     * @param capacityPerMinute the capacity found, samples/min; NaN when no step passed or the search failed
     * @param efficiency        the best passing step's efficiency (written ÷ expected, 0..1); NaN without one
     * @param p99Seconds        the best passing step's write latency p99, seconds; NaN without one
     * @param verdict           the verdict line (what bound the search's edge), or null when the search failed
     * @param failure           why the search failed (one line), or null when it produced a verdict
     * @param costs             the target's CPU, memory and disk figures, or null when not measured (a failed search)
     * @param queryP50Seconds   the best passing step's answered queries' latency p50 under {@code --query-rate}, seconds;
     *                          NaN without a read load or without one answered
     * @param queryP99Seconds   the same step's query latency p99, seconds; NaN likewise
     * @param readBack          the search's read-back pass, or null when none ran (a failed search)
     */
    public record Row(
            String name,
            String protocol,
            double capacityPerMinute,
            double efficiency,
            double p99Seconds,
            String verdict,
            String failure,
            CostFigures costs,
            double queryP50Seconds,
            double queryP99Seconds,
            ReadBack readBack) {

        /** A target whose search ended with a verdict, its cost figures not measured. */
        public static Row of(
                String name,
                String protocol,
                double capacityPerMinute,
                double efficiency,
                double p99Seconds,
                String verdict) {
            return of(name, protocol, capacityPerMinute, efficiency, p99Seconds, verdict, null);
        }

        /** A target whose search ended with a verdict, with its cost figures ({@code costs} null: not measured). */
        public static Row of(
                String name,
                String protocol,
                double capacityPerMinute,
                double efficiency,
                double p99Seconds,
                String verdict,
                CostFigures costs) {
            return new Row(
                    name,
                    protocol,
                    capacityPerMinute,
                    efficiency,
                    p99Seconds,
                    verdict,
                    null,
                    costs,
                    Double.NaN,
                    Double.NaN,
                    null);
        }

        /** A target whose search failed: {@code failure} is the one line saying why. */
        public static Row failed(String name, String protocol, String failure) {
            return new Row(
                    name,
                    protocol,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    null,
                    failure,
                    null,
                    Double.NaN,
                    Double.NaN,
                    null);
        }

        /** This row with the best passing step's query latencies (seconds; NaN: none measured). */
        public Row withQueries(double p50Seconds, double p99Seconds) {
            return new Row(
                    name,
                    protocol,
                    capacityPerMinute,
                    efficiency,
                    this.p99Seconds,
                    verdict,
                    failure,
                    costs,
                    p50Seconds,
                    p99Seconds,
                    readBack);
        }

        /** This row with its search's read-back pass (null: none). */
        public Row withReadBack(ReadBack back) {
            return new Row(
                    name,
                    protocol,
                    capacityPerMinute,
                    efficiency,
                    p99Seconds,
                    verdict,
                    failure,
                    costs,
                    queryP50Seconds,
                    queryP99Seconds,
                    back);
        }

        /** Whether a query latency was measured. */
        boolean hasQueries() {
            return Double.isFinite(queryP50Seconds) || Double.isFinite(queryP99Seconds);
        }

        /** True when the search produced no verdict. */
        public boolean isFailed() {
            return failure != null;
        }

        /**
         * The table's cells as plain text, in the order of {@link #heads(boolean)}; {@code –} for an unknown number.
         *
         * @param queries whether the read load's columns are shown (any target had one: {@link #hasReads})
         */
        List<String> cells(boolean queries) {
            List<String> c = new ArrayList<>(List.of(
                    name,
                    protocol,
                    count(capacityPerMinute),
                    percent(efficiency),
                    seconds(p99Seconds),
                    costs == null ? NONE : decimal(costs.cpuSecondsPerMillion().value()),
                    costs == null ? NONE : count(costs.residentBytesPerSeries().value()),
                    costs == null ? NONE : decimal(costs.bytesPerSample().value())));
            if (queries) {
                c.add(seconds(queryP50Seconds));
                c.add(seconds(queryP99Seconds));
            }
            c.add(readBack == null ? NONE : readBack.cell());
            c.add(isFailed() ? "search failed: " + failure : verdict);
            return c;
        }
    }

    private TargetComparison() {}

    /** Whether any target's search measured query latencies: the tables then show the read load's columns. */
    static boolean hasReads(List<Row> rows) {
        return rows.stream().anyMatch(Row::hasQueries);
    }

    /** The heads: {@link #HEADS}, with {@link #QUERY_HEADS} after the disk figure's when {@code queries}. */
    static List<String> heads(boolean queries) {
        if (!queries) {
            return HEADS;
        }
        List<String> h = new ArrayList<>(HEADS.subList(0, LAST_NUMBER + 1));
        h.addAll(QUERY_HEADS);
        h.addAll(HEADS.subList(LAST_NUMBER + 1, HEADS.size()));
        return h;
    }

    /** The last right-aligned column's index. */
    static int lastNumber(boolean queries) {
        return queries ? LAST_NUMBER + QUERY_HEADS.size() : LAST_NUMBER;
    }

    /**
     * The plain-text table: a head line, then one line per target, columns padded to their widest cell (the verdict
     * last, unpadded); numbers as {@code 1,234,567}, {@code 99.5%}, {@code 0.123}, {@code –} when unknown. The lines
     * saying why a figure is unknown follow the table ({@link CostNotes#unknown}).
     */
    public static String table(List<Row> rows) {
        boolean queries = hasReads(rows);
        int last = lastNumber(queries);
        List<List<String>> lines = new ArrayList<>();
        lines.add(heads(queries));
        rows.forEach(r -> lines.add(
                r.cells(queries).stream().map(TargetComparison::oneLine).toList()));
        int[] width = new int[lines.get(0).size()];
        for (List<String> l : lines) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], l.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (List<String> l : lines) {
            for (int i = 0; i < width.length - 1; i++) {
                String pad = " ".repeat(width[i] - l.get(i).length());
                b.append(i >= FIRST_NUMBER && i <= last ? pad + l.get(i) : l.get(i) + pad)
                        .append("  ");
            }
            b.append(l.get(width.length - 1)).append('\n');
        }
        return b.append(CostNotes.unknown(rows)).toString();
    }

    /**
     * The Markdown section: {@code ## Targets side by side}, a sentence, a table with one row per target (text escaped
     * so it renders as itself), and, when {@code reportFile} is not null, a last column linking each target's own report
     * {@code NAME/<reportFile>} (relative to the summary's directory; {@code –} for a failed search); under the table
     * one line per cost figure saying how it was measured and, per target, from which metrics ({@link CostNotes#markdown}).
     */
    public static String markdown(List<Row> rows, String reportFile) {
        boolean reportLinks = reportFile != null;
        StringBuilder b = new StringBuilder("## " + HEADING + "\n\n");
        b.append(INTRO).append("\n\n|");
        boolean queries = hasReads(rows);
        List<String> heads = new ArrayList<>(heads(queries));
        if (reportLinks) {
            heads.add("report");
        }
        heads.forEach(h -> b.append(' ').append(h).append(" |"));
        b.append("\n|");
        for (int i = 0; i < heads.size(); i++) {
            b.append(i >= FIRST_NUMBER && i <= lastNumber(queries) ? " ---: |" : " --- |");
        }
        b.append('\n');
        for (Row r : rows) {
            b.append('|');
            r.cells(queries).forEach(c -> b.append(' ').append(cell(c)).append(" |"));
            if (reportLinks) {
                b.append(r.isFailed() ? " " + NONE : " [" + r.name() + "](" + r.name() + "/" + reportFile + ")")
                        .append(" |");
            }
            b.append('\n');
        }
        return b.append('\n').append(CostNotes.markdown(rows)).toString();
    }

    private static String oneLine(String s) {
        return s == null ? NONE : s.replace('\n', ' ').replace('\r', ' ');
    }

    /** Markdown table cell text: no HTML, no line break, {@code |} escaped. */
    static String cell(String s) {
        return oneLine(s)
                .replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("|", "\\|");
    }

    private static String count(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : NONE;
    }

    private static String percent(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.1f%%", ratio * 100) : NONE;
    }

    private static String decimal(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : NONE;
    }

    private static String seconds(double s) {
        return Double.isFinite(s) ? String.format(Locale.ROOT, "%.3f", s) : NONE;
    }
}
