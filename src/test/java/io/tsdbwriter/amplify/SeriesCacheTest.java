package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SeriesCacheTest {

    @Test
    void missReturnsNullAndCountsMiss() {
        SeriesCache<String> cache = new SeriesCache<>(2);

        assertThat(cache.get("a")).isNull();
        assertThat(cache.misses()).isEqualTo(1);
        assertThat(cache.hits()).isZero();
    }

    @Test
    void hitReturnsStateAndCountsHit() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");

        assertThat(cache.get("a")).isEqualTo("A");
        assertThat(cache.get("a")).isEqualTo("A");
        assertThat(cache.hits()).isEqualTo(2);
        assertThat(cache.misses()).isZero();
    }

    @Test
    void putDoesNotCountAsLookup() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");

        assertThat(cache.hits()).isZero();
        assertThat(cache.misses()).isZero();
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void evictsLeastRecentlyInsertedWhenNotRead() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");
        cache.put("b", "B");
        cache.put("c", "C");

        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("b")).isEqualTo("B");
        assertThat(cache.get("c")).isEqualTo("C");
    }

    @Test
    void readRefreshesRecency() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");
        cache.put("b", "B");
        cache.get("a"); // a is now the most recently used
        cache.put("c", "C");

        assertThat(cache.get("b")).isNull();
        assertThat(cache.get("a")).isEqualTo("A");
        assertThat(cache.get("c")).isEqualTo("C");
    }

    @Test
    void replacingKeepsSizeAndTakesNewState() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");
        cache.put("a", "A2");

        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.get("a")).isEqualTo("A2");
    }

    @Test
    void capacityOneKeepsOnlyLatest() {
        SeriesCache<String> cache = new SeriesCache<>(1);
        cache.put("a", "A");
        cache.put("b", "B");

        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("b")).isEqualTo("B");
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void rejectsCapacityBelowOne() {
        assertThatThrownBy(() -> new SeriesCache<String>(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void largeCacheIsStripedAndStillBoundedAndShareableAcrossThreads() throws Exception {
        SeriesCache<Integer> cache = new SeriesCache<>(SeriesCache.STRIPE_THRESHOLD);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int base = t * 100_000;
            threads[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50_000; i++) {
                    String k = "s" + (base + i);
                    if (cache.get(k) == null) {
                        cache.put(k, i);
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }

        assertThat(cache.size()).isLessThanOrEqualTo(SeriesCache.STRIPE_THRESHOLD).isGreaterThan(SeriesCache.STRIPE_THRESHOLD / 2);
        assertThat(cache.misses()).isEqualTo(200_000);
        assertThat(cache.get("s" + (3 * 100_000 + 49_999))).isEqualTo(49_999);
    }
}
