package io.tsdbwriter.kafka;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IntakeCountsTest {

    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    private final IntakeCounts counts = new IntakeCounts(meters);

    @Test
    void recordsReachTheCountersOnlyWhenPublished() {
        counts.record(3, 12);
        counts.record(0, 12); // a record that decoded to no point still counts as consumed
        assertThat(meters.recordsConsumed.count()).isZero();

        counts.publish();
        assertThat(meters.recordsConsumed.count()).isEqualTo(2.0);
        assertThat(meters.pointsDecoded.count()).isEqualTo(3.0);
        assertThat(meters.samplesExpected.count()).isEqualTo(36.0);
    }

    @Test
    void publishingTwiceAddsNothingTheSecondTime() {
        counts.record(5, 1);
        counts.publish();
        counts.publish();
        counts.record(1, 1);
        counts.publish();
        assertThat(meters.recordsConsumed.count()).isEqualTo(2.0);
        assertThat(meters.pointsDecoded.count()).isEqualTo(6.0);
        assertThat(meters.samplesExpected.count()).isEqualTo(6.0);
    }

    @Test
    void newSeriesReachTheirCounterWithTheRecords() {
        counts.record(2, 1);
        counts.seriesCreated(2);
        counts.record(2, 1);
        counts.seriesCreated(0); // the same series again
        assertThat(meters.seriesCreated.count()).isZero();

        counts.publish();
        assertThat(meters.seriesCreated.count()).isEqualTo(2.0);
        counts.publish();
        assertThat(meters.seriesCreated.count()).isEqualTo(2.0);
    }
}
