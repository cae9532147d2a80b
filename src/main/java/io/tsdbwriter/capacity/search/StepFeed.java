package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.KafkaFeeder;
import io.tsdbwriter.produce.SourcePoint;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A capacity step's input, produced on a thread of its own at a set rate until a deadline: the points taken so far
 * (the expected samples' counter) and what the producer ended with. {@link #taken} is read from any thread.
 */
final class StepFeed {

    private final AtomicLong taken = new AtomicLong();
    private volatile long newestMs = System.currentTimeMillis();
    private final AtomicReference<Object> produced = new AtomicReference<>();
    private Thread thread;

    private StepFeed() {}

    /**
     * Starts producing {@code source}'s points to {@code topic}.
     *
     * @param pointsPerSecond the rate
     * @param max             at most this many points
     * @param deadlineNanos   {@link System#nanoTime()} at which producing stops
     */
    static StepFeed start(
            KafkaFeeder kafka,
            String topic,
            Iterator<SourcePoint> source,
            double pointsPerSecond,
            long max,
            long deadlineNanos) {
        StepFeed feed = new StepFeed();
        Iterator<SourcePoint> counted = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return source.hasNext();
            }

            @Override
            public SourcePoint next() {
                SourcePoint p = source.next();
                feed.newestMs = p.timestampMs();
                feed.taken.incrementAndGet(); // after: a reader that sees a point taken sees its time
                return p;
            }
        };
        feed.thread = Thread.ofPlatform().name("capacity-producer").start(() -> {
            try {
                feed.produced.set(
                        kafka.produce(topic, counted, max, pointsPerSecond, () -> System.nanoTime() > deadlineNanos));
            } catch (RuntimeException e) {
                feed.produced.set(e);
            }
        });
        return feed;
    }

    /** Points handed to the producer so far; once above 0, {@link #newestMs()} is a point's time. */
    long taken() {
        return taken.get();
    }

    /**
     * The sample time of the last point handed to the producer (epoch ms; the clock's until the first): where the
     * read load's ranges end.
     */
    long newestMs() {
        return newestMs;
    }

    /** Waits for the producer; the points Kafka acknowledged. @throws RuntimeException what the producer threw */
    long awaitProduced() throws InterruptedException {
        thread.join();
        if (produced.get() instanceof RuntimeException e) {
            throw e;
        }
        return ((KafkaFeeder.Sent) produced.get()).ackedRecords();
    }
}
