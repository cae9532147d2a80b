package io.tsdbwriter.cli;

import io.tsdbwriter.app.ExitCodes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * How every command's {@code --help} is laid out: an abbreviated synopsis ({@code tsdb-writer run [OPTIONS]}), the
 * options under the headings of {@link HelpGroups}, and text wrapped only at spaces, so a URL, a flag, a property name
 * or a variable is never split across lines (picocli's own wrapping breaks after a dot or a colon). Each element of a
 * description array is a paragraph; one that starts with spaces is a table row, continued under its second column. A
 * default that {@code run} took from the environment reads {@code (default: VALUE, from TSDB_WRITER_X)}, the value as
 * {@link EnvironmentDefaults#shownValue} prints it (never a secret). A heading names the docs page of its group's
 * details; the exit codes are the command's of {@link ExitCodes#CATALOGUE}. Stateless apart from the installed commands.
 */
final class HelpRenderer {

    /**
     * Column where option descriptions start (a third of the width when narrower); longer option names put their
     * description on the next line.
     */
    static final int DESCRIPTION_COLUMN = 40;

    private static final Pattern TABLE_ROW = Pattern.compile("\\S+ {2,}");

    private HelpRenderer() {}

    /** Installs the layout on {@code root} and every command below it; {@code env} marks defaults from the environment. */
    static void install(CommandLine root, EnvironmentDefaults env) {
        List<CommandLine> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            CommandLine cl = todo.remove(todo.size() - 1);
            todo.addAll(cl.getSubcommands().values());
            if (cl != root) {
                cl.getCommandSpec().usageMessage().abbreviateSynopsis(true);
            }
            if (!cl.getSubcommands().isEmpty()) {
                cl.getCommandSpec().usageMessage().commandListHeading("%nCommands:%n");
            }
            Map<String, String> codes = new LinkedHashMap<>();
            ExitCodes.of(cl.getCommandName()).forEach((code, meaning) -> codes.put(code.toString(), meaning));
            if (!codes.isEmpty()) {
                cl.getCommandSpec()
                        .usageMessage()
                        .exitCodeListHeading("%nExit codes:%n")
                        .exitCodeList(codes);
            }
            Map<String, CommandLine.IHelpSectionRenderer> sections = cl.getHelpSectionMap();
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_DESCRIPTION, HelpRenderer::description);
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_PARAMETER_LIST, HelpRenderer::parameterList);
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST_HEADING, help -> "");
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> optionList(help, env));
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST, HelpRenderer::exitCodeList);
            sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, HelpRenderer::commandList);
            cl.setHelpSectionMap(sections);
        }
    }

    private static int width(Help help) {
        return help.commandSpec().usageMessage().width();
    }

    /** The command's description, a paragraph per element, trailing empty ones dropped. */
    private static String description(Help help) {
        List<String> paragraphs =
                new ArrayList<>(List.of(help.commandSpec().usageMessage().description()));
        while (!paragraphs.isEmpty() && paragraphs.get(paragraphs.size() - 1).isBlank()) {
            paragraphs.remove(paragraphs.size() - 1);
        }
        StringBuilder out = new StringBuilder();
        for (String p : paragraphs) {
            for (String line : wrap(format(p), width(help))) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    /** The positional parameters (produce's and verify's FILEs) under "Arguments:". */
    private static String parameterList(Help help) {
        List<PositionalParamSpec> params = help.commandSpec().positionalParameters().stream()
                .filter(p -> !p.hidden())
                .toList();
        if (params.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("\nArguments:\n");
        for (PositionalParamSpec p : params) {
            String label = help.parameterLabelRenderer()
                    .renderParameterLabel(p, Help.Ansi.OFF, List.of())
                    .toString();
            row(out, "      " + label, paragraphs(p, Optional.empty()), width(help));
        }
        return out.toString();
    }

    /** The options, group by group, each under its heading. */
    private static String optionList(Help help, EnvironmentDefaults env) {
        CommandSpec spec = help.commandSpec();
        StringBuilder out = new StringBuilder();
        for (HelpGroups.Group g : HelpGroups.of(spec)) {
            out.append('\n')
                    .append(g.heading())
                    .append(g.details().isEmpty() ? "" : " (details: " + g.details() + ")")
                    .append(":\n");
            for (String name : g.options()) {
                OptionSpec o = spec.findOption(name);
                List<String> shortNames = new ArrayList<>();
                for (String n : o.names()) {
                    if (!n.startsWith("--")) {
                        shortNames.add(n);
                    }
                }
                String label = help.parameterLabelRenderer()
                        .renderParameterLabel(o, Help.Ansi.OFF, List.of())
                        .toString();
                String names = (shortNames.isEmpty() ? "      " : "  " + String.join(", ", shortNames) + ", ")
                        + o.longestName()
                        + label;
                Optional<String> fromEnv = env.variableOf(o).map(v -> env.shownValue(o) + ", from " + v);
                row(out, names, env.builtIn(() -> paragraphs(o, fromEnv)), width(help));
            }
        }
        return out.toString();
    }

    /** {@code names} then the paragraphs in the description column (on the next line when the names are too long). */
    private static void row(StringBuilder out, String names, List<String> paragraphs, int width) {
        int column = Math.min(DESCRIPTION_COLUMN, width / 3);
        List<String> lines = new ArrayList<>();
        for (String p : paragraphs) {
            lines.addAll(wrap(p, width - column));
        }
        String indent = " ".repeat(column);
        int i = 0;
        if (names.length() <= column - 2 && !lines.isEmpty()) {
            out.append(names)
                    .append(" ".repeat(column - names.length()))
                    .append(lines.get(0))
                    .append('\n');
            i = 1;
        } else {
            out.append(names).append('\n');
        }
        for (; i < lines.size(); i++) {
            out.append(lines.get(i).isEmpty() ? "" : indent + lines.get(i)).append('\n');
        }
    }

    /**
     * The description paragraphs of {@code a}, formatted as picocli formats them ({@code %%}, {@code %n}); with
     * {@code fromEnv} ("VALUE, from VARIABLE"), its default clause says so: the last {@code (default: …)} is replaced,
     * else a {@code Default: …} paragraph, else the clause is appended.
     */
    static List<String> paragraphs(ArgSpec a, Optional<String> fromEnv) {
        List<String> paragraphs = new ArrayList<>();
        for (String d : a.description()) {
            paragraphs.addAll(List.of(format(d).split("\n", -1)));
        }
        if (fromEnv.isEmpty()) {
            return paragraphs;
        }
        String clause = "(default: " + fromEnv.get() + ")";
        for (int i = paragraphs.size() - 1; i >= 0; i--) {
            String p = paragraphs.get(i);
            int at = p.lastIndexOf("(default: ");
            if (at >= 0) {
                int end = closingParenthesis(p, at);
                paragraphs.set(i, p.substring(0, at) + clause + p.substring(end + 1));
                return paragraphs;
            }
        }
        for (int i = 0; i < paragraphs.size(); i++) {
            if (paragraphs.get(i).startsWith("Default: ")) {
                paragraphs.set(i, clause);
                return paragraphs;
            }
        }
        if (paragraphs.isEmpty()) {
            paragraphs.add(clause);
        } else {
            paragraphs.set(paragraphs.size() - 1, paragraphs.get(paragraphs.size() - 1) + " " + clause);
        }
        return paragraphs;
    }

    /** Index of the parenthesis closing the one at {@code open}; the last index when it is never closed. */
    private static int closingParenthesis(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return s.length() - 1;
    }

    /** The exit codes ({@link ExitCodes#of} the command's): the code, then its meaning wrapped under itself. */
    private static String exitCodeList(Help help) {
        Map<String, String> codes = help.commandSpec().usageMessage().exitCodeList();
        int keyWidth =
                codes.keySet().stream().mapToInt(k -> k.strip().length()).max().orElse(0) + 5;
        StringBuilder out = new StringBuilder();
        codes.forEach(
                (code, meaning) -> row(out, "  " + code.strip(), List.of(format(meaning)), width(help), keyWidth));
        return out.toString();
    }

    /** The subcommands: name, then the first paragraph of its description. */
    private static String commandList(Help help) {
        Map<String, Help> subcommands = help.subcommands();
        if (subcommands.isEmpty()) {
            return "";
        }
        int keyWidth =
                subcommands.keySet().stream().mapToInt(String::length).max().orElse(0) + 4;
        StringBuilder out = new StringBuilder();
        subcommands.forEach((name, sub) -> {
            String[] d = sub.commandSpec().usageMessage().header().length > 0
                    ? sub.commandSpec().usageMessage().header()
                    : sub.commandSpec().usageMessage().description();
            row(out, "  " + name, List.of(d.length == 0 ? "" : format(d[0])), width(help), keyWidth);
        });
        return out.toString();
    }

    private static void row(StringBuilder out, String key, List<String> paragraphs, int width, int column) {
        List<String> lines = new ArrayList<>();
        for (String p : paragraphs) {
            lines.addAll(wrap(p, width - column));
        }
        out.append(key).append(" ".repeat(Math.max(1, column - key.length())));
        String indent = " ".repeat(column);
        for (int i = 0; i < lines.size(); i++) {
            out.append(i == 0 ? "" : indent).append(lines.get(i)).append('\n');
        }
        if (lines.isEmpty()) {
            out.append('\n');
        }
    }

    /** {@code %%} → %, {@code %n} → a line break, as picocli's format does; any other % is left as it is. */
    static String format(String text) {
        StringBuilder s = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 1 < text.length() && (text.charAt(i + 1) == '%' || text.charAt(i + 1) == 'n')) {
                s.append(text.charAt(++i) == 'n' ? '\n' : '%');
            } else {
                s.append(c);
            }
        }
        return s.toString();
    }

    /**
     * {@code paragraph} in lines of at most {@code width} characters, broken only at spaces: a word longer than the
     * width stands alone on a longer line, never cut. A paragraph that starts with spaces is a table row: its lines go
     * on under its second column ({@code "  key  value"} → under {@code value}).
     */
    static List<String> wrap(String paragraph, int width) {
        String s = paragraph.stripTrailing();
        List<String> lines = new ArrayList<>();
        if (s.isEmpty()) {
            lines.add("");
            return lines;
        }
        int lead = 0;
        while (lead < s.length() && s.charAt(lead) == ' ') {
            lead++;
        }
        int hang = lead;
        Matcher row = TABLE_ROW.matcher(s).region(lead, s.length());
        if (lead > 0 && row.lookingAt() && row.end() <= width / 2) {
            hang = row.end();
        }
        int pos = 0;
        boolean first = true;
        while (pos < s.length()) {
            int indent = first ? 0 : hang;
            int avail = Math.max(1, width - indent);
            String prefix = " ".repeat(indent);
            if (s.length() - pos <= avail) {
                lines.add(prefix + s.substring(pos));
                break;
            }
            int brk = s.lastIndexOf(' ', pos + avail);
            if (brk <= pos + (first ? lead : 0)) {
                brk = s.indexOf(' ', pos + avail);
                if (brk < 0) {
                    lines.add(prefix + s.substring(pos));
                    break;
                }
            }
            lines.add(prefix + s.substring(pos, brk).stripTrailing());
            pos = brk;
            while (pos < s.length() && s.charAt(pos) == ' ') {
                pos++;
            }
            first = false;
        }
        return lines;
    }
}
