package io.tsdbwriter.lab;

import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.produce.SyntheticInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.OptionalLong;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The source points of a benchmark: the backlog it pre-loads (one point per record), the points its ceiling
 * pre-serializes, and the endless stream live mode produces.
 *
 * <ul>
 *   <li><b>real</b>: the node_exporter scrapes, replicated across instances {@code node-0001}, {@code node-0002} …
 *       until {@code records} points: scrape by scrape (time order), and within a scrape instance by instance, so a
 *       prefix of the feed covers many series; their timestamps moved to a week before the present
 *       ({@link #CYCLE_HEADROOM_MS});</li>
 *   <li><b>synthetic</b>: {@link SyntheticInput} with {@code series} series and as many points per series as needed,
 *       one source interval apart, ending at the given time.</li>
 * </ul>
 * {@link #cycle()} repeats the feed endlessly, shifting the timestamps of round {@code r} by {@code r × span} so no
 * sample repeats. Immutable; each iterator is independent and not thread-safe.
 */
public final class SourceFeed implements Iterable<SourcePoint> {

    /**
     * How far before the present the real feed's newest scrape lands: 7 days, so a week of cycled passes (e.g. 504
     * passes of the 20 one-minute scrapes) stays in the past, and the feed stays 3 weeks inside VictoriaMetrics'
     * default retention (1 month).
     */
    public static final long CYCLE_HEADROOM_MS = 7L * 24 * 3_600_000;

    private final long records;
    private final String description;
    private final long spanMs;
    private final Supplier<Iterator<SourcePoint>> points;
    /** The real feed's scrapes (instance {@code node-0001}, moved to the present) and its instances; null, 0 when synthetic. */
    private final List<List<SourcePoint>> scrapes;

    private final long instances;
    /** The newest sample time of one pass, epoch ms. */
    private final long newestMs;

    private SourceFeed(
            long records,
            String description,
            long spanMs,
            long newestMs,
            Supplier<Iterator<SourcePoint>> points,
            List<List<SourcePoint>> scrapes,
            long instances) {
        this.records = records;
        this.newestMs = newestMs;
        this.description = description;
        this.spanMs = spanMs;
        this.points = points;
        this.scrapes = scrapes;
        this.instances = instances;
    }

    /**
     * The {@code *.prom} node_exporter scrapes of {@code dir}, sorted by name (the input of {@link #real}).
     *
     * @throws IllegalArgumentException when {@code dir} is not a directory or holds no {@code *.prom} file
     * @throws IOException when it cannot be listed
     */
    public static List<Path> promFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--data-dir " + dir + " is not a directory");
        }
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".prom"))
                    .sorted()
                    .toList();
            if (files.isEmpty()) {
                throw new IllegalArgumentException("no *.prom files in " + dir);
            }
            return files;
        }
    }

    /**
     * Real scrapes replicated across instances up to {@code records} points, their timestamps relative to the present:
     * every scrape moved by the same whole minutes ({@link RealInput#presentShiftMs}) so the newest lands within the
     * minute before {@code nowMs} − {@link #CYCLE_HEADROOM_MS}, order and spacing kept. The files' own dates would fall
     * out of the TSDB's retention; the headroom lets {@link #cycle()}'s passes move forward for a week before they
     * reach the present (and a day more before the writer's {@code --max-timestamp-ahead}).
     *
     * @param nowMs the present, epoch ms
     * @throws IOException when a file cannot be read or parsed
     */
    public static SourceFeed real(List<Path> files, long records, String productKey, long nowMs) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no exposition files for --source real");
        }
        if (records < 1) {
            throw new IllegalArgumentException("--records must be >= 1");
        }
        // one list of points per scrape, in scrape-time order, with the scrape's instanceNo as a placeholder
        List<List<SourcePoint>> scrapes = new ArrayList<>();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long perRound = 0;
        List<Path> sorted = new ArrayList<>(files);
        sorted.sort((a, b) -> Long.compare(
                RealInput.timestampFromFileName(a).orElse(0),
                RealInput.timestampFromFileName(b).orElse(0)));
        List<List<SourcePoint>> dated = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        for (Path f : sorted) {
            RealInput.Loaded loaded = RealInput.read(List.of(f), instanceName(0), productKey, OptionalLong.empty());
            dated.add(loaded.points());
            newest = Math.max(newest, loaded.newestMs().orElse(Long.MIN_VALUE));
        }
        // relative to the present: one shift, the newest scrape within the minute before nowMs - CYCLE_HEADROOM_MS
        long shift = newest == Long.MIN_VALUE ? 0 : RealInput.presentShiftMs(newest, nowMs - CYCLE_HEADROOM_MS);
        for (List<SourcePoint> scrape : dated) {
            List<SourcePoint> pts = new ArrayList<>(scrape.size());
            for (SourcePoint p : scrape) {
                pts.add(new SourcePoint(p.metric(), p.labels(), p.productKey(), p.timestampMs() + shift, p.value()));
            }
            if (pts.isEmpty()) {
                continue;
            }
            scrapes.add(pts);
            perRound += pts.size();
            min = Math.min(min, pts.get(0).timestampMs());
            max = Math.max(max, pts.get(0).timestampMs());
        }
        if (perRound == 0) {
            throw new IllegalArgumentException("the exposition files hold no usable samples");
        }
        long instances = (records + perRound - 1) / perRound;
        long interval = scrapes.size() > 1 ? (max - min) / (scrapes.size() - 1) : 60_000;
        long span = max - min + interval;
        String desc = String.format(
                Locale.ROOT,
                "real: %d node_exporter scrapes (%d points) replicated across %d instance(s) = %,d points",
                scrapes.size(),
                perRound,
                instances,
                records);
        return new SourceFeed(
                records, desc, span, max, () -> new RealIterator(scrapes, instances, records), scrapes, instances);
    }

    /** Synthetic series: {@code records} points over {@code series} series, the newest at {@code newestMs}. */
    public static SourceFeed synthetic(int series, long records, long newestMs, long intervalMs) {
        if (records < 1 || series < 1) {
            throw new IllegalArgumentException("--records and --series must be >= 1");
        }
        int s = (int) Math.min(series, records);
        long perSeries = (records + s - 1) / s;
        if (perSeries > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many points per series: use more --series");
        }
        SyntheticInput input = new SyntheticInput(s, (int) perSeries, instanceName(0), "node", newestMs, intervalMs);
        String desc =
                String.format(Locale.ROOT, "synthetic: %,d series x %,d points = %,d points", s, perSeries, records);
        return new SourceFeed(
                records, desc, perSeries * intervalMs, newestMs, () -> limit(input.iterator(), records), null, 0);
    }

    /** {@code node-0001} for instance 0. */
    static String instanceName(long k) {
        return String.format(Locale.ROOT, "node-%04d", k + 1);
    }

    /** Points (= records) of one pass. */
    public long records() {
        return records;
    }

    /** How long one pass spans in time; {@link #cycle()} shifts each round by it. */
    public long spanMs() {
        return spanMs;
    }

    /**
     * The newest sample time of one pass, epoch ms: the newest scrape's (real) or the series' newest point (synthetic);
     * the pass spans {@link #spanMs()} up to it.
     */
    public long newestMs() {
        return newestMs;
    }

    /** The real feed's instances ({@code ceil(records ÷ points of one instance)}); 0 for a synthetic feed. */
    public long instances() {
        return instances;
    }

    /** The points of one instance over every scrape (one pass of the scrapes); 0 for a synthetic feed. */
    public long pointsPerInstance() {
        return scrapes == null ? 0 : scrapes.stream().mapToLong(List::size).sum();
    }

    /**
     * The series of one instance: the points of the real feed's largest scrape (a scrape holds one sample of each of
     * the host's series); 0 for a synthetic feed.
     */
    public long seriesPerInstance() {
        return scrapes == null
                ? 0
                : scrapes.stream().mapToLong(List::size).max().orElse(0);
    }

    /** One line describing the feed. */
    public String description() {
        return description;
    }

    /** One pass: exactly {@link #records()} points. */
    @Override
    public Iterator<SourcePoint> iterator() {
        return points.get();
    }

    /** Endless: pass after pass, round r's timestamps shifted by r × {@link #spanMs()}. */
    public Iterator<SourcePoint> cycle() {
        return new Iterator<>() {
            private long round;
            private Iterator<SourcePoint> pass = points.get();

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public SourcePoint next() {
                if (!pass.hasNext()) {
                    round++;
                    pass = points.get();
                }
                SourcePoint p = pass.next();
                return round == 0
                        ? p
                        : new SourcePoint(
                                p.metric(), p.labels(), p.productKey(), p.timestampMs() + round * spanMs, p.value());
            }
        };
    }

    /**
     * Endless, scrape by scrape over the real feed's scrapes: scrape {@code n} (counted from 0 over the whole cycle)
     * carries every point of the scrape for instances {@code node-0001 …} up to {@code instancesOfScrape(n)} (≥ 1),
     * asked once, at the scrape's first point; round r's timestamps are shifted by r × {@link #spanMs()}, from round
     * {@code firstRound} (past the rounds another iterator already produced). Unlike {@link #cycle()}, no pass is cut
     * at {@link #records()}. Not thread-safe; {@code instancesOfScrape} runs on the iterating thread.
     *
     * @throws UnsupportedOperationException for a synthetic feed
     */
    public Iterator<SourcePoint> cycle(long firstRound, LongUnaryOperator instancesOfScrape) {
        if (scrapes == null) {
            throw new UnsupportedOperationException("a series schedule needs the real feed");
        }
        return new ScheduledIterator(scrapes, spanMs, firstRound, instancesOfScrape);
    }

    private static Iterator<SourcePoint> limit(Iterator<SourcePoint> it, long n) {
        return new Iterator<>() {
            private long left = n;

            @Override
            public boolean hasNext() {
                return left > 0 && it.hasNext();
            }

            @Override
            public SourcePoint next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                left--;
                return it.next();
            }
        };
    }

    /** Scrape by scrape, instance by instance, point by point, up to a total. */
    private static final class RealIterator implements Iterator<SourcePoint> {
        private final List<List<SourcePoint>> scrapes;
        private final long instances;
        private long left;
        private int scrape;
        private long instance;
        private int point;
        private String instanceName = instanceName(0);

        RealIterator(List<List<SourcePoint>> scrapes, long instances, long total) {
            this.scrapes = scrapes;
            this.instances = instances;
            this.left = total;
        }

        @Override
        public boolean hasNext() {
            return left > 0;
        }

        @Override
        public SourcePoint next() {
            if (left <= 0) {
                throw new NoSuchElementException();
            }
            List<SourcePoint> pts = scrapes.get(scrape);
            SourcePoint base = pts.get(point);
            SourcePoint p;
            if (instance == 0) {
                p = base;
            } else {
                Map<String, String> labels = new LinkedHashMap<>(base.labels());
                labels.put(SourcePoint.INSTANCE_LABEL, instanceName);
                p = new SourcePoint(base.metric(), labels, base.productKey(), base.timestampMs(), base.value());
            }
            left--;
            if (++point == pts.size()) {
                point = 0;
                if (++instance == instances) {
                    instance = 0;
                    scrape = (scrape + 1) % scrapes.size();
                }
                instanceName = instanceName(instance);
            }
            return p;
        }
    }

    /** Scrape by scrape, each for the instances the schedule gives at its start, round after round. */
    private static final class ScheduledIterator implements Iterator<SourcePoint> {
        private final List<List<SourcePoint>> scrapes;
        private final long spanMs;
        private final LongUnaryOperator instancesOfScrape;
        private long round;
        private long scrapeNumber;
        private int scrape;
        private long instance;
        private long instancesNow;
        private int point;
        private String instanceName = instanceName(0);

        ScheduledIterator(
                List<List<SourcePoint>> scrapes, long spanMs, long firstRound, LongUnaryOperator instancesOfScrape) {
            this.scrapes = scrapes;
            this.spanMs = spanMs;
            this.round = firstRound;
            this.instancesOfScrape = instancesOfScrape;
        }

        @Override
        public boolean hasNext() {
            return true;
        }

        @Override
        public SourcePoint next() {
            if (point == 0 && instance == 0) {
                instancesNow = Math.max(1, instancesOfScrape.applyAsLong(scrapeNumber));
            }
            List<SourcePoint> pts = scrapes.get(scrape);
            SourcePoint base = pts.get(point);
            long t = base.timestampMs() + round * spanMs;
            SourcePoint p;
            if (instance == 0) {
                p = round == 0
                        ? base
                        : new SourcePoint(base.metric(), base.labels(), base.productKey(), t, base.value());
            } else {
                Map<String, String> labels = new LinkedHashMap<>(base.labels());
                labels.put(SourcePoint.INSTANCE_LABEL, instanceName);
                p = new SourcePoint(base.metric(), labels, base.productKey(), t, base.value());
            }
            if (++point == pts.size()) {
                point = 0;
                if (++instance == instancesNow) {
                    instance = 0;
                    scrapeNumber++;
                    if (++scrape == scrapes.size()) {
                        scrape = 0;
                        round++;
                    }
                }
                instanceName = instanceName(instance);
            }
            return p;
        }
    }
}
