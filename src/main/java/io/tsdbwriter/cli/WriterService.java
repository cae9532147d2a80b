package io.tsdbwriter.cli;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.encode.ImportSampleEncoder;
import io.tsdbwriter.encode.Output;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.kafka.DeadLetterQueue;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.kafka.GroupMember;
import io.tsdbwriter.kafka.PartitionWorkers;
import io.tsdbwriter.kafka.ThreadDeaths;
import io.tsdbwriter.metrics.EfficiencyReport;
import io.tsdbwriter.metrics.MetricsServer;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.sink.victoriametrics.BatchWriter;
import io.tsdbwriter.sink.victoriametrics.ImportLineEncoder;
import io.tsdbwriter.sink.victoriametrics.InsertCapacityProbe;
import io.tsdbwriter.sink.victoriametrics.RetryPolicy;
import io.tsdbwriter.sink.victoriametrics.VmEndpoint;
import io.tsdbwriter.sink.victoriametrics.VmImportClient;
import io.tsdbwriter.sink.victoriametrics.WritePermits;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires one {@code run}: meters, the VictoriaMetrics write path, the consumer-group member and its segment
 * consumers, the report. {@link #run()} blocks until the work ends ({@code --stop-at-end}) or {@link #shutdown()}
 * is called (SIGTERM). Shutdown order: stop intake (readers) → drain in-flight writes (up to the drain timeout) →
 * commit the watermark → close the writer and HTTP client → final report → close metrics.
 */
final class WriterService {

    private static final Logger log = LoggerFactory.getLogger(WriterService.class);
    /** Write permits per target whose {@code vm_concurrent_insert_capacity} cannot be read. */
    static final int FALLBACK_PERMITS = 8;
    /** How often each target's insert capacity is read again. */
    static final java.time.Duration CAPACITY_REFRESH = java.time.Duration.ofMinutes(1);

    private final RunConfig cfg;
    private final PrintStream out;
    private final AtomicBoolean shutdownCalled = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile GroupMember member;
    private volatile boolean ready;
    /** Every thread's uncaught Throwable ends the run (issue 18). */
    private final ThreadDeaths deaths = new ThreadDeaths();
    private volatile DeadLetterQueue deadLetterQueue;

    WriterService(RunConfig cfg, PrintStream out) {
        this.cfg = cfg;
        this.out = out;
    }

    /** @return the exit code: 0 when everything consumed was written (or counted) and committed, 1 otherwise */
    int run() throws IOException, InterruptedException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        WriterMeters meters = new WriterMeters(registry);
        MetricsServer metricsServer = null;
        installThreadDeaths();
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("report").unstarted(r));
        List<VmEndpoint> endpoints = cfg.output() == Output.REMOTE_WRITE
                ? cfg.remoteWriteUrls().stream().map(VmEndpoint::remoteWrite).toList()
                : cfg.vmUrls().stream().map(VmEndpoint::new).toList();
        VmImportClient client = new VmImportClient(cfg.callTimeout(), Math.max(8, cfg.maxConcurrentWrites()), cfg.gzip(), cfg.output(),
                io.tsdbwriter.sink.http.HttpClientSecurity.of(cfg.vmHttp(), cfg.writeUrls()));
        BatchWriter writer = null;
        DeadLetterQueue deadLetters = null;
        try {
            if (cfg.metricsPort() >= 0) {
                metricsServer = new MetricsServer(cfg.metricsAddress(), cfg.metricsPort(), registry, this::ready);
                log.info("metrics on http://{}:{}/metrics", cfg.metricsAddress(), metricsServer.port());
            }
            WritePermits permits = new WritePermits(FALLBACK_PERMITS, (int) cfg.maxInflightBytes());
            int capacity = applyCapacities(client, endpoints, permits, true);
            for (VmEndpoint e : endpoints) {
                Tags tags = Tags.of("endpoint", e.baseUrl());
                meters.gauge("write.permits.capacity", "Write permits: concurrent import requests allowed to the endpoint", tags, permits, p -> p.capacity(e));
                meters.gauge("write.permits.in.use", "Write permits held by requests in flight to the endpoint", tags, permits, p -> p.inUse(e));
            }
            meters.permitLimitReached(permits, WritePermits::limitReached);
            if (cfg.maxConcurrentWrites() == 0) {
                reporter.scheduleWithFixedDelay(() -> applyCapacities(client, endpoints, permits, false),
                        CAPACITY_REFRESH.toMillis(), CAPACITY_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
            }
            writer = new BatchWriter(endpoints, client, permits, new RetryPolicy(cfg.maxRetries(), RetryPolicy.DEFAULT_INITIAL_BACKOFF, cfg.maxBackoff(), Thread::sleep), cfg.onWriteFailure(), meters, cfg.syncWrites());
            AmplificationPlan plan = AmplificationPlan.of(cfg.timeMultiplier(), cfg.instanceMultiplier(), cfg.sourceInterval())
                    .withInstanceLabel(cfg.input().instanceLabel());
            Map<String, Object> kafka = cfg.kafkaClient().clientProperties();
            kafka.putAll(cfg.consumerProperties());
            kafka.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
            kafka.put(ConsumerConfig.GROUP_ID_CONFIG, cfg.groupId());
            BatchWriter w = writer;
            if (cfg.deadLetterTopic() != null && !cfg.deadLetterTopic().isBlank()) {
                deadLetters = new DeadLetterQueue(cfg.kafkaClient().clientProperties(), cfg.deadLetterTopic(), cfg.maxRecordBytes(),
                        new RetryPolicy(cfg.maxRetries(), RetryPolicy.DEFAULT_INITIAL_BACKOFF, cfg.maxBackoff(), Thread::sleep),
                        meters, this::deadLetterStuck);
                deadLetterQueue = deadLetters;
            }
            PartitionWorkers.Settings ws = new PartitionWorkers.Settings(kafka, cfg.parallelism(), cfg.segmentSize(), cfg.batchSamples(),
                    cfg.maxRecordBytes(), new SeriesCache(cfg.seriesCacheSize()), encoders(plan), writer, meters, new DecodeErrorLog(meters), deadLetters, cfg.input());
            member = new GroupMember(new GroupMember.Settings(kafka, cfg.topics(), cfg.commitInterval(), cfg.drainTimeout(), cfg.stopAtEnd(),
                    cfg.membership()), ws);
            EfficiencyReport report = new EfficiencyReport(meters, plan.samplesPerPoint(), member::logEndTotal, w::inFlight);
            log.info("tsdb-writer run: output={} topics={} targets={} M={} N={} P={} segment-size={} permits={} batch-samples={}", cfg.output(), cfg.topics(), endpoints,
                    cfg.timeMultiplier(), cfg.instanceMultiplier(), cfg.parallelism(), cfg.segmentSize(), capacity, cfg.batchSamples());
            long period = cfg.reportInterval().toMillis();
            io.tsdbwriter.capacity.LiveAttribution limits = new io.tsdbwriter.capacity.LiveAttribution(
                    new io.tsdbwriter.capacity.MetricsScraper(client.http(), java.time.Duration.ofSeconds(2)),
                    endpoints.stream().map(VmEndpoint::metricsUrl).distinct().toList(), permits::inUse, permits::capacity,
                    () -> registry.find(WriterMeters.PREFIX + "consumer.lag.records").gauges().stream().mapToDouble(g -> g.value()).sum(),
                    meters.recordsConsumed::count, EfficiencyReport::processCpuSeconds, () -> {
                        var g = registry.find("system.cpu.usage").gauge();
                        return g == null ? Double.NaN : g.value();
                    });
            meters.limitedBy(limits::current);
            reporter.scheduleWithFixedDelay(limits::sample, 0, io.tsdbwriter.capacity.LiveAttribution.SAMPLE_INTERVAL_SECONDS, TimeUnit.SECONDS);
            reporter.scheduleAtFixedRate(() -> {
                String line = report.tick();
                try {
                    line = io.tsdbwriter.capacity.LiveAttribution.annotate(line, limits.evaluate(report.efficiency()));
                } catch (RuntimeException e) {
                    log.warn("bottleneck attribution failed: {}", e.toString());
                }
                out.println(line);
            }, period, period, TimeUnit.MILLISECONDS);
            Thread memberThread = Thread.ofPlatform().name("group-member").start(member);
            if (shutdownCalled.get()) {
                member.stop(); // SIGTERM arrived while starting
            }
            ready = true;
            memberThread.join();
            ready = false;
            reporter.shutdownNow();
            if (member.startFailed()) {
                return 1; // missing topic or Kafka unreachable: the one line was logged; no report of nothing
            }
            boolean clean = member.cleanStop() && !deaths.anyDied() && (deadLetters == null || deadLetters.stuckRecords() == 0);
            if (deaths.anyDied()) {
                log.error("exit 1: a thread died ({}); committed only the watermark", deaths.firstDeath());
            } else if (deadLetters != null && deadLetters.stuckRecords() > 0) {
                log.error("exit 1: {} record(s) could not be dead-lettered to {}; nothing past them is committed",
                        deadLetters.stuckRecords(), deadLetters.topic());
            }
            writer.close();
            report.printFinal(out);
            if (cfg.summaryJson() != null) {
                report.writeSummary(cfg.summaryJson());
            }
            return clean ? 0 : 1;
        } finally {
            reporter.shutdownNow();
            if (writer != null) {
                writer.close();
            }
            client.close();
            if (deadLetters != null) {
                deadLetters.close();
            }
            if (metricsServer != null) {
                metricsServer.close();
            }
            gc.close();
            registry.close();
            finished.countDown();
        }
    }

    /** Ready: consuming, Kafka reachable, no thread died and no record stuck on its way to the dead-letter topic. */
    private boolean ready() {
        DeadLetterQueue d = deadLetterQueue;
        GroupMember m = member;
        return ready && m != null && m.kafkaReachable() // not ready while Kafka is unreachable
                && !deaths.anyDied() && (d == null || d.stuckRecords() == 0);
    }

    /**
     * A record cannot be dead-lettered: its partition is held below it (not ready). With {@code --stop-at-end} the job
     * cannot finish, so the writer stops: drain (up to {@code --drain-timeout}), commit the watermark, exit 1.
     */
    private void deadLetterStuck(String reason, String line) {
        if (cfg.stopAtEnd()) {
            GroupMember m = member;
            log.error("--stop-at-end cannot finish ({}): stopping; exit 1 after draining (up to {})", reason, cfg.drainTimeout());
            if (m != null) {
                m.stop();
            } else {
                shutdownCalled.set(true); // still starting: run() stops the member as soon as it exists
            }
        }
    }

    /**
     * Any thread's uncaught Throwable stops the run: the member stops intake, drains and commits the watermark, and
     * {@link #run()} returns 1. Should that not end within the drain timeout plus a minute, the process halts (exit 1):
     * never a process that looks alive and does no work.
     */
    private void installThreadDeaths() {
        Thread.setDefaultUncaughtExceptionHandler(deaths);
        deaths.onFirstDeath(() -> {
            GroupMember m = member;
            if (m != null) {
                m.stop();
            } else {
                shutdownCalled.set(true);
            }
            Thread.ofPlatform().daemon().name("death-watch").start(() -> {
                try {
                    if (!finished.await(cfg.drainTimeout().toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
                        log.error("the writer did not stop within the drain timeout after a thread died: halting (exit 1)");
                        Runtime.getRuntime().halt(1);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        });
    }

    /** Per-thread encoders for the run's output (the seam of DESIGN §6). */
    private SampleEncoder.Factory encoders(AmplificationPlan plan) {
        if (cfg.output() == Output.REMOTE_WRITE) {
            return RemoteWriteEncoder.factory(plan);
        }
        ImportLineEncoder lines = new ImportLineEncoder(plan);
        return () -> new ImportSampleEncoder(lines);
    }

    /**
     * Sets each endpoint's write permits: {@code --max-concurrent-writes} split evenly, or the endpoint's
     * {@code vm_concurrent_insert_capacity} ({@value #FALLBACK_PERMITS} where it cannot be read). At start it logs
     * every endpoint's figure and where it came from; later (every minute) only changes.
     *
     * @return the total
     */
    private int applyCapacities(VmImportClient client, List<VmEndpoint> endpoints, WritePermits permits, boolean atStart) {
        int total = 0;
        List<String> parts = new ArrayList<>();
        for (VmEndpoint e : endpoints) {
            int cap;
            String source;
            if (cfg.maxConcurrentWrites() > 0) {
                cap = Math.max(1, (cfg.maxConcurrentWrites() + endpoints.size() - 1) / endpoints.size());
                source = "--max-concurrent-writes";
            } else {
                OptionalInt read = InsertCapacityProbe.read(client.http(), e);
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

    /**
     * Stops consuming, drains, commits and returns once {@link #run()} has finished (at most the drain timeout plus
     * a margin). Idempotent; called from the SIGTERM hook.
     */
    void shutdown() {
        if (!shutdownCalled.compareAndSet(false, true)) {
            return;
        }
        GroupMember m = member;
        if (m != null) {
            log.info("shutting down: stop intake, drain in-flight writes (up to {}), commit", cfg.drainTimeout());
            m.stop();
        }
        try {
            finished.await(cfg.drainTimeout().toMillis() + 20_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
