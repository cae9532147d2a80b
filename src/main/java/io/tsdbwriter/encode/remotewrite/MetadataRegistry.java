package io.tsdbwriter.encode.remotewrite;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every distinct {@link MetricMetadata} the process has met, each under a small id ≥ 1 (0: a series without metadata):
 * the id is what a prepared series keeps in the shared series cache ({@link RemoteWriteEncoder#prepareSeries}), and
 * what the per-request bookkeeping of {@link RequestFamilies} indexes, so that per point neither a map nor a string
 * is touched — {@link #get} is an array read.
 *
 * <p>{@link #id} is called once per series on its cache miss. At most {@link #MAX_IDS} entries are kept (HELP texts
 * that change without end cannot grow the process without end): past that, new metadata gets id 0 and its series go
 * without. One instance per process ({@link #SHARED}), since the series cache is shared by every consumer's encoder.
 * Thread-safe.
 */
public final class MetadataRegistry {

    /** Most distinct metadata kept. */
    public static final int MAX_IDS = 1 << 16;
    /** The process's registry. */
    public static final MetadataRegistry SHARED = new MetadataRegistry(MAX_IDS);

    private final int maxIds;
    private final ConcurrentHashMap<MetricMetadata, Integer> ids = new ConcurrentHashMap<>();
    /** Index = id; slot 0 unused. */
    private volatile MetricMetadata[] byId = new MetricMetadata[64];

    private int count;

    /** @param maxIds most entries kept (≥ 0) */
    public MetadataRegistry(int maxIds) {
        this.maxIds = maxIds;
    }

    /**
     * The id of {@code m}, registering it when it is new.
     *
     * @return ≥ 1, or 0 when {@code m} is null or the registry is full
     */
    public int id(MetricMetadata m) {
        if (m == null) {
            return 0;
        }
        Integer known = ids.get(m);
        if (known != null) {
            return known;
        }
        synchronized (this) {
            known = ids.get(m);
            if (known != null) {
                return known;
            }
            if (count >= maxIds) {
                return 0;
            }
            int id = ++count;
            MetricMetadata[] a = byId;
            if (id >= a.length) {
                a = Arrays.copyOf(a, a.length * 2);
            }
            a[id] = m;
            byId = a; // published before the id can be read from a cached series
            ids.put(m, id);
            return id;
        }
    }

    /** The metadata of id {@code id} (≥ 1, returned by {@link #id}). */
    public MetricMetadata get(int id) {
        return byId[id];
    }

    /** Ids handed out so far (the largest id). */
    public synchronized int size() {
        return count;
    }
}
