package io.tsdbwriter.kafka;

import io.tsdbwriter.metrics.WriterMeters;

/**
 * Records, points and expected samples a processing thread took in and has not yet added to {@code records_consumed},
 * {@code points_decoded} and {@code samples_expected}: three Micrometer increments per record were 5 % of the relay's
 * CPU samples (docs/benchmarks.md section 12d), so they are added once per poll and before every batch is handed on
 * (a batch's samples are expected before they can be written).
 *
 * <p>Not thread-safe: one per processing thread.
 */
final class IntakeCounts {

    private final WriterMeters meters;
    private long records;
    private long points;
    private long samples;

    IntakeCounts(WriterMeters meters) {
        this.meters = meters;
    }

    /** One record taken in, with the points it decoded to and the samples each point becomes. */
    void record(int decodedPoints, long samplesPerPoint) {
        records++;
        points += decodedPoints;
        samples += decodedPoints * samplesPerPoint;
    }

    /** Adds what was taken in since the last call to the counters. */
    void publish() {
        if (records > 0) {
            meters.recordsConsumed.increment(records);
            meters.pointsDecoded.increment(points);
            meters.samplesExpected.increment(samples);
            records = 0;
            points = 0;
            samples = 0;
        }
    }
}
