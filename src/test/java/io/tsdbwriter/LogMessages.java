package io.tsdbwriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The log calls at WARN and ERROR level in Java sources, each with the key words an operator's troubleshooting entry
 * must quote (docs/troubleshooting.md, {@link TroubleshootingCoverageTest}): a source scanner, not a compiler.
 *
 * <p>A logger is any name declared with the type {@code Logger} (a field, a parameter; {@code org.slf4j.Logger} too);
 * a name assigned {@code LoggerFactory.getLogger(…)} ({@code var}) too; a call is {@code NAME.warn(…)},
 * {@code NAME.error(…)}, {@code NAME.atWarn()…}, {@code NAME.atError()…}, {@code NAME.makeLoggingEventBuilder(Level.WARN)…}
 * (or {@code ERROR}) or a method reference {@code NAME::warn} / {@code NAME::error}, outside comments and string
 * literals. Its key words are, in this
 * order: the phrases of a {@value #MARKER} comment on the call's lines (several separated by {@code " | "}), or the
 * first string literal of the call (the first of a concatenation) cut at its {@code {}} placeholders, its first part of
 * at least {@value #MIN_WORDS} words. A call with neither has no key words: the test names it, to get a marker.
 *
 * <p>Stateless; thread-safe. {@link #main} prints every call and its key words.
 */
public final class LogMessages {

    /** The comment that gives a call's key words when its message is built elsewhere (a variable, a method). */
    public static final String MARKER = "// troubleshooting:";
    /** Fewest words a message's literal part must have to identify it. */
    public static final int MIN_WORDS = 3;

    private static final Pattern LOGGER = Pattern.compile("\\bLogger\\s+([A-Za-z_$][A-Za-z0-9_$]*)\\b"
            + "|\\b([A-Za-z_$][A-Za-z0-9_$]*)\\s*=\\s*(?:org\\.slf4j\\.)?LoggerFactory\\s*\\.\\s*getLogger\\b");

    /**
     * One log call at WARN or ERROR level.
     *
     * @param file the source file
     * @param line its 1-based line
     * @param level {@code warn} or {@code error}
     * @param call the call as written, whitespace collapsed
     * @param keys the key words its troubleshooting entry must quote; empty when none could be found
     * @param marked true when the keys come from a {@value #MARKER} comment
     */
    public record Call(Path file, int line, String level, String call, List<String> keys, boolean marked) {
        /** {@code file:line}. */
        public String where() {
            return file + ":" + line;
        }
    }

    private LogMessages() {}

    /** Every WARN/ERROR log call of every {@code .java} file under {@code root}, by file and line. */
    public static List<Call> under(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            List<Call> calls = new ArrayList<>();
            files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(p -> calls.addAll(in(p, read(p))));
            return calls;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The WARN/ERROR log calls of one source text. */
    public static List<Call> in(Path file, String source) {
        String code = blank(source, false); // comments blanked
        String bare = blank(source, true); // comments and the insides of literals blanked
        Set<String> loggers = new LinkedHashSet<>();
        Matcher d = LOGGER.matcher(bare);
        while (d.find()) {
            loggers.add(d.group(1) != null ? d.group(1) : d.group(2));
        }
        List<Call> calls = new ArrayList<>();
        if (loggers.isEmpty()) {
            return calls;
        }
        String names = String.join("|", loggers.stream().map(Pattern::quote).toList());
        Matcher m = Pattern.compile(
                        "\\b(" + names + ")\\s*(?:\\.\\s*(?:(warn|error|atWarn|atError)\\s*\\("
                                + "|makeLoggingEventBuilder\\s*\\(\\s*(?:org\\.slf4j\\.event\\.)?Level\\.(WARN|ERROR)\\s*\\))|::\\s*(warn|error)\\b)")
                .matcher(bare);
        while (m.find()) {
            String level;
            int end;
            String first; // the first string literal of the message, or null
            if (m.group(4) != null) { // a method reference: the message is whatever is passed
                level = m.group(4);
                end = m.end();
                first = null;
            } else if (m.group(3) != null || m.group(2).startsWith("at")) { // fluent: the statement up to its ';'
                level = m.group(3) != null
                        ? m.group(3).toLowerCase(Locale.ROOT)
                        : m.group(2).substring(2).toLowerCase(Locale.ROOT);
                end = statementEnd(bare, m.end(), m.group(3) != null ? 0 : 1);
                first = firstLiteral(code, m.end(), end, false);
            } else {
                level = m.group(2);
                end = closing(bare, m.end() - 1);
                first = firstLiteral(code, m.end(), end, true);
            }
            int startLine = lineOf(source, m.start());
            int endLine = lineOf(source, end);
            String[] lines = source.split("\n", -1);
            List<String> keys = new ArrayList<>();
            boolean marked = false;
            for (int l = startLine; l <= endLine && l <= lines.length; l++) {
                int at = lines[l - 1].indexOf(MARKER);
                if (at >= 0) {
                    marked = true;
                    for (String k : lines[l - 1].substring(at + MARKER.length()).split(" \\| ")) {
                        if (!k.isBlank()) {
                            keys.add(k.strip());
                        }
                    }
                }
            }
            if (!marked && first != null) {
                String key = key(first);
                if (key != null) {
                    keys.add(key);
                }
            }
            String text =
                    code.substring(m.start(), Math.min(code.length(), end + 1)).replaceAll("\\s+", " ");
            calls.add(new Call(file, startLine, level, text, List.copyOf(keys), marked));
        }
        return calls;
    }

    /** The first part of {@code literal} between {@code {}} placeholders with at least {@value #MIN_WORDS} words, or null. */
    static String key(String literal) {
        for (String part : literal.split("\\{}", -1)) {
            String p = normalise(part);
            if (p.split(" ").length >= MIN_WORDS
                    && p.chars().filter(Character::isLetter).count() >= 2 * MIN_WORDS) {
                return p;
            }
        }
        return null;
    }

    /** Whitespace runs as one space, trimmed. */
    public static String normalise(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }

    /**
     * The first string literal in {@code code[from, to)}: with {@code argument}, only when the first argument starts
     * with it (a message); otherwise the first anywhere (a fluent builder's {@code setMessage} or {@code log}).
     */
    private static String firstLiteral(String code, int from, int to, boolean argument) {
        int i = from;
        while (i < to && Character.isWhitespace(code.charAt(i))) {
            i++;
        }
        if (argument) {
            return i < to && code.charAt(i) == '"' ? literal(code, i) : null;
        }
        int q = code.indexOf('"', from);
        return q >= 0 && q < to ? literal(code, q) : null;
    }

    /** The value of the string literal (or text block) starting at {@code code[at]}, escapes resolved. */
    private static String literal(String code, int at) {
        if (code.startsWith("\"\"\"", at)) {
            int end = code.indexOf("\"\"\"", at + 3);
            String body = code.substring(code.indexOf('\n', at) + 1, end);
            return unescape(body.stripIndent());
        }
        StringBuilder raw = new StringBuilder();
        for (int i = at + 1; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '\\') {
                raw.append(c).append(code.charAt(++i));
            } else if (c == '"') {
                break;
            } else {
                raw.append(c);
            }
        }
        return unescape(raw.toString());
    }

    private static String unescape(String s) {
        try {
            return s.translateEscapes();
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    /** The index of the parenthesis closing the one at {@code open} ({@code bare}: literals blanked), or the end. */
    private static int closing(String bare, int open) {
        int depth = 0;
        for (int i = open; i < bare.length(); i++) {
            char c = bare.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return bare.length() - 1;
    }

    /**
     * The index of the {@code ;} ending the statement that goes on at {@code from} ({@code depth} parentheses open),
     * outside parentheses.
     */
    private static int statementEnd(String bare, int from, int depth) {
        for (int i = from; i < bare.length(); i++) {
            char c = bare.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ';' && depth <= 0) {
                return i;
            }
        }
        return bare.length() - 1;
    }

    private static int lineOf(String s, int index) {
        int line = 1;
        for (int i = 0; i < Math.min(index, s.length()); i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /**
     * {@code source} of the same length with comments as spaces (newlines kept) and, with {@code literals}, the insides
     * of string and char literals and text blocks as spaces too (their quotes kept).
     */
    static String blank(String source, boolean literals) {
        StringBuilder out = new StringBuilder(source);
        int n = source.length();
        int i = 0;
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    out.setCharAt(i++, ' ');
                }
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (; i < end; i++) {
                    if (source.charAt(i) != '\n') {
                        out.setCharAt(i, ' ');
                    }
                }
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end;
                for (int j = i + 3; j < end; j++) {
                    if (literals && source.charAt(j) != '\n') {
                        out.setCharAt(j, ' ');
                    }
                }
                i = end + 3;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    if (source.charAt(j) == '\\') {
                        if (literals) {
                            out.setCharAt(j, ' ');
                        }
                        j++;
                    }
                    if (literals && j < n) {
                        out.setCharAt(j, ' ');
                    }
                    j++;
                }
                i = j + 1;
            } else {
                i++;
            }
        }
        return out.toString();
    }

    /** Prints every WARN/ERROR call under src/main/java with its key words (or what is missing). */
    public static void main(String[] args) {
        for (Call c : under(Path.of(args.length > 0 ? args[0] : "src/main/java"))) {
            System.out.println(c.where() + " " + c.level() + (c.marked() ? " [marker]" : "") + "\n    " + c.keys()
                    + "\n    " + c.call());
        }
    }

    /** Reads a file; IO errors unchecked. */
    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
