package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.app.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The exit codes are said in one place, {@link ExitCodes#CATALOGUE}: every command's {@code --help} lists its codes
 * from it, and the pages' lists agree with it. README.md, docs/delivery.md and docs/troubleshooting.md each hold a
 * table {@code | code | meaning | commands |…} of every code (a meaning cell starts with the catalogue's meaning; the
 * commands cell is {@code all} or the commands in backquotes); docs/troubleshooting.md has a heading {@code ### Exit N —
 * meaning} per code; docs/verify.md's table lists verify's codes with their meaning there.
 */
class ExitCodesAgreeTest {

    private static final List<Path> EVERY_CODE =
            List.of(Path.of("README.md"), Path.of("docs", "delivery.md"), Path.of("docs", "troubleshooting.md"));

    private static final Path TROUBLESHOOTING = Path.of("docs", "troubleshooting.md");

    private static final Path VERIFY = Path.of("docs", "verify.md");

    private static final Pattern TABLE_HEADER = Pattern.compile("^\\| (?:exit )?code \\| meaning \\|.*");

    private static final Pattern HEADING = Pattern.compile("(?m)^#{2,6} Exit (\\d+) — (.+)$");

    private static final Pattern COMMAND = Pattern.compile("`([a-z]+)`");

    /** The rows of the first exit-code table of {@code page}: code → its cells after the code, as written. */
    static Map<Integer, List<String>> table(String page) {
        Map<Integer, List<String>> rows = new LinkedHashMap<>();
        List<String> lines = page.lines().toList();
        int at = 0;
        while (at < lines.size() && !TABLE_HEADER.matcher(lines.get(at)).matches()) {
            at++;
        }
        for (int i = at + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String[] cells = lines.get(i).split(" \\| ");
            List<String> rest = new ArrayList<>();
            for (int c = 1; c < cells.length; c++) {
                rest.add(cells[c].replaceAll(" ?\\|$", "").strip());
            }
            rows.put(Integer.parseInt(cells[0].replace("|", "").strip()), rest);
        }
        return rows;
    }

    /**
     * What is wrong with {@code rows} against {@code codes} (code → meaning) and, when {@code commands} is given, the
     * commands column; empty when they agree.
     */
    static List<String> disagreements(
            String where, Map<Integer, List<String>> rows, Map<Integer, String> codes, boolean commands) {
        List<String> wrong = new ArrayList<>();
        if (!rows.keySet().equals(codes.keySet())) {
            wrong.add(where + ": codes " + rows.keySet() + ", the catalogue's " + codes.keySet());
        }
        for (var row : rows.entrySet()) {
            String meaning = codes.get(row.getKey());
            String said = row.getValue().isEmpty() ? "" : row.getValue().get(0).replace("`", "");
            if (meaning != null && !startsWithMeaning(said, meaning)) {
                wrong.add(where + ": exit " + row.getKey() + " '" + said + "', the catalogue's '" + meaning + "'");
            }
            if (commands && meaning != null) {
                Set<String> named =
                        commandsOf(row.getValue().size() > 1 ? row.getValue().get(1) : "");
                Set<String> exiting = commandsExiting(row.getKey());
                if (!named.equals(exiting)) {
                    wrong.add(where + ": exit " + row.getKey() + " of " + named + ", the catalogue's " + exiting);
                }
            }
        }
        return wrong;
    }

    /** {@code said} is {@code meaning}, or starts with it and goes on with ":", ";", ",", " (" or " —". */
    private static boolean startsWithMeaning(String said, String meaning) {
        if (!said.startsWith(meaning)) {
            return false;
        }
        String rest = said.substring(meaning.length());
        return rest.isEmpty() || rest.matches("(?s)(?:[:;,]| \\(| —).*");
    }

    private static Set<String> commandsOf(String cell) {
        if (cell.strip().equals("all")) {
            return new LinkedHashSet<>(ExitCodes.COMMANDS);
        }
        Set<String> named = new LinkedHashSet<>();
        Matcher m = COMMAND.matcher(cell);
        while (m.find()) {
            named.add(m.group(1));
        }
        return named;
    }

    private static Set<String> commandsExiting(int code) {
        for (ExitCodes.Code c : ExitCodes.CATALOGUE) {
            if (c.code() == code) {
                return new LinkedHashSet<>(c.byCommand().keySet());
            }
        }
        return Set.of();
    }

    /** Every code with its one-line meaning. */
    private static Map<Integer, String> everyCode() {
        Map<Integer, String> codes = new LinkedHashMap<>();
        ExitCodes.CATALOGUE.forEach(c -> codes.put(c.code(), c.meaning()));
        return codes;
    }

    @Test
    void theCatalogueHoldsEveryConstantOnceAndEveryCommand() {
        assertThat(ExitCodes.CATALOGUE)
                .extracting(ExitCodes.Code::code)
                .containsExactly(
                        ExitCodes.OK,
                        ExitCodes.FAULT,
                        ExitCodes.USAGE,
                        ExitCodes.REFUSED,
                        ExitCodes.STOPPED,
                        ExitCodes.UNREACHABLE);
        for (String command : ExitCodes.COMMANDS) {
            assertThat(ExitCodes.of(command)).as(command).containsKeys(0, 1, 2);
        }
        assertThat(ExitCodes.of("run")).containsOnlyKeys(0, 1, 2, 3, 4);
        assertThat(ExitCodes.of("verify")).containsOnlyKeys(0, 1, 2, 5);
    }

    @Test
    void everyCommandsHelpListsItsCodesFromTheCatalogue() {
        CommandLine root = Main.commandLine(Map.of());
        for (String command : ExitCodes.COMMANDS) {
            CommandLine cl = root.getSubcommands().get(command);
            cl.setUsageHelpAutoWidth(false);
            cl.setUsageHelpWidth(120);
            String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            String codes = help.substring(help.indexOf("\nExit codes:\n"));
            ExitCodes.of(command).forEach((code, meaning) -> assertThat(codes.replaceAll("\\s+", " "))
                    .as(command + " exit " + code)
                    .contains(" " + code + " " + meaning));
            assertThat(cl.getCommandSpec().usageMessage().exitCodeList())
                    .hasSize(ExitCodes.of(command).size());
        }
    }

    @Test
    void readmeDeliveryAndTroubleshootingListEveryCodeAsTheCatalogueSaysIt() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Path page : EVERY_CODE) {
            Map<Integer, List<String>> rows = table(Files.readString(page));
            assertThat(rows)
                    .as(page + ": a table | code | meaning | commands |")
                    .isNotEmpty();
            wrong.addAll(disagreements(page.toString(), rows, everyCode(), true));
        }
        Map<Integer, List<String>> headings = new LinkedHashMap<>();
        Matcher m = HEADING.matcher(Files.readString(TROUBLESHOOTING));
        while (m.find()) {
            headings.put(Integer.parseInt(m.group(1)), List.of(m.group(2).strip()));
        }
        for (var h : headings.entrySet()) {
            if (!h.getValue().get(0).equals(everyCode().get(h.getKey()))) {
                wrong.add(TROUBLESHOOTING + ": heading Exit " + h.getKey() + " — "
                        + h.getValue().get(0) + ", the catalogue's "
                        + everyCode().get(h.getKey()));
            }
        }
        wrong.addAll(disagreements(TROUBLESHOOTING + " headings", headings, everyCode(), false));
        assertThat(wrong)
                .as("exit-code lists that disagree with ExitCodes.CATALOGUE")
                .isEmpty();
    }

    @Test
    void verifysPageListsVerifysCodes() throws IOException {
        Map<Integer, List<String>> rows = table(Files.readString(VERIFY));
        assertThat(disagreements(VERIFY.toString(), rows, ExitCodes.of("verify"), false))
                .isEmpty();
    }

    @Test
    void aPageLineThatDisagreesIsFound() {
        String page = "| code | meaning | commands |\n|---|---|---|\n| 0 | done | all |\n| 1 | a fault | `run` |\n"
                + "| 2 | bad flags | all |\n| 3 | done, but samples refused | `run` |\n";
        List<String> wrong = disagreements("page", table(page), everyCode(), true);
        assertThat(wrong)
                .anyMatch(w -> w.contains("codes [0, 1, 2, 3]"))
                .anyMatch(w -> w.contains("exit 1 of [run]"))
                .anyMatch(w -> w.contains("exit 2 'bad flags'"))
                .hasSize(3);
    }
}
