package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import org.junit.jupiter.api.Test;

/** The ingest delay figures bench and capacity report, from a writer's summary and from two readings of its page. */
class IngestDelaysTest {

    @Test
    void fromTheSummaryAStageWithoutBatchesIsNaN() throws Exception {
        IngestDelays d = IngestDelays.ofSummary(new ObjectMapper()
                .readTree("{\"ingest_delay_seconds\":{\"acknowledged\":{\"p50\":0.12,\"p99\":0.48},"
                        + "\"committed\":{\"p50\":null,\"p99\":null}}}"));
        assertThat(d.acknowledgedP50()).isEqualTo(0.12);
        assertThat(d.acknowledgedP99()).isEqualTo(0.48);
        assertThat(d.committedP50()).isNaN();
        assertThat(d.committedP99()).isNaN();
        assertThat(d.measured()).isTrue();
        assertThat(d.acknowledged()).isEqualTo("0.120/0.480");
        assertThat(d.committed()).isEqualTo("–/–");
        assertThat(d.text()).isEqualTo("ingest delay p50/p99 acknowledged 0.120/0.480 s, committed –/– s");
    }

    @Test
    void anOlderSummaryOrNoneMeasuresNothing() throws Exception {
        assertThat(IngestDelays.ofSummary(null)).isEqualTo(IngestDelays.NONE);
        IngestDelays old = IngestDelays.ofSummary(new ObjectMapper().readTree("{\"samples_written\":10}"));
        assertThat(old.measured()).isFalse();
        assertThat(IngestDelays.NONE.measured()).isFalse();
        assertThat(IngestDelays.between(null, null)).isEqualTo(IngestDelays.NONE);
    }

    /** Only the batches between the two readings count, each stage from its own series. */
    @Test
    void betweenTwoPagesEachStageFromItsOwnBuckets() {
        PromSnapshot before = PromSnapshot.parse(page(10, 10, 10, 0, 0, 0), 0);
        // 100 more acknowledged batches, all within 0.1-0.25 s; 100 more committed, all within 5-10 s
        PromSnapshot after = PromSnapshot.parse(page(10, 110, 110, 0, 0, 100), 1);
        IngestDelays d = IngestDelays.between(before, after);
        assertThat(d.acknowledgedP50()).isEqualTo(0.175, within(1e-9));
        assertThat(d.acknowledgedP99()).isEqualTo(0.1 + 0.15 * 0.99, within(1e-9));
        assertThat(d.committedP50()).isEqualTo(7.5, within(1e-9));
        assertThat(d.committedP99()).isEqualTo(5 + 5 * 0.99, within(1e-9));
    }

    @Test
    void aStageNoBatchReachedInTheWindowIsNaN() {
        PromSnapshot before = PromSnapshot.parse(page(10, 10, 10, 0, 0, 0), 0);
        PromSnapshot after = PromSnapshot.parse(page(10, 20, 20, 0, 0, 0), 1);
        IngestDelays d = IngestDelays.between(before, after);
        assertThat(d.acknowledgedP99()).isBetween(0.1, 0.25);
        assertThat(d.committedP50()).isNaN();
        assertThat(d.committedP99()).isNaN();
    }

    /**
     * A writer page with the delay histogram's buckets 0.1, 0.25, 5, 10 and +Inf: cumulative counts per stage
     * ({@code a*} acknowledged at 0.1, 0.25 and above; {@code c*} committed at 0.25, 5 and 10).
     */
    private static String page(long a01, long a025, long aInf, long c025, long c5, long c10) {
        String h = "tsdbwriter_ingest_delay_seconds_bucket";
        return "# TYPE tsdbwriter_ingest_delay_seconds histogram\n"
                + h + "{stage=\"acknowledged\",le=\"0.1\"} " + a01 + "\n"
                + h + "{stage=\"acknowledged\",le=\"0.25\"} " + a025 + "\n"
                + h + "{stage=\"acknowledged\",le=\"5.0\"} " + aInf + "\n"
                + h + "{stage=\"acknowledged\",le=\"10.0\"} " + aInf + "\n"
                + h + "{stage=\"acknowledged\",le=\"+Inf\"} " + aInf + "\n"
                + h + "{stage=\"committed\",le=\"0.1\"} 0\n"
                + h + "{stage=\"committed\",le=\"0.25\"} " + c025 + "\n"
                + h + "{stage=\"committed\",le=\"5.0\"} " + c5 + "\n"
                + h + "{stage=\"committed\",le=\"10.0\"} " + c10 + "\n"
                + h + "{stage=\"committed\",le=\"+Inf\"} " + c10 + "\n"
                + "tsdbwriter_ingest_delay_seconds_count{stage=\"acknowledged\"} " + aInf + "\n"
                + "tsdbwriter_ingest_delay_seconds_count{stage=\"committed\"} " + c10 + "\n";
    }
}
