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
 *   <li>without a durability window ({@code --durability-window 0}): when the {@code --commit-interval} has passed since
 *       the last interval round;
 *   <li>with a window: when at least the <em>spacing</em>, {@link #FOLLOW_EVERY} or the commit interval if that is
 *       shorter, has passed since the last commit made for this reason. So the commit follows the window's end, the
 *       moment the writes below the watermark count as stored, by at most the spacing plus one round; this rule makes
 *       at most one commit request per member per spacing (all partitions that advanced go in one request), and the
 *       commit interval's bound holds with it.
 * </ul>
 *
 * A commit is never earlier than its watermark's durability; only the wait after it is shortened. Times are
 * {@link System#nanoTime()} instants.
 *
 * <p>Not thread-safe: the member's thread.
 */
final class CommitSchedule {

    /** With a durability window, the spacing of the commits made because the window ended (the interval if shorter). */
    static final Duration FOLLOW_EVERY = Duration.ofSeconds(1);

    /** Why a partition's durable watermark is committed in this round. */
    enum Reason {
        /** Not now: nothing above the last commit, or nothing is due. */
        NONE,
        /** The watermark crossed a segment end or reached the stop offset. */
        SEGMENT_END,
        /** No durability window, and the commit interval passed. */
        INTERVAL,
        /** The durability window ended for writes above the last commit, and the last such commit is a spacing old. */
        WINDOW_END
    }

    /** One round's timing: whether the interval is due (no window), whether a window end may be committed (a window). */
    record Round(boolean intervalDue, boolean followDue) {}

    private final long intervalNanos;
    /** The window rule's spacing; -1 without a window. */
    private final long spacingNanos;

    private long lastInterval;
    private long lastFollow;

    /**
     * @param interval     {@code --commit-interval}
     * @param followWindow whether there is a durability window, whose ends the commits follow
     * @param nowNanos     the start: without a window the first interval round is due {@code interval} after it; with
     *                     one the first window end is committed at once
     */
    CommitSchedule(Duration interval, boolean followWindow, long nowNanos) {
        this.intervalNanos = interval.toNanos();
        this.spacingNanos = followWindow ? Math.min(FOLLOW_EVERY.toNanos(), intervalNanos) : -1;
        this.lastInterval = nowNanos;
        this.lastFollow = nowNanos - Math.max(spacingNanos, 0);
    }

    /** The timing of a round at {@code nowNanos}. */
    Round round(long nowNanos) {
        if (spacingNanos < 0) {
            return new Round(nowNanos - lastInterval >= intervalNanos, false);
        }
        return new Round(false, nowNanos - lastFollow >= spacingNanos);
    }

    /**
     * The round {@code round} at {@code nowNanos} is over; {@code followed}: it committed a watermark for
     * {@link Reason#WINDOW_END}. The interval restarts when it was due, committed or not; the window
     * rule's spacing only when it committed, so the next window end after a quiet spell goes out at once.
     */
    void roundDone(Round round, long nowNanos, boolean followed) {
        if (round.intervalDue()) {
            lastInterval = nowNanos;
        }
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
        if (round.intervalDue()) {
            return Reason.INTERVAL;
        }
        return round.followDue() ? Reason.WINDOW_END : Reason.NONE;
    }
}
