package io.tsdbwriter.tsdbmetrics;

import java.util.List;
import java.util.Locale;

/**
 * Whether a target's insert limiter is full ({@code -maxConcurrentInserts}), and the words that say so in a verdict.
 * VictoriaMetrics frees a request's insert slot while the request reads from the network and takes it back after
 * ({@code lib/writeconcurrencylimiter}, v1.150.0), so {@code vm_concurrent_insert_current} can average far below
 * {@code vm_concurrent_insert_capacity} while requests queue for a slot — with {@code -maxConcurrentInserts=1}, 0–20 %
 * in the proof of concept. The queueing shows in {@code vm_concurrent_insert_limit_reached_total} (one per request that
 * found every slot taken). Pure logic; stateless; thread-safe.
 */
public final class InsertLimit {

    /**
     * Insert requests per second that waited for a slot ({@code vm_concurrent_insert_limit_reached_total}'s growth) at
     * or above this: the limiter is full, whatever the gauge averages.
     */
    public static final double WAITS_PER_SECOND = 1.0;

    private InsertLimit() {}

    /** Whether the target's inserts are at {@link Bottleneck#SATURATED} of capacity or requests wait for a slot. */
    static boolean full(Bottleneck.Evidence e) {
        return e.insertShare() >= Bottleneck.SATURATED || e.insertWaitsPerSecond() >= WAITS_PER_SECOND;
    }

    /** The evidence that the limiter is full, with its numbers (call only when {@link #full} holds). */
    static String reason(Bottleneck.Evidence e) {
        if (e.insertShare() >= Bottleneck.SATURATED) {
            return String.format(
                    Locale.ROOT,
                    "the target's concurrent inserts %s of %s (%s >= %s)",
                    Bottleneck.num(e.targetInsertCurrent()),
                    Bottleneck.num(e.targetInsertCapacity()),
                    Bottleneck.pct(e.insertShare()),
                    Bottleneck.pct(Bottleneck.SATURATED));
        }
        return String.format(
                Locale.ROOT,
                "the target's insert limit is reached: %s requests/s waited for one of its %s insert slots"
                        + " (vm_concurrent_insert_limit_reached_total, >= %s/s; the slots %s busy on average)",
                Bottleneck.num(e.insertWaitsPerSecond()),
                Bottleneck.num(e.targetInsertCapacity()),
                Bottleneck.num(WAITS_PER_SECOND),
                Bottleneck.pct(e.insertShare()));
    }

    /**
     * Every write permit in use, the target's inserts below saturation, and its insert-wait counter absent: whether the
     * permits or the target's limiter binds cannot be said ({@link Bottleneck.Resource#UNKNOWN}, naming the counter).
     */
    static Bottleneck.Verdict waitsUnknown(Bottleneck.Evidence e, String ev) {
        String shortOf = e.efficiency() < e.minEfficiency()
                ? String.format(
                        Locale.ROOT,
                        "efficiency %s below %s with the lag %s; ",
                        Bottleneck.pct(e.efficiency()),
                        Bottleneck.pct(e.minEfficiency()),
                        e.lagGrowing() > 0 ? "growing" : "not growing")
                : "";
        return new Bottleneck.Verdict(
                Bottleneck.Resource.UNKNOWN,
                String.format(
                        Locale.ROOT,
                        "%severy write permit is in use (%s of %s)"
                                + " and the target's inserts average %s of its capacity, but whether requests wait for its insert slots is unknown:"
                                + " vm_concurrent_insert_limit_reached_total absent",
                        shortOf,
                        Bottleneck.num(e.permitsInUse()),
                        Bottleneck.num(e.permitsCapacity()),
                        Bottleneck.pct(e.insertShare())),
                "give the target's /metrics with vm_concurrent_insert_limit_reached_total",
                List.of(),
                ev);
    }
}
