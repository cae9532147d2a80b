package io.tsdbwriter.cli;

import io.tsdbwriter.app.CheckResult;
import io.tsdbwriter.app.ConfigCheck;
import io.tsdbwriter.config.RunConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code tsdb-writer check}: {@code run}'s flags, variables and {@code --config} file (the whole {@link RunCommand} as a
 * mixin, so no flag can differ), checked without running: the values and the relabel rules ({@link
 * RunCommand#validated()}), then Kafka and the write targets ({@link ConfigCheck}). Prints one line per check and a
 * summary to standard output; exit 0 when no check failed, 2 when one did (a configuration fault), as for bad flags.
 */
@Command(
        name = "check",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Check a configuration of run without running it. Takes exactly run's flags, its TSDB_WRITER_* variables and "
                    + "its --config file; validates every value and the relabel rules, reaches Kafka (the brokers and "
                    + "credentials, each topic and its partitions, the group's committed offsets read back, the "
                    + "dead-letter topic) and probes every write target as run does: an empty write request (it stores "
                    + "nothing), the /metrics pages it sizes its write permits (concurrent write requests) from, the "
                    + "durability window it would use. One line per check (ok, warn or FAIL), then a summary; no sample "
                    + "is written, no offset committed, no topic created, no group joined."
        })
final class CheckCommand implements Callable<Integer> {

    /** Every option of {@code run}, under its headings. */
    @Mixin
    RunCommand run = new RunCommand();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<CheckResult> results = new ArrayList<>();
        Consumer<CheckResult> print = r -> {
            results.add(r);
            out.println(r.line());
            out.flush();
        };
        RunConfig cfg;
        try {
            cfg = run.validated();
        } catch (IllegalArgumentException e) {
            print.accept(CheckResult.fail("flags", e.getMessage()));
            out.println(CheckResult.summary(results));
            return CheckResult.exitCode(results);
        }
        print.accept(CheckResult.ok("flags", describe(cfg)));
        if (cfg.relabel() != null) {
            int rules = cfg.relabel().rules().size();
            print.accept(CheckResult.ok(
                    "relabel", rules + (rules == 1 ? " rule" : " rules") + " read from " + run.routing.relabelConfig));
        }
        new ConfigCheck(cfg, print).run();
        out.println(CheckResult.summary(results));
        out.flush();
        return CheckResult.exitCode(results);
    }

    /** What {@code run} would do, in a few words: its output and targets, topics, group and load model. */
    static String describe(RunConfig cfg) {
        int targets = cfg.writeUrls().size();
        return "output " + cfg.output().flag() + " to " + targets + (targets == 1 ? " target" : " targets")
                + ", topics "
                + cfg.topicsText() + ", " + (cfg.replay().replay() ? "a replay (no group)" : "group " + cfg.groupId())
                + ", M=" + cfg.timeMultiplier() + " N=" + cfg.instanceMultiplier() + " P=" + cfg.parallelism();
    }
}
