package io.tsdbwriter.cli;

import io.tsdbwriter.produce.BundledScrapes;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.produce.SyntheticInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The options that say which source points there are, shared by {@code produce} (which sends them) and
 * {@code verify} (which computes what VictoriaMetrics must then hold), so both read the same points from the same
 * flags: exposition files, or {@code --synthetic} series; {@code --instance}, {@code --product-key},
 * {@code --timestamp}, {@code --now}, {@code --keep-timestamps}, {@code --source-interval}. The files' timestamps are
 * moved to the present ({@code --now}, default the clock) unless {@code --keep-timestamps}: data the project ships
 * works on any date. A picocli mixin; not thread-safe.
 */
final class SourceOptions {

    /** Timestamps below this look like seconds, not milliseconds (10^11 ms is March 1973), as the writer's decoder judges. */
    static final long MIN_TIMESTAMP_MS = 100_000_000_000L;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Parameters(
            paramLabel = "FILE",
            arity = "0..*",
            description =
                    "Prometheus text exposition files (e.g. examples/data/*.prom); each sample becomes a point at "
                            + "the scrape time taken from the file name (node-exporter-<unix-seconds>.prom), moved to the present: every "
                            + "scrape by the same whole minutes, so the newest lands within the minute before --now and order and spacing "
                            + "are kept (--keep-timestamps sends the scrape times unchanged). None and no --synthetic: "
                            + BundledScrapes.DESCRIPTION)
    List<Path> files = new ArrayList<>();

    @Option(
            names = "--instance",
            paramLabel = "NAME",
            description = "instanceNo dimension of every point (default: this host's name)")
    String instance;

    @Option(
            names = "--product-key",
            defaultValue = "node",
            paramLabel = "KEY",
            description = "productKey of every point; empty for none (default: ${DEFAULT-VALUE})")
    String productKey;

    @Option(
            names = "--timestamp",
            paramLabel = "EPOCH_MS",
            description =
                    "Timestamp of every point in epoch ms instead of the file's scrape time (default: --now, rounded down)")
    Long timestampMs;

    @Option(
            names = "--keep-timestamps",
            description = "Send the files' own timestamps unchanged instead of moving them to the present")
    boolean keepTimestamps;

    @Option(
            names = "--now",
            paramLabel = "EPOCH_MS",
            description =
                    "The present the timestamps are made relative to, in epoch ms; give produce and verify the same (default: the clock)")
    Long nowMs;

