package io.tsdbwriter.amplify;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded, least-recently-used cache of per-series state that is expensive to build (dimension variants, the
 * serialized label prefix), keyed by the series' canonical identity. The same series recurs every source
 * interval, so the state is built once per series and reused for every later point — once per process: all
 * SegmentConsumers share one cache, so P consumers of a partition do not each hold every series.
 *
 * <p>Thread-safe. Large caches are split into lock stripes by key hash (each stripe an access-ordered LRU of
 * {@code capacity / stripes} entries) so consumers on different threads rarely contend; caches below
 * {@value #STRIPE_THRESHOLD} entries are one exact LRU.
 *
 * @param <V> the per-series state
 */
public final class SeriesCache<V> {

    /** Capacity from which the cache is split into stripes. */
    public static final int STRIPE_THRESHOLD = 65_536;
    private static final int STRIPES = 16;

    private final Stripe<V>[] stripes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    private static final class Stripe<V> extends LinkedHashMap<String, V> {
        private final int capacity;

        Stripe(int capacity) {
            super(Math.min(capacity, 1 << 12), 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
            return size() > capacity;
        }
    }

    /** @param capacity maximum series held; the least recently used is evicted beyond it (must be ≥ 1) */
    @SuppressWarnings("unchecked")
    public SeriesCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("series cache capacity must be >= 1, got " + capacity);
        }
        int n = capacity >= STRIPE_THRESHOLD ? STRIPES : 1;
        stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe<>((capacity + n - 1) / n);
        }
    }

    private Stripe<V> stripe(String key) {
        return stripes.length == 1 ? stripes[0] : stripes[(key.hashCode() & 0x7fffffff) % stripes.length];
    }

    /** The cached state of {@code seriesKey}, or null when absent (counted as a miss). */
    public V get(String seriesKey) {
        Stripe<V> s = stripe(seriesKey);
        V v;
        synchronized (s) {
            v = s.get(seriesKey);
        }
        if (v == null) {
            misses.increment();
        } else {
            hits.increment();
        }
        return v;
    }

    /** Caches {@code state} for {@code seriesKey}, evicting the least recently used series beyond capacity. */
    public void put(String seriesKey, V state) {
        Stripe<V> s = stripe(seriesKey);
        synchronized (s) {
            s.put(seriesKey, state);
        }
    }

    /** Series currently cached. */
    public int size() {
        int n = 0;
        for (Stripe<V> s : stripes) {
            synchronized (s) {
                n += s.size();
            }
        }
        return n;
    }

    /** Lookups that found the series. */
    public long hits() {
        return hits.sum();
    }

    /** Lookups that did not. */
    public long misses() {
        return misses.sum();
    }
}
