package io.tsdbwriter.cli;

import io.tsdbwriter.capacity.search.TargetSearches;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.lab.CpuList;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.Placement;
import io.tsdbwriter.wire.Output;
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
    static final List<String> SINGLE_TARGET_FLAGS =
            List.of("--vm-url", "--output", "--remote-write-url", "--remote-write-version", "--target-metrics-url");

    @Option(
            names = "--target",
            paramLabel = "NAME=URL[,OPTION…]",
            description = "Search several targets with the same load (repeatable) (default: none, one target)")
    List<String> values = new ArrayList<>();

    @Option(
            names = "--side-by-side",
            description =
                    "With --target: search the targets at the same time, on CPUs of their own (default: one after another)")
    boolean sideBySide;

    /**
     * Where each target and this process go side by side.
     *
     * @param targets each target's placement, in the order given
     * @param rest    the CPUs in no target's lists: this process and a local Kafka broker
     */
    record SideBySide(List<Placement> targets, CpuList rest) {}

    /** Each target's placement side by side and where this process goes. */
    record SideBySidePlan(List<TargetSearches.Planned> planned, CpuPinning.Plan rest) {}

    /**
     * The placements of {@code --side-by-side}: each target's TSDB (found on its URL's port) and writers on its CPUs,
     * this process and a local Kafka broker on the CPUs no target has.
     *
     * @throws ParameterException one line (exit 2) for each refusal of {@link TargetOptions#sideBySide} and {@link CpuPinning#plan}
     */
    static SideBySidePlan sideBySidePlan(
            CommandSpec spec,
            List<TargetSearches.Planned> planned,
            PlacementOptions placement,
            String bootstrapServers) {
        if (placement.tsdbCpus != null || placement.writerCpus != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--side-by-side places each target on its own CPUs: give tsdb-cpus= "
                            + "and writer-cpus= in each --target instead of --tsdb-cpus/--writer-cpus");
        }
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux")) {
                throw new IllegalArgumentException(
                        "--side-by-side works on Linux only (this is " + System.getProperty("os.name") + ")");
            }
            SideBySide side = sideBySide(
                    planned.stream().map(TargetSearches.Planned::target).toList(), CpuPinning.available());
            List<TargetSearches.Planned> placed = new ArrayList<>();
            for (int i = 0; i < planned.size(); i++) {
                SearchTarget t = planned.get(i).target();
                CpuPinning.Plan plan;
                try {
                    plan = CpuPinning.plan(side.targets().get(i), List.of(t.searchUrl()), bootstrapServers)
                            .beside();
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(
                            "--target " + t.name() + ": " + e.getMessage().replace("--tsdb-cpus", "tsdb-cpus"));
                }
                placed.add(new TargetSearches.Planned(t, planned.get(i).reads(), plan));
            }
            CpuPinning.Plan rest = CpuPinning.plan(new Placement(null, side.rest()), List.of(), bootstrapServers);
            return new SideBySidePlan(placed, rest);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "--side-by-side: cannot read this machine's CPUs: " + e.getMessage());
        }
    }

    /**
     * Checks that {@code targets} can run side by side on {@code available}: each has {@code tsdb-cpus} and
     * {@code writer-cpus} (disjoint, on {@code available}: {@link Placement#of}), no two targets share a CPU, and a CPU is
     * left for this process.
     *
     * @throws IllegalArgumentException one line naming the target and what is missing or shared
     */
    static SideBySide sideBySide(List<SearchTarget> targets, CpuList available) {
        if (targets.size() < 2) {
            throw new IllegalArgumentException(
                    "--side-by-side needs at least two --target (got " + targets.size() + ")");
        }
        List<Placement> placements = new ArrayList<>();
        CpuList used = CpuList.none();
        for (SearchTarget t : targets) {
            if (t.tsdbCpus() == null || t.writerCpus() == null) {
                throw new IllegalArgumentException(
                        "--side-by-side: --target " + t.name() + " needs tsdb-cpus=LIST and writer-cpus=LIST "
                                + "(the CPUs of its TSDB and of its writers, e.g. ,tsdb-cpus=0-1,writer-cpus=2-3)");
            }
            Placement p;
            try {
                p = Placement.of(t.tsdbCpus(), t.writerCpus(), available);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--side-by-side: --target " + t.name() + ": "
                        + e.getMessage().replace("--tsdb-cpus", "tsdb-cpus").replace("--writer-cpus", "writer-cpus"));
            }
            CpuList mine = p.tsdbCpus().union(p.writerCpus());
            if (!mine.disjoint(used)) {
                throw new IllegalArgumentException(
                        "--side-by-side: --target " + t.name() + " shares CPU " + mine.intersect(used)
                                + " with a target before it: side by side, each target needs CPUs of its own");
            }
            used = used.union(mine);
            placements.add(p);
        }
        CpuList rest = available.minus(used);
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("--side-by-side: the targets take every CPU of this machine ("
                    + available + "): leave at least one for this command and Kafka (this machine has "
                    + available.size() + ")");
        }
        return new SideBySide(placements, rest);
    }

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
                throw new ParameterException(
                        spec.commandLine(),
                        "--target names every target: " + flag + " names the one target "
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
            throw new ParameterException(
                    spec.commandLine(),
                    "--query-url names one receiver's query API: with --target each "
                            + "import target's read load goes to its own URL's /api/v1/query_range");
        }
        List<TargetSearches.Planned> planned = new ArrayList<>(targets.size());
        for (SearchTarget t : targets) {
            if (queryLoad.queryRate > 0 && t.output() != Output.IMPORT && t.queryUrl() == null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--target " + t.name() + ": --query-rate needs this remote-write "
                                + "target's query API: add ,query-url=URL (e.g. http://prometheus:9090; Thanos receive serves none: a Thanos query's)");
            }
            try {
                planned.add(new TargetSearches.Planned(
                        t, queryLoad.settings(t.searchUrl(), t.output() != Output.IMPORT, t.queryUrl())));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--target " + t.name() + ": " + e.getMessage());
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--queries: cannot read " + e.getMessage());
            }
        }
        return planned;
    }
}
