package io.tsdbwriter.app;

import io.micrometer.core.instrument.Tags;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.WorkShare;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tsdbmetrics.InsertCapacityProbe;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many writes each target takes at once from this process (DESIGN §6; VictoriaMetrics
 * {@code lib/writeconcurrencylimiter}).
 *
 * <p>With {@code --max-concurrent-writes} N: N split evenly over the targets, for this process alone. With {@code auto}
 * (0): each target's insert capacity — its {@code vm_concurrent_insert_capacity} ({@link InsertCapacityProbe}), or with
 * {@code --target-metrics-url} the sum of those pages' capacities (several vminserts behind one URL) split evenly over
 * the targets; {@value #FALLBACK_PERMITS} where nothing can be read (Prometheus, Mimir, …) — read at start and every
 * {@link #CAPACITY_REFRESH}, of which this process takes its {@link WorkShare}: {@code floor(capacity × mine ÷ total)},
 * at least 1, recomputed whenever the share changes (every rebalance of a consumer group, a share group's member count
 * read every few seconds; a replay takes the whole). The processes of one group so hold at most the target's capacity
 * together, and requests wait in the writers, not inside vminsert. A lowered share waits (up to the settle timeout)
 * until the requests in flight above it have finished, so a revoked partition reaches its next owner only then.
 * One log line at start and at every change of the share or of a target's permits.
 *
 * <p>Thread-safe: {@link #start} on the starting thread, the refresh on the scheduler's thread, the share from the
 * intake's threads; all state under this object's lock.
 */
final class PermitSizing {

    private static final Logger log = LoggerFactory.getLogger(PermitSizing.class);
    /** Write permits per target whose {@code vm_concurrent_insert_capacity} cannot be read. */
    static final int FALLBACK_PERMITS = 8;
    /** How often each target's insert capacity is read again. */
    static final Duration CAPACITY_REFRESH = Duration.ofMinutes(1);

    private final WriteClient client;
    private final List<WriteTarget> endpoints;
    private final WritePermits permits;
    private final int maxConcurrentWrites;
    private final List<String> targetMetricsUrls;
    private final Duration settleTimeout;
    private final boolean readsMetrics;
    /** Each target's whole insert capacity and where it came from (auto only). */
    private final Map<WriteTarget, Integer> capacity = new IdentityHashMap<>();

    private final Map<WriteTarget, String> source = new IdentityHashMap<>();
    private WorkShare share = WorkShare.WHOLE;
    private boolean started;

    /**
     * @param maxConcurrentWrites {@code --max-concurrent-writes}; 0 = automatic
     * @param targetMetricsUrls   {@code --target-metrics-url}: the {@code /metrics} pages whose capacities add up to the
     *                            targets' (empty = each target's own host's)
     * @param settleTimeout       how long a lowered share waits for the requests in flight above it
     */
    PermitSizing(
            WriteClient client,
            List<WriteTarget> endpoints,
            WritePermits permits,
            int maxConcurrentWrites,
            List<String> targetMetricsUrls,
            Duration settleTimeout) {
        this(client, endpoints, permits, maxConcurrentWrites, targetMetricsUrls, settleTimeout, true);
    }

    /**
     * As the constructor above.
     *
     * @param readsMetrics false with {@code --tsdb-metrics-url none}: no page is read, every target gets
     *                     {@value #FALLBACK_PERMITS}
     */
    PermitSizing(
            WriteClient client,
            List<WriteTarget> endpoints,
            WritePermits permits,
            int maxConcurrentWrites,
            List<String> targetMetricsUrls,
            Duration settleTimeout,
            boolean readsMetrics) {
        this.readsMetrics = readsMetrics;
        this.client = client;
        this.endpoints = endpoints;
        this.permits = permits;
        this.maxConcurrentWrites = maxConcurrentWrites;
        this.targetMetricsUrls = List.copyOf(targetMetricsUrls);
        this.settleTimeout = settleTimeout;
    }

    /**
     * Sizes the write permits of every target, registers their gauges and, with automatic sizing, follows
     * {@code intake}'s work share and re-reads the capacities every {@link #CAPACITY_REFRESH}. Logs the permits once.
     *
     * @return the permits of all targets at start
     */
    int start(WriterMeters meters, ScheduledExecutorService scheduler, Intake intake) {
        if (maxConcurrentWrites == 0) {
            readCapacities(true);
            intake.onWorkShare(this::share);
        }
        int total;
        synchronized (this) {
            started = true;
            total = apply("write permits", true);
        }
        for (WriteTarget e : endpoints) {
            Tags tags = Tags.of("endpoint", e.baseUrl());
            meters.gauge(
                    "write.permits.capacity",
                    "Write permits: concurrent write requests allowed to the endpoint",
                    tags,
                    permits,
                    p -> p.capacity(e));
            meters.gauge(
                    "write.permits.in.use",
                    "Write permits held by requests in flight to the endpoint",
                    tags,
                    permits,
                    p -> p.inUse(e));
        }
        meters.permitLimitReached(permits, WritePermits::limitReached);
        if (maxConcurrentWrites == 0) {
            scheduler.scheduleWithFixedDelay(
                    this::refresh, CAPACITY_REFRESH.toMillis(), CAPACITY_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        }
        return total;
    }

    /**
     * The write permits the targets allow in all, before any share of them: {@code --max-concurrent-writes}, or the sum
     * of the targets' insert capacities as last read (each {@value #FALLBACK_PERMITS} when unreadable). The ordered lanes
     * are sized from it (a process's share at start is 1 until its first assignment).
     */
    synchronized int wholeCapacity() {
        int total = 0;
        for (WriteTarget e : endpoints) {
            total += maxConcurrentWrites > 0 ? explicitPerEndpoint() : capacity.getOrDefault(e, FALLBACK_PERMITS);
        }
        return total;
    }

    /** {@code --max-concurrent-writes} spread over the endpoints, rounded up, at least 1 each. */
    private int explicitPerEndpoint() {
        return Math.max(1, (maxConcurrentWrites + endpoints.size() - 1) / endpoints.size());
    }

    /** The intake's share changed: resize, and when it went down wait until the requests above it finished. */
    void share(WorkShare now) {
        int before;
        int after;
        synchronized (this) {
            boolean changed = !now.equals(share);
            share = now;
            if (!started || !changed) {
                return;
            }
            before = permits.capacity();
            after = apply("write permits changed", true);
        }
        if (after < before) {
            try {
                if (!permits.awaitWithinCapacity(settleTimeout)) {
                    log.warn(
                            "write permits lowered to {} ({}), but more requests than that were still in flight after {}s",
                            after,
                            now,
                            settleTimeout.toSeconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void refresh() {
        if (readCapacities(false)) {
            synchronized (this) {
                apply("write permits changed", false);
            }
        }
    }

    /**
     * Reads every target's whole insert capacity. At start an unreadable one gets {@value #FALLBACK_PERMITS}; later it
     * keeps its last known capacity. With {@code --target-metrics-url} the capacity is the sum over the pages that
     * export the gauge (a vmstorage page, or one that does not answer, adds nothing), kept while none does.
     *
     * @return true when a capacity changed
     */
    private boolean readCapacities(boolean atStart) {
        Map<WriteTarget, Integer> read = new IdentityHashMap<>();
        Map<WriteTarget, String> from = new IdentityHashMap<>();
        if (!readsMetrics) {
            if (!atStart) {
                return false;
            }
            for (WriteTarget e : endpoints) {
                read.put(e, FALLBACK_PERMITS);
                from.put(e, "--tsdb-metrics-url none, fallback " + FALLBACK_PERMITS);
            }
        } else if (!targetMetricsUrls.isEmpty()) {
            int sum = 0;
            int readable = 0;
            for (String url : targetMetricsUrls) {
                OptionalInt c = InsertCapacityProbe.read(client.http(), url);
                if (c.isPresent()) {
                    sum += c.getAsInt();
                    readable++;
                }
            }
            if (readable == 0 && !atStart) {
                return false; // keep the last known sum while no page can be read; fewer readable pages: a smaller sum
            }
            String what = readable == 0
                    ? "no --target-metrics-url readable, fallback"
                    : InsertCapacityProbe.METRIC + " " + sum + " summed over " + readable + " of "
                            + targetMetricsUrls.size() + " --target-metrics-url"
                            + (endpoints.size() > 1 ? ", split over " + endpoints.size() + " targets" : "");
            for (WriteTarget e : endpoints) {
                read.put(e, readable == 0 ? FALLBACK_PERMITS : Math.max(1, sum / endpoints.size()));
                from.put(e, what);
            }
        } else {
            for (WriteTarget e : endpoints) {
                OptionalInt c = InsertCapacityProbe.read(client.http(), e.metricsUrl());
                if (c.isEmpty() && !atStart) {
                    continue; // keep the last known capacity while the endpoint cannot be read
                }
                read.put(e, c.orElse(FALLBACK_PERMITS));
                from.put(
                        e,
                        c.isPresent()
                                ? InsertCapacityProbe.METRIC + " " + c.getAsInt() + " from " + e.metricsUrl()
                                : e.metricsUrl() + " unreadable, fallback " + FALLBACK_PERMITS);
            }
        }
        synchronized (this) {
            boolean changed = false;
            for (Map.Entry<WriteTarget, Integer> r : read.entrySet()) {
                changed |= !r.getValue().equals(capacity.put(r.getKey(), r.getValue()));
                source.put(r.getKey(), from.get(r.getKey()));
            }
            return changed;
        }
    }

    /**
     * What {@link #start} would size, without sizing anything: the capacities read as at start, then each target's
     * permits before any work share, {@code <base URL>=<permits> (<where from>)}, one element per target.
     */
    List<String> preview() {
        if (maxConcurrentWrites == 0) {
            readCapacities(true);
        }
        synchronized (this) {
            List<String> parts = new ArrayList<>();
            for (WriteTarget e : endpoints) {
                parts.add(
                        maxConcurrentWrites > 0
                                ? e.baseUrl() + "=" + permitsOf(e) + " (" + why(e) + ")"
                                : e.baseUrl() + "=" + capacity.getOrDefault(e, FALLBACK_PERMITS) + " ("
                                        + source.getOrDefault(e, "fallback")
                                        + "; the processes of one group share it by the partitions each holds)");
            }
            return parts;
        }
    }

    /** The permits of {@code e} at the current share. Caller holds the lock. */
    private int permitsOf(WriteTarget e) {
        return maxConcurrentWrites > 0 ? explicitPerEndpoint() : share.of(capacity.getOrDefault(e, FALLBACK_PERMITS));
    }

    /** Where the permits of {@code e} come from, for the log line. Caller holds the lock. */
    private String why(WriteTarget e) {
        return maxConcurrentWrites > 0
                ? "--max-concurrent-writes, this process alone"
                : source.getOrDefault(e, "fallback") + "; this process's share: " + share;
    }

    /**
     * Sets each target's permits; one line (prefixed {@code what}) when {@code always} (at start, a new share) or a
     * target's permits changed. Caller holds the lock.
     *
     * @return the permits of all targets
     */
    private int apply(String what, boolean always) {
        int total = 0;
        boolean changed = false;
        List<String> parts = new ArrayList<>();
        for (WriteTarget e : endpoints) {
            int cap = permitsOf(e);
            changed |= permits.capacity(e) != cap;
            parts.add(e.baseUrl() + "=" + cap + " (" + why(e) + ")");
            permits.capacity(e, cap);
            total += cap;
        }
        if (changed || always) {
            log.info("{}: {}", changed ? what : "write permits", String.join("; ", parts));
        }
        return total;
    }
}
