package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command's {@code --help} reads: an abbreviated synopsis, the options under headings that name their details
 * page, at most 150 lines at 120 columns, no URL, flag, property name or variable split across lines at 80 or 120
 * columns, no word of the project's own history.
 */
class HelpTest {

    private static final int[] WIDTHS = {80, 120};

    /** What must never be cut by a line break: URLs, flags (ours and vmagent's), Kafka properties, our variables. */
    private static final List<Pattern> IDENTIFIERS = List.of(
            Pattern.compile("https?://[^\\s,;)\"']+"),
            Pattern.compile("(?<![\\w.-])--?[a-zA-Z][\\w.-]*\\w"),
            Pattern.compile("(?<![\\w.-])[a-z][a-zA-Z0-9_]*(?:\\.[a-zA-Z0-9_*]+)+(?:=[^\\s,;)]+)?"),
            Pattern.compile("TSDB_WRITER_[A-Z0-9_]+"));

    /** The root command and every subcommand, below it, each with its own width. */
    private static List<CommandLine> commands() {
        List<CommandLine> all = new ArrayList<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.commandLine(Map.of())));
        while (!todo.isEmpty()) {
            CommandLine cl = todo.remove(0);
            all.add(cl);
            todo.addAll(cl.getSubcommands().values());
        }
        return all;
    }

    private static String render(CommandLine cl, int width) {
        cl.setUsageHelpAutoWidth(false);
        cl.setUsageHelpWidth(width);
        return cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ");
    }

    /** The texts the help is made of, each line of a description joined to the next with a space (never broken). */
    private static String sourceText(CommandSpec spec) {
        StringBuilder s = new StringBuilder(String.join(" ", spec.usageMessage().description())).append(' ');
        spec.usageMessage().exitCodeList().values().forEach(v -> s.append(v).append(' '));
        List<ArgSpec> args = new ArrayList<>(spec.options());
        args.addAll(spec.positionalParameters());
        for (ArgSpec a : args) {
            s.append(String.join(" ", a.description())).append(' ');
        }
        return s.toString().replace("%%", "%");
    }

    @Test
    void noUrlFlagPropertyOrVariableIsSplitAcrossLines() {
        List<String> splits = new ArrayList<>();
        for (CommandLine cl : commands()) {
            Set<String> identifiers = new HashSet<>();
            for (Pattern p : IDENTIFIERS) {
                Matcher m = p.matcher(sourceText(cl.getCommandSpec()));
                while (m.find()) {
                    identifiers.add(m.group());
                }
            }
            for (int width : WIDTHS) {
                List<String> lines = render(cl, width).lines().toList();
                for (int i = 0; i + 1 < lines.size(); i++) {
                    String a = lines.get(i);
                    String b = lines.get(i + 1).strip();
                    if (a.isEmpty() || a.endsWith(" ") || b.isEmpty()) {
                        continue;
                    }
                    String tail = a.substring(a.lastIndexOf(' ') + 1);
                    String joined = tail + b.split(" ", 2)[0];
                    for (Pattern p : IDENTIFIERS) {
                        Matcher m = p.matcher(joined);
                        while (m.find()) {
                            if (m.start() < tail.length()
                                    && m.end() > tail.length()
                                    && identifiers.contains(m.group())) {
                                splits.add(cl.getCommandSpec().qualifiedName() + " at " + width + " columns: '"
                                        + m.group() + "' split as '" + a.strip() + "⏎" + b + "'");
                            }
                        }
                    }
                }
            }
        }
        assertThat(splits).isEmpty();
    }

    @Test
    void theSynopsisIsAbbreviated() {
        for (CommandLine cl : Main.commandLine(Map.of()).getSubcommands().values()) {
            String name = cl.getCommandName();
            if (name.equals("help")) {
                continue;
            }
            String first = render(cl, 120).lines().findFirst().orElseThrow();
            String files = name.equals("produce") || name.equals("verify") ? " [FILE...]" : "";
            assertThat(first).isEqualTo("Usage: tsdb-writer " + name + " [OPTIONS]" + files);
        }
    }

    /** A heading line with its details page, {@code Delivery (details: docs/delivery.md):}: group 1 the page. */
    private static final Pattern DETAILS = Pattern.compile(" \\(details: (docs/[\\w-]+\\.md)\\):$");

    @Test
    void runsOptionsAreGroupedUnderHeadings() {
        CommandLine run = Main.commandLine(Map.of()).getSubcommands().get("run");
        List<String> lines = render(run, 120)
                .lines()
                .map(l -> DETAILS.matcher(l).replaceFirst(":"))
                .toList();
        List<String> headings = List.of(
                "Kafka connection and consumption:",
                "Input:",
                "TSDB connection and security:",
                "Amplification:",
                "Delivery:",
                "Tuning:",
                "Output and reports:",
                "Replay and load (capacity tests, soaks):",
                "Config file and logs:",
                "Help:");
        int last = -1;
        for (String h : headings) {
            int at = lines.indexOf(h);
            assertThat(at).as(h + " after the previous heading").isGreaterThan(last);
            last = at;
        }
        int kafka = lines.indexOf(headings.get(0));
        assertThat(lines.get(kafka + 1)).startsWith("      --bootstrap-servers=");
        assertThat(lines.subList(lines.indexOf("Amplification:"), lines.indexOf("Delivery:")))
                .anyMatch(l -> l.startsWith("      --time-multiplier=M"));
        assertThat(lines).noneMatch(l -> l.equals("Other options:"));
    }

    /** At most this many lines of {@code --help} per command, at {@link #FITS_WIDTH} columns: one screen and a bit. */
    private static final int MAX_LINES = 150;

    private static final int FITS_WIDTH = 120;

    @Test
    void everyCommandsHelpFitsInAHundredAndFiftyLinesAt120Columns() {
        Map<String, Integer> tooLong = new LinkedHashMap<>();
        for (CommandLine cl : commands()) {
            int lines = (int) render(cl, FITS_WIDTH).lines().count();
            if (lines > MAX_LINES) {
                tooLong.put(cl.getCommandSpec().qualifiedName(), lines);
            }
        }
        assertThat(commands()).extracting(CommandLine::getCommandName).contains("run", "capacity", "bench", "verify");
        assertThat(tooLong)
                .as("commands whose --help passes %d lines at %d columns", MAX_LINES, FITS_WIDTH)
                .isEmpty();
    }

    @Test
    void everyHeadingsDetailsPageExists() {
        List<String> missing = new ArrayList<>();
        int pages = 0;
        for (CommandLine cl : commands()) {
            for (String line : render(cl, FITS_WIDTH).lines().toList()) {
                Matcher m = DETAILS.matcher(line);
                if (m.find()) {
                    pages++;
                    if (!Files.isRegularFile(Path.of(m.group(1)))) {
                        missing.add(cl.getCommandSpec().qualifiedName() + ": " + line);
                    }
                }
            }
        }
        assertThat(pages).as("headings naming their details page").isGreaterThan(20);
        assertThat(missing).isEmpty();
    }

    @Test
    void noInternalWordReachesTheUser() {
        Pattern internal = Pattern.compile(
                "(?i)\\bissues? \\d|proof of concept|SegmentConsumer|KafkaConsumer|DESIGN §|design\\.md §");
        List<String> found = new ArrayList<>();
        for (CommandLine cl : commands()) {
            Matcher m = internal.matcher(oneLine(render(cl, 120)));
            while (m.find()) {
                found.add(cl.getCommandSpec().qualifiedName() + ": " + m.group());
            }
        }
        assertThat(found).isEmpty();
    }

    @Test
    void permitsAreExplainedWhereTheyFirstAppear() {
        for (CommandLine cl : commands()) {
            String help = oneLine(render(cl, 120));
            Matcher m = Pattern.compile("\\bpermits?\\b").matcher(help);
            if (m.find()) {
                String around = help.substring(Math.max(0, m.start() - 80), Math.min(help.length(), m.end() + 80));
                assertThat(around.toLowerCase(Locale.ROOT))
                        .as(cl.getCommandSpec().qualifiedName() + ": first 'permit'")
                        .contains("concurrent write requests");
            }
        }
    }

    @Test
    void commandsWithOneUrlDoNotSpeakOfAllVmUrls() {
        CommandLine root = Main.commandLine(Map.of());
        for (String name : List.of("verify", "bench", "capacity")) {
            assertThat(oneLine(render(root.getSubcommands().get(name), 120)))
                    .as(name)
                    .doesNotContain("all --vm-url");
        }
    }

    @Test
    void theTopLevelHelpNamesEveryKindOfReceiver() {
        String help = oneLine(render(Main.commandLine(Map.of()), 120));
        assertThat(help).contains("VictoriaMetrics", "remote write", "Prometheus", "Mimir", "Thanos receive");
        assertThat(help).as("the variables are run's").contains("TSDB_WRITER_").contains("run");
    }

    /** Flags other branches add at the same time, named in the tables ahead of them; remove once they are merged. */
    private static final Set<String> PENDING = Set.of();

    @Test
    void everyOptionOfEveryCommandIsInExactlyOneGroup() {
        List<String> problems = new ArrayList<>();
        for (CommandLine cl : commands()) {
            String name = cl.getCommandName();
            List<HelpGroups.Group> table = HelpGroups.table(name);
            for (CommandLine.Model.OptionSpec o : cl.getCommandSpec().options()) {
                long groups = table.stream()
                        .filter(g -> g.options().contains(o.longestName()))
                        .count();
                if (groups != 1) {
                    problems.add(name + " " + o.longestName() + " is in " + groups + " groups of HelpGroups' table");
                }
            }
            for (HelpGroups.Group g : table) {
                for (String option : g.options()) {
                    if (cl.getCommandSpec().findOption(option) == null && !PENDING.contains(name + " " + option)) {
                        problems.add(name + " has no " + option + " (group " + g.heading() + ")");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void anOptionMissingFromTheTableIsListedUnderOtherOptions() {
        CommandSpec run = Main.commandLine(Map.of()).getSubcommands().get("run").getCommandSpec();
        List<HelpGroups.Group> table = HelpGroups.table("run").stream()
                .map(g -> new HelpGroups.Group(
                        g.heading(),
                        g.options().stream()
                                .filter(o -> !o.equals("--max-samples-per-second"))
                                .toList()))
                .toList();
        List<HelpGroups.Group> groups = HelpGroups.of(run, table);
        assertThat(groups.get(groups.size() - 1))
                .isEqualTo(new HelpGroups.Group(HelpGroups.OTHER, List.of("--max-samples-per-second")));
        assertThat(groups.stream().mapToInt(g -> g.options().size()).sum())
                .isEqualTo(run.options().size());
    }

    @Test
    void tableRowsContinueUnderTheirSecondColumnAndNoWordIsCut() {
        assertThat(HelpRenderer.wrap("  cluster  http://vminsert:8480/insert/0/prometheus is one URL", 30))
                .containsExactly(
                        "  cluster", "           http://vminsert:8480/insert/0/prometheus", "           is one URL");
        assertThat(HelpRenderer.wrap("e.g. security.protocol=SASL_SSL here", 20))
                .containsExactly("e.g.", "security.protocol=SASL_SSL", "here");
        assertThat(HelpRenderer.format("PCT%% of it%nnext")).isEqualTo("PCT% of it\nnext");
    }

    @Test
    void noDescriptionBreaksASentenceIntoLines() { // of a command or of one of its options
        List<String> broken = new ArrayList<>();
        for (CommandLine cl : commands()) {
            Map<String, String[]> descriptions = new LinkedHashMap<>();
            descriptions.put("", cl.getCommandSpec().usageMessage().description());
            for (ArgSpec a : cl.getCommandSpec().args()) {
                descriptions.put(
                        a instanceof CommandLine.Model.OptionSpec o ? o.longestName() : a.paramLabel(),
                        a.description());
            }
            descriptions.forEach((arg, d) -> {
                for (int i = 1; i < d.length; i++) {
                    boolean row = d[i].startsWith(" ") || d[i - 1].startsWith(" ");
                    if (!row && !HelpRenderer.format(d[i - 1]).strip().matches("(?s).*[.:;]$")) {
                        broken.add(
                                cl.getCommandSpec().qualifiedName() + " " + arg + ": '" + d[i - 1] + "⏎" + d[i] + "'");
                    }
                }
            });
        }
        assertThat(broken)
                .as("a description element that continues the previous one's sentence: make them one string")
                .isEmpty();
    }
}
