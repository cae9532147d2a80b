package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
 */
class DocsAgreeTest {

    /** Flags of other tools the docs show in their commands, each with the tool it belongs to. */
    private static final Map<String, String> OTHER_TOOLS = Map.ofEntries(
            Map.entry("--add-config", "kafka-configs.sh"), Map.entry("--alter", "kafka-configs.sh"),
            Map.entry("--entity-name", "kafka-configs.sh"), Map.entry("--entity-type", "kafka-configs.sh"),
            Map.entry("--bootstrap-server", "kafka-*.sh"), Map.entry("--describe", "kafka-*.sh"),
            Map.entry("--offsets", "kafka-consumer-groups.sh"), Map.entry("--group", "kafka-consumer-groups.sh"),
            Map.entry("--feature", "kafka-features.sh"), Map.entry("--max-messages", "kafka-console-consumer.sh"),
            Map.entry("--offset", "kafka-console-consumer.sh"), Map.entry("--partition", "kafka-console-consumer.sh"),
            Map.entry("--build", "docker compose"), Map.entry("--build-arg", "docker build"),
            Map.entry("--rm", "docker run"), Map.entry("--scale", "docker compose"),
            Map.entry("--iptables", "dockerd"), Map.entry("--ip6tables", "dockerd"),
            Map.entry("--sun-misc-unsafe-memory-access", "java"),
            Map.entry("--rounds", "scripts/bench-ab.sh"), Map.entry("--variant", "scripts/bench-ab.sh"),
            Map.entry("--mode", "scripts/receiver-cost.sh"), Map.entry("--profile-seconds", "scripts/receiver-cost.sh"),
            Map.entry("--with-prometheus", "scripts/bench.sh"), Map.entry("--with-prometheus3", "scripts/bench.sh"),
            Map.entry("--fresh-prometheus3", "scripts/bench.sh"),
            Map.entry("--fresh-victoria-metrics", "scripts/bench.sh"),
            Map.entry("--command-config", "kafka-*.sh"), Map.entry("--create", "kafka-topics.sh"),
            Map.entry("--series-operation-mode", "avalanche"), Map.entry("--series-interval", "avalanche"),
            Map.entry("--strict", "mkdocs build"),
            Map.entry("--flag", "(a placeholder)"));

    /** A {@code --flag} with what follows it; a dotted one ({@code --web.x}) is another tool's (Prometheus', Thanos'). */
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9.*-]*");
    private static final Pattern QUOTED_DEFAULT =
            Pattern.compile("`(--[a-z][a-z0-9-]*)`(?: \\(|, )default:? `?([^`),;]+?)`?[),;.]");

    /** Result files of docs/benchmarks.md (a capacity report, profiles' top frames): other builds' output, no pages. */
    private static final Path BENCHMARK_RESULTS = Path.of("docs", "benchmarks");

    private static List<Path> docs() throws IOException {
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

    @Test
    void readsReadmeAndEveryPageOfTheSite() throws IOException {
        List<Path> files = docs();
        assertThat(files).contains(Path.of("README.md"), Path.of("docs", "index.md"), Path.of("docs", "run.md"),
                Path.of("docs", "design.md"));
        assertThat(files).noneMatch(p -> p.startsWith(BENCHMARK_RESULTS));
        // every page the site's navigation names is read (mkdocs.yml: "  - Title: page.md")
        Matcher nav = Pattern.compile("(?m)^\\s+- [^:]+: ([\\w./-]+\\.md)$")
                .matcher(Files.readString(Path.of("mkdocs.yml")));
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
                            ? options.keySet().stream().anyMatch(o -> o.startsWith(flag.substring(0, flag.length() - 1)))
                            : options.containsKey(flag) || OTHER_TOOLS.containsKey(flag);
                    if (!known) {
                        unknown.add(doc + ":" + (i + 1) + ": " + flag);
                    }
                }
            }
        }
        assertThat(unknown).as("flags the docs mention that no command has (a renamed or removed flag?)").isEmpty();
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
