package io.tsdbwriter.capacity.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link FedSamples}: the points a search fed, produced again in the order fed, each with its run's M. */
class FedSamplesTest {

    private static final long NEWEST = 1795301997000L; // the newest shipped scrape

    private static SourceFeed feed() throws Exception {
        // two instances' worth of the 10,140 points of the 20 shipped scrapes
        return SourceFeed.real(NodeExporterFiles.all(), 20_280, "node", NEWEST + SourceFeed.CYCLE_HEADROOM_MS + 30_000);
    }

    private static List<SourcePoint> take(Iterator<SourcePoint> it, long n) {
        List<SourcePoint> out = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            out.add(it.next());
        }
        return out;
    }

    @Test
    void theProbeAndTheSteadyStepsAreOneCycleTakenRunAfterRun() throws Exception {
        SourceFeed feed = feed();
        FedSamples fed = new FedSamples(feed, 0);
        Iterator<SourcePoint> cycle = feed.cycle();
        List<SourcePoint> taken = new ArrayList<>(take(cycle, 10_000)); // the probe's backlog
        fed.fed(false, 10_000, 1);
        taken.addAll(take(cycle, 25_000)); // a step past the first pass: round 1 shifted by the span
        fed.fed(false, 25_000, 1);
        fed.fed(false, 0, 1); // a step that fed nothing is no run

        List<SourcePoint> replayed = new ArrayList<>();
        List<Integer> ms = new ArrayList<>();
        fed.replay((p, m) -> {
            replayed.add(p);
            ms.add(m);
        });

        assertThat(replayed).isEqualTo(taken);
        assertThat(ms).containsOnly(1);
        assertThat(fed.points()).isEqualTo(35_000);
        assertThat(fed.runs()).hasSize(2);
        assertThat(fed.timeMultiplier()).isEqualTo(1);
    }

    @Test
    void scheduledStepsAreProducedAgainWithTheInstancesTheScheduleAnswered() throws Exception {
        SourceFeed feed = feed();
        FedSamples fed = new FedSamples(feed, 1);
        long[] calls = {0};
        // an answer that changes with each call: the replay must take the recorded ones, not ask again
        Iterator<SourcePoint> scheduled = feed.cycle(1, fed.recording(n -> 1 + calls[0]++ % 4));
        Iterator<SourcePoint> steady = feed.cycle();
        List<SourcePoint> taken = new ArrayList<>(take(steady, 20_280)); // the probe: one pass
        fed.fed(false, 20_280, 2);
        taken.addAll(take(scheduled, 7_777));
        fed.fed(true, 7_777, 2);
        taken.addAll(take(scheduled, 30_001));
        fed.fed(true, 30_001, 2);
        long asked = calls[0];

        List<SourcePoint> replayed = new ArrayList<>();
        fed.replay((p, m) -> replayed.add(p));

        assertThat(replayed).isEqualTo(taken);
        assertThat(calls[0]).as("the schedule is not asked again").isEqualTo(asked);
        assertThat(fed.timeMultiplier()).isEqualTo(2);
    }

    @Test
    void runsOfDifferentMHaveNoOneM() throws Exception {
        FedSamples fed = new FedSamples(SourceFeed.synthetic(3, 30, 1_700_000_000_000L, 60_000), 0);
        assertThat(fed.timeMultiplier()).as("nothing fed").isZero();
        fed.fed(false, 10, 1);
        fed.fed(false, 10, 3);
        assertThat(fed.timeMultiplier()).isEqualTo(-1);
        List<Integer> ms = new ArrayList<>();
        fed.replay((p, m) -> ms.add(m));
        assertThat(ms).hasSize(20).startsWith(1).endsWith(3);
    }
}
