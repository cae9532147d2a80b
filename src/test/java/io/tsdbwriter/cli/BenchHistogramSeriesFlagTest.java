package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code bench --histogram-series}: help says it; a bad value or a combination it does not go with gives one line and
 * exit 2 before anything starts.
 */
class BenchHistogramSeriesFlagTest {

    private record Result(int exitCode, String out, String err) {}

    private static Result execute(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static void assertUsageError(Result r, String line) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(Main.EXIT_USAGE).isEqualTo(2);
        List<String> lines = r.err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("tsdb-writer:").contains(line);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void helpNamesTheFlagAndItsDefault() {
        String help = execute("bench", "--help").out();
        assertThat(help).contains("--histogram-series=S", "<topic>-histograms", "0 = none (default: 0)");
    }

    @Test
    void aNegativeCountIsAUsageError() {
        assertUsageError(execute("bench", "--histogram-series", "-1"), "--histogram-series must be >= 0, got -1");
    }

    @Test
    void aCountThatIsNoNumberIsAUsageError() {
        assertUsageError(execute("bench", "--histogram-series", "many"), "--histogram-series");
    }

    @Test
    void theShareGoesWithBacklogCellsOnly() {
        assertUsageError(
                execute("bench", "--histogram-series", "10", "--input-rate", "1000"),
                "--histogram-series feeds the backlog cells only: not with --input-rate");
    }

    @Test
    void notWithTheRelayComparison() {
        assertUsageError(
                execute("bench", "--histogram-series", "10", "--floor"),
                "--histogram-series: not with --peer or --floor (they relay the points alone)");
    }
}
