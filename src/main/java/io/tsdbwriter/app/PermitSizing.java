package io.tsdbwriter.app;

import io.micrometer.core.instrument.Tags;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.capacity.InsertCapacityProbe;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many writes each target takes at once (DESIGN §6; VictoriaMetrics {@code lib/writeconcurrencylimiter}): with
 * {@code --max-concurrent-writes} N, N split evenly over the targets; with {@code auto} (0), each target's
 * {@code vm_concurrent_insert_capacity} ({@link InsertCapacityProbe}), read at start and every
 * {@link #CAPACITY_REFRESH}, {@value #FALLBACK_PERMITS} where it cannot be read (Prometheus, Mimir, …).
 *
 * <p>{@link #start} runs on the starting thread; the refresh on the given scheduler's thread. Not otherwise shared.
 */
final class PermitSizing {

    private static final Logger log = LoggerFactory.getLogger(WriterService.class);
    /** Write permits per target whose {@code vm_concurrent_insert_capacity} cannot be read. */
    static final int FALLBACK_PERMITS = 8;
    /** How often each target's insert capacity is read again. */
    static final Duration CAPACITY_REFRESH = Duration.ofMinutes(1);

    private final WriteClient client;
    private final List<WriteTarget> endpoints;
    private final WritePermits permits;
    private final int maxConcurrentWrites;

    /** @param maxConcurrentWrites {@code --max-concurrent-writes}; 0 = automatic */
    PermitSizing(WriteClient client, List<WriteTarget> endpoints, WritePermits permits, int maxConcurrentWrites) {
        this.client = client;
        this.endpoints = endpoints;
        this.permits = permits;
        this.maxConcurrentWrites = maxConcurrentWrites;
    }

    /**
     * Sizes the write permits of every target (its insert capacity, or {@code --max-concurrent-writes}), their gauges,
     * and with automatic sizing a refresh every {@link #CAPACITY_REFRESH}.
     *
     * @return the permits of all targets at start
     */
    int start(WriterMeters meters, ScheduledExecutorService scheduler) {
        int capacity = apply(true);
        for (WriteTarget e : endpoints) {
            Tags tags = Tags.of("endpoint", e.baseUrl());
            meters.gauge("write.permits.capacity", "Write permits: concurrent import requests allowed to the endpoint", tags, permits, p -> p.capacity(e));
            meters.gauge("write.permits.in.use", "Write permits held by requests in flight to the endpoint", tags, permits, p -> p.inUse(e));
        }
        meters.permitLimitReached(permits, WritePermits::limitReached);
        if (maxConcurrentWrites == 0) {
            scheduler.scheduleWithFixedDelay(() -> apply(false),
                    CAPACITY_REFRESH.toMillis(), CAPACITY_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        }
        return capacity;
    }

    /**
     * Sets each endpoint's write permits: {@code --max-concurrent-writes} split evenly, or the endpoint's
     * {@code vm_concurrent_insert_capacity} ({@value #FALLBACK_PERMITS} where it cannot be read). At start it logs
     * every endpoint's figure and where it came from; later (every minute) only changes.
     *
     * @return the total
     */
    private int apply(boolean atStart) {
        int total = 0;
        List<String> parts = new ArrayList<>();
        for (WriteTarget e : endpoints) {
            int cap;
            String source;
            if (maxConcurrentWrites > 0) {
                cap = Math.max(1, (maxConcurrentWrites + endpoints.size() - 1) / endpoints.size());
                source = "--max-concurrent-writes";
            } else {
                OptionalInt read = InsertCapacityProbe.read(client.http(), e.metricsUrl());
                if (read.isEmpty() && !atStart) {
                    continue; // keep the last known capacity while the endpoint cannot be read
                }
                cap = read.orElse(FALLBACK_PERMITS);
                source = read.isPresent() ? InsertCapacityProbe.METRIC + " from " + e.metricsUrl()
                        : e.metricsUrl() + " unreadable, fallback";
            }
            if (atStart || permits.capacity(e) != cap) {
                parts.add(e.baseUrl() + "=" + cap + " (" + source + ")");
            }
            permits.capacity(e, cap);
            total += cap;
        }
        if (!parts.isEmpty()) {
            log.info("write permits{}: {}", atStart ? "" : " changed", String.join("; ", parts));
        }
        return total;
    }
}
