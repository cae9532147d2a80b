package io.tsdbwriter.cli;

import io.tsdbwriter.config.ReplayConfig;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code run}'s flags of a replay (docs/capacity-testing.md) and of the load it writes: the window
 * ({@code --from}, {@code --to}), {@code --rebase-time}, {@code --loop}, {@code --replay-duration}, and the
 * {@code --max-samples-per-second}
 * limit and {@code --churn-interval}, which a relay takes too. A picocli mixin, declared where these flags sit in
 * {@code run --help}; only wires: {@link ReplayConfig} holds the settings and their parsing. Not thread-safe (picocli
 * fills it once per parse).
 */
final class ReplayOptions {

    @Option(
            names = "--from",
            paramLabel = "RFC3339|offset:N",
            description = {
                "Replay (docs/capacity-testing.md): each partition's window starts at the first record whose Kafka "
                        + "timestamp is at or after this time (offsetsForTimes), or at offset N (default: the log start).",
                "A replay - any of --from, --to, --loop, --rebase-time - reads the partitions itself (assigned, no consumer "
                        + "group) and never commits an offset: the group of --group-id is not touched. It ends after its last pass, "
                        + "like --stop-at-end (exit 4 when a signal stops it before)"
            })
    String from;

    @Option(
            names = "--to",
            paramLabel = "RFC3339|offset:N",
            description =
                    "Replay: each partition's window ends before the first record at or after this time, or before offset N "
                            + "(default: the log end at start)")
    String to;

    @Option(
            names = "--rebase-time",
            paramLabel = "now|RFC3339",
            description =
                    "Replay: shift every timestamp by one constant so that the window's first sample lands at this time "
                            + "(now = when the replay starts); spacing and M x time amplification follow; samples older than the target's "
                            + "retention are refused, so old data needs it")
    String rebaseTime;

    @Option(
            names = "--loop",
            defaultValue = "1",
            paramLabel = "N|forever",
            description =
                    "Replay the window N times (or until --replay-duration / SIGTERM); each pass is read again from Kafka and "
                            + "written one window length after the previous one, so no pass lands on another's timestamps "
                            + "(default: ${DEFAULT-VALUE})")
    String loop;

    @Option(
            names = {"--replay-duration", DeprecatedNames.RUN_DURATION},
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Replay: stop after this long of wall-clock time (drain, exit 0), e.g. 6h with --loop forever (--duration "
                            + "is its deprecated name, accepted until the next release) (default: until the last pass)")
    Duration duration;

    @Option(
            names = {"--max-samples-per-second", DeprecatedNames.RUN_RATE},
            defaultValue = "0",
            paramLabel = "SAMPLES_PER_S",
            description =
                    "Write at most this many samples per second (a token bucket before the encoders that keeps up to 1 s of "
                            + "unused tokens, so a wait of every reader is made up: bursts of at most 1 s worth), so a soak holds a "
                            + "steady load; the report compares what was written with it. 0 = as fast as the target takes them "
                            + "(--rate is its deprecated name, accepted until the next release) (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(
            names = "--churn-interval",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Series churn: every DURATION of sample time (from the replay's first sample; from the epoch in a relay) "
                            + "the N instance variants take a new generation (instanceNo=\"host-17-g3\"), so N x series-per-instance new "
                            + "series appear per interval - the load of hosts coming and going (default: no churn)")
    Duration churnInterval;

    /**
     * The replay, rate and churn settings of these flags.
     *
     * @throws IllegalArgumentException naming the flag of a bad bound, rebase time or loop count
     */
    ReplayConfig toConfig() {
        return new ReplayConfig(
                from == null ? null : ReplayConfig.WindowBound.parse("--from", from),
                to == null ? null : ReplayConfig.WindowBound.parse("--to", to),
                rebaseTime == null ? null : ReplayConfig.RebaseTime.parse(rebaseTime),
                ReplayConfig.parseLoops(loop),
                duration,
                rate,
                churnInterval);
    }
}
