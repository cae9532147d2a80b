package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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
    void evictsOneEntryBeyondCapacityWhenNothingWasRead() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");
        cache.put("b", "B");
        cache.put("c", "C");

        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get("c")).isEqualTo("C");
        assertThat(cache.get("a") == null ^ cache.get("b") == null).isTrue();
    }

    @Test
    void readEntryGetsASecondChanceOverUnreadOne() {
        SeriesCache<String> cache = new SeriesCache<>(2);
        cache.put("a", "A");
        cache.put("b", "B");
        cache.get("a"); // referenced since the clock hand last passed
        cache.put("c", "C");

        assertThat(cache.get("b")).isNull();
        assertThat(cache.get("a")).isEqualTo("A");
        assertThat(cache.get("c")).isEqualTo("C");
    }

    @Test
    void hitIsVerifiedAgainstTheKeyBytesNotOnlyTheHash() {
        SeriesCache<String> cache = new SeriesCache<>(4);
        byte[] one = "series-one".getBytes(StandardCharsets.UTF_8);
        byte[] two = "series-two".getBytes(StandardCharsets.UTF_8);
        cache.put(one, one.length, 42L, "ONE");

        assertThat(cache.get(two, two.length, 42L)).isNull();
        cache.put(two, two.length, 42L, "TWO");
        assertThat(cache.get(one, one.length, 42L)).isEqualTo("ONE");
        assertThat(cache.get(two, two.length, 42L)).isEqualTo("TWO");
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void keyIsCopiedSoTheCallerMayReuseItsBuffer() {
        SeriesCache<String> cache = new SeriesCache<>(4);
        byte[] buffer = "abc-and-more".getBytes(StandardCharsets.UTF_8);
        long hash = SeriesCache.hash(buffer, 3);
        cache.put(buffer, 3, hash, "ABC");
        buffer[0] = 'x';

        byte[] abc = "abc".getBytes(StandardCharsets.UTF_8);
        assertThat(cache.get(abc, 3, SeriesCache.hash(abc, 3))).isEqualTo("ABC");
    }

    @Test
    void hashDependsOnLengthAndEveryByte() {
        byte[] b = "0123456789abcdefXYZ".getBytes(StandardCharsets.UTF_8);
        long h = SeriesCache.hash(b, b.length);

        assertThat(SeriesCache.hash(b, b.length - 1)).isNotEqualTo(h);
        for (int i = 0; i < b.length; i++) {
            byte[] c = b.clone();
            c[i] ^= 1;
            assertThat(SeriesCache.hash(c, c.length)).as("byte %d", i).isNotEqualTo(h);
        }
    }

    @Test
    void evictionKeepsProbeChainsOfCollidingKeysIntact() {
        SeriesCache<Integer> cache = new SeriesCache<>(8);
        byte[][] keys = new byte[40][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ("k" + i).getBytes(StandardCharsets.UTF_8);
            cache.put(keys[i], keys[i].length, 7L, i); // one hash: one home slot, one probe chain
            for (int j = 0; j <= i; j++) {
                Integer v = cache.get(keys[j], keys[j].length, 7L);
                assertThat(v == null || v == j).as("key %d after %d puts", j, i + 1).isTrue();
            }
            assertThat(cache.get(keys[i], keys[i].length, 7L)).isEqualTo(i);
            assertThat(cache.size()).isEqualTo(Math.min(i + 1, 8));
        }
    }

    @Test
    void holdsEveryEntryUpToCapacityAcrossTableGrowth() {
        SeriesCache<Integer> cache = new SeriesCache<>(50_000);
        for (int i = 0; i < 50_000; i++) {
            cache.put("series-" + i, i);
        }

        assertThat(cache.size()).isEqualTo(50_000);
        for (int i = 0; i < 50_000; i++) {
            assertThat(cache.get("series-" + i)).isEqualTo(i);
        }
        assertThat(cache.misses()).isZero();
    }

    @Test
    void randomWorkloadNeverReturnsAnotherKeysStateAndStaysBounded() {
        SeriesCache<Integer> cache = new SeriesCache<>(100);
        java.util.Random random = new java.util.Random(1);
        for (int step = 0; step < 200_000; step++) {
            int k = random.nextInt(300);
            Integer v = cache.get("key" + k);
            if (v == null) {
                cache.put("key" + k, k);
            } else {
                assertThat(v).isEqualTo(k);
            }
            assertThat(cache.size()).isLessThanOrEqualTo(100);
        }
        assertThat(cache.size()).isEqualTo(100);
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
        for (int t = 0; t < threads.length; t++) {
            for (int i = 0; i < 50_000; i += 7) {
                Integer v = cache.get("s" + (t * 100_000 + i));
                assertThat(v == null || v == i).isTrue();
            }
        }
    }
}
