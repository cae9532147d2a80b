package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.targets.Html;

/**
 * {@value CapacityPage#MARKDOWN_FILE}: the content of the HTML page ({@link CapacityPage}) as Markdown text and tables,
 * the chart as a link to the PNG of {@code --chart} when one is drawn. Text from the run (reasons, labels) is escaped so
 * it renders as text: {@code < > &} as character references, {@code |} and line breaks kept out of the table's cells;
 * the command line is a fenced code block. Stateless; thread-safe.
 */
final class CapacityMarkdown {

    private CapacityMarkdown() {}

    /**
     * The Markdown page.
     *
     * @param chartLink the PNG chart's path as the page links it (relative to the page's directory when inside it), or null
     */
    static String markdown(CapacitySearch.Result r, CapacityPage.Run run, String chartLink) {
        StringBuilder b = new StringBuilder(8192);
        b.append("# tsdb-writer capacity\n\n");
        b.append("**")
                .append(text(CapacityPage.capacity(r, run.instanceMultiplier())))
                .append("**\n\n");
        b.append("## ").append(text(CapacityPage.verdictTitle(r))).append("\n\n");
        for (String[] row : CapacityPage.verdictRows(r)) {
            b.append("- **")
                    .append(text(row[0]))
                    .append("**: ")
                    .append(text(row[1]))
                    .append('\n');
        }
        b.append('\n').append(text(CapacityPage.lost(r))).append("\n\n");
        b.append("## ").append(text(CapacityPage.chartTitle(r.steps()))).append("\n\n");
        if (chartLink != null) {
            b.append("![capacity chart](")
                    .append(chartLink.replace(" ", "%20").replace(")", "%29"))
                    .append(")\n\n");
        } else {
            b.append("The chart is in ").append(CapacityPage.HTML_FILE).append(" (and a PNG with --chart).\n\n");
        }
        for (CapacityPage.Table t : CapacityPage.tables(r.steps())) {
            b.append("## ").append(t.title()).append("\n\n|");
            for (CapacityPage.Column c : t.columns()) {
                b.append(' ').append(cell(c.head())).append(" |");
            }
            b.append("\n|");
            for (int i = 0; i < t.columns().size(); i++) {
                b.append(i == 0 ? " --- |" : " ---: |");
            }
            b.append('\n');
            for (CapacityStep s : r.steps()) {
                b.append('|');
                for (CapacityPage.Column c : t.columns()) {
                    b.append(' ').append(cell(c.cell().apply(s))).append(" |");
                }
                b.append('\n');
            }
            b.append('\n');
        }
        b.append(text(CapacityPage.NOTE)).append("\n\n");
        b.append("Each step's verdict:\n\n");
        for (CapacityStep s : r.steps()) {
            b.append("- step ")
                    .append(CapacityPage.stepName(s))
                    .append(": ")
                    .append(text(s.verdict().toString()))
                    .append('\n');
        }
        b.append("\n## Run\n\n- **machine**: ").append(text(run.machine())).append("\n- **reproduce**:\n\n");
        String fence = fence(run.commandLine());
        b.append(fence)
                .append('\n')
                .append(run.commandLine().replace('\n', ' '))
                .append('\n')
                .append(fence)
                .append('\n');
        return b.toString();
    }

    /** Text that renders as itself: no HTML, no line break. */
    static String text(String s) {
        return Html.escape(s)
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace('\n', ' ')
                .replace('\r', ' ');
    }

    /** A table cell: {@link #text} with {@code |} escaped. */
    static String cell(String s) {
        return text(s).replace("|", "\\|");
    }

    /** A code fence longer than any run of backticks in {@code s}. */
    static String fence(String s) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            run = s.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return "`".repeat(Math.max(3, longest + 1));
    }
}
