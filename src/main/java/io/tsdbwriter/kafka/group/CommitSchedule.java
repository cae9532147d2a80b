package io.tsdbwriter.kafka.group;

import io.tsdbwriter.kafka.segment.PartitionWorkers;
import java.time.Duration;

/**
 * When the member commits a partition's durable watermark (DESIGN §4): what may be committed is decided elsewhere (the
 * durable watermark, {@link PartitionWorkers#durableWatermark}); this says only when a watermark above the last commit
 * goes out. In the member's round that finds a partition's durable watermark above its last commit, it is committed
 *
 * <ul>
 *   <li>at once when it crossed a segment end (or reached the partition's stop offset);
 *   <li>else when at least the <em>spacing</em>, {@link #FOLLOW_EVERY} or {@code --commit-interval} if that is shorter,
 *       has passed since the last commit made for this reason. So the commit follows the moment the writes below the
 *       watermark count as stored (the durability window's end; with {@code --durability-window 0} the 2xx) by at
 *       most the spacing plus one round; this rule makes at most one commit request per member per spacing (all
 *       partitions that advanced go in one request), and the commit interval's bound holds with it.
 * </ul>
 *
 * A commit is never earlier than its watermark's durability; only the wait after it is shortened. Times are
 * {@link System#nanoTime()} instants.
 *
 * <p>Not thread-safe: the member's thread.
 */
final class CommitSchedule {

    /**
     * The spacing of the commits made because the durable watermark advanced (the interval if shorter): half the
     * durability probe's period ({@code TsdbWatch.PROBE_EVERY}, 500 ms), so a bound moved by a probe
     * round is committed within a quarter second of the round, whatever the phase of the last commit.
     */
    static final Duration FOLLOW_EVERY = Duration.ofMillis(250);

    /** Why a partition's durable watermark is committed in this round. */
    enum Reason {
        /** Not now: nothing above the last commit, or nothing is due. */
        NONE,
        /** The watermark crossed a segment end or reached the stop offset. */
        SEGMENT_END,
        /** The durable watermark advanced within a segment, and the last such commit is a spacing old. */
        ADVANCED
    }

    /** One round's timing: whether a watermark that advanced within a segment may be committed. */
    record Round(boolean followDue) {}

    private final long spacingNanos;
    private long lastFollow;

    /**
     * @param interval {@code --commit-interval}: the spacing is the shorter of it and {@link #FOLLOW_EVERY}
     * @param nowNanos the start: the first advance is committed at once
     */
    CommitSchedule(Duration interval, long nowNanos) {
        this.spacingNanos = Math.min(FOLLOW_EVERY.toNanos(), interval.toNanos());
        this.lastFollow = nowNanos - spacingNanos;
    }

    /** The timing of a round at {@code nowNanos}. */
    Round round(long nowNanos) {
        return new Round(nowNanos - lastFollow >= spacingNanos);
    }

    /**
     * The round at {@code nowNanos} is over; {@code followed}: it committed a watermark for {@link Reason#ADVANCED}. The
     * spacing restarts only when it committed, so the next advance after a quiet spell goes out at once.
     */
    void roundDone(long nowNanos, boolean followed) {
        if (followed) {
            lastFollow = nowNanos;
        }
    }

    /**
     * Why a partition whose durable watermark is {@code durable} and whose last commit is {@code committed} is committed
     * in {@code round} ({@link Reason#NONE}: not now).
     *
     * @param segmentSize records per segment
     * @param stopOffset  the offset the partition's reading stops at, {@link Long#MAX_VALUE} when none
     */
    static Reason reason(long durable, long committed, long segmentSize, long stopOffset, Round round) {
        if (durable <= committed) {
            return Reason.NONE;
        }
        if (durable / segmentSize > committed / segmentSize || durable >= stopOffset) {
            return Reason.SEGMENT_END;
        }
        return round.followDue() ? Reason.ADVANCED : Reason.NONE;
    }
}
