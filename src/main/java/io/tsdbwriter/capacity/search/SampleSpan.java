package io.tsdbwriter.capacity.search;

import io.tsdbwriter.produce.SourcePoint;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The oldest and the newest point time (epoch ms) a search handed to its producers, over its probe and every step:
 * where its read-back pass counts ({@link ReadBackCount}). Updated by the producer threads, read by the search's;
 * thread-safe.
 */
final class SampleSpan {

    private final AtomicLong oldest = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong newest = new AtomicLong(Long.MIN_VALUE);

    /** {@code points} as they are, each point's time taken into the span as it is handed out. */
    Iterator<SourcePoint> track(Iterator<SourcePoint> points) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return points.hasNext();
            }

            @Override
            public SourcePoint next() {
                SourcePoint p = points.next();
                add(p.timestampMs());
                return p;
            }
        };
    }

    void add(long timestampMs) {
        oldest.accumulateAndGet(timestampMs, Math::min);
        newest.accumulateAndGet(timestampMs, Math::max);
    }

    /** Whether no point was handed out. */
    boolean isEmpty() {
        return oldest.get() > newest.get();
    }

    /** The oldest point time, epoch ms ({@link Long#MAX_VALUE} when empty). */
    long oldestMs() {
        return oldest.get();
    }

    /** The newest point time, epoch ms ({@link Long#MIN_VALUE} when empty). */
    long newestMs() {
        return newest.get();
    }
}
