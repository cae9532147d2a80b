package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.SourcePoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * What a search fed its writers, kept so its read-back can compare sample by sample ({@link ReadBackExact}) without
 * holding a point: the runs of points taken from the {@link SourceFeed} (the probe's, each step's), each with its
 * writers' M, and, under a series schedule, the instances the schedule answered for each scrape. {@link #replay} produces
 * the same points again, in the same order: the probe and the steady steps take one {@link SourceFeed#cycle()} one after
 * another; the steps under a schedule take one {@link SourceFeed#cycle(long, LongUnaryOperator)} from {@code firstRound},
 * its instances the recorded answers. Memory: one entry per run and one long per scheduled scrape.
 *
 * <p>Thread-safe: the producer thread records the schedule's answers, the search thread the runs and the replay.
 */
final class FedSamples {

    /** Points taken from a feed in a row and the M their writer amplified them with. */
    record Run(boolean scheduled, long points, int timeMultiplier) {}

    /** Takes the points of {@link #replay}: each point with its writer's M. */
    @FunctionalInterface
    interface Sink {
        void accept(SourcePoint point, int timeMultiplier);
    }

    private final SourceFeed feed;
    private final long firstRound;
    private final List<Run> runs = new ArrayList<>();
    private long[] instances = new long[64];
    private int asked;

    /**
     * @param feed       the search's input
     * @param firstRound the first round of the scheduled cycle (past the probe's passes)
     */
    FedSamples(SourceFeed feed, long firstRound) {
        this.feed = feed;
        this.firstRound = firstRound;
    }

    /** {@code points} more were taken: from the scheduled cycle when {@code scheduled}, else the steady one; M {@code m}. */
    synchronized void fed(boolean scheduled, long points, int m) {
        if (points > 0) {
            runs.add(new Run(scheduled, points, m));
        }
    }

    /** Whether some points came from a series schedule ({@code --series-mode} other than steady). */
    synchronized boolean scheduled() {
        return runs.stream().anyMatch(Run::scheduled);
    }

    /** {@code schedule} recording each scrape's answer for {@link #replay}. */
    LongUnaryOperator recording(LongUnaryOperator schedule) {
        return n -> {
            long v = schedule.applyAsLong(n);
            record(n, v);
            return v;
        };
    }

    private synchronized void record(long scrape, long answer) {
        if (scrape >= Integer.MAX_VALUE - 8) {
            return; // never reached: 2^31 scrapes
        }
        int i = (int) scrape;
        if (i >= instances.length) {
            instances = Arrays.copyOf(instances, Math.max(i + 1, instances.length * 2));
        }
        instances[i] = answer;
        asked = Math.max(asked, i + 1);
    }

    private synchronized long answered(long scrape) {
        return scrape < asked ? instances[(int) scrape] : 1;
    }

    /** The runs so far, in order. */
    synchronized List<Run> runs() {
        return List.copyOf(runs);
    }

    /** The points fed so far. */
    synchronized long points() {
        return runs.stream().mapToLong(Run::points).sum();
    }

    /** The M every run was amplified with; 0 when nothing was fed, -1 when the runs' M differ. */
    synchronized int timeMultiplier() {
        int m = 0;
        for (Run r : runs) {
            if (m != 0 && m != r.timeMultiplier()) {
                return -1;
            }
            m = r.timeMultiplier();
        }
        return m;
    }

    /** Hands every point fed so far to {@code sink} again, in the order fed. */
    void replay(Sink sink) {
        Iterator<SourcePoint> steady = null;
        Iterator<SourcePoint> scheduled = null;
        for (Run r : runs()) {
            Iterator<SourcePoint> it;
            if (r.scheduled()) {
                it = scheduled = scheduled != null ? scheduled : feed.cycle(firstRound, this::answered);
            } else {
                it = steady = steady != null ? steady : feed.cycle();
            }
            for (long i = 0; i < r.points(); i++) {
                sink.accept(it.next(), r.timeMultiplier());
            }
        }
    }
}
