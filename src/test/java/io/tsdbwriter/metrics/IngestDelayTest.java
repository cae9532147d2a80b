package io.tsdbwriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.metrics.IngestDelay.Stage;
import io.tsdbwriter.write.WriteBatch;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * A batch's ingest delay, per stage, from its oldest record's time to the clock's now: the histogram's count and sum,
 * its buckets, the quantiles the report and the summary read from them, and the read time of a replay.
 */
class IngestDelayTest {

    private static final long T = 1_795_300_800_000L;

    private final AtomicLong now = new AtomicLong(T);
    private final IngestDelay delay = new IngestDelay(new SimpleMeterRegistry(), now::get);

    @Test
    void aBatchWithAKnownRecordTimestampAddsItsDelayToTheStagesHistogram() {
        WriteBatch<String, Void> batch = new WriteBatch<>(64);
        for (long t : new long[] {T + 500, T, T + 900}) { // one point of each record
            batch.body().put((byte) '\n');
            batch.addPoint(1, "record at " + t);
            batch.recordTime(t);
        }
        assertThat(batch.recordTimeMs()).as("the oldest record's time").isEqualTo(T);
        assertThat(batch.slice(2, 3).recordTimeMs()).as("a split half keeps it").isEqualTo(T);

        now.set(T + 1_500);
        delay.record(Stage.ACKNOWLEDGED, batch.recordTimeMs());
        now.set(T + 31_500);
        delay.record(Stage.COMMITTED, batch.recordTimeMs());

        assertThat(delay.timer(Stage.ACKNOWLEDGED).count()).isEqualTo(1);
        assertThat(delay.timer(Stage.ACKNOWLEDGED).totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(1_500);
        assertThat(delay.timer(Stage.COMMITTED).count()).isEqualTo(1);
        assertThat(delay.timer(Stage.COMMITTED).totalTime(TimeUnit.SECONDS)).isEqualTo(31.5);
        assertThat(delay.counts(Stage.ACKNOWLEDGED)[7]).as("(1 s, 2.5 s]").isEqualTo(1);
        assertThat(delay.counts(Stage.COMMITTED)[12])
                .as("(20 s, 30 s] holds nothing")
                .isZero();
        assertThat(delay.counts(Stage.COMMITTED)[13]).as("(30 s, 60 s]").isEqualTo(1);
    }

    @Test
    void aBatchWithoutARecordTimeIsNotMeasuredAndAFutureTimestampIsADelayOfZero() {
        delay.record(Stage.ACKNOWLEDGED, new WriteBatch<String, Void>(64).recordTimeMs());
        assertThat(delay.timer(Stage.ACKNOWLEDGED).count()).isZero();

        delay.record(Stage.ACKNOWLEDGED, T + 5_000); // a producer's clock ahead of ours (CreateTime)
        assertThat(delay.timer(Stage.ACKNOWLEDGED).count()).isEqualTo(1);
        assertThat(delay.timer(Stage.ACKNOWLEDGED).totalTime(TimeUnit.MILLISECONDS))
                .isZero();
    }

    @Test
    void aRecordIsMeasuredFromItsTimestampOrInAReplayFromTheTimeItWasRead() {
        assertThat(delay.since(T - 60_000)).as("CreateTime or LogAppendTime").isEqualTo(T - 60_000);
        assertThat(delay.since(-1)).as("no timestamp: the read time").isEqualTo(T);

        delay.measureFromReadTime(); // a replay, a rebased run: the timestamps are the window's past
        assertThat(delay.fromReadTime()).isTrue();
        assertThat(delay.since(T - 86_400_000)).isEqualTo(T);
        now.set(T + 250);
        delay.record(Stage.ACKNOWLEDGED, T);
        assertThat(delay.timer(Stage.ACKNOWLEDGED).totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(250);
    }

    @Test
    void quantilesInterpolateWithinABucketAsHistogramQuantileDoes() {
        long[] counts = new long[IngestDelay.BUCKETS.length + 1];
        assertThat(IngestDelay.quantile(counts, 0.5)).isNaN();
        counts[7] = 1; // one batch in (1 s, 2.5 s]
        assertThat(IngestDelay.quantile(counts, 0.5)).isCloseTo(1.75, Offset.offset(1e-9));
        assertThat(IngestDelay.quantile(counts, 0.99)).isCloseTo(2.485, Offset.offset(1e-9));
        counts[0] = 99; // 99 batches within 10 ms
        assertThat(IngestDelay.quantile(counts, 0.5)).isCloseTo(0.01 * 50 / 99, Offset.offset(1e-9));
        counts[IngestDelay.BUCKETS.length] = 1000; // most above 10 min: the last bound
        assertThat(IngestDelay.quantile(counts, 0.99)).isEqualTo(600);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSummaryHasBothStagesP50AndP99AndNullForAStageNoBatchReached() {
        now.set(T + 2_000);
        delay.record(Stage.ACKNOWLEDGED, T);

        Map<String, Object> s = delay.summary();
        assertThat(s).containsOnlyKeys("acknowledged", "committed");
        assertThat(s.keySet()).containsExactly("acknowledged", "committed");
        assertThat((Map<String, Object>) s.get("acknowledged"))
                .containsEntry("p50", 1.75)
                .containsEntry("p99", 2.485);
        Map<String, Object> committed = (Map<String, Object>) s.get("committed");
        assertThat(committed.keySet()).containsExactly("p50", "p99");
        assertThat(committed.get("p50")).isNull();
        assertThat(committed.get("p99")).isNull();
    }

    @Test
    void prometheusServesOneHistogramPerStageWithBucketsFrom10msTo10min() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        IngestDelay d = new IngestDelay(registry, now::get);
        now.set(T + 42);
        d.record(Stage.ACKNOWLEDGED, T);

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("# TYPE tsdbwriter_ingest_delay_seconds histogram")
                .contains("tsdbwriter_ingest_delay_seconds_bucket{stage=\"acknowledged\",le=\"0.01\"} 0")
                .contains("tsdbwriter_ingest_delay_seconds_bucket{stage=\"acknowledged\",le=\"0.05\"} 1")
                .contains("tsdbwriter_ingest_delay_seconds_bucket{stage=\"committed\",le=\"600.0\"} 0")
                .contains("tsdbwriter_ingest_delay_seconds_count{stage=\"acknowledged\"} 1")
                .contains("tsdbwriter_ingest_delay_seconds_sum{stage=\"acknowledged\"} 0.042");
    }
}
