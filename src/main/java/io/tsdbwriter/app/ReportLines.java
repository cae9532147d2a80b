package io.tsdbwriter.app;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.metrics.EfficiencyReport;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.LiveAttribution;
import io.tsdbwriter.tsdbmetrics.MetricsScraper;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report line of a {@code run} every {@code --report-interval}, annotated with what limits the run now
 * ({@code limited_by}): a {@link LiveAttribution} of the targets' {@code /metrics}, the write permits, the consumer lag
 * and the CPU, sampled every {@value LiveAttribution#SAMPLE_INTERVAL_SECONDS} s; while a write endpoint is in a
 * configuration fault the line says that instead. The line ends with the interval's ingest delay, p50 and p99 per stage
 * ({@link EfficiencyReport#delays()}).
 *
 * <p>Stateless: the sampling and the lines run on the service's {@code report} thread (the scheduler handed in), the
 * one thread that ticks the report and samples the attribution; the {@code limited_by} gauge is read by whoever reads
 * {@code /metrics}.
 */
final class ReportLines {

    private static final Logger log = LoggerFactory.getLogger(ReportLines.class);

    private ReportLines() {}

    /**
     * What limits the run now ({@code limited_by}), from the targets' {@code /metrics}, the permits, lag and CPU; in share
     * mode ({@code share}) the acquisition, the permits or the TSDB, without a lag (a share group has none per member).
     */
    static LiveAttribution liveAttribution(
            PrometheusMeterRegistry registry,
            WriterMeters meters,
            WriteClient client,
            List<WriteTarget> endpoints,
            WritePermits permits,
            boolean share) {
        return new LiveAttribution(
                new MetricsScraper(client.http(), Duration.ofSeconds(2)),
                endpoints.stream().map(WriteTarget::metricsUrl).distinct().toList(),
                permits::inUse,
                permits::capacity,
                () -> registry.find(WriterMeters.PREFIX + "consumer.lag.records").gauges().stream()
                        .mapToDouble(g -> g.value())
                        .sum(),
                meters.recordsConsumed::count,
                EfficiencyReport::processCpuSeconds,
                () -> {
                    var g = registry.find("system.cpu.usage").gauge();
                    return g == null ? Double.NaN : g.value();
                },
                share);
    }

    /**
     * Schedules the attribution's sampling and, every {@code interval}, the report line to {@code out}, with what limits
     * the run (a write fault says so instead); sets the {@code limited_by} gauge's source.
     */
    static void schedule(
            ScheduledExecutorService reporter,
            Duration interval,
            PrintStream out,
            EfficiencyReport report,
            LiveAttribution limits,
            BatchWriter writer,
            WriterMeters meters) {
        meters.limitedBy(() -> writer.faults().any() ? Bottleneck.Resource.WRITE_FAULT : limits.current());
        reporter.scheduleWithFixedDelay(limits::sample, 0, LiveAttribution.SAMPLE_INTERVAL_SECONDS, TimeUnit.SECONDS);
        long period = interval.toMillis();
        reporter.scheduleAtFixedRate(
                () -> {
                    String line = report.tick();
                    try {
                        Bottleneck.Verdict v = limits.evaluate(report.efficiency());
                        if (writer.faults()
                                .any()) { // nothing is written until the endpoint's flag is right: say that, not the
                            // figures
                            v = new Bottleneck.Verdict(
                                    Bottleneck.Resource.WRITE_FAULT,
                                    "configuration fault of the write endpoint, the data is held",
                                    "fix the flag",
                                    List.of(),
                                    writer.faults().describe());
                        }
                        line = LiveAttribution.annotate(line, v);
                    } catch (RuntimeException e) {
                        log.warn("bottleneck attribution failed: {}", e.toString());
                    }
                    out.println(line + report.delays()); // the ingest delay's p50/p99 ends the line
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }
}
