package io.tsdbwriter.durability;

import java.time.Duration;

/**
 * When an acknowledged write counts as stored (DESIGN §4, "Acknowledged is not stored"): a TSDB's 2xx means the rows
 * are in its memory; VictoriaMetrics makes them durable seconds later (raw rows every 1–2 s, in-memory parts after
 * {@code -inmemoryDataFlushInterval}, 5 s by default; its README: "the last few seconds of inserted data may be lost on
 * unclean shutdown"), so an offset is committed only when every write at or below it was acknowledged at least the
 * window ago <em>and</em> no TSDB process restarted since.
 *
 * <p>{@link #state()} answers both at once, so a reader never pairs a restart count with a durability bound taken
 * across a restart. Implementations are thread-safe.
 */
public interface DurabilityClock {

    /**
     * One consistent reading.
     *
     * @param restarts           TSDB restarts seen since start (a change tells a member to rewind to its last commit)
     * @param durableBeforeNanos every acknowledgement made at or before this {@link System#nanoTime()} instant is
     *                           stored: the window has passed since and a probe after that showed no restart
     */
    record State(long restarts, long durableBeforeNanos) {

        /** Whether an acknowledgement made at {@code ackNanos} ({@link System#nanoTime()}) is stored. */
        public boolean durable(long ackNanos) {
            return ackNanos - durableBeforeNanos <= 0;
        }
    }

    /** The current reading. */
    State state();

    /**
     * The last restart seen, for the members' one WARN line: the process and its old and new start times (e.g.
     * {@code http://vm:8428/metrics started at 2026-11-26T10:35:41Z (was 2026-11-26T10:35:28Z)}); empty when none.
     */
    default String lastRestart() {
        return "";
    }

    /** The window W: how long after its acknowledgement a write counts as stored (0: at once). */
    Duration window();

    /** Whether the window is 0: commits follow the acknowledgements, as before durable commits (no restart watch). */
    default boolean off() {
        return window().isZero();
    }

    /** {@code --durability-window 0}: every acknowledgement counts as stored at once, no restart is watched. */
    static DurabilityClock atOnce() {
        return fixed(Duration.ZERO);
    }

    /**
     * A window and no restart watch: an acknowledgement is stored {@code window} after it was made. For tests of the
     * members, and for a target with nothing to watch.
     */
    static DurabilityClock fixed(Duration window) {
        long w = window.toNanos();
        return new DurabilityClock() {
            @Override
            public State state() {
                return new State(0, System.nanoTime() - w);
            }

            @Override
            public Duration window() {
                return window;
            }
        };
    }
}
