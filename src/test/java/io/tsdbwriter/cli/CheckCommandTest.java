package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code check} takes exactly {@code run}'s flags and variables, and a value {@code run} refuses is its first check's
 * FAIL line (no Kafka nor target is reached then): exit 2, as bad flags.
 */
class CheckCommandTest {

    private record Result(int code, String out, String err) {}

    private static Result execute(Map<String, String> env, String... args) {
        CommandLine cl = Main.commandLine(env);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = Main.execute(cl, args);
        return new Result(code, out.toString(), err.toString());
    }

    private static Set<String> optionNames(String command) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec o : Main.commandLine(Map.of())
                .getSubcommands()
                .get(command)
                .getCommandSpec()
                .options()) {
            names.addAll(List.of(o.names()));
        }
        return names;
    }

    @Test
    void takesExactlyRunsFlags() {
        assertThat(optionNames("check")).isEqualTo(optionNames("run")).contains("--config", "--topic", "--vm-url");
    }

    @Test
    void aValueRunRefusesIsAFailLineAndExitTwo() {
        Result r = execute(Map.of(), "check", "--topic", "t", "--compression", "zip");
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out().lines())
                .containsExactly(
                        "FAIL flags: --compression must be none or gzip, got 'zip'",
                        "check: 0 ok, 1 failed: run would not work with this configuration");
    }

    @Test
    void readsRunsVariables() {
        Result r = execute(Map.of("TSDB_WRITER_COMPRESSION", "zip"), "check", "--topic", "t");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.out()).contains("FAIL flags: --compression must be none or gzip, got 'zip'");
    }

    @Test
    void aFlagThatDoesNotParseIsAUsageErrorAsForRun() {
        Result r = execute(Map.of(), "check", "--time-multiplier", "many");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--time-multiplier").contains("tsdb-writer check --help");
    }

    @Test
    void aWriteUrlThatIsNoneIsRefusedBeforeAnythingIsReached() {
        Result r = execute(Map.of(), "check", "--topic", "t", "--vm-url", "not a url");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.out()).startsWith("FAIL flags: ").doesNotContain("kafka");
    }
}
