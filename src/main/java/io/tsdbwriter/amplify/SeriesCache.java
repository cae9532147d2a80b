package io.tsdbwriter.amplify;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * A bounded cache of per-series state that is expensive to build (dimension variants, the serialized label
 * prefixes), keyed by the series' canonical identity in bytes, the state itself in bytes. The same series recurs
 * every source interval, so the
 * state is built once per series and reused for every later point — once per process: all SegmentConsumers share
 * one cache, so P consumers of a partition do not each hold every series.
 *
 * <p>Built for a lookup per point over hundreds of thousands of series, where the cost is memory latency, not
 * instructions: an open-addressing table (linear probing, load ≤ ½) of 64-bit key hashes beside one array per
 * series, the <em>entry</em> {@code [key length: 4 bytes, big-endian][key][state]}. A hit reads the hash slot, the
 * entry reference and the entry — whose key it verifies and whose state the caller reads next, from the same
 * memory — and allocates or relinks nothing. A hit is always verified against the stored key bytes: a hash
 * collision can never hand one series another's state.
 * Eviction is CLOCK (second chance): a lookup sets the entry's reference bit (in its hash word, no extra memory
 * access); beyond capacity the clock hand clears set bits and evicts the first entry found unreferenced since it
 * last passed — an approximation of least-recently-used that needs no list.
 *
 * <p>Thread-safe. Caches of {@value #STRIPE_THRESHOLD} entries or more are split into {@value #STRIPES} lock stripes
 * by key hash, each a table of {@code capacity / stripes} entries, so consumers on different threads rarely
 * contend; smaller caches are one table. Keys and states are copied on {@link #put}; callers may reuse their
 * buffers. Entries are never modified after {@link #put} returns them.
 */
public final class SeriesCache {

    /** Capacity from which the cache is split into stripes. */
    public static final int STRIPE_THRESHOLD = 65_536;

    private static final int STRIPES = 16;

    private final Stripe[] stripes;
    private final int capacity;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /** @param capacity maximum series held; beyond it CLOCK evicts (must be ≥ 1) */
    public SeriesCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("series cache capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        int n = capacity >= STRIPE_THRESHOLD ? STRIPES : 1;
        stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe((capacity + n - 1) / n);
        }
    }

    /** Maximum series held. */
    public int capacity() {
        return capacity;
    }

    private Stripe stripe(long hash) {
        return stripes.length == 1 ? stripes[0] : stripes[(int) (hash >>> 60) & (STRIPES - 1)];
    }

    /**
     * The entry of the series whose key is {@code key[0, length)} ({@code hash}: its {@link #hash(byte[], int)}), or
     * null when absent (counted as a miss); its state starts at {@link #stateOffset(byte[])}.
     */
    public byte[] get(byte[] key, int length, long hash) {
        Stripe s = stripe(hash);
        byte[] v;
        synchronized (s) {
            v = s.get(key, length, hash);
        }
        if (v == null) {
            misses.increment();
        } else {
            hits.increment();
        }
        return v;
    }

    /**
     * Caches {@code state} for the key {@code key[0, length)} (both copied into one new entry), replacing the entry
     * of an equal key; beyond capacity evicts one series first. Returns the new entry.
     */
    public byte[] put(byte[] key, int length, long hash, byte[] state) {
        byte[] entry = entry(key, length, state);
        Stripe s = stripe(hash);
        synchronized (s) {
            return s.put(entry, length, hash, true);
        }
    }

    /** A new entry {@code [key length][key][state]} for {@link #putIfAbsent} (key and state copied). */
    public static byte[] entry(byte[] key, int length, byte[] state) {
        byte[] entry = new byte[4 + length + state.length];
        entry[0] = (byte) (length >>> 24);
        entry[1] = (byte) (length >>> 16);
        entry[2] = (byte) (length >>> 8);
        entry[3] = (byte) length;
        System.arraycopy(key, 0, entry, 4, length);
        System.arraycopy(state, 0, entry, 4 + length, state.length);
        return entry;
    }

    /**
     * Caches {@code entry} (from {@link #entry}) unless an entry of an equal key is cached — one another thread put
     * since this one's {@link #get} missed; beyond capacity evicts one series first. {@code hash}: of the entry's key.
     *
     * @return {@code entry} itself (the same reference) when its key was absent, else the entry cached before, kept
     */
    public byte[] putIfAbsent(byte[] entry, long hash) {
        Stripe s = stripe(hash);
        synchronized (s) {
            return s.put(entry, keyLength(entry), hash, false);
        }
    }

    /** Where the state begins in an entry from {@link #get} or {@link #put}. */
    public static int stateOffset(byte[] entry) {
        return 4 + keyLength(entry);
    }

    private static int keyLength(byte[] entry) {
        return (entry[0] & 0xFF) << 24 | (entry[1] & 0xFF) << 16 | (entry[2] & 0xFF) << 8 | (entry[3] & 0xFF);
    }

    /** The state cached for a string key in UTF-8, or null (allocates; for tests and cold paths). */
    public byte[] getState(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        byte[] entry = get(b, b.length, hash(b, b.length));
        return entry == null ? null : Arrays.copyOfRange(entry, stateOffset(entry), entry.length);
    }

    /** {@link #put(byte[], int, long, byte[])} with a string key in UTF-8 (allocates; for tests and cold paths). */
    public void putState(String key, byte[] state) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        put(b, b.length, hash(b, b.length), state);
    }

    /**
     * Removes every entry whose key {@code entry[4, 4 + key length)} the test accepts (the entry is handed whole; its
     * key length is {@code stateOffset(entry) - 4}); a cold path, one stripe locked at a time, each rebuilt from its
     * survivors. Used by series churn to drop the generations no reader will see again.
     *
     * @return entries removed
     */
    public int removeIf(Predicate<byte[]> test) {
        int removed = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                removed += s.removeIf(test);
            }
        }
        return removed;
    }

    /** Series currently cached. */
    public int size() {
        int n = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                n += s.size;
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

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long C1 = 0x9E3779B97F4A7C15L;
    private static final long C2 = 0xC2B2AE3D27D4EB4FL;

    /**
     * A 64-bit hash of {@code key[0, length)}: eight bytes per step, then MurmurHash3's 64-bit finalizer, so every
     * bit of the result depends on every input bit (the top bits pick the stripe, the low bits the slot).
     */
    public static long hash(byte[] key, int length) {
        long h = C1 ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            long k = (long) LONGS.get(key, i);
            h = Long.rotateLeft(h ^ (k * C2), 31) * C1;
        }
        long k = 0;
        for (int shift = 0; i < length; i++, shift += 8) {
            k |= (key[i] & 0xFFL) << shift;
        }
        h = Long.rotateLeft(h ^ (k * C2), 31) * C1;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    /**
     * One table: {@code words[slot]} is 0 when the slot is empty, else the key's hash with bit 1 set (never 0) and
     * bit 0 the CLOCK reference bit; {@code entries[slot]} the entry. Guarded by its own monitor.
     */
    private static final class Stripe {
        private static final int INITIAL_SLOTS = 1024;

        private final int capacity;
        private final int maxSlots;
        private long[] words;
        private byte[][] entries;
        private int mask;
        private int size;
        private int hand;

        Stripe(int capacity) {
            this.capacity = capacity;
            this.maxSlots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1; // ≥ 2 × capacity
            int slots = Math.min(INITIAL_SLOTS, maxSlots);
            words = new long[slots];
            entries = new byte[slots][];
            mask = slots - 1;
        }

        private static long word(long hash) {
            return (hash | 2L) & ~1L;
        }

        private int home(long word) {
            return (int) (word >>> 2) & mask;
        }

        byte[] get(byte[] key, int length, long hash) {
            int slot = find(key, length, word(hash));
            if (slot < 0) {
                return null;
            }
            long w = words[slot];
            if ((w & 1L) == 0) {
                words[slot] = w | 1L;
            }
            return entries[slot];
        }

        private int find(byte[] key, int length, long word) {
            long[] ws = words;
            int m = mask;
            for (int slot = home(word); ; slot = (slot + 1) & m) {
                long w = ws[slot];
                if (w == 0) {
                    return -1;
                }
                if ((w & ~1L) == word) {
                    byte[] e = entries[slot];
                    if (keyLength(e) == length && Arrays.equals(e, 4, 4 + length, key, 0, length)) {
                        return slot;
                    }
                }
            }
        }

        /** Caches {@code entry}; an entry of an equal key is replaced ({@code replace}) or kept and returned. */
        byte[] put(byte[] entry, int keyLength, long hash, boolean replace) {
            long word = word(hash);
            int slot = findEntry(entry, keyLength, word);
            if (slot >= 0) {
                if (!replace) {
                    words[slot] |= 1L;
                    return entries[slot];
                }
                entries[slot] = entry;
                return entry;
            }
            if (size >= capacity) {
                evictOne();
            }
            if ((size + 1) * 2 > words.length && words.length < maxSlots) {
                resize(words.length * 2);
            }
            slot = home(word);
            while (words[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            words[slot] = word;
            entries[slot] = entry;
            size++;
            return entry;
        }

        /** {@link #find} for a key that sits in an entry at offset 4. */
        private int findEntry(byte[] entry, int length, long word) {
            for (int slot = home(word); ; slot = (slot + 1) & mask) {
                long w = words[slot];
                if (w == 0) {
                    return -1;
                }
                byte[] e = entries[slot];
                if ((w & ~1L) == word
                        && keyLength(e) == length
                        && Arrays.equals(e, 4, 4 + length, entry, 4, 4 + length)) {
                    return slot;
                }
            }
        }

        int removeIf(Predicate<byte[]> test) {
            long[] oldWords = words;
            byte[][] oldEntries = entries;
            words = new long[oldWords.length];
            entries = new byte[oldWords.length][];
            hand = 0;
            int removed = 0;
            for (int i = 0; i < oldWords.length; i++) {
                long w = oldWords[i];
                if (w == 0) {
                    continue;
                }
                if (test.test(oldEntries[i])) {
                    removed++;
                    continue;
                }
                int slot = home(w);
                while (words[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                words[slot] = w;
                entries[slot] = oldEntries[i];
            }
            size -= removed;
            return removed;
        }

        /** CLOCK: clears reference bits until it meets an unreferenced entry, and removes that one. */
        private void evictOne() {
            while (true) {
                int slot = hand;
                hand = (hand + 1) & mask;
                long w = words[slot];
                if (w == 0) {
                    continue;
                }
                if ((w & 1L) != 0) {
                    words[slot] = w & ~1L;
                    continue;
                }
                remove(slot);
                return;
            }
        }

        /** Removes a slot by backward-shift deletion, so probe sequences stay unbroken without tombstones. */
        private void remove(int hole) {
            int slot = hole;
            while (true) {
                slot = (slot + 1) & mask;
                long w = words[slot];
                if (w == 0) {
                    break;
                }
                int h = home(w);
                // the entry at slot may move to the hole unless its home lies cyclically in (hole, slot]
                boolean stays = hole <= slot ? (hole < h && h <= slot) : (hole < h || h <= slot);
                if (stays) {
                    continue;
                }
                words[hole] = w;
                entries[hole] = entries[slot];
                hole = slot;
            }
            words[hole] = 0;
            entries[hole] = null;
            size--;
        }

        private void resize(int slots) {
            long[] oldWords = words;
            byte[][] oldEntries = entries;
            words = new long[slots];
            entries = new byte[slots][];
            mask = slots - 1;
            hand = 0;
            for (int i = 0; i < oldWords.length; i++) {
                long w = oldWords[i];
                if (w != 0) {
                    int slot = home(w);
                    while (words[slot] != 0) {
                        slot = (slot + 1) & mask;
                    }
                    words[slot] = w;
                    entries[slot] = oldEntries[i];
                }
            }
        }
    }
}
