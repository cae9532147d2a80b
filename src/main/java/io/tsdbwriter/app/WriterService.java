package io.tsdbwriter.app;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.config.ConsumerMode;
import io.tsdbwriter.config.InputConfig;
import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.durability.DurabilityNeed;
import io.tsdbwriter.durability.TsdbWatch;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.group.GroupMember;
import io.tsdbwriter.kafka.replay.ReplayMember;
import io.tsdbwriter.kafka.share.ShareMember;
import io.tsdbwriter.metrics.EfficiencyReport;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.SampleRate;
import io.tsdbwriter.tsdbmetrics.LiveAttribution;
import io.tsdbwriter.tsdbmetrics.RetentionProbe;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OrderedLanes;
import io.tsdbwriter.write.Ordering;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.RetryPolicy;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires one {@code run}: meters ({@link RunMetrics}), the VictoriaMetrics write path, the consumer-group member and its
 * segment consumers, the report ({@link ReportLines}). {@link #run()} blocks until the work ends ({@code --stop-at-end})
 * or {@link #shutdown()} is called (SIGTERM). Shutdown order: stop intake (readers) → drain in-flight writes (up to the
 * drain timeout) → commit the watermark → close the writer and HTTP client → final report → close metrics.
 */
public final class WriterService {

    private static final Logger log = LoggerFactory.getLogger(WriterService.class);
    /** Write permits per target whose {@code vm_concurrent_insert_capacity} cannot be read. */
    public static final int FALLBACK_PERMITS = PermitSizing.FALLBACK_PERMITS;

    private final RunConfig cfg;
    private final PrintStream out;
    private final AtomicBoolean shutdownCalled = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Intake member;
    private volatile boolean ready;
    /** Every thread's uncaught Throwable ends the run: a dead reader must not leave its partitions silently unread. */
    private final ThreadDeaths deaths = new ThreadDeaths();

    private volatile DeadLetterQueue deadLetterQueue;
    private volatile BatchWriter batchWriter;
    private volatile boolean faultGaveUp;

    /** @param out where the report lines and the final report go */
    public WriterService(RunConfig cfg, PrintStream out) {
        this.cfg = cfg;
        this.out = out;
    }

    /** @return the exit code ({@link RunExit}; {@link ExitCodes#FAULT} when the start failed) */
    public int run() throws IOException, InterruptedException {
        RunMetrics metrics = new RunMetrics();
        WriterMeters meters = metrics.meters();
        installThreadDeaths();
        List<WriteTarget> endpoints = endpoints(cfg);
        HttpClientSecurity security = HttpClientSecurity.of(cfg.vmHttp(), cfg.writeUrls());
        // closed in reverse: the reporter, the lanes, the writer, the TSDB watch, the HTTP client, the dead-letter
        // producer, the metrics; then run() counts as finished
        Resources parts = new Resources();
        parts.onClose(finished::countDown);
        parts.add(metrics);
        try {
            if (cfg.metricsPort() >= 0) {
                metrics.startServer(cfg.metricsAddress(), cfg.metricsPort(), this::ready);
            }
            DeadLetterQueue deadLetters = null;
            if (cfg.deadLetterTopic() != null && !cfg.deadLetterTopic().isBlank()) {
                deadLetters = parts.add(new DeadLetterQueue(
                        cfg.kafkaClient().clientProperties(),
                        cfg.deadLetterTopic(),
                        cfg.maxRecordBytes(),
                        retryPolicy(),
                        meters,
                        this::deadLetterStuck));
                deadLetterQueue = deadLetters;
            }
            WriteClient client = parts.add(writeClient(cfg, security));
            Duration retention = retention(client, endpoints);
            DurabilityClock durability = durability(client, endpoints, meters);
            if (durability instanceof TsdbWatch watch) {
                parts.add(watch);
            }
            WritePermits permits = new WritePermits(FALLBACK_PERMITS, (int) cfg.maxInflightBytes());
            PermitSizing sizing = permitSizing(cfg, client, endpoints, permits);
            BatchWriter writer = parts.add(new BatchWriter(
                    endpoints,
                    client,
                    permits,
                    retryPolicy(),
                    cfg.onWriteFailure(),
                    meters,
                    cfg.syncWrites(),
                    cfg.onConfigurationFault()));
            batchWriter = writer;
            OrderedLanes lanes = cfg.ordering() == Ordering.SERIES ? parts.add(new OrderedLanes(writer)) : null;
            AmplificationPlan plan = AmplificationPlan.of(
                            cfg.timeMultiplier(), cfg.instanceMultiplier(), cfg.sourceInterval())
                    .withInstanceLabel(cfg.input().instanceLabel());
            Map<String, Object> kafka = consumerProperties();
            ReplayConfig replay = cfg.replay();
            InputConfig input = retention == null
                    ? cfg.input()
                    : cfg.input()
                            .withTimestampWindow(
                                    cfg.input()
                                            .timestampWindow()
                                            .atLeast(
                                                    System.currentTimeMillis() - retention.toMillis(),
                                                    "older than the target's retention (-retentionPeriod, "
                                                            + retention.toDays()
                                                            + " days): VictoriaMetrics would answer 2xx and drop it; replay with --rebase-time now"));
            SampleRate rate = replay.rateLimited() ? new SampleRate(replay.ratePerSecond()) : null;
            meters.rateSet.set(Math.round(replay.ratePerSecond()));
            IntakeSettings ws = IntakeSettings.builder()
                    .consumerProps(kafka)
                    .parallelism(cfg.parallelism())
                    .segmentSize(cfg.segmentSize())
                    .batchSamples(cfg.batchSamples())
                    .batchSendDeadline(cfg.batchSendDeadline())
                    .maxRecordBytes(cfg.maxRecordBytes())
                    .seriesCache(new SeriesCache(cfg.seriesCacheSize()))
                    .encoders(encoders(plan))
                    .writer(writer)
                    .meters(meters)
                    .decodeErrors(new DecodeErrorLog(meters))
                    .deadLetters(deadLetters)
                    .input(input)
                    .rate(rate)
                    .churnInterval(replay.churnInterval())
                    .durability(durability)
                    .lanes(lanes)
                    .relabel(cfg.relabel())
                    .tenants(cfg.tenants())
                    .seriesLimits(seriesLimits(meters))
                    .build();
            if (replay.replay()) {
                meters.ingestDelay.measureFromReadTime(); // the records' Kafka timestamps are the window's past
                member = new ReplayMember(
                        new ReplayMember.Settings(
                                kafka,
                                cfg.topics(),
                                cfg.topicPattern(),
                                replay,
                                cfg.sourceInterval().toMillis(),
                                cfg.drainTimeout(),
                                cfg.membership().kafkaTimeout(),
                                retention),
                        ws);
            } else if (cfg.consumerMode() == ConsumerMode.SHARE) {
                member = new ShareMember(
                        new ShareMember.Settings(
                                kafka,
                                cfg.topics(),
                                cfg.parallelism(),
                                cfg.drainTimeout(),
                                cfg.membership().kafkaTimeout()),
                        ws);
            } else {
                member = new GroupMember(
                        new GroupMember.Settings(
                                kafka,
                                cfg.topics(),
                                cfg.commitInterval(),
                                cfg.drainTimeout(),
                                cfg.stopAtEnd(),
                                cfg.membership(),
                                cfg.topicPattern()),
                        ws);
            }
            ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(
                    r -> Thread.ofPlatform().daemon().name("report").unstarted(r));
            parts.onClose(reporter::shutdownNow);
            int capacity = sizing.start(
                    meters, reporter, member); // before the member runs: its share from the first assignment
            orderLanes(lanes, sizing.wholeCapacity());
            EfficiencyReport report = new EfficiencyReport(
                    meters, plan.samplesPerPoint(), member::logEndTotal, writer::inFlight, replay.ratePerSecond());
            log.info(
                    "tsdb-writer run: output={} topics={} targets={} M={} N={} P={} segment-size={} permits={} batch-samples={} ordering={}{}{}",
                    cfg.output(),
                    cfg.topicsText(),
                    endpoints,
                    cfg.timeMultiplier(),
                    cfg.instanceMultiplier(),
                    cfg.parallelism(),
                    cfg.segmentSize(),
                    capacity,
                    cfg.batchSamples(),
                    lanes != null
                            ? "series (" + lanes.size() + " lanes)"
                            : cfg.ordering().flag(),
                    replay.describe(),
                    TenantLog.describe(cfg));
            LiveAttribution limits = ReportLines.liveAttribution(
                    metrics.registry(),
                    meters,
                    client,
                    cfg.readsTsdbMetrics() ? endpoints : List.of(),
                    permits,
                    member instanceof ShareMember);
            ReportLines.schedule(reporter, cfg.reportInterval(), out, report, limits, writer, meters);
            return runMember(reporter, writer, deadLetters, meters, report, limits);
        } catch (StartFailed e) {
            return e.exitCode;
        } finally {
            parts.close();
        }
    }

    /**
     * {@code --max-hourly-series}, {@code --max-daily-series}: the process's limiter, its gauges registered as vmagent
     * names them and its limits said once; null without a limit.
     */
    private SeriesLimiter seriesLimits(WriterMeters meters) {
        if (!cfg.limitsSeries()) {
            return null;
        }
        SeriesLimiter limiter = new SeriesLimiter(cfg.maxHourlySeries(), cfg.maxDailySeries());
        if (limiter.hourlyLimit() > 0) {
            meters.seriesLimit("hourly", limiter.hourlyLimit(), limiter::hourlySeries);
        }
        if (limiter.dailyLimit() > 0) {
            meters.seriesLimit("daily", limiter.dailyLimit(), limiter::dailySeries);
        }
        log.info(
                "series limits: at most {} new series per UTC hour and {} per UTC day (0 = no limit); the samples of "
                        + "series past a limit are dropped and counted (series_limit_dropped), their records committed",
                limiter.hourlyLimit(),
                limiter.dailyLimit());
        return limiter;
    }

    /**
     * Per-series order (DESIGN §6 "Per-series order"): with {@code --ordering series} the writer gets one lane per write
     * permit the targets allow in all at start (a series keeps its lane for the run, so the number is fixed then; the
     * whole capacity, not this process's share, which is 1 until the first assignment). Remote write without order is
     * said once, naming what it risks.
     */
    private void orderLanes(OrderedLanes lanes, int permits) {
        if (lanes != null) {
            lanes.open(Math.max(1, permits));
        } else if (cfg.output() == Output.REMOTE_WRITE) {
            log.warn(
                    "{}: a series' samples may reach the receiver out of timestamp order at --parallelism > 1; receivers without an "
                            + "out-of-order window (Prometheus, Mimir, Thanos receive by default) refuse them",
                    cfg.consumerMode() == ConsumerMode.SHARE
                            ? "--consumer-mode share cannot keep per-series order (any member reads "
                                    + "any record of a partition)"
                            : "--ordering none");
        }
    }

    /**
     * The retention of the write targets, read from their {@code /metrics} ({@code -retentionPeriod}): the shortest
     * when several; null when none exports it (vminsert, Prometheus, Mimir).
     */
    private Duration retention(WriteClient client, List<WriteTarget> endpoints) {
        if (!cfg.readsTsdbMetrics()) {
            return null;
        }
        Duration shortest = null;
        for (WriteTarget t : endpoints) {
            Duration d = RetentionProbe.read(client.http(), t.metricsUrl()).orElse(null);
            if (d != null && (shortest == null || d.compareTo(shortest) < 0)) {
                shortest = d;
            }
        }
        if (shortest != null) {
            log.info(
                    "target retention: {} days (-retentionPeriod): older samples are refused before they are sent",
                    shortest.toDays());
        }
        return shortest;
    }

    /**
     * When an acknowledged write counts as stored (DESIGN §4): {@code --durability-window 0} commits on the 2xx;
     * otherwise the write targets' and {@code --tsdb-metrics-url}s' processes are watched for restarts, the window read
     * from them unless given.
     */
    private DurabilityClock durability(WriteClient client, List<WriteTarget> endpoints, WriterMeters meters) {
        if (cfg.durabilityWindow() != null && cfg.durabilityWindow().isZero()) {
            log.warn(
                    "--durability-window 0: offsets are committed on the TSDB's 2xx and no TSDB restart is watched; a TSDB "
                            + "crash can lose the samples it acknowledged in its last seconds, and nothing would say so");
            return DurabilityClock.atOnce();
        }
        if (!cfg.readsTsdbMetrics()) {
            DurabilityClock fixed = DurabilityClock.fixed(
                    cfg.durabilityWindow() != null ? cfg.durabilityWindow() : DurabilityNeed.UNKNOWN);
            log.warn(
                    "--tsdb-metrics-url none: no TSDB /metrics is read, so no TSDB restart is watched: an offset is committed {}s after "
                            + "its writes were acknowledged{}, and a TSDB that restarts within that time can lose them unseen; write permits "
                            + "without --max-concurrent-writes: {} per target",
                    fixed.window().toSeconds(),
                    cfg.durabilityWindow() != null
                            ? " (--durability-window)"
                            : " (the window of a receiver that says nothing)",
                    PermitSizing.FALLBACK_PERMITS);
            return fixed;
        }
        TsdbWatch watch = tsdbWatch(cfg, client, endpoints, meters);
        log.info(
                "durability window {}s{}: an offset is committed once its writes were acknowledged that long ago with no TSDB "
                        + "restart since; watching {}",
                watch.window().toSeconds(),
                cfg.durabilityWindow() == null ? "" : " (--durability-window)",
                watch.describe());
        watch.start();
        return watch;
    }

    private RetryPolicy retryPolicy() {
        return new RetryPolicy(cfg.maxRetries(), RetryPolicy.DEFAULT_INITIAL_BACKOFF, cfg.maxBackoff(), Thread::sleep);
    }

    /**
     * The write targets of {@code cfg}: its remote write URLs, or its VictoriaMetrics base URLs (tenant-routed when
     * {@code --tenant-from} routes).
     *
     * @throws IllegalArgumentException naming the flag of a URL that is not one
     */
    static List<WriteTarget> endpoints(RunConfig cfg) {
        return cfg.output() == Output.REMOTE_WRITE
                ? cfg.remoteWriteUrls().stream().map(WriteTarget::remoteWrite).toList()
                : cfg.vmUrls().stream()
                        .map(cfg.tenants().routes() ? WriteTarget::tenantRouted : WriteTarget::new)
                        .toList();
    }

    /** The write client of a run of {@code cfg}, its authentication and TLS {@code security}; the caller closes it. */
    static WriteClient writeClient(RunConfig cfg, HttpClientSecurity security) {
        return new WriteClient(
                cfg.callTimeout(),
                Math.max(8, cfg.maxConcurrentWrites()),
                cfg.gzip(),
                cfg.output(),
                security,
                cfg.remoteWriteVersion(),
                RemoteWrite2Request::fromV1,
                cfg.tenants().header());
    }

    /** The write permits' sizing of a run of {@code cfg} (not started). */
    static PermitSizing permitSizing(
            RunConfig cfg, WriteClient client, List<WriteTarget> endpoints, WritePermits permits) {
        return new PermitSizing(
                client,
                endpoints,
                permits,
                cfg.maxConcurrentWrites(),
                cfg.targetMetricsUrls(),
                cfg.drainTimeout(),
                cfg.readsTsdbMetrics());
    }

    /**
     * The watch of the TSDB processes a run of {@code cfg} reads for restarts and its durability window: the write
     * targets' {@code /metrics} and each {@code --tsdb-metrics-url}, every page read once (not started; the caller
     * closes it). Only when {@link RunConfig#readsTsdbMetrics()} and the window is not 0.
     */
    static TsdbWatch tsdbWatch(RunConfig cfg, WriteClient client, List<WriteTarget> endpoints, WriterMeters meters) {
        List<String> urls = new ArrayList<>();
        endpoints.forEach(t -> urls.add(t.metricsUrl()));
        cfg.tsdbMetricsUrls().forEach(u -> urls.add(SafeUrl.parse(u).url()));
        List<String> distinct = urls.stream().distinct().toList();
        return new TsdbWatch(
                client.http(),
                distinct,
                distinct.stream().map(SafeUrl::redact).toList(),
                cfg.durabilityWindow(),
                meters);
    }

    /** The consumers' properties: the Kafka client's, {@code --consumer-property}, bootstrap servers and group. */
    private Map<String, Object> consumerProperties() {
        Map<String, Object> kafka = cfg.kafkaClient().clientProperties();
        kafka.putAll(cfg.consumerProperties());
        kafka.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.bootstrapServers());
        kafka.put(ConsumerConfig.GROUP_ID_CONFIG, cfg.groupId());
        return kafka;
    }

    /** Runs the group member until the work ends or {@link #shutdown()}; then the exit code and the final report. */
    private int runMember(
            ScheduledExecutorService reporter,
            BatchWriter writer,
            DeadLetterQueue deadLetters,
            WriterMeters meters,
            EfficiencyReport report,
            LiveAttribution limits)
            throws IOException, InterruptedException {
        Thread memberThread = Thread.ofPlatform()
                .name(
                        cfg.replay().replay()
                                ? "replay"
                                : cfg.consumerMode() == ConsumerMode.SHARE ? "share-member" : "group-member")
                .start(member);
        if (shutdownCalled.get()) {
            writer.stopping();
            member.stop(); // SIGTERM arrived while starting
        }
        if (member.hasEnd()) {
            reporter.scheduleWithFixedDelay(() -> giveUpOnLastingFault(writer), 1, 1, TimeUnit.SECONDS);
        }
        ready = true;
        memberThread.join();
        ready = false;
        reporter.shutdownNow();
        if (member.startFailed()) {
            return ExitCodes.FAULT; // missing topic or Kafka unreachable: the one line was logged; no report of nothing
        }
        RunExit exit = RunExit.of(
                cfg,
                deaths,
                faultGaveUp,
                deadLetters,
                member,
                shutdownCalled.get(),
                meters,
                new RunExit.Held(writer.batchesHeld(), writer.samplesHeld()));
        if (exit.code() == ExitCodes.FAULT || exit.code() == ExitCodes.STOPPED) {
            log.error("exit {}: {}", exit.code(), exit.reason()); // troubleshooting: exit …: …
        } else if (exit.code() == ExitCodes.REFUSED) {
            log.warn("exit {}: {}", exit.code(), exit.reason()); // troubleshooting: exit …: …
        }
        writer.close();
        Map<String, Object> intake = new LinkedHashMap<>(member.summary());
        intake.put("limited_by", limits.mostOften().label()); // the resource of the most report windows
        report.outcome(exit.code(), exit.reason(), RunExit.shortfall(member), intake);
        report.printFinal(out);
        if (cfg.summaryJson() != null) {
            report.writeSummary(cfg.summaryJson());
        }
        return exit.code();
    }

    /**
     * Ready: consuming, Kafka reachable, no write endpoint in a configuration fault, no thread died and no record stuck
     * on its way to the dead-letter topic.
     */
    private boolean ready() {
        DeadLetterQueue d = deadLetterQueue;
        Intake m = member;
        BatchWriter w = batchWriter;
        return ready
                && m != null
                && m.kafkaReachable() // not ready while Kafka is unreachable
                && (w == null || !w.faults().any())
                && !deaths.anyDied()
                && (d == null || d.stuckRecords() == 0);
    }

    /**
     * Under {@code --stop-at-end}, every second: a configuration fault that has lasted {@code --write-fault-timeout}
     * ends the job (exit 1): the held batches are given up (never acked, so never committed past), the member stops.
     */
    private void giveUpOnLastingFault(BatchWriter w) {
        if (faultGaveUp || !w.faults().any() || w.faults().longest().compareTo(cfg.writeFaultTimeout()) < 0) {
            return;
        }
        faultGaveUp = true;
        log.error(
                "--stop-at-end cannot finish: {} for {}s (--write-fault-timeout); stopping without committing past unwritten data",
                w.faults().describe(),
                cfg.writeFaultTimeout().toSeconds());
        w.abortFaulted();
        Intake m = member;
        if (m != null) {
            m.stop();
        }
    }

    /**
     * A record cannot be dead-lettered: its partition is held below it (not ready). With {@code --stop-at-end} the job
     * cannot finish, so the writer stops: drain (up to {@code --drain-timeout}), commit the watermark, exit 1.
     */
    private void deadLetterStuck(String reason, String line) {
        if (cfg.stopAtEnd() || cfg.replay().replay()) {
            Intake m = member;
            log.error(
                    "--stop-at-end cannot finish ({}): stopping; exit 1 after draining (up to {})",
                    reason,
                    cfg.drainTimeout());
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
            Intake m = member;
            if (m != null) {
                m.stop();
            } else {
                shutdownCalled.set(true);
            }
            Thread.ofPlatform().daemon().name("death-watch").start(() -> {
                try {
                    if (!finished.await(cfg.drainTimeout().toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
                        log.error(
                                "the writer did not stop within the drain timeout after a thread died: halting (exit 1)");
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
            return RemoteWriteEncoder.factory(
                    plan, cfg.remoteWriteVersion() == RemoteWriteVersion.V2); // start timestamps: 2.0 only
        }
        return () -> new ImportSampleEncoder(
                new ImportLineEncoder(plan)); // one per thread: it keeps the last timestamps' text
    }

    /**
     * Stops consuming, drains, commits and returns once {@link #run()} has finished (at most the drain timeout plus
     * a margin). Writes that fail from now on are held, not retried ({@link BatchWriter#stopping()}): a stop during a
     * write fault ends within seconds with exit 1. Idempotent; called from the SIGTERM hook.
     */
    public void shutdown() {
        if (!shutdownCalled.compareAndSet(false, true)) {
            return;
        }
        BatchWriter w = batchWriter;
        if (w != null) {
            w.stopping(); // a write failing from now on is held, not retried: a TSDB fault does not hold the stop up
        }
        Intake m = member;
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
