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
                    "Linux only: the TSDB's CPUs (cpulist); start a Go TSDB under taskset -c LIST: its GOMAXPROCS is set at its start (default: not placed, every process on every CPU)")
    String tsdbCpus;

    @Option(
            names = "--writer-cpus",
            paramLabel = "LIST",
            description =
                    "Linux only: the writer side's CPUs; sharing them caps a writer near 1 ÷ (1 + writer/TSDB CPU ratio) of the ceiling (default: not placed, every process on every CPU)")
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
