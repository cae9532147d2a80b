package io.tsdbwriter.cli;

import io.tsdbwriter.app.WriterService;
import io.tsdbwriter.config.ConsumerMode;
import io.tsdbwriter.config.GroupMembership;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.metrics.AotCacheStatus;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.ConfigurationFaultPolicy;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.Ordering;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.WriteTarget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/**
 * {@code tsdb-writer run}: consume, amplify, write, commit, report. The flags of the input ({@link InputOptions}), of a
 * replay ({@link ReplayOptions}), of the Kafka clients and of the write endpoints' authentication are mixins declared
 * where they sit in {@code --help}; {@link #toConfig()} turns them all into the {@link RunConfig}.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Consume point records from Kafka, amplify them M x N, write them to VictoriaMetrics or any remote write "
                    + "receiver, and commit only what is stored. Every flag can also be set as TSDB_WRITER_ + its name in "
                    + "capitals (TSDB_WRITER_TIME_MULTIPLIER=12; a flag wins). Durations take a unit: 500ms, 60s, 5m, 1h."
        })
final class RunCommand implements Callable<Integer> {

    /** {@code --log-format}: applied by {@link Main} before {@link #call()}. */
    @picocli.CommandLine.Mixin
    LogOptions logs = new LogOptions();

    private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

    @Option(
            names = "--bootstrap-servers",
            defaultValue = "localhost:9092",
            paramLabel = "HOST:PORT[,…]",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE})")
    String bootstrapServers;

    @Option(
            names = "--topic",
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "TOPIC",
            description = "Topic(s) to consume (this or --topic-pattern is required)")
    List<String> topics = new ArrayList<>();

    @Option(
            names = "--topic-pattern",
            paramLabel = "REGEX",
            description = "Consume every topic whose whole name matches REGEX, instead of --topic")
    String topicPattern;

    @Option(
            names = "--group-id",
            defaultValue = "tsdb-writer",
            paramLabel = "GROUP",
            description = "Consumer group; its processes share the partitions (default: ${DEFAULT-VALUE})")
    String groupId;

    @Option(
            names = "--vm-url",
            defaultValue = "http://localhost:8428",
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "URL",
            description = "VictoriaMetrics base URL(s) of --output import (default: ${DEFAULT-VALUE})")
    List<String> vmUrls;

    @picocli.CommandLine.Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @picocli.CommandLine.Mixin
    KafkaClientOptions kafkaClient = new KafkaClientOptions();

    @Option(
            names = "--output",
            defaultValue = "import",
            paramLabel = "import|remote-write",
            description = "import (VictoriaMetrics JSON lines) or remote-write (default: ${DEFAULT-VALUE})")
    String output;

    @Option(
            names = "--remote-write-url",
            paramLabel = "URL",
            split = ",",
            splitSynopsisLabel = ",",
            description = "Whole remote write URL(s) of --output remote-write, endpoints of one receiver")
    List<String> remoteWriteUrls = new ArrayList<>();

    @Option(
            names = "--consumer-mode",
            defaultValue = "segments",
            paramLabel = "segments|share",
            description = "segments (a consumer group) or share (a share group, KIP-932) (default: ${DEFAULT-VALUE})")
    String consumerMode;

    @Option(
            names = "--ordering",
            paramLabel = "series|none",
            description =
                    "series: each series in timestamp order; none: in parallel (default: series with remote-write, else none)")
    String ordering;

    @Option(
            names = "--remote-write-version",
            defaultValue = "1",
            paramLabel = "1|2",
            description = "Remote-Write 1.0 or 2.0 message of --output remote-write (default: ${DEFAULT-VALUE})",
            converter = Converters.RemoteWriteVersionConverter.class)
    RemoteWriteVersion remoteWriteVersion = RemoteWriteVersion.V1;

    @Option(
            names = "--consumer-property",
            paramLabel = "KEY=VALUE",
            description = "Extra Kafka consumer setting (repeatable), e.g. session.timeout.ms=10000")
    Map<String, String> consumerProperties = new LinkedHashMap<>();

    @Option(
            names = "--time-multiplier",
            defaultValue = "1",
            paramLabel = "M",
            description = "M: samples per source point in time, 1..3600 (default: ${DEFAULT-VALUE})")
    int timeMultiplier;

    @Option(
            names = "--instance-multiplier",
            defaultValue = "1",
            paramLabel = "N",
            description = "N: instance variants per series, 1..100000 (default: ${DEFAULT-VALUE})")
    int instanceMultiplier;

    @Option(
            names = "--source-interval",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Interval between source points of a series (default: ${DEFAULT-VALUE})")
    Duration sourceInterval;

    @Option(
            names = "--parallelism",
            defaultValue = "1",
            paramLabel = "P",
            description =
                    "Readers per partition (share mode: consumers per process), 1..64 (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--segment-size",
            defaultValue = "50000",
            paramLabel = "RECORDS",
            description = "Offsets per segment; commits happen at segment ends (default: ${DEFAULT-VALUE})")
    long segmentSize;

    @Option(
            names = "--max-concurrent-writes",
            defaultValue = "auto",
            converter = Converters.PermitsConverter.class,
            paramLabel = "auto|PERMITS",
            description = "Write permits: concurrent write requests; auto: the TSDB's capacity (default: auto)")
    int maxConcurrentWrites;

    @Option(
            names = "--max-retries",
            defaultValue = "5",
            paramLabel = "N",
            description = "Retries of a failing write before --on-write-failure applies (default: ${DEFAULT-VALUE})")
    int maxRetries;

    @Option(
            names = "--max-backoff",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Longest delay between retries (default: ${DEFAULT-VALUE})")
    Duration maxBackoff;

    @Option(
            names = "--on-write-failure",
            defaultValue = "pause",
            paramLabel = "pause|dead-letter",
            converter = Converters.FailurePolicyConverter.class,
            description = "After --max-retries: pause (keep probing) or dead-letter (default: ${DEFAULT-VALUE})")
    OnWriteFailure onWriteFailure;

    @Option(
            names = "--on-configuration-fault",
            defaultValue = "hold",
            paramLabel = "hold|refuse",
            description = "hold (retry) or refuse (the remote write specification's rule) (default: ${DEFAULT-VALUE})")
    String onConfigurationFault;

    @Option(
            names = "--dead-letter-topic",
            paramLabel = "TOPIC",
            description = "Topic for malformed records and those of refused samples (default: none)")
    String deadLetterTopic;

    @Option(
            names = "--batch-samples",
            defaultValue = "10000",
            paramLabel = "SAMPLES",
            description = "Samples per write request (default: ${DEFAULT-VALUE})")
    int batchSamples;

    @Option(
            names = "--batch-send-deadline",
            defaultValue = "0s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "A batch that is not full goes out when it is this old, as Prometheus' batch_send_deadline;"
                    + " 0s = as soon as the partition has no more records (default: ${DEFAULT-VALUE})")
    Duration batchSendDeadline;

    @Option(
            names = "--max-inflight-bytes",
            defaultValue = "256MiB",
            converter = Converters.SizeConverter.class,
            paramLabel = "SIZE",
            description = "Request bytes buffered or in flight at most (default: ${DEFAULT-VALUE})")
    long maxInflightBytes;

    @Option(
            names = "--max-record-bytes",
            defaultValue = "1MiB",
            converter = Converters.SizeConverter.class,
            paramLabel = "SIZE",
            description = "Larger records are malformed (too_large) (default: ${DEFAULT-VALUE})")
    long maxRecordBytes;

    @Option(
            names = "--compression",
            defaultValue = "none",
            paramLabel = "none|gzip",
            description = "Request body compression (default: ${DEFAULT-VALUE})")
    String compression;

    @Option(
            names = "--call-timeout",
            defaultValue = "90s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Whole write request timeout (default: ${DEFAULT-VALUE})")
    Duration callTimeout;

    @Option(
            names = "--commit-interval",
            defaultValue = "5s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "Longest time between commits of the watermark (default: ${DEFAULT-VALUE})")
    Duration commitInterval;

    @Option(
            names = "--durability-window",
            defaultValue = "auto",
            converter = Converters.DurabilityWindowConverter.class,
            paramLabel = "auto|0|DURATION",
            description = "How long after the TSDB's 2xx a write counts as stored (default: ${DEFAULT-VALUE})")
    Duration durabilityWindow;

    @Option(
            names = "--tsdb-metrics-url",
            paramLabel = "URL|none",
            split = ",",
            splitSynopsisLabel = ",",
            description = "vmstorage /metrics watched for restarts (default: the write targets' only)")
    List<String> tsdbMetricsUrls = new ArrayList<>();

    @Option(
            names = "--target-metrics-url",
            paramLabel = "URL",
            split = ",",
            splitSynopsisLabel = ",",
            description = "vminserts' /metrics behind the write URL (default: the write URL's host's)")
    List<String> targetMetricsUrls = new ArrayList<>();

    @Option(
            names = "--drain-timeout",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "At a stop, how long in-flight writes may finish and be stored; give the process a stop grace"
                    + " (terminationGracePeriodSeconds, stop_grace_period) of at least this + the durability window"
                    + " + 60s (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    @Option(
            names = "--stop-at-end",
            description = "Exit once the group committed every partition's end offset recorded at start")
    boolean stopAtEnd;

    @Option(
            names = "--report-interval",
            defaultValue = "60s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "How often a report line is printed (default: ${DEFAULT-VALUE})")
    Duration reportInterval;

    @Option(names = "--summary-json", paramLabel = "FILE", description = "Write the final counters as JSON to FILE")
    Path summaryJson;

    @picocli.CommandLine.Mixin
    ReplayOptions replay = new ReplayOptions();

    @Option(
            names = "--metrics-port",
            defaultValue = "9464",
            paramLabel = "PORT",
            description = "Port of /metrics and /health/*; 0 = any free port, -1 = off (default: ${DEFAULT-VALUE})")
    int metricsPort;

    @Option(
            names = "--metrics-address",
            defaultValue = "0.0.0.0",
            paramLabel = "ADDRESS",
            description = "Address the metrics endpoint binds (default: ${DEFAULT-VALUE})")
    String metricsAddress;

    @Option(
            names = "--series-cache-size",
            defaultValue = "1000000",
            paramLabel = "SERIES",
            description = "Series whose prepared label lines the process keeps (default: ${DEFAULT-VALUE})")
    int seriesCacheSize;

    @Option(
            names = "--write-mode",
            defaultValue = "async",
            paramLabel = "async|sync",
            description = "async (virtual threads) or sync (on the poll thread) (default: ${DEFAULT-VALUE})")
    String writeMode;

    @Option(
            names = "--group-instance-id",
            paramLabel = "ID",
            description = "Static group membership (group.instance.id) (default: none, a dynamic member)")
    String groupInstanceId;

    @Option(
            names = "--group-protocol",
            defaultValue = "classic",
            paramLabel = "classic|consumer",
            description = "Consumer group protocol: classic or consumer (KIP-848) (default: ${DEFAULT-VALUE})")
    String groupProtocol;

    @Option(
            names = "--kafka-timeout",
            defaultValue = "2m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "With --stop-at-end: Kafka unreachable this long exits 1 (default: ${DEFAULT-VALUE})")
    Duration kafkaTimeout;

    @Option(
            names = "--write-fault-timeout",
            defaultValue = "2m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "With --stop-at-end: a configuration fault this long exits 1 (default: ${DEFAULT-VALUE})")
    Duration writeFaultTimeout;

    @picocli.CommandLine.Mixin
    InputOptions input = new InputOptions();

    @picocli.CommandLine.Mixin
    RoutingOptions routing = new RoutingOptions();

    @Option(
            names = "--max-hourly-series",
            defaultValue = "0",
            paramLabel = "SERIES",
            description =
                    "New series per UTC hour (after amplification, per tenant) past which samples are dropped and counted "
                            + "(series_limit_dropped), their records committed; as vmagent's -remoteWrite.maxHourlySeries. 0 = no limit (default: ${DEFAULT-VALUE})")
    long maxHourlySeries;

    @Option(
            names = "--max-daily-series",
            defaultValue = "0",
            paramLabel = "SERIES",
            description =
                    "As --max-hourly-series, per UTC day (vmagent's -remoteWrite.maxDailySeries). 0 = no limit (default: ${DEFAULT-VALUE})")
    long maxDailySeries;

    private Pattern topicPattern() {
        if (topicPattern == null) {
            return null;
        }
        try {
            return Pattern.compile(topicPattern);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(
                    "--topic-pattern '" + topicPattern + "' is not a regular expression: " + e.getDescription());
        }
    }

    RunConfig toConfig() {
        if (!writeMode.equals("async") && !writeMode.equals("sync")) {
            throw new IllegalArgumentException("--write-mode must be async or sync, got '" + writeMode + "'");
        }
        if (!compression.equals("none") && !compression.equals("gzip")) {
            throw new IllegalArgumentException("--compression must be none or gzip, got '" + compression + "'");
        }
        if (maxRecordBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--max-record-bytes must be below 2GiB");
        }
        return RunConfig.builder()
                .bootstrapServers(bootstrapServers)
                .topics(topics.stream()
                        .map(String::trim)
                        .filter(t -> !t.isEmpty())
                        .toList())
                .groupId(groupId)
                .vmUrls(vmUrls.stream().map(String::trim).toList())
                .timeMultiplier(timeMultiplier)
                .instanceMultiplier(instanceMultiplier)
                .sourceInterval(sourceInterval)
                .parallelism(parallelism)
                .segmentSize(segmentSize)
                .maxConcurrentWrites(maxConcurrentWrites)
                .maxRetries(maxRetries)
                .batchSamples(batchSamples)
                .batchSendDeadline(batchSendDeadline)
                .reportInterval(reportInterval)
                .stopAtEnd(stopAtEnd)
                .summaryJson(summaryJson)
                .commitInterval(commitInterval)
                .drainTimeout(drainTimeout)
                .callTimeout(callTimeout)
                .gzip(compression.equals("gzip"))
                .metricsPort(metricsPort)
                .onWriteFailure(onWriteFailure)
                .deadLetterTopic(deadLetterTopic)
                .maxInflightBytes(maxInflightBytes)
                .maxRecordBytes((int) maxRecordBytes)
                .seriesCacheSize(seriesCacheSize)
                .maxBackoff(maxBackoff)
                .consumerProperties(consumerProperties)
                .syncWrites(writeMode.equals("sync"))
                .metricsAddress(metricsAddress)
                .membership(new GroupMembership(
                        groupInstanceId == null || groupInstanceId.isBlank() ? null : groupInstanceId.trim(),
                        GroupMembership.protocol(groupProtocol),
                        kafkaTimeout))
                .kafkaClient(kafkaClient.toConfig(bootstrapServers))
                .vmHttp(vmHttp.toConfig())
                .input(input.toConfig())
                .output(Output.parse(output))
                .remoteWriteUrls(remoteWriteUrls.stream().map(String::trim).toList())
                .writeFaultTimeout(writeFaultTimeout)
                .topicPattern(topicPattern())
                .replay(replay.toConfig())
                .remoteWriteVersion(remoteWriteVersion)
                .consumerMode(ConsumerMode.parse(consumerMode))
                .durabilityWindow(durabilityWindow)
                .tsdbMetricsUrls(tsdbMetricsUrls.stream()
                        .map(String::trim)
                        .filter(u -> !u.isEmpty())
                        .toList())
                .targetMetricsUrls(targetMetricsUrls.stream()
                        .map(String::trim)
                        .filter(u -> !u.isEmpty())
                        .toList())
                .ordering(
                        ordering == null
                                ? Ordering.defaultFor(
                                        Output.parse(output), ConsumerMode.parse(consumerMode) == ConsumerMode.SHARE)
                                : Ordering.parse(ordering))
                .onConfigurationFault(ConfigurationFaultPolicy.parse(onConfigurationFault))
                .relabel(routing.relabel())
                .tenants(routing.tenants(Output.parse(output) == Output.REMOTE_WRITE))
                .maxHourlySeries(maxHourlySeries)
                .maxDailySeries(maxDailySeries)
                .build();
    }

    /**
     * The configuration, every value checked as {@code run} checks it before it starts ({@code check}'s first check).
     *
     * @throws IllegalArgumentException one line naming the flag that is wrong
     */
    RunConfig validated() {
        RunConfig cfg = toConfig();
        validateUrls(cfg);
        return cfg;
    }

    /** Every write URL parsed as the writer will use it. @throws IllegalArgumentException naming the one that is not */
    private static void validateUrls(RunConfig cfg) {
        cfg.vmUrls()
                .forEach(
                        cfg.tenants().routes()
                                ? WriteTarget::tenantRouted
                                : WriteTarget::new); // validate URLs before starting
        cfg.remoteWriteUrls().forEach(WriteTarget::remoteWrite);
    }

    @Override
    public Integer call() throws Exception {
        RunConfig cfg = toConfig();
        AotCacheStatus.current().ifPresent(a -> {
            if (a.warns()) {
                log.warn(a.line()); // troubleshooting: missing: starting without it (JIT warm-up costs more CPU; build
                // one with scripts/aot-cache.sh) | not used (stale: built from another jar, JVM or
                // JVM flags): starting without it
            } else {
                log.info(a.line());
            }
        });
        validateUrls(cfg);
        WriterService service = new WriterService(cfg, System.out);
        for (String sig : Arrays.asList("TERM", "INT")) {
            Signal.handle(new Signal(sig), s -> {
                log.info("SIG{} received", s.getName());
                Thread.ofPlatform().name("shutdown").start(service::shutdown);
            });
        }
        return service.run();
    }
}
