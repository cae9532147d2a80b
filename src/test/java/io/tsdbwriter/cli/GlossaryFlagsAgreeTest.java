package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/glossary.md's table "Flags shared by several commands" agrees with the commands: each row names, as
 * {@code `command`}, exactly the commands that have its flags under their current names ("every command": all of
 * them), each {@code `command --flag`} it mentions is a flag of that command, each of its flags is a name of two
 * commands at least (a deprecated name counts), and every flag that two commands or more show under its current name
 * has its row. A new command, or a flag added to a second command, fails here until the table says so. {@code check}
 * takes every flag of {@code run} (the page says so once) and is left out of the rows.
 */
class GlossaryFlagsAgreeTest {

    private static final Path GLOSSARY = Path.of("docs", "glossary.md");
    private static final String SECTION = "## Flags shared by several commands";

    private static final Pattern FLAG = Pattern.compile("`(--[a-z][a-z0-9-]*)`");
    private static final Pattern COMMAND = Pattern.compile("`([a-z]+)(?: (--[a-z][a-z0-9-]*))?`");

    /** One row: its flags, the commands it names bare, the {@code `command --flag`} it mentions. */
    private record Row(String line, List<String> flags, Set<String> commands, Map<String, String> mentions) {}

    /** Command → option → whether the name is the option's current one (its longest), for every visible option. */
    private static Map<String, Map<String, Boolean>> commands() {
        Map<String, Map<String, Boolean>> out = new TreeMap<>();
        for (var e : Main.commandLine(Map.of()).getSubcommands().entrySet()) {
            if (e.getValue().getCommandSpec().helpCommand()) {
                continue;
            }
            Map<String, Boolean> names = new TreeMap<>();
            for (OptionSpec o : e.getValue().getCommandSpec().options()) {
                if (o.usageHelp() || o.versionHelp()) {
                    continue;
                }
                for (String n : o.names()) {
                    if (n.startsWith("--")) {
                        names.merge(n, !o.hidden() && n.equals(o.longestName()), Boolean::logicalOr);
                    }
                }
            }
            out.put(e.getKey(), names);
        }
        // check takes run's flags, all of them (it mixes run in): the table's rows are of the other commands
        assertThat(out.get(CHECK)).as("check's flags are run's").isEqualTo(out.get("run"));
        out.remove(CHECK);
        return out;
    }

    /** The command that takes every flag of {@code run} with run's meaning: the glossary says so once, not per row. */
    private static final String CHECK = "check";

    private static List<Row> rows(Set<String> commandNames) throws IOException {
        String page = Files.readString(GLOSSARY);
        int start = page.indexOf(SECTION);
        assertThat(start).as("%s has the section %s", GLOSSARY, SECTION).isNotNegative();
        int end = page.indexOf("\n## ", start + 1);
        String section = end < 0 ? page.substring(start) : page.substring(start, end);
        List<Row> rows = new ArrayList<>();
        for (String line : section.lines().toList()) {
            String[] cells = line.split("\\|");
            if (!line.startsWith("| `--") || cells.length != 3) {
                continue;
            }
            List<String> flags = new ArrayList<>();
            Matcher f = FLAG.matcher(cells[1]);
            while (f.find()) {
                flags.add(f.group(1));
            }
            Set<String> named = new TreeSet<>();
            Map<String, String> mentions = new LinkedHashMap<>();
            Matcher c = COMMAND.matcher(cells[2]);
            while (c.find()) {
                if (!commandNames.contains(c.group(1))) {
                    continue;
                }
                if (c.group(2) == null) {
                    named.add(c.group(1));
                } else {
                    mentions.put(c.group(1) + " " + c.group(2), c.group(1));
                }
            }
            if (cells[2].contains("every command")) {
                named.addAll(commandNames);
            }
            rows.add(new Row(line, flags, named, mentions));
        }
        assertThat(rows).as("rows of %s", SECTION).hasSizeGreaterThan(5);
        return rows;
    }

    @Test
    void eachRowNamesExactlyTheCommandsThatHaveItsFlags() throws IOException {
        Map<String, Map<String, Boolean>> commands = commands();
        List<String> wrong = new ArrayList<>();
        for (Row row : rows(commands.keySet())) {
            for (String flag : row.flags()) {
                Set<String> current = new TreeSet<>();
                Set<String> any = new TreeSet<>();
                commands.forEach((command, names) -> {
                    if (names.containsKey(flag)) {
                        any.add(command);
                        if (names.get(flag)) {
                            current.add(command);
                        }
                    }
                });
                if (!current.equals(row.commands())) {
                    wrong.add(flag + ": the row names " + row.commands() + ", the commands that have it: " + current);
                }
                if (any.size() < 2) {
                    wrong.add(flag + ": a name of " + any + " only, not shared");
                }
            }
            row.mentions().forEach((mention, command) -> {
                String flag = mention.substring(mention.indexOf(' ') + 1);
                if (!commands.get(command).containsKey(flag)) {
                    wrong.add("`" + mention + "`: no such flag of " + command);
                }
            });
        }
        assertThat(wrong).as("%s, %s", GLOSSARY, SECTION).isEmpty();
    }

    @Test
    void everyFlagSeveralCommandsShowHasItsRow() throws IOException {
        Map<String, Map<String, Boolean>> commands = commands();
        Set<String> listed = new TreeSet<>();
        rows(commands.keySet()).forEach(r -> listed.addAll(r.flags()));
        Map<String, Set<String>> shared = new TreeMap<>();
        commands.forEach((command, names) -> names.forEach((flag, current) -> {
            if (current) {
                shared.computeIfAbsent(flag, k -> new TreeSet<>()).add(command);
            }
        }));
        shared.values().removeIf(s -> s.size() < 2);
        List<String> missing = new ArrayList<>();
        shared.forEach((flag, in) -> {
            if (!listed.contains(flag)) {
                missing.add(flag + " " + in);
            }
        });
        assertThat(shared).as("flags of several commands").hasSizeGreaterThan(20);
        assertThat(missing)
                .as("flags several commands show that %s's table \"%s\" lacks", GLOSSARY, SECTION)
                .isEmpty();
    }
}
