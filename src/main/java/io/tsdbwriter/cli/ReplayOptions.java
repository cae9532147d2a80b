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
            description = "Replay from this Kafka timestamp or offset (default: the log start)")
    String from;

    @Option(
            names = "--to",
            paramLabel = "RFC3339|offset:N",
            description = "Replay up to this Kafka timestamp or offset N (default: the log end at start)")
    String to;

    @Option(
            names = "--rebase-time",
            paramLabel = "now|RFC3339",
            description = "Replay: the time the window's first sample is moved to (now: the start)")
    String rebaseTime;

    @Option(
            names = "--loop",
            defaultValue = "1",
            paramLabel = "N|forever",
            description = "Replay the window N times, or forever (default: ${DEFAULT-VALUE})")
    String loop;

    @Option(
            names = {"--replay-duration", DeprecatedNames.RUN_DURATION},
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Replay: stop after this much wall-clock time (default: until the last pass)")
    Duration duration;

    @Option(
            names = {"--max-samples-per-second", DeprecatedNames.RUN_RATE},
            defaultValue = "0",
            paramLabel = "SAMPLES_PER_S",
            description = "Write at most this many samples per second; 0 = no limit (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(
            names = "--churn-interval",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Series churn: new instance variants every DURATION (default: no churn)")
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
