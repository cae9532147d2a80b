package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tsdbwriter.lab.IngestDelays;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A step's ingest delay is the batches' between the window's first and last reading of the writer, not the run's. */
class StepWindowDelayTest {

    private static final long SECOND = 1_000_000_000L;

    /** The writer's page: {@code fast} acknowledged batches within 0.1 s, {@code slow} within 1-2.5 s, none committed. */
    private static PromSnapshot writer(long fast, long slow, long nanos) {
        String h = "tsdbwriter_ingest_delay_seconds_bucket{stage=\"acknowledged\",le=\"";
        return PromSnapshot.parse(
                h + "0.1\"} " + fast + "\n" + h + "1.0\"} " + fast + "\n" + h + "2.5\"} " + (fast + slow) + "\n" + h
                        + "+Inf\"} " + (fast + slow) + "\n"
                        + "tsdbwriter_ingest_delay_seconds_bucket{stage=\"committed\",le=\"+Inf\"} 0\n",
                nanos);
    }

    @Test
    void theWindowsBatchesAlone() {
        // before the window: 1,000 slow batches (the warm-up's backlog); in it: 100 fast ones
        StepWindow w = new StepWindow(1, writer(0, 1000, 0), List.of(), 0);
        w.add(5, 0, writer(50, 1000, 5 * SECOND), 1, List.of());
        w.add(10, 0, writer(100, 1000, 10 * SECOND), 2, List.of());
        IngestDelays d = w.delays();
        assertThat(d.acknowledgedP50()).isCloseTo(0.05, within(1e-9));
        assertThat(d.acknowledgedP99()).isCloseTo(0.099, within(1e-9));
        assertThat(d.committedP99()).isNaN();
    }

    @Test
    void aWriterReadOnceMeasuresNothing() {
        StepWindow w = new StepWindow(1, writer(0, 10, 0), List.of(), 0);
        w.add(5, 0, null, Double.NaN, List.of());
        assertThat(w.delays()).isEqualTo(IngestDelays.NONE);
    }
}
