package io.tsdbwriter.cli;

import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.Placement;
import java.io.IOException;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --tsdb-cpus} and {@code --writer-cpus} of {@code bench} and {@code capacity} (a picocli mixin): the TSDB and
 * the writer side on disjoint CPU sets of this machine. Not thread-safe; filled by picocli once per parse.
 */
public final class PlacementOptions {

    @Option(
            names = "--tsdb-cpus",
            paramLabel = "LIST",
            description =
                    "Linux only: the CPUs of the TSDB (cpulist: 0, 1 or 0-3,6), disjoint from --writer-cpus. The process "
                            + "listening on the TSDB's port of this machine is found (ss) and, when its affinity differs, moved there "
                            + "(taskset -a -p) with a warning: a Go TSDB sizes GOMAXPROCS and its concurrency limits at its start, so "
                            + "start it with taskset -c LIST (scripts/bench.sh and scripts/capacity.sh do). Refused when the TSDB is "
                            + "not on this machine. Why: sharing cores, the writer's CPU is taken from the TSDB, which caps the share "
                            + "of the ceiling a writer reaches near 1 ÷ (1 + writer/TSDB CPU ratio); in production the TSDB has its "
                            + "own machine (default: not placed, every process on every CPU)")
    String tsdbCpus;

    @Option(
            names = "--writer-cpus",
            paramLabel = "LIST",
            description =
                    "Linux only: the CPUs of the writer side: every writer process (bench: and the floor and the peer) "
                            + "starts under taskset -c LIST, and this command's own threads (the Kafka producer; bench: the ceiling's "
                            + "client) and a Kafka broker listening on a local bootstrap port are moved there (default: not placed, "
                            + "every process on every CPU)")
    String writerCpus;

    /**
     * The placement of the flags, checked against this machine; the TSDB searched on the ports of {@code tsdbUrls}.
     *
     * @throws ParameterException one line (exit 2) for every refusal of {@link Placement#of} and {@link CpuPinning#plan}
     */
    CpuPinning.Plan plan(CommandSpec spec, List<String> tsdbUrls, String bootstrapServers) {
        if (tsdbCpus == null && writerCpus == null) {
            return CpuPinning.Plan.SHARED;
        }
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux")) {
                throw new IllegalArgumentException("--tsdb-cpus and --writer-cpus work on Linux only (this is "
                        + System.getProperty("os.name") + ")");
            }
            Placement placement = Placement.of(tsdbCpus, writerCpus, CpuPinning.available());
            return CpuPinning.plan(placement, tsdbUrls, bootstrapServers);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--tsdb-cpus/--writer-cpus: cannot read this machine's CPUs: " + e.getMessage());
        }
    }
}
