package io.tsdbwriter.cli;

import io.tsdbwriter.capacity.search.TargetSearches;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.write.Output;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code capacity --target NAME=URL[,option…]} (repeatable; a picocli mixin): several targets searched one after another
 * ({@link TargetSearches}) instead of the one the single-target flags name. Not thread-safe; filled by picocli once per parse.
 */
public final class TargetOptions {

    /** The flags that name the one target of a search without {@code --target}; refused beside it. */
    static final List<String> SINGLE_TARGET_FLAGS = List.of("--vm-url", "--output", "--remote-write-url", "--remote-write-version",
            "--target-metrics-url");

    @Option(names = "--target", paramLabel = "NAME=URL[,OPTION…]",
            description = "Search several targets one after another with the same input, load model, series mode, read load "
                    + "and steps (repeatable; in the order given). NAME ([A-Za-z0-9_.-]) keeps each search apart: its writers' "
                    + "logs in <work-dir>/NAME, its topics <PREFIX>-NAME-step-01, …, its report in DIR/NAME of --report (DIR "
                    + "gets the targets side by side), its --csv and --chart files with -NAME before the extension. URL is "
                    + "what the writers write to: the import base URL, as --vm-url (http://vm:8428), or with output=remote-write "
                    + "the whole remote write URL, as --remote-write-url (http://prometheus:9090/api/v1/write); it holds no comma. "
                    + "Options, comma-separated: output=import|remote-write (default import), remote-write-version=1|2 (with "
                    + "remote write; default 1), metrics-url=URL (the /metrics page read each step; default: the URL's host's "
                    + "/metrics), query-url=URL (where --query-rate's read load goes and the read-back pass counts the samples "
                    + "stored, as --query-url; default: an import target's URL; a remote-write target needs one for either, e.g. "
                    + "http://prometheus:9090). A target whose search fails is reported and the next one runs. Not with --vm-url, --output, "
                    + "--remote-write-url, --remote-write-version or --target-metrics-url, which name the one target searched "
                    + "without it (default: none, one target)")
    List<String> values = new ArrayList<>();

    /**
     * The targets given, parsed, in their order; empty without {@code --target}.
     *
     * @throws ParameterException one line (exit 2) for a bad value, a repeated NAME, or a single-target flag beside them
     */
    List<SearchTarget> targets(CommandSpec spec) {
        if (values.isEmpty()) {
            return List.of();
        }
        for (String flag : SINGLE_TARGET_FLAGS) {
            if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                throw new ParameterException(spec.commandLine(), "--target names every target: " + flag + " names the one target "
                        + "searched without it; give each target's URL and options in its --target");
            }
        }
        try {
            return SearchTarget.parseAll(values);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * Each target with its read load ({@code --query-rate} and the query set against it; null without one), checked
     * before any search starts; empty without targets.
     *
     * @throws ParameterException one line (exit 2) when the read load cannot go to a target, or {@code --queries} is unreadable
     */
    static List<TargetSearches.Planned> plan(CommandSpec spec, List<SearchTarget> targets, QueryLoadOptions queryLoad) {
        if (targets.isEmpty()) {
            return List.of();
        }
        if (queryLoad.queryUrl != null) {
            throw new ParameterException(spec.commandLine(), "--query-url names one receiver's query API: with --target each "
                    + "import target's read load goes to its own URL's /api/v1/query_range");
        }
        List<TargetSearches.Planned> planned = new ArrayList<>(targets.size());
        for (SearchTarget t : targets) {
            if (queryLoad.queryRate > 0 && t.output() != Output.IMPORT && t.queryUrl() == null) {
                throw new ParameterException(spec.commandLine(), "--target " + t.name() + ": --query-rate needs this remote-write "
                        + "target's query API: add ,query-url=URL (e.g. http://prometheus:9090; Thanos receive serves none: a Thanos query's)");
            }
            try {
                planned.add(new TargetSearches.Planned(t, queryLoad.settings(t.searchUrl(), t.output() != Output.IMPORT, t.queryUrl())));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--target " + t.name() + ": " + e.getMessage());
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--queries: cannot read " + e.getMessage());
            }
        }
        return planned;
    }
}
