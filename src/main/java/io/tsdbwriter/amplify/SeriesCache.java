package io.tsdbwriter.amplify;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, least-recently-used cache of per-series state that is expensive to build (dimension variants, the
 * serialized label prefix), keyed by the series' canonical identity. The same series recurs every source
 * interval, so the state is built once per series and reused for every later point.
 *
 * <p>Not thread-safe: each SegmentConsumer thread owns one cache.
 *
 * @param <V> the per-series state
 */
public final class SeriesCache<V> {

    private final int capacity;
    private final LinkedHashMap<String, V> entries;
    private long hits;
    private long misses;

    /** @param capacity maximum series held; the least recently used is evicted beyond it (must be ≥ 1) */
    public SeriesCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("series cache capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > SeriesCache.this.capacity;
            }
        };
    }

    /** The cached state of {@code seriesKey}, or null when absent (counted as a miss). */
    public V get(String seriesKey) {
        V v = entries.get(seriesKey);
        if (v == null) {
            misses++;
        } else {
            hits++;
        }
        return v;
    }

    /** Caches {@code state} for {@code seriesKey}, evicting the least recently used series beyond capacity. */
    public void put(String seriesKey, V state) {
        entries.put(seriesKey, state);
    }

    /** Series currently cached. */
    public int size() {
        return entries.size();
    }

    /** Lookups that found the series. */
    public long hits() {
        return hits;
    }

    /** Lookups that did not. */
    public long misses() {
        return misses;
    }
}
