package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.Figures;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The end of {@code capacity}: the table, the capacity line, the verdict, the CSV, the chart and the report page. Stateless. */
final class CapacityReport {

    private CapacityReport() {}

    /**
     * Prints the steps' table, the capacity, the verdict and what was lost; writes the CSV, the chart and the report
     * page ({@link CapacityPage}) when asked.
     *
     * @return 0 when a capacity was found and nothing was lost, else 1
     */
    static int print(CapacitySearch.Result r, String machine, CapacitySearch.Settings s, PrintStream out)
            throws IOException {
        out.println();
        String placement = s.placement().placement().label();
        out.println("machine: " + machine);
        out.println("placement: " + placement);
        out.println("command: " + s.commandLine());
        out.println();
        out.print(CapacityTable.format(placement, r.steps()));
        if (r.steps().stream().anyMatch(st -> st.remeasureOf() > 0)) {
            out.println(
                    "(re-measure of N): the load of step N measured again, as step N missed --min-efficiency by less than the noise");
        }
        String reads = CapacityTable.formatReads(r.steps());
        if (!reads.isEmpty()) {
            out.println();
            out.print("read load (--query-rate; a step passes only when its reads pass too):\n" + reads);
        }
        out.println();
        if (r.noise() != null) {
            out.println(r.noise());
        }
        if (r.best() == null) {
            out.println("capacity: below the first step (no step passed); lower --start-input-rate");
        } else {
            out.printf(
                    Locale.ROOT,
                    "capacity: %s samples/min sustained (step %d%s: %,.0f points/s x M=%d x N=%d, efficiency %s, p99 %s s)%n",
                    Figures.count(r.capacityPerMinute()),
                    r.best().index(),
                    r.best().refine() ? " refine" : "",
                    r.best().inputPointsPerSecond(),
                    r.best().timeMultiplier(),
                    s.instanceMultiplier(),
                    Figures.percent(r.best().efficiency()),
                    CapacitySearch.fmt(r.best().p99Seconds()));
        }
        if (r.ceiling() != null) {
            out.println("verdict: " + r.ceiling());
            out.println("last step: " + r.edge().verdict());
        } else if (r.edge() != null) {
            out.println((r.edge().passed()
                            ? "verdict (last step, capacity not reached): "
                            : "verdict (failing step " + r.edge().index() + ", the nearest above the capacity): ")
                    + r.edge().verdict());
        }
        boolean limited = r.steps().stream().anyMatch(st -> st.limit() != null);
        out.println("lost: "
                + (r.lost() != 0
                        ? r.lost() + " samples not written"
                        : limited
                                ? "nothing (every produced sample was written or dropped by the series limit)"
                                : "nothing (every produced sample was written)"));
        if (s.csv() != null) {
            Path parent = s.csv().toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(s.csv(), CapacityTable.csv(placement, r.steps()), StandardCharsets.UTF_8);
            out.println("csv:   " + s.csv());
        }
        if (s.chart() != null) {
            try {
                CapacityChart.write(
                        s.chart(),
                        "tsdb-writer capacity: "
                                + (r.best() == null
                                        ? "no passing step"
                                        : Figures.count(r.capacityPerMinute()) + " samples/min")
                                + (r.edge() == null
                                        ? ""
                                        : ", limited by "
                                                + r.edge().verdict().resource().label()),
                        machine + "; placement " + placement,
                        r.steps());
                out.println("chart: " + s.chart());
            } catch (IOException | RuntimeException | Error e) {
                out.println("chart: not drawn (" + e + ")");
            }
        }
        if (s.report() != null) {
            try {
                List<Path> page = CapacityPage.write(
                        s.report(),
                        r,
                        new CapacityPage.Run(
                                machine,
                                s.commandLine(),
                                s.instanceMultiplier(),
                                s.chart() != null && Files.isRegularFile(s.chart()) ? s.chart() : null));
                out.println("report: " + page.get(0) + " and " + page.get(1).getFileName());
            } catch (IOException | RuntimeException e) {
                out.println("report: not written (" + e + ")");
            }
        }
        out.flush();
        return r.best() != null && r.lost() == 0 ? 0 : 1;
    }
}