    @Option(
            names = "--source-interval",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Interval between the source points of a series: spacing of synthetic points; the base of M (default: ${DEFAULT-VALUE})")
    Duration sourceInterval;

    @Option(
            names = "--synthetic",
            description =
                    "Generate points instead of reading files: series synthetic_metric{series=<i>,instanceNo=<instance>}")
    boolean synthetic;

    @Option(
            names = "--series",
            defaultValue = "100",
            paramLabel = "S",
            description = "With --synthetic: number of series (default: ${DEFAULT-VALUE})")
    int series;

    @Option(
            names = "--points-per-series",
            defaultValue = "60",
            paramLabel = "K",
            description =
                    "With --synthetic: points per series, one source interval apart, ending at --timestamp (default: ${DEFAULT-VALUE})")
    int pointsPerSeries;

    /**
     * The source points and how to describe them.
     *
     * @param timestamps one line on how the files' timestamps were moved to the present; null when they were not
     */
    record Source(Iterable<SourcePoint> points, long count, String description, String timestamps) {}

    /**
     * Resolves the options into source points (files are read here; synthetic points are generated lazily).
     *
     * @param clockMs the clock's time, epoch ms: the present unless {@code --now} gives one (the synthetic default
     *                timestamp; what the files' timestamps are moved to)
     * @throws ParameterException when the options contradict each other (exit code 2)
     * @throws IOException        when a file cannot be read or parsed
     */
    Source open(long clockMs) throws IOException {
        validate();
        long now = nowMs != null ? nowMs : clockMs;
        String inst = instance();
        String key = productKey == null || productKey.isEmpty() ? null : productKey;
        if (synthetic) {
            long newest = timestampMs != null ? timestampMs : SyntheticInput.alignedNow(now, sourceInterval.toMillis());
            SyntheticInput in =
                    new SyntheticInput(series, pointsPerSeries, inst, key, newest, sourceInterval.toMillis());
            return new Source(
                    in,
                    in.size(),
                    String.format(
                            Locale.ROOT,
                            "%d synthetic points (%d series x %d points, %s apart, newest at %d)",
                            in.size(),
                            series,
                            pointsPerSeries,
                            format(sourceInterval),
                            newest),
                    null);
        }
        try {
            RealInput.Loaded loaded = RealInput.read(
                    files, inst, key, timestampMs == null ? OptionalLong.empty() : OptionalLong.of(timestampMs));
            if (timestampMs != null || keepTimestamps || loaded.points().isEmpty()) {
                return new Source(loaded.points(), loaded.points().size(), loaded.describe(), null);
            }
            RealInput.Loaded present = loaded.relativeTo(now);
            String note = String.format(
                    Locale.ROOT,
                    "timestamps relative to --now %d: the scrape times moved by %+d ms (newest %s); "
                            + "--keep-timestamps keeps them",
                    now,
                    present.shiftMs(),
                    Instant.ofEpochMilli(present.newestMs().getAsLong()));
            return new Source(present.points(), present.points().size(), present.describe(), note);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** A duration as the flags take it: {@code 500ms}, {@code 60s}, {@code 5m}, {@code 1h}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms >= 600_000) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    /** The {@code instanceNo} to use: {@code --instance}, else this host's name. */
    String instance() {
        return instance != null ? instance : hostName();
    }

    private void validate() {
        CommandLine cl = spec.commandLine();
        if (synthetic && !files.isEmpty()) {
            throw new ParameterException(cl, "give either files or --synthetic, not both");
        }
        if (keepTimestamps && synthetic) {
            throw new ParameterException(
                    cl, "--keep-timestamps keeps the timestamps of files; synthetic points have none of their own");
        }
        if (keepTimestamps && timestampMs != null) {
            throw new ParameterException(cl, "give either --timestamp or --keep-timestamps, not both");
        }
        if (keepTimestamps && nowMs != null) {
            throw new ParameterException(cl, "--now has no effect with --keep-timestamps: give one of them");
        }
        if (nowMs != null && nowMs < MIN_TIMESTAMP_MS) {
            throw new ParameterException(cl, "--now " + nowMs + " looks like seconds; give epoch milliseconds");
        }
        if (!synthetic && files.isEmpty()) {
            try (Stream<Path> bundled = Files.list(BundledScrapes.directory())) {
                files = bundled.filter(p -> p.getFileName().toString().endsWith(".prom"))
                        .sorted()
                        .toList();
            } catch (IOException | UncheckedIOException e) {
                throw new ParameterException(
                        cl,
                        "no input: give exposition files (e.g. examples/data/*.prom) or --synthetic (" + e.getMessage()
                                + ")");
            }
        }
        if (series < 1) {
            throw new ParameterException(cl, "--series must be >= 1, got " + series);
        }
        if (pointsPerSeries < 1) {
            throw new ParameterException(cl, "--points-per-series must be >= 1, got " + pointsPerSeries);
        }
        if (sourceInterval.toMillis() < 1) {
            throw new ParameterException(cl, "--source-interval must be at least 1ms, got " + sourceInterval);
        }
        if (timestampMs != null && timestampMs < MIN_TIMESTAMP_MS) {
            throw new ParameterException(
                    cl, "--timestamp " + timestampMs + " looks like seconds; give epoch milliseconds");
        }
        if (synthetic
                && timestampMs != null
                && timestampMs - (pointsPerSeries - 1L) * sourceInterval.toMillis() < MIN_TIMESTAMP_MS) {
            throw new ParameterException(
                    cl, "--timestamp with --points-per-series " + pointsPerSeries + " reaches back before 1973");
        }
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                throw new ParameterException(cl, "no such file: " + f);
            }
        }
        if (instance != null && instance.isEmpty()) {
            throw new ParameterException(cl, "--instance must not be empty");
        }
    }

    /** This host's name: $HOSTNAME, else the resolver's local host name, else {@code localhost}. */
    static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        try {
            String name = InetAddress.getLocalHost().getHostName();
            if (name != null && !name.isBlank()) {
                return name;
            }
        } catch (IOException e) {
            // fall through
        }
        return "localhost";
    }
}
