package io.tsdbwriter;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.app.ExitCodes;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md covers what an operator meets (issue 56 item 6): an entry for every WARN and ERROR message
 * in src/main/java (its key words, {@link LogMessages}: the first literal text up to a placeholder, or the words of a
 * {@code // troubleshooting:} marker on the log line), and a heading for every exit code of {@link ExitCodes}.
 */
class TroubleshootingCoverageTest {

    static final Path PAGE = Path.of("docs", "troubleshooting.md");

    /** The page as the test compares it: whitespace runs as one space; {@code {}} as the page's {@code …}. */
    static String page() throws IOException {
        return LogMessages.normalise(Files.readString(PAGE));
    }

    static String shown(String key) {
        return LogMessages.normalise(key.replace("{}", "…"));
    }

    @Test
    void everyWarnAndErrorMessageHasATroubleshootingEntry() throws IOException {
        List<LogMessages.Call> calls = LogMessages.under(Path.of("src", "main", "java"));
        assertThat(calls)
                .as("WARN/ERROR log calls found in src/main/java (the scanner still sees them)")
                .hasSizeGreaterThan(50);
        String page = page();
        List<String> keyless = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (LogMessages.Call c : calls) {
            if (c.keys().isEmpty()) {
                keyless.add(c.where() + ": " + c.call());
            }
            for (String k : c.keys()) {
                if (!page.contains(shown(k))) {
                    missing.add(c.where() + " (" + c.level() + "): \"" + shown(k) + "\"");
                }
            }
        }
        assertThat(keyless)
                .as(
                        "log calls whose message has no literal of %d words: add '%s <key words>' on the log line",
                        LogMessages.MIN_WORDS, LogMessages.MARKER)
                .isEmpty();
        assertThat(missing)
                .as("WARN/ERROR messages without an entry in %s (quote the message, … for {})", PAGE)
                .isEmpty();
    }

    @Test
    void everyExitCodeHasATroubleshootingEntry() throws IOException, IllegalAccessException {
        TreeMap<Integer, String> codes = new TreeMap<>();
        for (Field f : ExitCodes.class.getDeclaredFields()) {
            if (f.getType() == int.class
                    && Modifier.isStatic(f.getModifiers())
                    && Modifier.isPublic(f.getModifiers())) {
                codes.put(f.getInt(null), f.getName());
            }
        }
        assertThat(codes).containsKeys(0, 1, 2, 3, 4, 5);
        String page = Files.readString(PAGE);
        List<String> missing = new ArrayList<>();
        for (var e : codes.entrySet()) {
            // a heading per code: "### Exit 3 — …" (any level, "exit" in any case)
            if (!Pattern.compile("(?mi)^#{2,6} exit " + e.getKey() + "\\b")
                    .matcher(page)
                    .find()) {
                missing.add(e.getKey() + " (" + e.getValue() + ")");
            }
        }
        assertThat(missing)
                .as("exit codes without a heading '### Exit N …' in %s", PAGE)
                .isEmpty();
    }

    @Test
    void theScannerFindsEveryFormOfALogCall() {
        String src =
                """
                class X {
                    private static final Logger LOG = null;
                    static void f(Logger other, String built) {
                        // log.warn("in a comment is no call")
                        String s = "LOG.warn(\\"in a literal is no call\\")";
                        LOG.warn("first literal text {} is cut here", 1);
                        other.error("{}: a placeholder first, then the words", "x");
                        LOG.warn("concatenated from one "
                                + "and two", 2);
                        LOG.atError().setMessage("fluent builder message here {}").log();
                        other.warn(built); // troubleshooting: built elsewhere | and elsewhere
                        List.of(built).forEach(LOG::error);
                        LOG.error("{} {}", 1, 2);
                        LOG.info("info is not counted");
                        var third = LoggerFactory.getLogger(X.class);
                        third.makeLoggingEventBuilder(Level.WARN).setMessage("a builder at a level").log();
                    }
                }
                """;
        List<LogMessages.Call> calls = LogMessages.in(Path.of("X.java"), src);
        assertThat(calls)
                .extracting(LogMessages.Call::keys)
                .containsExactly(
                        List.of("first literal text"),
                        List.of(": a placeholder first, then the words"),
                        List.of("concatenated from one"),
                        List.of("fluent builder message here"),
                        List.of("built elsewhere", "and elsewhere"),
                        List.of(),
                        List.of(),
                        List.of("a builder at a level"));
        assertThat(calls)
                .extracting(LogMessages.Call::level)
                .containsExactly("warn", "error", "warn", "error", "warn", "error", "error", "warn");
        assertThat(calls).extracting(LogMessages.Call::line).containsExactly(6, 7, 8, 10, 11, 12, 13, 16);
    }
}
