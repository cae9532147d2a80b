package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link SourceFeed#cycle(long, java.util.function.LongUnaryOperator)}: the real scrapes scrape by scrape, each for as
 * many instances as the schedule says at the scrape's start (the series of capacity's {@code --series-mode}).
 */
class SourceFeedScheduleTest {

    private static final long NEWEST = 1795301997000L; // the newest shipped scrape

    @Test
    void eachScrapeCarriesTheInstancesTheScheduleGaveAtItsStart() throws Exception {
        // two instances' worth of the 10,140 points of the 20 shipped scrapes
        SourceFeed feed = SourceFeed.real(
                NodeExporterFiles.all(), 20_280, "node", NEWEST + SourceFeed.CYCLE_HEADROOM_MS + 30_000);
        assertThat(feed.instances()).isEqualTo(2);
        assertThat(feed.pointsPerInstance()).isEqualTo(10_140);
        int largest = 0;
        Map<Long, Set<String>> firstPass = new LinkedHashMap<>();
        for (SourcePoint p : feed) {
            firstPass.computeIfAbsent(p.timestampMs(), t -> new TreeSet<>()).add(p.instance());
        }
        List<Long> scrapeTimes = new ArrayList<>(firstPass.keySet());
        assertThat(scrapeTimes).hasSize(20);

        List<Long> asked = new ArrayList<>();
        Iterator<SourcePoint> it = feed.cycle(0, n -> {
            asked.add(n);
            return n % 3 + 1; // scrape 0: 1 instance, 1: 2, 2: 3, 3: 1, …
        });
        Map<Long, Set<String>> instances = new LinkedHashMap<>();
        Map<Long, Integer> points = new LinkedHashMap<>();
        SourcePoint p;
        do {
            p = it.next();
            instances.computeIfAbsent(p.timestampMs(), t -> new TreeSet<>()).add(p.instance());
            points.merge(p.timestampMs(), 1, Integer::sum);
        } while (instances.size() <= 22);
        List<Long> times = new ArrayList<>(instances.keySet());
        for (int j = 0; j < 22; j++) {
            long expectedTime = j < 20 ? scrapeTimes.get(j) : scrapeTimes.get(j - 20) + feed.spanMs();
            assertThat(times.get(j))
                    .as("scrape %d's time (round 1 shifted by the span)", j)
                    .isEqualTo(expectedTime);
            int n = j % 3 + 1;
            assertThat(instances.get(expectedTime))
                    .as("scrape %d", j)
                    .hasSize(n)
                    .contains("node-0001");
            assertThat(points.get(expectedTime) % n).isZero();
            largest = Math.max(largest, points.get(expectedTime) / n);
        }
        assertThat(asked.subList(0, 23))
                .as("asked once per scrape, at its start")
                .containsExactly(
                        0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L,
                        21L, 22L);
        assertThat(feed.seriesPerInstance()).as("the largest scrape's points").isEqualTo(largest);
    }

    @Test
    void theFirstRoundMovesTheWholeCyclePastTheRoundsAlreadyProduced() throws Exception {
        SourceFeed feed = SourceFeed.real(
                NodeExporterFiles.all(), 20_280, "node", NEWEST + SourceFeed.CYCLE_HEADROOM_MS + 30_000);
        SourcePoint first = feed.iterator().next();
        SourcePoint later = feed.cycle(3, n -> 2).next();
        assertThat(later.timestampMs()).isEqualTo(first.timestampMs() + 3 * feed.spanMs());
        assertThat(later.labels()).isEqualTo(first.labels());
    }
}
