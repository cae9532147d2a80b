package io.tsdbwriter.config;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;

/**
 * How a run replays a window of a topic for a capacity test (docs/capacity-testing.md): which offsets, at which
 * time, how often, how fast and with how much series churn. Immutable; validated when built (compact constructor),
 * each message naming its flag.
 *
 * <p>A run is a <em>replay</em> when any of {@code --from}, {@code --to}, {@code --loop} (other than 1) or
 * {@code --rebase-time} is set ({@link #replay()}): it reads the window's partitions itself (assigned, no consumer
 * group) and never commits an offset, so the group named by {@code --group-id} is never touched. {@code --max-samples-per-second} and
 * {@code --churn-interval} also apply to a relay.
 *
 * @param from          {@code --from}: where each partition's window starts; null = the log start
 * @param to            {@code --to}: where each partition's window ends (exclusive); null = the log end at start
 * @param rebase        {@code --rebase-time}: where the window's first sample lands; null = at its own time
 * @param loops         {@code --loop}: passes over the window, ≥ 1, or {@link #FOREVER}; pass k is shifted by k window
 *                      lengths after pass 0, so no pass lands on another's timestamps
 * @param duration      {@code --replay-duration}: the longest a replay runs (then it stops after draining, exit 0); null =
 *                      until its last pass
 * @param ratePerSecond {@code --max-samples-per-second}: samples per second written at most (a token bucket before the encoders); 0 = as
 *                      fast as the target takes them
 * @param churnInterval {@code --churn-interval}: every interval of (rebased) sample time the N instance variants take a
 *                      new generation; null = no churn
 */
