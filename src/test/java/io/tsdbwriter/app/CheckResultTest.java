package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The lines of {@code tsdb-writer check}: one per check, a summary, and the exit code the results give. */
class CheckResultTest {

    @Test
    void eachLineStartsWithItsStatusInFourColumns() {
        assertThat(CheckResult.ok("kafka", "3 brokers at kafka:9092").line())
                .isEqualTo("ok   kafka: 3 brokers at kafka:9092");
        assertThat(CheckResult.warn("durability", "window 30s").line()).isEqualTo("warn durability: window 30s");
        assertThat(CheckResult.fail("target http://vm:8428", "answered 401 to an empty request: credentials?")
                        .line())
                .isEqualTo("FAIL target http://vm:8428: answered 401 to an empty request: credentials?");
    }

    @Test
    void everyCheckPassedExitsZeroWarningsIncluded() {
        List<CheckResult> results =
                List.of(CheckResult.ok("kafka", "1 broker"), CheckResult.ok("topic t", "6 partitions"));
        assertThat(CheckResult.exitCode(results)).isEqualTo(ExitCodes.OK);
        assertThat(CheckResult.summary(results))
                .isEqualTo("check: 2 ok: run can start with this configuration (nothing was written nor committed)");

        List<CheckResult> warned = List.of(CheckResult.ok("kafka", "1 broker"), CheckResult.warn("durability", "0"));
        assertThat(CheckResult.exitCode(warned)).isEqualTo(ExitCodes.OK);
        assertThat(CheckResult.summary(warned)).startsWith("check: 1 ok, 1 warning: run can start");
    }

    @Test
    void oneFailedCheckIsAConfigurationFaultExitTwo() {
        List<CheckResult> results = List.of(
                CheckResult.ok("kafka", "1 broker"),
                CheckResult.fail("topic t", "topic 't' does not exist"),
                CheckResult.warn("durability", "window 30s"),
                CheckResult.warn("metrics", "x"),
                CheckResult.fail("target http://vm:8428", "no answer"));
        assertThat(CheckResult.exitCode(results)).isEqualTo(ExitCodes.USAGE).isEqualTo(2);
        assertThat(CheckResult.summary(results))
                .isEqualTo("check: 1 ok, 2 warnings, 2 failed: run would not work with this configuration");
        assertThat(CheckResult.exitCode(List.of())).isZero();
    }
}
