package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The documentation agrees with the code: every {@code --flag} README.md and the pages of docs/ (every {@code .md}
 * under it, the result files under docs/benchmarks/ excepted: consoles and reports of other builds) mention is an
 * option of some {@code tsdb-writer} command (or a flag of another tool named in {@link #OTHER_TOOLS}), and every
 * default they quote in the form {@code `--flag` (default X)} or {@code `--flag`, default X} is that option's default.
 * The words too (issue 56 item 2): docs/glossary.md gives each term one meaning and the words that must not stand in
 * for it, and README, the pages, every command's help and the dashboard's texts (panel titles, descriptions, legends)
 * use none of them; a renamed flag's old name ({@link DeprecatedNames}) appears only where its deprecation is said,
 * in those texts and in the scripts, compose file and manifests that run the commands.
 */
class DocsAgreeTest {

    /** Flags of other tools the docs show in their commands, each with the tool it belongs to. */
    private static final Map<String, String> OTHER_TOOLS = Map.ofEntries(
            Map.entry("--add-config", "kafka-configs.sh"),
            Map.entry("--alter", "kafka-configs.sh"),
            Map.entry("--entity-name", "kafka-configs.sh"),
            Map.entry("--entity-type", "kafka-configs.sh"),
            Map.entry("--bootstrap-server", "kafka-*.sh"),
            Map.entry("--describe", "kafka-*.sh"),
            Map.entry("--offsets", "kafka-consumer-groups.sh"),
            Map.entry("--group", "kafka-consumer-groups.sh"),
            Map.entry("--feature", "kafka-features.sh"),
            Map.entry("--max-messages", "kafka-console-consumer.sh"),
            Map.entry("--offset", "kafka-console-consumer.sh"),
            Map.entry("--partition", "kafka-console-consumer.sh"),
            Map.entry("--build", "docker compose"),
            Map.entry("--build-arg", "docker build"),
            Map.entry("--rm", "docker run"),
            Map.entry("--scale", "docker compose"),
            Map.entry("--iptables", "dockerd"),
            Map.entry("--ip6tables", "dockerd"),
            Map.entry("--sun-misc-unsafe-memory-access", "java"),
            Map.entry("--rounds", "scripts/bench-ab.sh"),
            Map.entry("--variant", "scripts/bench-ab.sh"),
            Map.entry("--mode", "scripts/receiver-cost.sh"),
            Map.entry("--profile-seconds", "scripts/receiver-cost.sh"),
            Map.entry("--with-prometheus", "scripts/bench.sh"),
            Map.entry("--with-prometheus3", "scripts/bench.sh"),
            Map.entry("--fresh-prometheus3", "scripts/bench.sh"),
            Map.entry("--fresh-victoria-metrics", "scripts/bench.sh"),
            Map.entry("--command-config", "kafka-*.sh"),
            Map.entry("--create", "kafka-topics.sh"),
            Map.entry("--series-operation-mode", "avalanche"),
            Map.entry("--series-interval", "avalanche"),
            Map.entry("--strict", "mkdocs build"),
            Map.entry("--enable-feature", "prometheus"),
            Map.entry("--flag", "(a placeholder)"));

    /** A {@code --flag} with what follows it; a dotted one ({@code --web.x}) is another tool's (Prometheus', Thanos'). */
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9.*-]*");

    private static final Pattern QUOTED_DEFAULT =
            Pattern.compile("`(--[a-z][a-z0-9-]*)`(?: \\(|, )default:? `?([^`),;]+?)`?[),;.]");

    /** Result files of docs/benchmarks.md (a capacity report, profiles' top frames): other builds' output, no pages. */
    private static final Path BENCHMARK_RESULTS = Path.of("docs", "benchmarks");

    /** README.md and every page of docs/ (the result files under docs/benchmarks/ excepted). */
    static List<Path> docs() throws IOException {
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> s = Files.walk(Path.of("docs"))) {
            s.filter(p -> p.toString().endsWith(".md") && !p.startsWith(BENCHMARK_RESULTS))
                    .sorted()
                    .forEach(files::add);
        }
        return files;
    }

    /** Every option of every command: name → the defaults it has in the commands that declare it. */
    private static Map<String, Set<String>> options() {
        Map<String, Set<String>> options = new HashMap<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.commandLine(Map.of())));
        while (!todo.isEmpty()) {
            CommandLine cl = todo.remove(todo.size() - 1);
            todo.addAll(cl.getSubcommands().values());
            for (OptionSpec o : cl.getCommandSpec().options()) {
                for (String name : o.names()) {
                    Set<String> defaults = options.computeIfAbsent(name, n -> new TreeSet<>());
                    if (o.defaultValue() != null) {
                        defaults.add(o.defaultValue());
                    }
                }
            }
        }
        return options;
    }

    /** The name each option of every command is shown under (its longest: a deprecated alias is shorter). */
    private static Set<String> currentNames() {
        Set<String> names = new TreeSet<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.commandLine(Map.of())));
        while (!todo.isEmpty()) {
            CommandLine cl = todo.remove(todo.size() - 1);
            todo.addAll(cl.getSubcommands().values());
            cl.getCommandSpec().options().forEach(o -> names.add(o.longestName()));
        }
        return names;
    }

    /** The glossary: its Terms table's third column lists each term's forbidden words. */
    private static final Path GLOSSARY = Path.of("docs", "glossary.md");

    /** The dashboard whose texts are held to the glossary and to the options. */
    private static final Path DASHBOARD = Path.of("grafana", "dashboards", "tsdb-writer-efficiency.json");

    /** The terms the glossary must define (issue 56 item 2). */
    private static final List<String> TERMS = List.of(
            "point",
            "record",
            "sample",
            "series",
            "segment",
            "watermark",
            "durability window",
            "efficiency",
            "expected",
            "written",
            "refused",
            "malformed",
            "held",
            "given up",
            "dead-lettered",
            "failed",
            "tenant");

    /** Term → the words that must not stand in for it, from the glossary's Terms table ("–": none). */
    private static Map<String, List<String>> forbiddenWords() throws IOException {
        Map<String, List<String>> words = new LinkedHashMap<>();
        String page = Files.readString(GLOSSARY);
        String terms = page.substring(page.indexOf("## Terms"), page.indexOf("\n## ", page.indexOf("## Terms") + 1));
        for (String line : terms.lines().toList()) {
            String[] cells = line.split("\\|");
            if (line.startsWith("| ")
                    && cells.length == 4
                    && !cells[1].isBlank()
                    && !cells[1].trim().equals("Term")) {
                String not = cells[3].trim();
                words.put(cells[1].trim(), not.equals("–") ? List.of() : List.of(not.split(",\\s*")));
            }
        }
        return words;
    }

    /** Every text an operator reads, by where it is: README, the pages (the glossary excepted), help, the dashboard. */
    private static Map<String, String> operatorTexts() throws IOException {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Path doc : docs()) {
            if (!doc.equals(GLOSSARY)) {
                texts.put(doc.toString(), Files.readString(doc));
            }
        }
        CommandLine main = Main.commandLine(Map.of());
        for (var e : main.getSubcommands().entrySet()) {
            texts.put(e.getKey() + " --help", e.getValue().getUsageMessage(CommandLine.Help.Ansi.OFF));
        }
        texts.put(DASHBOARD.toString(), String.join("\n", dashboardTexts()));
        return texts;
    }

    /** The dashboard's words: every panel's (and row's) title, description and legend, and every text panel's content. */
    static List<String> dashboardTexts() throws IOException {
        List<String> texts = new ArrayList<>();
        List<JsonNode> todo = new ArrayList<>(List.of(new ObjectMapper().readTree(DASHBOARD.toFile())));
        while (!todo.isEmpty()) {
            JsonNode n = todo.remove(todo.size() - 1);
            if (n.isObject()) {
                n.properties().forEach(e -> {
                    if (Set.of("title", "description", "legendFormat", "content")
                                    .contains(e.getKey())
                            && e.getValue().isTextual()) {
                        texts.add(e.getValue().asText());
                    } else {
                        todo.add(e.getValue());
                    }
                });
            } else if (n.isArray()) {
                n.forEach(todo::add);
            }
        }
        return texts;
    }

    /** {@code word} as a whole word or phrase (its first letter in either case: a sentence may start with it). */
    private static Pattern wordPattern(String word) {
        String first = word.substring(0, 1);
        return Pattern.compile("(?<![\\w-])[" + first.toLowerCase(Locale.ROOT) + first.toUpperCase(Locale.ROOT) + "]"
                + Pattern.quote(word.substring(1)) + "(?![\\w-])");
    }

    @Test
    void theGlossaryDefinesEveryTermAndEveryRenamedFlag() throws IOException {
        Map<String, List<String>> words = forbiddenWords();
        assertThat(words.keySet()).containsAll(TERMS);
        assertThat(words.get("refused"))
                .as("the one counter once called failed, rejected and gave up")
                .contains("gave up");
        String page = Files.readString(GLOSSARY);
        for (DeprecatedNames.Rename r : DeprecatedNames.RENAMES) {
            assertThat(page)
                    .as(r.toString())
                    .contains("| `" + r.command() + "` | `" + r.old() + "`")
                    .contains("`" + r.current() + "`");
        }
    }

    @Test
    void helpReadmeDocsAndTheDashboardUseNoWordTheGlossaryForbids() throws IOException {
        Map<String, List<String>> words = forbiddenWords();
        List<String> found = new ArrayList<>();
        for (var text : operatorTexts().entrySet()) {
            List<String> lines = text.getValue().lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                for (var term : words.entrySet()) {
                    for (String word : term.getValue()) {
                        if (wordPattern(word).matcher(lines.get(i)).find()) {
                            found.add(text.getKey() + ":" + (i + 1) + ": '" + word + "' (the glossary's word: "
                                    + term.getKey() + ")");
                        }
                    }
                }
            }
        }
        assertThat(dashboardTexts()).as("the dashboard's texts are read").hasSizeGreaterThan(50);
        assertThat(found).as("words %s forbids", GLOSSARY).isEmpty();
    }

    @Test
    void aRenamedFlagsOldNameAppearsOnlyWhereItsDeprecationIsSaid() throws IOException {
        Map<String, String> texts = operatorTexts();
        for (String f : List.of("docker-compose.yml", "scripts", "k8s")) {
            try (Stream<Path> s = Files.walk(Path.of(f))) {
                for (Path p : s.filter(Files::isRegularFile)
                        .filter(p -> p.toString().matches(".*\\.(sh|py|ya?ml)$"))
                        .sorted()
                        .toList()) {
                    texts.put(p.toString(), Files.readString(p));
                }
            }
        }
        Set<String> current = currentNames();
        List<String> olds = new ArrayList<>();
        for (DeprecatedNames.Rename r : DeprecatedNames.RENAMES) {
            if (!current.contains(
                    r.old())) { // capacity's --topic, --records, --drain-timeout stay other commands' names
                olds.add(r.old());
            }
        }
        olds.addAll(DeprecatedNames.variables().keySet());
        List<String> found = new ArrayList<>();
        for (var text : texts.entrySet()) {
            List<String> lines = text.getValue().lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                for (String old : olds) {
                    if (wordPattern(old).matcher(lines.get(i)).find()
                            && !lines.get(i).contains("deprecated")) {
                        found.add(text.getKey() + ":" + (i + 1) + ": " + old);
                    }
                }
            }
        }
        assertThat(found)
                .as("old names of renamed flags (use the new name, or say it is deprecated on that line)")
                .isEmpty();
    }

    @Test
    void everyFlagTheDashboardMentionsIsAnOptionOfSomeCommand() throws IOException {
        Map<String, Set<String>> options = options();
        List<String> unknown = new ArrayList<>();
        for (String text : dashboardTexts()) {
            Matcher m = FLAG.matcher(text);
            while (m.find()) {
                String flag = m.group().replaceAll("[.-]+$", "");
                if (!flag.contains(".") && !options.containsKey(flag) && !OTHER_TOOLS.containsKey(flag)) {
                    unknown.add(flag + " in \"" + text + "\"");
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void readsReadmeAndEveryPageOfTheSite() throws IOException {
        List<Path> files = docs();
        assertThat(files)
                .contains(
                        Path.of("README.md"),
                        Path.of("docs", "index.md"),
                        Path.of("docs", "run.md"),
                        Path.of("docs", "design.md"));
        assertThat(files).noneMatch(p -> p.startsWith(BENCHMARK_RESULTS));
        // every page the site's navigation names is read (mkdocs.yml: "  - Title: page.md")
        Matcher nav =
                Pattern.compile("(?m)^\\s+- [^:]+: ([\\w./-]+\\.md)$").matcher(Files.readString(Path.of("mkdocs.yml")));
        List<Path> inNav = new ArrayList<>();
        while (nav.find()) {
            inNav.add(Path.of("docs").resolve(nav.group(1)));
        }
        assertThat(inNav).hasSizeGreaterThan(20);
        assertThat(files).containsAll(inNav);
    }

    @Test
    void everyFlagTheDocsMentionIsAnOptionOfSomeCommand() throws IOException {
        Map<String, Set<String>> options = options();
        List<String> unknown = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = FLAG.matcher(lines.get(i));
                while (m.find()) {
                    String flag = m.group().replaceAll("[.-]+$", "");
                    if (flag.contains(".")) {
                        continue; // another tool's dotted flag
                    }
                    boolean known = flag.endsWith("-*")
                            ? options.keySet().stream()
                                    .anyMatch(o -> o.startsWith(flag.substring(0, flag.length() - 1)))
                            : options.containsKey(flag) || OTHER_TOOLS.containsKey(flag);
                    if (!known) {
                        unknown.add(doc + ":" + (i + 1) + ": " + flag);
                    }
                }
            }
        }
        assertThat(unknown)
                .as("flags the docs mention that no command has (a renamed or removed flag?)")
                .isEmpty();
    }

    @Test
    void everyDefaultTheDocsQuoteIsTheOptionsDefault() throws IOException {
        Map<String, Set<String>> options = options();
        List<String> wrong = new ArrayList<>();
        int quoted = 0;
        for (Path doc : docs()) {
            Matcher m = QUOTED_DEFAULT.matcher(Files.readString(doc).replace('\n', ' '));
            while (m.find()) {
                Set<String> defaults = options.get(m.group(1));
                if (defaults == null || defaults.isEmpty()) {
                    continue; // unknown: the other test names it; no default value: the docs describe one ("the clock")
                }
                quoted++;
                String said = m.group(2).trim();
                if (defaults.stream().noneMatch(d -> d.equalsIgnoreCase(said) || said.startsWith(d + " "))) {
                    wrong.add(doc + ": " + m.group(1) + " quoted default '" + said + "', the option's: " + defaults);
                }
            }
        }
        assertThat(quoted).as("quoted defaults found").isPositive();
        assertThat(wrong).isEmpty();
    }
}
