package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.durability.DurabilityClock;
import java.util.ArrayDeque;

/**
 * One partition's acknowledged watermarks waiting out the durability window (DESIGN §4, "Acknowledged is not stored"):
 * each rise of the watermark is kept with the instant it was seen; the <em>durable</em> watermark is the highest one
 * seen at or before the clock's bound — every write below it was acknowledged at least the window ago, with no TSDB
 * restart since. Only the durable watermark is ever committed. Pure logic; not thread-safe (the member's thread).
 */
final class DurableOffsets {

    /** Watermark rises not yet durable: {nanoTime seen, watermark}, oldest first. */
    private final ArrayDeque<long[]> waiting = new ArrayDeque<>();

    private long acked;
    private long durable;

    /** @param start the partition's start offset (its committed offset): durable from the outset */
    DurableOffsets(long start) {
        this.acked = start;
        this.durable = start;
    }

    /** The watermark is {@code watermark} at {@code nanos} ({@link System#nanoTime()}); a rise is kept. */
    void acked(long nanos, long watermark) {
        if (watermark > acked) {
            acked = watermark;
            waiting.addLast(new long[] {nanos, watermark});
        }
    }

    /** The highest watermark stored by {@code state}'s bound (never lower than the last one returned). */
    long durable(DurabilityClock.State state) {
        while (!waiting.isEmpty() && state.durable(waiting.peekFirst()[0])) {
            durable = waiting.pollFirst()[1];
        }
        return durable;
    }

    /** The durable watermark as last computed by {@link #durable}. */
    long durableSoFar() {
        return durable;
    }

    /** The highest watermark seen (acknowledged, stored or not). */
    long acked() {
        return acked;
    }

    /** When the oldest acknowledgement not yet stored was seen ({@link System#nanoTime()}), or -1 when none waits. */
    long oldestWaitingNanos() {
        return waiting.isEmpty() ? -1 : waiting.peekFirst()[0];
    }
}
