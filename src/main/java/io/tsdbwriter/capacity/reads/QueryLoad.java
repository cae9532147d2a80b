package io.tsdbwriter.capacity.reads;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * The read load of one capacity step ({@code capacity --query-rate}): range queries started open-loop at a set rate
 * (each on schedule, whether or not earlier ones finished: a slow target gets more queries in flight, as dashboards and
 * alert rules do to it), round-robin over the query set, each on a virtual thread of its own. {@link #start()} opens
 * the measured window, {@link #stop()} closes it: no query starts after it, the ones in flight are waited for (they
 * end by the query timeout) and counted, so every query started is done, an error or a timeout. Between steps the load
 * is idle. Latency of answered queries is kept in an HdrHistogram (µs, 3 significant digits). The clock is a
 * {@link Pacer}, so tests do not sleep.
 *
 * <p>Bounded (an unbounded load of 5,000 queries/s against a single node ran past its step for minutes): a query is
 * <em>shed</em> — counted as
 * started and as a timeout, never sent — when {@link #DEFAULT_MAX_IN_FLIGHT} (or the limit given) are in flight
 * already, or when the schedule reaches it later than the query timeout after its time (the machine cannot start
 * queries on time). So at most that many queries are in flight, each ending by its timeout, and {@link #stop()}
 * returns within the query timeout + 5 s.
 *
 * <p>Thread-safe for one controlling thread ({@code start}/{@code stop}) and any number of query threads.
 */
public final class QueryLoad implements AutoCloseable {

    /** Queries in flight at most, unless a limit is given: a start beyond it is shed. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 512;

    /** The clock of the schedule and of the latencies. */
    public interface Pacer {
        /** Now, ns on a monotonic clock. */
        long nanoTime();

        /** Returns at {@code nanos} ({@link #nanoTime()}'s clock) or later. @throws InterruptedException when interrupted */
        void sleepUntil(long nanos) throws InterruptedException;

        /** {@link System#nanoTime()} and a real sleep. */
        static Pacer system() {
            return new Pacer() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public void sleepUntil(long nanos) throws InterruptedException {
                    long wait = nanos - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                }
            };
        }
    }

    /** How a query ended. */
    public enum Outcome {
        /** HTTP 200 with {@code "status":"success"}. */
        OK,
        /** Any other answer: a non-200 status, a {@code "status":"error"} body, a refused connection. */
        ERROR,
        /** No answer within the query timeout. */
        TIMEOUT
    }

    /** Sends one range query ending at {@code endMs} (epoch ms) and says how it ended; must return within the query timeout. */
    @FunctionalInterface
    public interface QueryCall {
        Outcome call(RangeQuery query, long endMs);
    }

    /**
     * One window's figures.
     *
     * @param offeredPerSecond queries started ÷ window seconds
     * @param donePerSecond    queries answered OK ÷ window seconds
     * @param p50Seconds       latency of the answered queries, median, seconds (NaN: none answered)
     * @param p90Seconds       90th percentile, seconds
     * @param p99Seconds       99th percentile, seconds
     * @param started          queries started in the window
     * @param errors           queries that ended in an error
     * @param timeouts         queries that timed out, the shed ones included
     * @param shed             queries not sent: the in-flight limit reached, or their start later than the query timeout
     */
    public record Figures(
            double offeredPerSecond,
            double donePerSecond,
            double p50Seconds,
            double p90Seconds,
            double p99Seconds,
            long started,
            long errors,
            long timeouts,
            long shed) {

        /** (errors + timeouts) ÷ started; 0 when none started. */
        public double failureRatio() {
            return started == 0 ? 0 : (double) (errors + timeouts) / started;
        }
    }

    private final List<RangeQuery> queries;
    private final long periodNanos;
    private final QueryCall call;
    private final Pacer pacer;
    private final LongSupplier rangeEndMs;
    private final long waitNanos;
    private final Executor executor;
    private final ExecutorService ownExecutor;
    private final Histogram latencyMicros = new SynchronizedHistogram(3_600_000_000L, 3);
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong ended = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong shed = new AtomicLong();
    private final int maxInFlight;
    private final long lateNanos;
    private final Object endedLock = new Object();
    private long next;
    private Thread scheduler;
    private long windowStart;

    /**
     * @param queries           the set, sent round-robin (not empty)
     * @param queriesPerSecond  the rate, > 0
     * @param call              sends a query
     * @param pacer             the clock
     * @param rangeEndMs        the end of each query's range now (epoch ms): the newest sample time fed
     * @param queryTimeoutNanos how long {@link #stop()} waits at most for the queries in flight (plus 5 s)
     * @throws IllegalArgumentException when the set is empty or the rate not > 0
     */
    public QueryLoad(
            List<RangeQuery> queries,
            double queriesPerSecond,
            QueryCall call,
            Pacer pacer,
            LongSupplier rangeEndMs,
            long queryTimeoutNanos) {
        this(queries, queriesPerSecond, call, pacer, rangeEndMs, queryTimeoutNanos, null, DEFAULT_MAX_IN_FLIGHT);
    }

    /** As above, each query run by {@code executor} (tests: the schedule's own thread); null = a virtual thread each. */
    QueryLoad(
            List<RangeQuery> queries,
            double queriesPerSecond,
            QueryCall call,
            Pacer pacer,
            LongSupplier rangeEndMs,
            long queryTimeoutNanos,
            Executor executor) {
        this(queries, queriesPerSecond, call, pacer, rangeEndMs, queryTimeoutNanos, executor, DEFAULT_MAX_IN_FLIGHT);
    }

    /** As above, with at most {@code maxInFlight} (> 0) queries in flight. */
    QueryLoad(
            List<RangeQuery> queries,
            double queriesPerSecond,
            QueryCall call,
            Pacer pacer,
            LongSupplier rangeEndMs,
            long queryTimeoutNanos,
            Executor executor,
            int maxInFlight) {
        if (queries.isEmpty() || !(queriesPerSecond > 0) || Double.isInfinite(queriesPerSecond)) {
            throw new IllegalArgumentException("a read load needs queries and a rate > 0");
        }
        this.queries = List.copyOf(queries);
        this.periodNanos = Math.max(1, Math.round(1e9 / queriesPerSecond));
        this.call = call;
        this.pacer = pacer;
        this.rangeEndMs = rangeEndMs;
        this.waitNanos = queryTimeoutNanos + TimeUnit.SECONDS.toNanos(5);
        this.lateNanos = queryTimeoutNanos;
        this.maxInFlight = Math.max(1, maxInFlight);
        this.ownExecutor = executor == null
                ? Executors.newThreadPerTaskExecutor(
                        Thread.ofVirtual().name("capacity-query-", 0).factory())
                : null;
        this.executor = executor == null ? ownExecutor : executor;
    }

    /** Opens a window: the counters restart and queries start on schedule, the first now. */
    public synchronized void start() {
        if (scheduler != null) {
            throw new IllegalStateException("the read load runs already");
        }
        latencyMicros.reset();
        started.set(0);
        ok.set(0);
        errors.set(0);
        timeouts.set(0);
        ended.set(0);
        shed.set(0);
        windowStart = pacer.nanoTime();
        scheduler = Thread.ofPlatform().daemon().name("capacity-query-schedule").start(this::schedule);
    }

    private void schedule() {
        long at = windowStart;
        try {
            while (!Thread.currentThread().isInterrupted()) {
                pacer.sleepUntil(at);
                RangeQuery q = queries.get((int) (next++ % queries.size()));
                started.incrementAndGet();
                if (inFlight.get() >= maxInFlight || pacer.nanoTime() - at > lateNanos) {
                    shed.incrementAndGet(); // cannot start on time: a timeout, never sent
                    timeouts.incrementAndGet();
                    ended.incrementAndGet();
                } else {
                    inFlight.incrementAndGet();
                    executor.execute(() -> run(q));
                }
                at += periodNanos;
            }
        } catch (InterruptedException e) {
            // stop(): no further query
        }
    }

    private void run(RangeQuery q) {
        long t0 = pacer.nanoTime();
        try {
            Outcome o = call.call(q, rangeEndMs.getAsLong());
            switch (o) {
                case OK -> {
                    ok.incrementAndGet();
                    latencyMicros.recordValue(Math.min(
                            latencyMicros.getHighestTrackableValue(), Math.max(0, (pacer.nanoTime() - t0) / 1000)));
                }
                case TIMEOUT -> timeouts.incrementAndGet();
                case ERROR -> errors.incrementAndGet();
            }
        } catch (RuntimeException e) {
            errors.incrementAndGet();
        } finally {
            inFlight.decrementAndGet();
            synchronized (endedLock) {
                ended.incrementAndGet();
                endedLock.notifyAll();
            }
        }
    }

    /**
     * Closes the window: no query starts from now; waits for the queries in flight (at most the query timeout + 5 s)
     * and returns the window's figures.
     *
     * @throws IllegalStateException when not started
     * @throws InterruptedException  when interrupted while waiting
     */
    public synchronized Figures stop() throws InterruptedException {
        if (scheduler == null) {
            throw new IllegalStateException("the read load is not running");
        }
        scheduler.interrupt();
        scheduler.join();
        scheduler = null;
        double seconds = (pacer.nanoTime() - windowStart) / 1e9;
        long deadline = System.nanoTime() + waitNanos;
        synchronized (endedLock) {
            while (ended.get() < started.get() && System.nanoTime() < deadline) {
                TimeUnit.NANOSECONDS.timedWait(endedLock, Math.max(1, deadline - System.nanoTime()));
            }
        }
        long n = started.get();
        long unfinished = n - ended.get(); // past the timeout and the grace: counted as timeouts
        boolean any = latencyMicros.getTotalCount() > 0;
        return new Figures(
                seconds > 0 ? n / seconds : Double.NaN,
                seconds > 0 ? ok.get() / seconds : Double.NaN,
                quantile(any, 50),
                quantile(any, 90),
                quantile(any, 99),
                n,
                errors.get(),
                timeouts.get() + unfinished,
                shed.get());
    }

    private double quantile(boolean any, double percentile) {
        return any ? latencyMicros.getValueAtPercentile(percentile) / 1e6 : Double.NaN;
    }

    /** Whether a window is open. */
    public synchronized boolean running() {
        return scheduler != null;
    }

    /** Stops a running window (its figures dropped) and the query threads. */
    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            if (scheduler != null) {
                stop();
            }
        }
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
    }
}
