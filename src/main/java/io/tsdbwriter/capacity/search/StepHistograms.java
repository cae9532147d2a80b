package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.HistogramShare;
import io.tsdbwriter.lab.KafkaFeeder;
import io.tsdbwriter.produce.LatencyHistograms;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A search's histogram share ({@code capacity --histogram-series N}): N series of OpenTelemetry exponential latency
 * histograms ({@link LatencyHistograms}, as {@code produce --histogram-series} sends them, each record value an OTLP
 * protobuf request of {@link HistogramShare#POINTS_PER_RECORD} data points, fewer when N is smaller), produced beside each step's
 * points to a topic of their own ({@link HistogramShare#topic}) that the step's writer reads with
 * {@code --topic-format TOPIC=otlp} ({@link HistogramShare#writerArgs}).
 *
 * <p>Pace: every series has one data point per {@link #INTERVAL_MS} of the points' sample time, so the histograms
 * follow the points' rate: a round of N data points at time {@code t} is sent once the step's points have reached
 * {@code t} (their newest sample time, {@link StepFeed#newestMs()}), and stays within a round of them, as a TSDB
 * without an out-of-order window needs. The rounds start at the minute of the first step's first point and go on over
 * the search's steps (one cumulative histogram per series for the whole search), at most {@link #ROUNDS} of them (a
 * week of sample time; then no more histograms are sent).
 *
 * <p>Expected samples: each record is decoded as the writer decodes it ({@link HistogramShare.Samples}), its points counted — one
 * per data point where the output carries native histograms (remote write: {@code nativeHistograms}), else the
 * {@code _count}, {@code _sum} and one {@code vmrange} bucket series per non-empty bucket (the import API) — so a step's
 * expected samples are (points + those samples) × M × N, as the writer's {@code samples_written} counts them.
 *
 * <p>Not thread-safe: one step at a time ({@link #start} runs its producer on a thread of its own; the next step's
 * starts after the previous one's {@link Running#awaitProduced()}).
 */
final class StepHistograms {

    /** Sample time between two data points of a series, ms: {@link HistogramShare#INTERVAL_MS}. */
    static final long INTERVAL_MS = HistogramShare.INTERVAL_MS;
    /** Rounds at most: a week of sample time at {@link #INTERVAL_MS}. */
    static final int ROUNDS = 7 * 24 * 60;

    private final int series;
    private final boolean nativeHistograms;
    private final HistogramShare.Samples samples;
    private Iterator<LatencyHistograms.Record> records;
    private LatencyHistograms histograms;
    /** A record taken but not yet due when its step ended: the next step's first. */
    private LatencyHistograms.Record pending;
    /** Data points taken from {@link #records} so far, {@link #pending}'s included. */
    private long taken;
    /** The last step's, or null. */
    private Running last;

    /**
     * @param series           N, ≥ 1
     * @param nativeHistograms whether the writers' output carries native histograms (remote write)
     */
    StepHistograms(int series, boolean nativeHistograms) {
        if (series < 1) {
            throw new IllegalArgumentException("histogram series must be >= 1, got " + series);
        }
        this.series = series;
        this.nativeHistograms = nativeHistograms;
        this.samples = new HistogramShare.Samples(nativeHistograms);
    }

    /** The series per round. */
    int series() {
        return series;
    }

    /** Whether the writers write native histograms (remote write), not {@code vmrange} bucket series. */
    boolean nativeHistograms() {
        return nativeHistograms;
    }

    /**
     * The round of a record: that of its last data point, the data points before it {@code before}, it holding
     * {@code points}, {@code series} a round.
     */
    static long round(long before, int points, int series) {
        return (before + Math.max(1, points) - 1) / series;
    }

    /** The first round's time: {@code newestMs} (the first point's sample time) down to the minute. */
    static long firstRoundMs(long newestMs) {
        return Math.floorDiv(newestMs, INTERVAL_MS) * INTERVAL_MS;
    }

    /** A step's histograms while they are produced. Thread-safe. */
    static final class Running {
        private final AtomicLong points = new AtomicLong();
        private final AtomicLong samples = new AtomicLong();
        private final AtomicReference<Object> produced = new AtomicReference<>();
        private Thread thread;

        /** Histogram data points handed to the producer so far. */
        long points() {
            return points.get();
        }

        /** The samples (before M × N) the writer writes for {@link #points()}. */
        long samples() {
            return samples.get();
        }

        /**
         * Waits for the producer; the samples (before M × N) of what Kafka acknowledged: every record's, since the
         * producer throws when one was not.
         *
         * @throws RuntimeException what the producer threw
         */
        long awaitProduced() throws InterruptedException {
            thread.join();
            if (produced.get() instanceof RuntimeException e) {
                throw e;
            }
            return samples.get();
        }
    }

    /**
     * Starts producing the histograms to {@code topic} (created by the caller) while {@code points} is fed, until
     * {@code deadlineNanos} ({@link System#nanoTime()}) or the histograms' last round; first waits for the last step's
     * producer to end (a step that failed before it awaited it).
     *
     * @throws InterruptedException when interrupted while waiting for the last step's producer
     */
    Running start(KafkaFeeder kafka, String topic, StepFeed points, long deadlineNanos) throws InterruptedException {
        if (last != null) {
            last.thread.join();
        }
        Running run = new Running();
        last = run;
        BooleanSupplier stop = () -> System.nanoTime() > deadlineNanos;
        Iterator<byte[]> values = values(points::taken, points::newestMs, stop, run);
        run.thread = Thread.ofPlatform().name("capacity-histograms").start(() -> {
            try {
                run.produced.set(kafka.produceValues(topic, values, Long.MAX_VALUE, 0, stop));
            } catch (RuntimeException e) {
                run.produced.set(e);
            }
        });
        return run;
    }

    /**
     * The record values of one step: each once the points' newest sample time ({@code newestMs}, read once
     * {@code pointsTaken} is above 0) reaches its round's time; none more once {@code stop} says so.
     */
    Iterator<byte[]> values(LongSupplier pointsTaken, LongSupplier newestMs, BooleanSupplier stop, Running run) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                while (true) {
                    if (pointsTaken.getAsLong() > 0) {
                        LatencyHistograms.Record r = peek(newestMs.getAsLong());
                        if (r == null) {
                            return false;
                        }
                        long round = round(taken - r.points(), r.points(), series);
                        if (newestMs.getAsLong() >= histograms.timestampMs((int) round)) {
                            return true;
                        }
                    }
                    if (stop.getAsBoolean()) {
                        return false;
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }

            @Override
            public byte[] next() {
                LatencyHistograms.Record r = pending;
                pending = null;
                run.points.addAndGet(r.points());
                run.samples.addAndGet(samples(r.value()));
                return r.value();
            }
        };
    }

    /** The next record (null after the last round), the histograms starting at the round of {@code newestMs} at first. */
    private LatencyHistograms.Record peek(long newestMs) {
        if (records == null) {
            long first = firstRoundMs(newestMs);
            histograms = new LatencyHistograms(
                    series, ROUNDS, null, first + (ROUNDS - 1L) * INTERVAL_MS, INTERVAL_MS, HistogramShare.SEED);
            records = histograms.records(Math.min(HistogramShare.POINTS_PER_RECORD, series));
        }
        if (pending == null && records.hasNext()) {
            pending = records.next();
            taken += pending.points();
        }
        return pending;
    }

    /** The samples the writer writes for one record value (before M × N): the points it decodes to. */
    long samples(byte[] value) {
        return samples.of(value);
    }
}
