package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import org.junit.jupiter.api.Test;

class IntakeCountsTest {

    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    private final IntakeCounts counts = new IntakeCounts(meters);

    /** A record of {@code points} points, each encoded as {@code samplesPerPoint} samples. */
    private void record(int points, int samplesPerPoint) {
        counts.record(points);
        for (int p = 0; p < points; p++) {
            counts.encoded(samplesPerPoint);
        }
    }

    @Test
    void recordsReachTheCountersOnlyWhenPublished() {
        record(3, 12);
        record(0, 12); // a record that decoded to no point still counts as consumed
        assertThat(meters.recordsConsumed.count()).isZero();

        counts.publish();
        assertThat(meters.recordsConsumed.count()).isEqualTo(2.0);
        assertThat(meters.pointsDecoded.count()).isEqualTo(3.0);
        assertThat(meters.samplesExpected.count()).isEqualTo(36.0);
    }

    @Test
    void publishingTwiceAddsNothingTheSecondTime() {
        record(5, 1);
        counts.publish();
        counts.publish();
        record(1, 1);
        counts.publish();
        assertThat(meters.recordsConsumed.count()).isEqualTo(2.0);
        assertThat(meters.pointsDecoded.count()).isEqualTo(6.0);
        assertThat(meters.samplesExpected.count()).isEqualTo(6.0);
    }

    @Test
    void newSeriesReachTheirCounterWithTheRecords() {
        record(2, 1);
        counts.seriesCreated(2);
        record(2, 1);
        counts.seriesCreated(0); // the same series again
        assertThat(meters.seriesCreated.count()).isZero();

        counts.publish();
        assertThat(meters.seriesCreated.count()).isEqualTo(2.0);
        counts.publish();
        assertThat(meters.seriesCreated.count()).isEqualTo(2.0);
    }

    @Test
    void pointsRelabelingDroppedAreCountedAndExpectNoSample() {
        counts.record(3);
        counts.encoded(12);
        counts.encoded(0); // dropped by --relabel-config
        counts.encoded(12);
        counts.relabelDropped(1);
        counts.publish();
        assertThat(meters.pointsDecoded.count()).isEqualTo(3.0);
        assertThat(meters.samplesExpected.count()).isEqualTo(24.0);
        assertThat(meters.relabelDropped.count()).isEqualTo(1.0);
    }
}
