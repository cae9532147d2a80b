package io.tsdbwriter.kafka;

import io.tsdbwriter.metrics.WriterMeters;

/**
 * Records, points, expected samples and new series a processing thread took in and has not yet added to
 * {@code records_consumed}, {@code points_decoded}, {@code samples_expected}, {@code new_series},
 * {@code relabel_dropped} and {@code series_limit_dropped}: three Micrometer
 * increments per record were 5 % of the relay's CPU samples (docs/benchmarks-archive.md section 12d), so they are added once
 * per poll, before every batch is handed on (a batch's samples are expected before they can be written) and when the
 * processing thread ends, however it ends.
 *
 * <p>Not thread-safe: one per processing thread.
 */
public final class IntakeCounts {

    private final WriterMeters meters;
    private long records;
    private long points;
    private long samples;
    private long series;
    private long relabelDropped;
    private long hourlyLimitDropped;
    private long dailyLimitDropped;

    public IntakeCounts(WriterMeters meters) {
        this.meters = meters;
    }

    /** One record taken in, with the points it decoded to (their samples are counted as they are encoded). */
    public void record(int decodedPoints) {
        records++;
        points += decodedPoints;
    }

    /**
     * A point encoded into a batch, with the samples it became: M × N, or 0 when relabeling dropped its series. Counted
     * per point, before its batch is handed on, so a batch's samples are expected before they can be written.
     */
    public void encoded(int pointSamples) {
        samples += pointSamples;
    }

    /** Points of a record whose series relabeling dropped (its amplifier's {@code relabelDropped()} after less before). */
    public void relabelDropped(long droppedPoints) {
        relabelDropped += droppedPoints;
    }

    /** Samples of a record whose series the hourly or daily series limit dropped (its amplifier's, after less before). */
    public void seriesLimitDropped(long hourlySamples, long dailySamples) {
        hourlyLimitDropped += hourlySamples;
        dailyLimitDropped += dailySamples;
    }

    /**
     * Series a record began (its amplifier's {@code seriesPrepared()} after the record less before it): counted once
     * per record, whichever amplifier the record's topic has.
     */
    public void seriesCreated(long created) {
        series += created;
    }

    /** Adds what was taken in since the last call to the counters. */
    public void publish() {
        if (series > 0) {
            meters.seriesCreated.increment(series);
            series = 0;
        }
        if (relabelDropped > 0) {
            meters.relabelDropped.increment(relabelDropped);
            relabelDropped = 0;
        }
        if (hourlyLimitDropped > 0 || dailyLimitDropped > 0) {
            meters.seriesLimitDropped(hourlyLimitDropped, dailyLimitDropped);
            hourlyLimitDropped = 0;
            dailyLimitDropped = 0;
        }
        if (samples > 0) {
            meters.samplesExpected.increment(samples);
            samples = 0;
        }
        if (records > 0) {
            meters.recordsConsumed.increment(records);
            meters.pointsDecoded.increment(points);
            records = 0;
            points = 0;
        }
    }
}
