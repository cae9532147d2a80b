package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The values the documentation gives a flag with a fixed set of them are values it takes: wherever README.md or a page
 * of docs/ writes {@code --flag value} or {@code --flag=value} for an option whose values are named — an enum, or a
 * parameter label of lower-case words such as {@code segments|share} — the value is one of them, in some command that
 * has the option. Read in code only (inline code spans and fenced blocks), where a word after a flag is its value. A
 * page that names a mode the code does not have ({@code --consumer-mode group}) fails here.
 */
class DocsFlagValuesTest {

    /** A flag and the word after it (a space or {@code =} between). */
    private static final Pattern FLAG_VALUE =
            Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*)[ =]([a-z][a-z0-9_-]*+)(?![.$/:{(])");

    private static final Pattern WORDS = Pattern.compile("[a-z][a-z0-9_-]*(\\|[a-z][a-z0-9_-]*)+");

    /** Option name → the values it takes, over every command that has it; options without a named set are absent. */
    static Map<String, Set<String>> namedValues() {
        Map<String, Set<String>> values = new HashMap<>();
        List<CommandLine> todo = new ArrayList<>(List.of(Main.commandLine(Map.of())));
        while (!todo.isEmpty()) {
            CommandLine cl = todo.remove(todo.size() - 1);
            todo.addAll(cl.getSubcommands().values());
            for (OptionSpec o : cl.getCommandSpec().options()) {
                Set<String> set = valuesOf(o);
                if (set != null) {
                    for (String name : o.names()) {
                        values.computeIfAbsent(name, n -> new TreeSet<>()).addAll(set);
                    }
                }
            }
        }
        return values;
    }

    private static Set<String> valuesOf(OptionSpec o) {
        if (o.arity().max() == 0) {
            return null;
        }
        Class<?> type = o.auxiliaryTypes().length > 0 ? o.auxiliaryTypes()[0] : o.type();
        if (type.isEnum() && o.converters().length == 0) { // a converter may take other spellings
            Set<String> set = new TreeSet<>();
            for (Object c : type.getEnumConstants()) {
                set.add(c.toString().toLowerCase(Locale.ROOT));
                set.add(((Enum<?>) c).name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            return set;
        }
        String label = o.paramLabel().replace("[,…]", "");
        if (WORDS.matcher(label).matches()) {
            return new TreeSet<>(List.of(label.split("\\|")));
        }
        return null;
    }

    @Test
    void everyNamedValueTheDocsGiveAFlagIsOneItTakes() throws IOException {
        Map<String, Set<String>> named = namedValues();
        assertThat(named).as("options with named values").containsKeys("--consumer-mode", "--ordering", "--output");
        List<String> wrong = new ArrayList<>();
        for (Path doc : DocsAgreeTest.docs()) {
            List<String> lines = Files.readAllLines(doc);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.stripLeading().startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                for (String code : fenced ? List.of(line) : codeSpans(line)) {
                    Matcher m = FLAG_VALUE.matcher(code);
                    while (m.find()) {
                        Set<String> values = named.get(m.group(1));
                        if (values != null && !values.contains(m.group(2))) {
                            wrong.add(doc + ":" + (i + 1) + ": " + m.group(1) + " " + m.group(2) + " (takes " + values
                                    + ")");
                        }
                    }
                }
            }
        }
        assertThat(wrong).as("values the flags do not take").isEmpty();
    }

    /** The inline code spans of a line: the text between each pair of backticks. */
    private static List<String> codeSpans(String line) {
        List<String> spans = new ArrayList<>();
        String[] parts = line.split("`", -1);
        for (int i = 1; i < parts.length; i += 2) {
            spans.add(parts[i]);
        }
        return spans;
    }
}
