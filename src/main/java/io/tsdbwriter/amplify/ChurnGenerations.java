package io.tsdbwriter.amplify;

/**
 * {@code --churn-interval}'s generations for one {@link PointAmplifier} (DESIGN §3): a point at (shifted) time t
 * belongs to generation {@code floor((t − origin) / interval)}; the cache key of its series is the series' key and the
 * generation (8 bytes, big-endian), so each generation is its own entry; once a generation g is seen, the cached series
 * of generations older than {@code g − keep / interval − 1} are removed from the shared cache. Not thread-safe.
 */
public final class ChurnGenerations {

    private final long intervalMs;
    private final long originMs;
    /** Sample time behind the newest generation seen whose series stay cached ({@link Long#MAX_VALUE}: all). */
    private final long keepMs;

    private byte[] key = new byte[256];
    private long newest = Long.MIN_VALUE;
    private long prunedBelow = Long.MIN_VALUE;

    public ChurnGenerations(long intervalMs, long originMs, long keepMs) {
        this.intervalMs = intervalMs;
        this.originMs = originMs;
        this.keepMs = keepMs;
    }

    /** The generation of a sample at {@code timestampMs}; a new newest one prunes {@code cache} first. */
    public long generation(long timestampMs, SeriesCache cache) {
        long g = Math.floorDiv(timestampMs - originMs, intervalMs);
        if (g > newest) {
            newest = g;
            prune(g, cache);
        }
        return g;
    }

    /** The cache key {@code [seriesKey[0, length)][generation: 8 bytes]} in a reused buffer (valid until the next call). */
    public byte[] key(byte[] seriesKey, int length, long generation) {
        if (key.length < length + 8) {
            key = new byte[Math.max(length + 8, key.length * 2)];
        }
        System.arraycopy(seriesKey, 0, key, 0, length);
        for (int i = 0; i < 8; i++) {
            key[length + i] = (byte) (generation >>> (56 - 8 * i));
        }
        return key;
    }

    private void prune(long newestSeen, SeriesCache cache) {
        if (keepMs == Long.MAX_VALUE) {
            return;
        }
        long oldestKept = newestSeen - keepMs / intervalMs - 1;
        if (oldestKept <= prunedBelow) {
            return;
        }
        prunedBelow = oldestKept;
        cache.removeIf(entry -> entryGeneration(entry) < oldestKept);
    }

    /** The generation in a churned entry's key: its last 8 bytes, big-endian. */
    public static long entryGeneration(byte[] entry) {
        int end = SeriesCache.stateOffset(entry);
        long g = 0;
        for (int i = end - 8; i < end; i++) {
            g = g << 8 | (entry[i] & 0xFF);
        }
        return g;
    }
}
