package io.tsdbwriter.produce;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Generated source points for load tests, produced lazily (never all held in memory).
 *
 * <p>Series {@code s ∈ [0, series)} is {@value #METRIC}{@code {series="<s>", instanceNo="<instance>"}} with the
 * given {@code productKey}. Each series has {@code pointsPerSeries} points, one source interval apart, the newest at
 * {@code newestTimestampMs}: point {@code k ∈ [0, K)} has timestamp {@code newest − (K − 1 − k) × interval} and
 * value {@code s + k / 4} (exact in binary and in VictoriaMetrics' decimal storage). Iteration goes in time order:
 * all series at the oldest time, then all at the next, as a scraper would emit them.
 *
 * <p>Immutable and thread-safe; each {@link #iterator()} is independent (and not thread-safe itself). The same
 * arguments always give the same points, so {@code verify} can regenerate what {@code produce} sent.
 */
public final class SyntheticInput implements Iterable<SourcePoint> {

    /** Metric name of every synthetic point. */
    public static final String METRIC = "synthetic_metric";
    /** Label holding the series number. */
    public static final String SERIES_LABEL = "series";

    private final int series;
    private final int pointsPerSeries;
    private final String productKey;
    private final long newestTimestampMs;
    private final long intervalMs;
    private final List<Map<String, String>> labels;

    /**
     * @param series            number of series, ≥ 1
     * @param pointsPerSeries   points per series, ≥ 1
     * @param instance          {@code instanceNo} of every series; null or empty for none
     * @param productKey        {@code productKey} of every point; null for none
     * @param newestTimestampMs epoch ms of the newest point of each series
     * @param intervalMs        spacing of a series' points in ms (the source interval), ≥ 1
     * @throws IllegalArgumentException when a count or the interval is out of range, or the oldest point would fall
     *     before the epoch
     */
    public SyntheticInput(
            int series,
            int pointsPerSeries,
            String instance,
            String productKey,
            long newestTimestampMs,
            long intervalMs) {
        if (series < 1 || pointsPerSeries < 1) {
            throw new IllegalArgumentException(
                    "series and points per series must be >= 1, got " + series + " and " + pointsPerSeries);
        }
        if (intervalMs < 1) {
            throw new IllegalArgumentException("source interval must be >= 1 ms, got " + intervalMs);
        }
        if (newestTimestampMs - (pointsPerSeries - 1L) * intervalMs < 0) {
            throw new IllegalArgumentException("the oldest synthetic point would be before 1970");
        }
        this.series = series;
        this.pointsPerSeries = pointsPerSeries;
        this.productKey = productKey;
        this.newestTimestampMs = newestTimestampMs;
        this.intervalMs = intervalMs;
        this.labels = new ArrayList<>(series);
        for (int s = 0; s < series; s++) {
            LinkedHashMap<String, String> l = new LinkedHashMap<>(4);
            l.put(SERIES_LABEL, Integer.toString(s));
            if (instance != null && !instance.isEmpty()) {
                l.put(SourcePoint.INSTANCE_LABEL, instance);
            }
            labels.add(l);
        }
    }

    /** {@code nowMs} rounded down to a multiple of {@code intervalMs}: a tidy default for the newest timestamp. */
    public static long alignedNow(long nowMs, long intervalMs) {
        return nowMs - Math.floorMod(nowMs, intervalMs);
    }

    /** Total points: series × points per series. */
    public long size() {
        return (long) series * pointsPerSeries;
    }

    /** The timestamp in epoch ms of point {@code k} of every series. */
    public long timestampMs(int k) {
        return newestTimestampMs - (pointsPerSeries - 1L - k) * intervalMs;
    }

    /** The value of point {@code k} of series {@code s}. */
    public static double value(int s, int k) {
        return s + k / 4.0;
    }

    @Override
    public Iterator<SourcePoint> iterator() {
        return new Iterator<>() {
            private int k;
            private int s;

            @Override
            public boolean hasNext() {
                return k < pointsPerSeries;
            }

            @Override
            public SourcePoint next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                SourcePoint p = new SourcePoint(METRIC, labels.get(s), productKey, timestampMs(k), value(s, k));
                if (++s == series) {
                    s = 0;
                    k++;
                }
                return p;
            }
        };
    }
}
