package io.tsdbwriter.verify;

import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The exact set of samples VictoriaMetrics must hold after the writer amplified a set of source points
 * (DESIGN §3). For each source point {@code (t, v, labels)}, {@code i ∈ [0, M)} and {@code j ∈ [0, N)}:
 * <ul>
 *   <li>series: the point's dimensions with {@code instanceNo} replaced by {@link #instanceVariant variant j}
 *       (the original for {@code j = 0}, {@code <original>-<j>} otherwise; with N &gt; 1 base {@code unknown} when the point has
 *       no {@code instanceNo}), plus label {@code productKey} (winning over a dimension of that name), plus
 *       {@code __name__} = the metric name;</li>
 *   <li>timestamp: {@link #sampleTimestampMs t + i × interval / M} in epoch ms (integer division of
 *       {@code i × intervalMs} by M, as the writer does);</li>
 *   <li>value: {@code v}, unchanged.</li>
 * </ul>
 * Samples that land on the same series and timestamp (e.g. several files given one explicit timestamp) collapse
 * into one expected sample, as VictoriaMetrics' deduplication keeps one; when their values differ, any of them is
 * accepted. {@link #collapsedSamples()} counts them.
 *
 * <p>Memory: series are keyed by their canonical text ({@link SourcePoint#seriesKey(String, Map)}); the timestamps
 * and values of a source series are held once in primitive arrays and shared by its N instance variants, so about
 * 16 bytes per expected sample divided by N, plus one key string per expected series.
 *
 * <p>Immutable and thread-safe once built. The {@link Builder} is not thread-safe.
 */
public final class ExpectedSamples {

    /** Base of the instance variants for a point that carries no {@code instanceNo}. */
    public static final String UNKNOWN_INSTANCE = "unknown";

    private final Map<String, Series> seriesByKey;
    private final List<Series> seriesById;
    private final long sampleCount;
    private final long sourcePointCount;
    private final long collapsedSamples;
    private final int timeMultiplier;
    private final int instanceMultiplier;
    private final long sourceIntervalMs;
    private final long minTimestampMs;
    private final long maxTimestampMs;
    private final SortedMap<String, SortedSet<String>> productKeysByMetric;

    /** One expected series: its key, a dense id, and its (possibly shared) timeline. */
    record Series(int id, String key, Timeline timeline) {}

    private ExpectedSamples(
            Map<String, Series> seriesByKey,
            List<Series> seriesById,
            long sourcePointCount,
            long collapsedSamples,
            int timeMultiplier,
            int instanceMultiplier,
            long sourceIntervalMs,
            SortedMap<String, SortedSet<String>> productKeysByMetric) {
        this.productKeysByMetric = productKeysByMetric;
        this.seriesByKey = seriesByKey;
        this.seriesById = seriesById;
        this.sourcePointCount = sourcePointCount;
        this.collapsedSamples = collapsedSamples;
        this.timeMultiplier = timeMultiplier;
        this.instanceMultiplier = instanceMultiplier;
        this.sourceIntervalMs = sourceIntervalMs;
        long count = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (Series s : seriesById) {
            long[] ts = s.timeline().timestamps;
            count += ts.length;
            if (ts.length > 0) {
                min = Math.min(min, ts[0]);
                max = Math.max(max, ts[ts.length - 1]);
            }
        }
        this.sampleCount = count;
        this.minTimestampMs = min;
        this.maxTimestampMs = max;
    }

    /**
     * The expected samples of {@code points} amplified M × N.
     *
     * @throws IllegalArgumentException when M, N or the interval is out of range (see {@link #builder})
     */
    public static ExpectedSamples of(
            Iterable<SourcePoint> points, int timeMultiplier, int instanceMultiplier, long sourceIntervalMs) {
        Builder b = builder(timeMultiplier, instanceMultiplier, sourceIntervalMs);
        for (SourcePoint p : points) {
            b.add(p);
        }
        return b.build();
    }

    /**
     * A builder to feed source points one by one (e.g. straight from a generator).
     *
     * @param timeMultiplier     M, 1..3600
     * @param instanceMultiplier N, 1..100000
     * @param sourceIntervalMs   the source interval in ms (60000 by default in the CLI), ≥ 1
     * @throws IllegalArgumentException when a value is out of range (the ranges of the writer's {@code run})
     */
    public static Builder builder(int timeMultiplier, int instanceMultiplier, long sourceIntervalMs) {
        return new Builder(timeMultiplier, instanceMultiplier, sourceIntervalMs);
    }

    /** Timestamp in epoch ms of time sample {@code i} of a point at {@code sourceTimestampMs}: {@code t + (i × intervalMs) / M}. */
    public static long sampleTimestampMs(long sourceTimestampMs, int i, int timeMultiplier, long sourceIntervalMs) {
        return sourceTimestampMs + (i * sourceIntervalMs) / timeMultiplier;
    }

    /**
     * The {@code instanceNo} of variant {@code j}: {@code original} for {@code j = 0}, {@code original-j} for
     * {@code j > 0}; {@value #UNKNOWN_INSTANCE} replaces a null or empty original.
     */
    public static String instanceVariant(String original, int j) {
        String base = original == null || original.isEmpty() ? UNKNOWN_INSTANCE : original;
        return j == 0 ? base : base + "-" + j;
    }

    /** Distinct expected samples (series × timestamp). */
    public long sampleCount() {
        return sampleCount;
    }

    /** Expected series (source series × N, fewer if variants of different source series coincide). */
    public int seriesCount() {
        return seriesById.size();
    }

    /** Source points fed in. */
    public long sourcePointCount() {
        return sourcePointCount;
    }

    /** Samples that fell on a series and timestamp another sample already had: source points × M × N − {@link #sampleCount()}. */
    public long collapsedSamples() {
        return collapsedSamples;
    }

    /** M. */
    public int timeMultiplier() {
        return timeMultiplier;
    }

    /** N. */
    public int instanceMultiplier() {
        return instanceMultiplier;
    }

    /** The source interval in ms. */
    public long sourceIntervalMs() {
        return sourceIntervalMs;
    }

    /** Oldest expected timestamp in epoch ms ({@link Long#MAX_VALUE} when empty). */
    public long minTimestampMs() {
        return minTimestampMs;
    }

    /** Newest expected timestamp in epoch ms ({@link Long#MIN_VALUE} when empty). */
    public long maxTimestampMs() {
        return maxTimestampMs;
    }

    /** The canonical keys of all expected series ({@link SourcePoint#seriesKey(String, Map)} form); unmodifiable. */
    public Set<String> seriesKeys() {
        return Collections.unmodifiableSet(seriesByKey.keySet());
    }

    /** The expected value of a sample, empty when the sample is not expected. Where values collided, the first. */
    public OptionalDouble value(String seriesKey, long timestampMs) {
        Series s = seriesByKey.get(seriesKey);
        if (s == null) {
            return OptionalDouble.empty();
        }
        int idx = Arrays.binarySearch(s.timeline().timestamps, timestampMs);
        return idx < 0 ? OptionalDouble.empty() : OptionalDouble.of(s.timeline().values[idx]);
    }

    /** The expected timestamps (epoch ms, ascending) of a series; empty when the series is not expected. */
    public long[] timestamps(String seriesKey) {
        Series s = seriesByKey.get(seriesKey);
        return s == null ? new long[0] : s.timeline().timestamps.clone();
    }

    /**
     * The metric names of the expected series, sorted, each with the sorted values of its series' {@code productKey}
     * label ({@code ""} for series without one); unmodifiable. What {@link InputSeriesSelectors} reads back.
     */
    public SortedMap<String, SortedSet<String>> productKeysByMetric() {
        return productKeysByMetric;
    }

    Series series(String key) {
        return seriesByKey.get(key);
    }

    List<Series> seriesById() {
        return seriesById;
    }

    /** Collects source points and builds the expected set. Not thread-safe; build once. */
    public static final class Builder {
        private final int m;
        private final int n;
        private final long intervalMs;
        private final HashMap<String, Source> sources = new HashMap<>();
        private long points;

        private Builder(int m, int n, long intervalMs) {
            if (m < 1 || m > 3600) {
                throw new IllegalArgumentException("time multiplier must be in 1..3600, got " + m);
            }
            if (n < 1 || n > 100_000) {
                throw new IllegalArgumentException("instance multiplier must be in 1..100000, got " + n);
            }
            if (intervalMs < 1) {
                throw new IllegalArgumentException("source interval must be >= 1 ms, got " + intervalMs);
            }
            this.m = m;
            this.n = n;
            this.intervalMs = intervalMs;
        }

        /** Adds one source point. */
        public Builder add(SourcePoint p) {
            String key = p.seriesKey();
            Source s = sources.get(key);
            if (s == null) {
                s = new Source(p.metric(), p.seriesLabels());
                sources.put(key, s);
            }
            s.add(p.timestampMs(), p.value());
            points++;
            return this;
        }

        /** Adds source points. */
        public Builder addAll(Iterable<SourcePoint> ps) {
            for (SourcePoint p : ps) {
                add(p);
            }
            return this;
        }

        /** The expected set of everything added so far. */
        public ExpectedSamples build() {
            // Variant key → its timeline, or a list of timelines when variants of different source series coincide.
            LinkedHashMap<String, Object> byKey = new LinkedHashMap<>();
            TreeMap<String, SortedSet<String>> keysByMetric = new TreeMap<>();
            for (Source s : sources.values()) {
                keysByMetric
                        .computeIfAbsent(s.metric, k -> new TreeSet<>())
                        .add(s.labels.getOrDefault(SourcePoint.PRODUCT_KEY_LABEL, ""));
                Timeline timeline = s.expand(m, intervalMs);
                String original = s.labels.get(SourcePoint.INSTANCE_LABEL);
                TreeMap<String, String> labels = new TreeMap<>(s.labels);
                for (int j = 0; j < n; j++) {
                    if (n > 1
                            || (original != null && !original.isEmpty())) { // N = 1: the labels as they are (DESIGN §3)
                        labels.put(SourcePoint.INSTANCE_LABEL, instanceVariant(original, j));
                    }
                    String key = SourcePoint.seriesKey(s.metric, labels);
                    Object prev = byKey.putIfAbsent(key, timeline);
                    if (prev != null) {
                        List<Timeline> list;
                        if (prev instanceof Timeline t) {
                            list = new ArrayList<>();
                            list.add(t);
                            byKey.put(key, list);
                        } else {
                            @SuppressWarnings("unchecked")
                            List<Timeline> l = (List<Timeline>) prev;
                            list = l;
                        }
                        list.add(timeline);
                    }
                }
            }
            HashMap<String, Series> seriesByKey = HashMap.newHashMap(byKey.size());
            List<Series> seriesById = new ArrayList<>(byKey.size());
            for (Map.Entry<String, Object> e : byKey.entrySet()) {
                Timeline t;
                if (e.getValue() instanceof Timeline one) {
                    t = one;
                } else {
                    @SuppressWarnings("unchecked")
                    List<Timeline> list = (List<Timeline>) e.getValue();
                    t = merge(list);
                }
                Series s = new Series(seriesById.size(), e.getKey(), t);
                seriesById.add(s);
                seriesByKey.put(e.getKey(), s);
            }
            long distinct = 0;
            for (Series s : seriesById) {
                distinct += s.timeline().size();
            }
            long collapsed = points * m * n - distinct;
            keysByMetric.replaceAll((k, v) -> Collections.unmodifiableSortedSet(v));
            return new ExpectedSamples(
                    seriesByKey,
                    Collections.unmodifiableList(seriesById),
                    points,
                    collapsed,
                    m,
                    n,
                    intervalMs,
                    Collections.unmodifiableSortedMap(keysByMetric));
        }

        private static Timeline merge(List<Timeline> list) {
            int total = 0;
            for (Timeline t : list) {
                total += t.size()
                        + (t.alternatives == null
                                ? 0
                                : t.alternatives.values().stream()
                                        .mapToInt(a -> a.length)
                                        .sum());
            }
            long[] ts = new long[total];
            double[] vs = new double[total];
            int k = 0;
            for (Timeline t : list) {
                for (int i = 0; i < t.size(); i++) {
                    ts[k] = t.timestamps[i];
                    vs[k++] = t.values[i];
                    if (t.alternatives != null && t.alternatives.containsKey(i)) {
                        for (double alt : t.alternatives.get(i)) {
                            ts[k] = t.timestamps[i];
                            vs[k++] = alt;
                        }
                    }
                }
            }
            return Timeline.collapse(ts, vs);
        }
    }

    /** The source points of one source series (before amplification), in primitive growable arrays. */
    private static final class Source {
        final String metric;
        final TreeMap<String, String> labels;
        long[] timestamps = new long[4];
        double[] values = new double[4];
        int size;

        Source(String metric, TreeMap<String, String> labels) {
            this.metric = metric;
            this.labels = labels;
        }

        void add(long ts, double v) {
            if (size == timestamps.length) {
                timestamps = Arrays.copyOf(timestamps, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            timestamps[size] = ts;
            values[size++] = v;
        }

        Timeline expand(int m, long intervalMs) {
            long[] ts = new long[size * m];
            double[] vs = new double[size * m];
            int k = 0;
            for (int p = 0; p < size; p++) {
                for (int i = 0; i < m; i++) {
                    ts[k] = sampleTimestampMs(timestamps[p], i, m, intervalMs);
                    vs[k++] = values[p];
                }
            }
            timestamps = null; // the source arrays are no longer needed
            values = null;
            return Timeline.collapse(ts, vs);
        }
    }
}