public record ReplayConfig(
        WindowBound from,
        WindowBound to,
        RebaseTime rebase,
        long loops,
        Duration duration,
        double ratePerSecond,
        Duration churnInterval) {

    /** {@code --loop forever}. */
    public static final long FOREVER = Long.MAX_VALUE;
    /** The largest {@code --max-samples-per-second}: a billion samples per second. */
    public static final double MAX_RATE = 1e9;

    /** @throws IllegalArgumentException naming the flag whose value is wrong */
    public ReplayConfig {
        if (loops < 1) {
            throw new IllegalArgumentException("--loop must be a count >= 1 or forever, got " + loops);
        }
        if (duration != null && (duration.isNegative() || duration.isZero())) {
            throw new IllegalArgumentException("--replay-duration must be positive");
        }
        if (!(ratePerSecond >= 0 && ratePerSecond <= MAX_RATE)) { // also refuses NaN
            throw new IllegalArgumentException("--max-samples-per-second must be in 0.." + (long) MAX_RATE
                    + " samples/s (0 = unlimited), got " + ratePerSecond);
        }
        if (churnInterval != null && churnInterval.toMillis() < 1000) {
            throw new IllegalArgumentException(
                    "--churn-interval must be >= 1s, got " + churnInterval.toMillis() + "ms");
        }
        if (from != null && to != null && from.kind() == to.kind() && from.value() > to.value()) {
            throw new IllegalArgumentException("--from " + from + " lies after --to " + to);
        }
        if (duration != null && !replay(from, to, rebase, loops)) {
            throw new IllegalArgumentException(
                    "--replay-duration bounds a replay: give it with --from, --to, --loop or --rebase-time");
        }
    }

    /** No replay, no rate, no churn: a plain run. */
    public static ReplayConfig none() {
        return new ReplayConfig(null, null, null, 1, null, 0, null);
    }

    /** True when the run replays a window (own reading, no group commits) rather than relaying for its group. */
    public boolean replay() {
        return replay(from, to, rebase, loops);
    }

    private static boolean replay(WindowBound from, WindowBound to, RebaseTime rebase, long loops) {
        return from != null || to != null || rebase != null || loops != 1;
    }

    /** The settings for the start line: empty for a plain run, else {@code " replay: from=… rate=… churn-interval=…"}. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (replay()) {
            b.append(" replay: from=")
                    .append(from == null ? "log start" : from)
                    .append(" to=")
                    .append(to == null ? "log end" : to)
                    .append(" rebase-time=")
                    .append(rebase == null ? "none" : rebase)
                    .append(" loop=")
                    .append(loops == FOREVER ? "forever" : Long.toString(loops));
            if (duration != null) {
                b.append(" duration=").append(duration);
            }
            b.append(" (own reading, no group, no commits)");
        }
        if (rateLimited()) {
            b.append(" rate=").append(Math.round(ratePerSecond)).append(" samples/s");
        }
        if (churn()) {
            b.append(" churn-interval=").append(churnInterval.toSeconds()).append('s');
        }
        return b.toString();
    }

    /** True when a rate is set. */
    public boolean rateLimited() {
        return ratePerSecond > 0;
    }

    /** True when series churn is set. */
    public boolean churn() {
        return churnInterval != null;
    }

    /**
     * One end of a replay window: an RFC 3339 time (Kafka's {@code offsetsForTimes}: the first record whose timestamp is
     * at or after it) or an offset, the same for every partition.
     *
     * @param kind  which of the two
     * @param value epoch milliseconds for {@link Kind#TIME}, an offset ≥ 0 for {@link Kind#OFFSET}
     */
    public record WindowBound(Kind kind, long value) {

        /** What a bound names. */
        public enum Kind {
            TIME,
            OFFSET
        }

        /** @throws IllegalArgumentException for a negative value */
        public WindowBound {
            Objects.requireNonNull(kind, "kind");
            if (value < 0) {
                throw new IllegalArgumentException("a window bound must not be negative, got " + value);
            }
        }

        /**
         * Parses {@code offset:N} or an RFC 3339 time ({@code 2026-11-24T09:00:00Z}).
         *
         * @param flag the flag's name, for the message
         * @throws IllegalArgumentException naming the flag when neither
         */
        public static WindowBound parse(String flag, String text) {
            String v = text.trim();
            if (v.toLowerCase(Locale.ROOT).startsWith("offset:")) {
                try {
                    long o = Long.parseLong(v.substring("offset:".length()).trim());
                    if (o >= 0) {
                        return new WindowBound(Kind.OFFSET, o);
                    }
                } catch (NumberFormatException e) {
                    // the message below
                }
                throw new IllegalArgumentException(flag + " '" + text + "': offset:N takes an offset >= 0");
            }
            try {
                return new WindowBound(
                        Kind.TIME, OffsetDateTime.parse(v).toInstant().toEpochMilli());
            } catch (DateTimeParseException | IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        flag + " '" + text + "' is neither an RFC 3339 time (2026-11-24T09:00:00Z) nor offset:N");
            }
        }

        @Override
        public String toString() {
            return kind == Kind.OFFSET
                    ? "offset:" + value
                    : Instant.ofEpochMilli(value).toString();
        }
    }

    /**
     * {@code --rebase-time}: {@code now} (the time the replay starts) or an RFC 3339 time.
     *
     * @param atMs the time in epoch ms, or {@code -1} for now
     */
    public record RebaseTime(long atMs) {

        /** {@code --rebase-time now}. */
        public static final RebaseTime NOW = new RebaseTime(-1);

        /** @throws IllegalArgumentException naming the flag when neither now nor RFC 3339 */
        public static RebaseTime parse(String text) {
            String v = text.trim();
            if (v.equalsIgnoreCase("now")) {
                return NOW;
            }
            try {
                return new RebaseTime(OffsetDateTime.parse(v).toInstant().toEpochMilli());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "--rebase-time '" + text + "' is neither now nor an RFC 3339 time (2026-11-24T09:00:00Z)");
            }
        }

        /** The time in epoch ms, {@code nowMs} for {@link #NOW}. */
        public long resolve(long nowMs) {
            return atMs < 0 ? nowMs : atMs;
        }

        @Override
        public String toString() {
            return atMs < 0 ? "now" : Instant.ofEpochMilli(atMs).toString();
        }
    }

    /**
     * Parses {@code --loop}: a count ≥ 1 or {@code forever}.
     *
     * @throws IllegalArgumentException naming the flag
     */
    public static long parseLoops(String text) {
        String v = text.trim();
        if (v.equalsIgnoreCase("forever")) {
            return FOREVER;
        }
        try {
            long n = Long.parseLong(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException("--loop '" + text + "' is neither a count >= 1 nor forever");
    }
}
