package io.tsdbwriter.cli;

import static io.tsdbwriter.cli.CliRun.assertUsageError;
import static io.tsdbwriter.cli.CliRun.execute;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code bench --histogram-series}: help says it; a bad value or a combination it does not go with gives one line and
 * exit 2 before anything starts.
 */
class BenchHistogramSeriesFlagTest {

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
