package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SeriesCacheTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The state of an entry as text, or null. */
    private static String state(byte[] entry) {
        return entry == null
                ? null
                : new String(
                        entry,
                        SeriesCache.stateOffset(entry),
                        entry.length - SeriesCache.stateOffset(entry),
                        StandardCharsets.UTF_8);
    }

    @Test
    void missReturnsNullAndCountsMiss() {
        SeriesCache cache = new SeriesCache(2);

        assertThat(cache.getState("a")).isNull();
        assertThat(cache.misses()).isEqualTo(1);
        assertThat(cache.hits()).isZero();
    }

    @Test
    void hitReturnsStateAndCountsHit() {
        SeriesCache cache = new SeriesCache(2);
        cache.putState("a", b("A"));

        assertThat(cache.getState("a")).isEqualTo(b("A"));
        assertThat(cache.getState("a")).isEqualTo(b("A"));
        assertThat(cache.hits()).isEqualTo(2);
        assertThat(cache.misses()).isZero();
    }

    @Test
    void putDoesNotCountAsLookup() {
        SeriesCache cache = new SeriesCache(2);
        cache.putState("a", b("A"));

        assertThat(cache.hits()).isZero();
        assertThat(cache.misses()).isZero();
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void evictsOneEntryBeyondCapacityWhenNothingWasRead() {
        SeriesCache cache = new SeriesCache(2);
        cache.putState("a", b("A"));
        cache.putState("b", b("B"));
        cache.putState("c", b("C"));

        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.getState("c")).isEqualTo(b("C"));
        assertThat(cache.getState("a") == null ^ cache.getState("b") == null).isTrue();
    }

    @Test
    void readEntryGetsASecondChanceOverUnreadOne() {
        SeriesCache cache = new SeriesCache(2);
        cache.putState("a", b("A"));
        cache.putState("b", b("B"));
        cache.getState("a"); // referenced since the clock hand last passed
        cache.putState("c", b("C"));

        assertThat(cache.getState("b")).isNull();
        assertThat(cache.getState("a")).isEqualTo(b("A"));
        assertThat(cache.getState("c")).isEqualTo(b("C"));
    }

    @Test
    void hitIsVerifiedAgainstTheKeyBytesNotOnlyTheHash() {
        SeriesCache cache = new SeriesCache(4);
        byte[] one = "series-one".getBytes(StandardCharsets.UTF_8);
        byte[] two = "series-two".getBytes(StandardCharsets.UTF_8);
        cache.put(one, one.length, 42L, b("ONE"));

        assertThat(cache.get(two, two.length, 42L)).isNull();
        cache.put(two, two.length, 42L, b("TWO"));
        assertThat(state(cache.get(one, one.length, 42L))).isEqualTo("ONE");
        assertThat(state(cache.get(two, two.length, 42L))).isEqualTo("TWO");
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void keyIsCopiedSoTheCallerMayReuseItsBuffer() {
        SeriesCache cache = new SeriesCache(4);
        byte[] buffer = "abc-and-more".getBytes(StandardCharsets.UTF_8);
        long hash = SeriesCache.hash(buffer, 3);
        cache.put(buffer, 3, hash, b("ABC"));
        buffer[0] = 'x';

        byte[] abc = "abc".getBytes(StandardCharsets.UTF_8);
        assertThat(state(cache.get(abc, 3, SeriesCache.hash(abc, 3)))).isEqualTo("ABC");
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
        SeriesCache cache = new SeriesCache(8);
        byte[][] keys = new byte[40][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ("k" + i).getBytes(StandardCharsets.UTF_8);
            cache.put(keys[i], keys[i].length, 7L, b(Integer.toString(i))); // one hash: one home slot, one probe chain
            for (int j = 0; j <= i; j++) {
                String v = state(cache.get(keys[j], keys[j].length, 7L));
                assertThat(v == null || v.equals(Integer.toString(j)))
                        .as("key %d after %d puts", j, i + 1)
                        .isTrue();
            }
            assertThat(state(cache.get(keys[i], keys[i].length, 7L))).isEqualTo(Integer.toString(i));
            assertThat(cache.size()).isEqualTo(Math.min(i + 1, 8));
        }
    }

    @Test
    void holdsEveryEntryUpToCapacityAcrossTableGrowth() {
        SeriesCache cache = new SeriesCache(50_000);
        for (int i = 0; i < 50_000; i++) {
            cache.putState("series-" + i, b(Integer.toString(i)));
        }

        assertThat(cache.size()).isEqualTo(50_000);
        for (int i = 0; i < 50_000; i++) {
            assertThat(cache.getState("series-" + i)).isEqualTo(b(Integer.toString(i)));
        }
        assertThat(cache.misses()).isZero();
    }

    @Test
    void randomWorkloadNeverReturnsAnotherKeysStateAndStaysBounded() {
        SeriesCache cache = new SeriesCache(100);
        Random random = new Random(1);
        for (int step = 0; step < 200_000; step++) {
            int k = random.nextInt(300);
            byte[] v = cache.getState("key" + k);
            if (v == null) {
                cache.putState("key" + k, b(Integer.toString(k)));
            } else {
                assertThat(v).isEqualTo(b(Integer.toString(k)));
            }
            assertThat(cache.size()).isLessThanOrEqualTo(100);
        }
        assertThat(cache.size()).isEqualTo(100);
    }

    @Test
    void replacingKeepsSizeAndTakesNewState() {
        SeriesCache cache = new SeriesCache(2);
        cache.putState("a", b("A"));
        cache.putState("a", b("A2"));

        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.getState("a")).isEqualTo(b("A2"));
    }

    @Test
    void capacityOneKeepsOnlyLatest() {
        SeriesCache cache = new SeriesCache(1);
        cache.putState("a", b("A"));
        cache.putState("b", b("B"));

        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.getState("a")).isNull();
        assertThat(cache.getState("b")).isEqualTo(b("B"));
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void rejectsCapacityBelowOne() {
        assertThatThrownBy(() -> new SeriesCache(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void largeCacheIsStripedAndStillBoundedAndShareableAcrossThreads() throws Exception {
        SeriesCache cache = new SeriesCache(SeriesCache.STRIPE_THRESHOLD);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int base = t * 100_000;
            threads[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50_000; i++) {
                    String k = "s" + (base + i);
                    if (cache.getState(k) == null) {
                        cache.putState(k, b(Integer.toString(i)));
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }

        assertThat(cache.size())
                .isLessThanOrEqualTo(SeriesCache.STRIPE_THRESHOLD)
                .isGreaterThan(SeriesCache.STRIPE_THRESHOLD / 2);
        assertThat(cache.misses()).isEqualTo(200_000);
        for (int t = 0; t < threads.length; t++) {
            for (int i = 0; i < 50_000; i += 7) {
                byte[] v = cache.getState("s" + (t * 100_000 + i));
                assertThat(v == null || new String(v, StandardCharsets.UTF_8).equals(Integer.toString(i)))
                        .isTrue();
            }
        }
    }

    @Test
    void removeIfDropsTheChosenEntriesAndTheRestStayFindable() {
        SeriesCache cache = new SeriesCache(100_000); // striped
        for (int i = 0; i < 5_000; i++) {
            cache.putState("k" + i, b("v" + i));
        }

        int removed = cache.removeIf(e -> (e[e.length - 1] - '0') % 2 == 0); // states ending in an even digit

        assertThat(removed).isEqualTo(2_500);
        assertThat(cache.size()).isEqualTo(2_500);
        for (int i = 0; i < 5_000; i++) {
            assertThat(cache.getState("k" + i)).isEqualTo(i % 2 == 0 ? null : b("v" + i));
        }
    }

    @Test
    void putIfAbsentKeepsTheEntryCachedFirstAndSaysWhichIsCached() {
        SeriesCache cache = new SeriesCache(4);
        byte[] key = b("a");
        long hash = SeriesCache.hash(key, key.length);
        byte[] first = SeriesCache.entry(key, key.length, b("A"));
        byte[] second = SeriesCache.entry(key, key.length, b("A2"));

        assertThat(cache.putIfAbsent(first, hash)).as("absent: this one").isSameAs(first);
        assertThat(cache.putIfAbsent(second, hash))
                .as("present: the one cached first")
                .isSameAs(first);
        assertThat(cache.getState("a")).isEqualTo(b("A"));
        assertThat(cache.size()).isEqualTo(1);
    }
}
