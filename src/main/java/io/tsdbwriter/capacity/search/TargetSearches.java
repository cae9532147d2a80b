package io.tsdbwriter.capacity.search;

import io.tsdbwriter.capacity.reads.ReadLoadSettings;
import io.tsdbwriter.capacity.targets.ComparisonPage;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.capacity.targets.TargetComparison;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code capacity --target …}: the same search ({@link CapacitySearch}: same input, amplification, series mode, read
 * load and steps) against each target, one after another, each with the settings {@link CapacitySearch.Settings#forTarget}
 * gives it (its own topics, work directory, report directory), so no two searches share data; or, with
 * {@code --side-by-side}, all at once, each on its own CPUs, each line of its output prefixed {@code [NAME] }
 * ({@link LinePrefix}). A line at each target's
 * start and end; a target whose search fails (unreachable, an exception) is one line and the next one runs. Each
 * search's cost figures ({@link CapacitySearch.Reported#costs()}: its target's CPU over the steps' measured windows, and
 * memory and disk from one reading of its {@code /metrics} after its last step) go into its row. At the end
 * the targets side by side ({@link TargetComparison}) on the console and, with {@code --report DIR}, as
 * {@code DIR/}{@value CapacityPage#HTML_FILE} (with a bar chart per figure, {@link ComparisonPage}) and
 * {@code DIR/}{@value CapacityPage#MARKDOWN_FILE}, each linking each target's own report in {@code DIR/NAME/}.
 *
 * <p>Not thread-safe; one run per instance (side by side it starts a platform thread per target and joins them all).
 */
public final class TargetSearches {

    /**
     * One target, its search's read load and its placement.
     *
     * @param target    the target
     * @param reads     the read load against it, or null for none
     * @param placement its TSDB's and writers' CPUs when searched side by side ({@link CpuPinning.Plan#beside}), or
     *                  null for the command's placement
     */
    public record Planned(SearchTarget target, ReadLoadSettings reads, CpuPinning.Plan placement) {

        /** A target searched with the command's placement. */
        public Planned(SearchTarget target, ReadLoadSettings reads) {
            this(target, reads, null);
        }
    }

    /** One search: {@link CapacitySearch#runReported()} of its settings, printing on {@code out}; a test passes its own. */
    interface Search {
        CapacitySearch.Reported run(CapacitySearch.Settings settings, PrintStream out)
                throws IOException, InterruptedException;
    }

    private final CapacitySearch.Settings base;
    private final List<Planned> targets;
    private final PrintStream out;
    /** Where this process and Kafka go when the searches run side by side; null: one after another. */
    private final CpuPinning.Plan sideBySide;

    private final Search search;
    /** The search the public constructors run. */
    private static final Search REAL = (s, o) -> new CapacitySearch(s, o).runReported();

    /**
     * @param base    the settings of the command, their target fields (URL, {@code /metrics}, read load) unused
     * @param targets the targets in the order given, at least one
     * @param out     where progress, each search's report and the summary are printed
     */
    public TargetSearches(CapacitySearch.Settings base, List<Planned> targets, PrintStream out) {
        this(base, targets, out, null, REAL);
    }

    /**
     * Searches side by side ({@code capacity --side-by-side}) when {@code sideBySide} is not null: every target's search
     * at once, each with its own placement ({@link Planned#placement()}), each line of its output prefixed with
     * {@code [NAME] }; this process (the searches' producers) and the local Kafka broker first moved onto
     * {@code sideBySide}'s writer CPUs ({@link CpuPinning.Plan#placeSelf}), the CPUs no target has.
     */
    public TargetSearches(
            CapacitySearch.Settings base, List<Planned> targets, PrintStream out, CpuPinning.Plan sideBySide) {
        this(base, targets, out, sideBySide, REAL);
    }

    TargetSearches(
            CapacitySearch.Settings base,
            List<Planned> targets,
            PrintStream out,
            CpuPinning.Plan sideBySide,
            Search search) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("no target");
        }
        this.base = base;
        this.targets = List.copyOf(targets);
        this.out = out;
        this.sideBySide = sideBySide;
        this.search = search;
    }

    /**
     * Runs every target's search and prints the summary.
     *
     * @return 0 when every target's search found a capacity and lost nothing ({@link CapacitySearch#run()}'s 0), else 1
     * @throws InterruptedException when interrupted (the targets not yet searched are not run)
     */
    public int run() throws InterruptedException {
        TargetComparison.Row[] rows = new TargetComparison.Row[targets.size()];
        String[] machines = new String[targets.size()];
        int[] codes = new int[targets.size()];
        if (sideBySide != null) {
            try {
                sideBySide.placeSelf(line -> CapacitySearch.progress(out, "side by side: %s", line));
            } catch (IOException e) {
                CapacitySearch.progress(out, "side by side: this process and Kafka not placed: %s", failure(e));
            }
        }
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            int index = i;
            if (sideBySide == null) {
                searchOne(index, out, rows, machines, codes);
                continue;
            }
            PrintStream prefixed = new PrintStream(
                    new LinePrefix(out, "[" + targets.get(i).target().name() + "] "), false, StandardCharsets.UTF_8);
            running.add(Thread.ofPlatform()
                    .name("capacity-" + targets.get(i).target().name())
                    .start(() -> {
                        try {
                            searchOne(index, prefixed, rows, machines, codes);
                        } catch (InterruptedException e) {
                            rows[index] = TargetComparison.Row.failed(
                                    targets.get(index).target().name(),
                                    targets.get(index).target().protocol(),
                                    "interrupted");
                            codes[index] = 1;
                        } finally {
                            prefixed.flush();
                        }
                    }));
        }
        try {
            for (Thread t : running) {
                t.join();
            }
        } catch (InterruptedException e) {
            running.forEach(Thread::interrupt);
            throw e;
        }
        String machine = Arrays.stream(machines)
                .filter(m -> m != null)
                .reduce((a, b) -> b)
                .orElse("-");
        int code = Arrays.stream(codes).max().orElse(0);
        writeSummary(List.of(rows), machine);
        return code;
    }

    /** One target's search, its start and end lines on {@code o}; its row, machine line and exit code (0 or 1) into the arrays. */
    private void searchOne(int i, PrintStream o, TargetComparison.Row[] rows, String[] machines, int[] codes)
            throws InterruptedException {
        SearchTarget t = targets.get(i).target();
        CapacitySearch.Settings s = base.forTarget(
                t,
                targets.get(i).reads(),
                targets.get(i).placement() == null
                        ? base.placement()
                        : targets.get(i).placement());
        CapacitySearch.progress(
                o,
                "target %s (%d of %d): start: %s to %s, topics %s-…, work directory %s",
                t.name(),
                i + 1,
                targets.size(),
                t.protocol(),
                t.shownUrl(),
                s.topicPrefix(),
                s.workDir());
        String unreachable = unreachable(t.url());
        if (unreachable != null) {
            rows[i] = failed(o, t, i, unreachable);
            codes[i] = 1;
            return;
        }
        try {
            CapacitySearch.Reported r = search.run(s, o);
            machines[i] = r.machine();
            CapacitySearch.Result res = r.result();
            rows[i] = row(t, r);
            codes[i] = r.exitCode() == 0 ? 0 : 1;
            CapacitySearch.progress(
                    o,
                    "target %s (%d of %d): end: capacity %s; %s",
                    t.name(),
                    i + 1,
                    targets.size(),
                    res.best() == null
                            ? "none (no step passed)"
                            : String.format(Locale.ROOT, "%,.0f samples/min", res.capacityPerMinute()),
                    verdictLine(res));
        } catch (IOException | RuntimeException e) {
            rows[i] = failed(o, t, i, failure(e));
            codes[i] = 1;
        }
    }

    /** The targets side by side on the console and, with {@code --report}, in its directory. */
    private void writeSummary(List<TargetComparison.Row> rows, String machine) {
        out.println();
        out.println(TargetComparison.HEADING.toLowerCase(Locale.ROOT) + ":");
        out.print(TargetComparison.table(rows));
        if (base.report() != null) {
            try {
                List<Path> summary = writeSummary(base.report(), rows, machine, base.commandLine());
                out.println("report: " + summary.get(0) + " and "
                        + summary.get(1).getFileName() + " (each target's own in "
                        + base.report().resolve("NAME") + ", NAME: "
                        + String.join(
                                ", ",
                                targets.stream().map(p -> p.target().name()).toList()) + ")");
            } catch (IOException | RuntimeException e) {
                out.println("report: summary not written (" + e + ")");
            }
        }
        out.flush();
    }

    /**
     * A finished search's row: the capacity and the best passing step's efficiency, write p99 and (with a read load)
     * query p50/p99, NaN without such a step; the verdict line, the cost figures and the read-back pass.
     */
    static TargetComparison.Row row(SearchTarget t, CapacitySearch.Reported r) {
        CapacitySearch.Result res = r.result();
        CapacityStep best = res.best();
        TargetComparison.Row row = TargetComparison.Row.of(
                t.name(),
                t.protocol(),
                best == null ? Double.NaN : res.capacityPerMinute(),
                best == null ? Double.NaN : best.efficiency(),
                best == null ? Double.NaN : best.p99Seconds(),
                verdictLine(res),
                r.costs());
        StepReads reads = best == null ? null : best.reads();
        return (reads == null ? row : row.withQueries(reads.p50Seconds(), reads.p99Seconds()))
                .withReadBack(r.readBack());
    }

    /** A failed target's row, after its end line on {@code o}. */
    private TargetComparison.Row failed(PrintStream o, SearchTarget t, int i, String why) {
        CapacitySearch.progress(
                o,
                "target %s (%d of %d): end: search failed: %s%s",
                t.name(),
                i + 1,
                targets.size(),
                why,
                sideBySide != null ? "" : i + 1 < targets.size() ? "; going on with the next" : "");
        return TargetComparison.Row.failed(t.name(), t.protocol(), why);
    }

    /**
     * The verdict of a search as one line: the search's end when the largest M passed; else which step it is of and what
     * bound it (the console's "verdict" line); "none (no step ran)" without a step.
     */
    static String verdictLine(CapacitySearch.Result r) {
        if (r.edge() == null) {
            return "none (no step ran)";
        }
        if (r.ceiling() != null) {
            return r.ceiling();
        }
        String step = CapacityPage.stepName(r.edge());
        return (r.edge().passed() ? "last step " + step + ", capacity not reached: " : "failing step " + step + ": ")
                + r.edge().verdict();
    }

    /**
     * {@code DIR/}{@value CapacityPage#HTML_FILE} ({@link ComparisonPage}: the table, the cost notes, one bar chart per
     * figure, the machine and the command line) and {@code DIR/}{@value CapacityPage#MARKDOWN_FILE} beside it (a
     * heading, the side-by-side section, the machine and the command line); {@code DIR} is created when missing.
     *
     * @return the two files written, HTML first
     */
    static List<Path> writeSummary(Path dir, List<TargetComparison.Row> rows, String machine, String commandLine)
            throws IOException {
        Files.createDirectories(dir);
        Path html = dir.resolve(CapacityPage.HTML_FILE);
        Files.writeString(
                html, ComparisonPage.html(rows, CapacityPage.HTML_FILE, machine, commandLine), StandardCharsets.UTF_8);
        Path md = dir.resolve(CapacityPage.MARKDOWN_FILE);
        String fence = CapacityMarkdown.fence(commandLine);
        String text = "# tsdb-writer capacity: " + rows.size() + " targets\n\n"
                + TargetComparison.markdown(rows, CapacityPage.MARKDOWN_FILE)
                + "## Run\n\n- **machine**: " + CapacityMarkdown.text(machine) + "\n- **reproduce**:\n\n" + fence + "\n"
                + commandLine.replace('\n', ' ') + "\n" + fence + "\n";
        Files.writeString(md, text, StandardCharsets.UTF_8);
        return List.of(html, md);
    }

    /**
     * Null when a TCP connection to {@code url}'s host and port opens within {@value #CONNECT_TIMEOUT_MS} ms; else why
     * not, one line without userinfo (a search against a target nobody listens on would only fail every step).
     */
    static String unreachable(String url) {
        URI u = URI.create(SafeUrl.parse(url).url());
        int port = u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(u.getHost(), port), CONNECT_TIMEOUT_MS);
            return null;
        } catch (IOException e) {
            return "unreachable: no connection to " + u.getHost() + ":" + port + " within " + CONNECT_TIMEOUT_MS
                    + " ms (" + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")";
        }
    }

    private static final int CONNECT_TIMEOUT_MS = 3000;

    /** Why a search failed, as one line without userinfo: the exception's class and message, and its causes'. */
    static String failure(Throwable e) {
        List<String> parts = new ArrayList<>();
        for (Throwable c = e; c != null && parts.size() < 3; c = c.getCause()) {
            parts.add(c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage()));
        }
        String line = String.join(" ← ", parts).replace('\n', ' ').replace('\r', ' ');
        return Arrays.stream(line.split(" ", -1)).map(SafeUrl::redact).collect(Collectors.joining(" "));
    }
}
