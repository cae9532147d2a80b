package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * The command line run in this JVM as {@code main} runs it ({@link Main#commandLine()}, never {@code Main.main}), its
 * standard output and error captured, and the check of a usage error: exit {@link Main#EXIT_USAGE} (2) with one line on
 * standard error and nothing on standard output. Stateless: each call builds its own command line.
 */
final class CliRun {

    /** What one run gave: its exit code and everything it printed to standard output and error. */
    record Result(int exitCode, String out, String err) {}

    private CliRun() {}

    /** Runs the command line with {@code args} ({@code "capacity", "--help"}, …) and returns what it gave. */
    static Result execute(String... args) {
        return execute(System.getenv(), args);
    }

    /** As {@link #execute(String...)} with {@code env} as the environment of its {@code TSDB_WRITER_*} defaults. */
    static Result execute(Map<String, String> env, String... args) {
        CommandLine cl = Main.commandLine(env);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /**
     * Asserts that {@code r} is a usage error: exit 2, exactly one line on standard error, starting with
     * {@code tsdb-writer:} and containing {@code fragment}, and nothing on standard output.
     */
    static void assertUsageError(Result r, String fragment) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(Main.EXIT_USAGE).isEqualTo(2);
        List<String> lines = r.err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("tsdb-writer:").contains(fragment);
        assertThat(r.out()).isEmpty();
    }
}
