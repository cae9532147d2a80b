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
            "Consume point records from Kafka, amplify them M x N, write them to VictoriaMetrics or any remote "
                    + "write receiver, and commit only what is stored: acknowledged (2xx) at least --durability-window ago with no "
                    + "TSDB restart since.",
            "SIGTERM/SIGINT: stop reading, drain in-flight writes (up to --drain-timeout), commit the watermark, print "
                    + "the final report. With --stop-at-end that is a stop before the end: exit 4, and the summary names the "
                    + "partitions left short (exit 0 when the drain committed every recorded end); without it (a service) exit 0 "
                    + "when nothing was left unwritten. While the TSDB fails, the stop does not wait: a failing write is tried "
                    + "once more, spaced, then held (not committed past, written again by the next start) and the exit is 1 within seconds.",
            "Every option can also be set by an environment variable, for run only (the other commands ignore them): "
                    + "TSDB_WRITER_ + the option name in capitals with _ for - (e.g. TSDB_WRITER_TIME_MULTIPLIER=12). A flag on "
                    + "the command line wins; a default taken from a variable shows here as (default: VALUE, from TSDB_WRITER_...). "
                    + "A TSDB_WRITER_ variable no option maps to is one WARN at start naming the nearest known one; the writers "
                    + "bench and capacity start get none of these variables, only flags.",
            "Durations take a unit: 500ms, 60s, 5m, 1h."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done: with --stop-at-end the group committed every partition's recorded end; a replay wrote every "
                    + "pass and waited out the durability window (also when a signal came after the last pass was read); "
                    + "without an end, stopped by a signal with nothing left unwritten. No sample refused without a dead letter",
            "1:a fault: a missing topic; Kafka unreachable longer than --kafka-timeout or refusing the login; a configuration "
                    + "fault of the write endpoint longer than --write-fault-timeout (with --stop-at-end); a thread died; "
                    + "writes unfinished at the stop (held, when the TSDB failed at the stop)",
            "2:invalid flags",
            "3:done, but samples were refused by the receiver and not dead-lettered (no --dead-letter-topic): the summary lists them by reason",
            "4:--stop-at-end job or replay with an end stopped by SIGTERM/SIGINT before its end: the summary lists the partitions "
                    + "left short and by how much"
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
            description =
                    "Consume every topic whose whole name matches REGEX (Kafka's pattern subscription: a matching topic created "
                            + "later joins a relay), instead of --topic")
    String topicPattern;

    @Option(
            names = "--group-id",
            defaultValue = "tsdb-writer",
            paramLabel = "GROUP",
            description =
                    "Consumer group; processes with the same group share the partitions (default: ${DEFAULT-VALUE})")
    String groupId;

    @Option(
            names = "--vm-url",
            defaultValue = "http://localhost:8428",
            split = ",",
            splitSynopsisLabel = ",",
            paramLabel = "URL",
            description = {
                "VictoriaMetrics base URL(s) of --output import; /api/v1/import is appended. Several URLs are endpoints "
                        + "of ONE TSDB (the vminserts of one cluster): each request goes to one of them, the least loaded. To write "
                        + "every sample to several TSDBs, run one writer group per TSDB (--group-id), not several URLs here (unlike "
                        + "vmagent, whose every -remoteWrite.url gets every sample).",
                "  single-node  http://vm:8428",
                "  cluster      http://vminsert:8480/insert/<accountID>/prometheus",
                "http://user:password@host is basic auth for that URL (never printed). The --vm-* auth and TLS flags "
                        + "apply to every --vm-url and --remote-write-url alike (vmagent takes a value per URL; here only a URL's "
                        + "user:password@ is per URL) (default: http://localhost:8428)"
            })
    List<String> vmUrls;

    @picocli.CommandLine.Mixin
    VmHttpOptions vmHttp = new VmHttpOptions();

    @picocli.CommandLine.Mixin
    KafkaClientOptions kafkaClient = new KafkaClientOptions();

    @Option(
            names = "--output",
            defaultValue = "import",
            paramLabel = "import|remote-write",
            description =
                    "Write protocol. import: VictoriaMetrics JSON lines to <vm-url>/api/v1/import; remote-write: "
                            + "Prometheus Remote-Write 1.0 (protobuf, snappy) to each --remote-write-url, for any Prometheus-compatible "
                            + "receiver, with the TYPE, HELP and UNIT that Prometheus text, OpenMetrics and OTLP input declare as "
                            + "metadata, and exemplars (OpenMetrics; OTLP gauges and sums) (the import API carries neither) (default: ${DEFAULT-VALUE})")
    String output;

    @Option(
            names = "--remote-write-url",
            paramLabel = "URL",
            split = ",",
            splitSynopsisLabel = ",",
            description = {
                "Whole remote write URL(s) (repeatable or comma-separated), used with --output remote-write. Several are "
                        + "endpoints of ONE receiver, least loaded first; several TSDBs = one writer group each (see --vm-url):",
                "  VictoriaMetrics  http://vm:8428/api/v1/write",
                "  vminsert         http://vminsert:8480/insert/<accountID>/prometheus/api/v1/write",
                "  Prometheus       http://prom:9090/api/v1/write (with --web.enable-remote-write-receiver)",
                "  Mimir            http://mimir/api/v1/push; Thanos Receive"
            })
    List<String> remoteWriteUrls = new ArrayList<>();

    @Option(
            names = "--consumer-mode",
            defaultValue = "segments",
            paramLabel = "segments|share",
            description = {
                "How records are taken from Kafka (docs/scaling.md) (default: ${DEFAULT-VALUE}):",
                "  segments  a consumer group; each partition read by --parallelism segment readers of one process, "
                        + "offsets committed at segment ends: ordered per partition, at most one process per partition",
                "  share     a share group (KIP-932, Kafka >= 4.2 with share.version >= 1): --parallelism share consumers per "
                        + "process, any number of processes per partition; a record is acknowledged (ACCEPT) only once the TSDB "
                        + "acknowledged all its samples, renewed while it waits; no order; no --stop-at-end"
            })
    String consumerMode;

    @Option(
            names = "--ordering",
            paramLabel = "series|none",
            description = {
                "Whether each series reaches the receiver in timestamp order (the remote write specification's MUST; "
                        + "Prometheus, Mimir and Thanos receive refuse an older sample of a series unless an out-of-order window is open):",
                "  series  every series goes through one of as many lanes as concurrent write requests were allowed at start (the "
                        + "write permits); a lane sends one request at a time, a partition's segments in offset order, so --parallelism > 1 "
                        + "stays in order. Default with --output remote-write",
                "  none    requests in parallel as they are ready. Default with --output import (VictoriaMetrics takes any order) "
                        + "and with --consumer-mode share (which cannot order)",
                "Order per series holds when each series is in one partition: key the topic by series or host"
            })
    String ordering;

    @Option(
            names = "--remote-write-version",
            defaultValue = "1",
            paramLabel = "1|2",
            description = {
                "Remote-Write message of --output remote-write, as Prometheus' protobuf_message names it (default: ${DEFAULT-VALUE}):",
                "  1  prometheus.WriteRequest (Remote-Write 1.0: every receiver)",
                "  2  io.prometheus.write.v2.Request (Remote-Write 2.0: a symbol table per request, fewer bytes; Prometheus 3 "
                        + "with --web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request, Mimir >= 2.17, "
                        + "the OpenTelemetry Collector's prometheusremotewritereceiver).",
                "A receiver that answers 415, or 2xx without X-Prometheus-Remote-Write-Samples-Written (a 1.0 receiver), is a "
                        + "configuration fault: the data is held, never counted written; there is no automatic fall back to 1"
            },
            converter = Converters.RemoteWriteVersionConverter.class)
    RemoteWriteVersion remoteWriteVersion = RemoteWriteVersion.V1;

    @Option(
            names = "--consumer-property",
            paramLabel = "KEY=VALUE",
            description =
                    "Extra Kafka consumer setting (repeatable), e.g. session.timeout.ms=10000; settings for every client "
                            + "(security) go in --kafka-config / --kafka-property")
    Map<String, String> consumerProperties = new LinkedHashMap<>();

    @Option(
            names = "--time-multiplier",
            defaultValue = "1",
            paramLabel = "M",
            description =
                    "Samples per source point in time: t + i*source-interval/M for i in [0,M); 1..3600, and M x N at most "
                            + "1000000 samples per point (default: ${DEFAULT-VALUE})")
    int timeMultiplier;

    @Option(
            names = "--instance-multiplier",
            defaultValue = "1",
            paramLabel = "N",
            description =
                    "Instance variants per series: instanceNo, instanceNo-1 … instanceNo-(N-1); 1..100000. A series without "
                            + "the instance label gets the base 'unknown' only when N > 1: at N = 1 no label is added (default: ${DEFAULT-VALUE})")
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
                    "Readers per partition (segment readers, each with its own Kafka consumer; with --consumer-mode share: "
                            + "share consumers per process); 1..64 (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--segment-size",
            defaultValue = "50000",
            paramLabel = "RECORDS",
            description =
                    "Offsets per segment; commits happen at segment ends; a crash replays at most P segments; 1..1000000000 (default: ${DEFAULT-VALUE})")
    long segmentSize;

    @Option(
            names = "--max-concurrent-writes",
            defaultValue = "auto",
            converter = Converters.PermitsConverter.class,
            paramLabel = "auto|PERMITS",
            description =
                    "Concurrent write requests, split evenly across the write URLs. auto (or 0): the target's insert capacity "
                            + "(vm_concurrent_insert_capacity on the write URL's host's /metrics, or its sum over every --target-metrics-url; "
                            + WriterService.FALLBACK_PERMITS
                            + " where none can be read, e.g. Prometheus, Mimir, Thanos Receive), read at start "
                            + "and every minute, shared by the processes of one group: each takes floor(capacity x the partitions it holds / "
                            + "the topics' partitions), recomputed at every rebalance (--consumer-mode share: its --parallelism share consumers "
                            + "/ the share group's members, read every 5s (every second for the first 30s); a replay, which joins no group: the whole capacity), at least 1. "
                            + "So the replicas together never send more requests than vminsert runs at once, and requests wait in the writer "
                            + "instead of queueing inside vminsert. A number: this process alone, whatever other processes send (default: auto)")
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
            description =
                    "Longest delay between retries (exponential from 200ms with jitter; Retry-After honoured up to it); also how long a tripped circuit breaker waits before probing again (default: ${DEFAULT-VALUE})")
    Duration maxBackoff;

    @Option(
            names = "--on-write-failure",
            defaultValue = "pause",
            paramLabel = "pause|dead-letter",
            converter = Converters.FailurePolicyConverter.class,
            description =
                    "After --max-retries of a retryable failure (429, 5xx, timeouts): pause = keep the batch and keep "
                            + "probing; dead-letter = send its records to --dead-letter-topic. A data refusal (a 4xx the receiver does not "
                            + "give an empty request too) is never retried: its records are dead-lettered or counted refused. A "
                            + "configuration fault (401, 403, 404, 405, 407, a redirect, TLS, DNS, a refused connection) is held whatever "
                            + "this says: retried with backoff until the endpoint takes it, which the remote write specification does "
                            + "not do for a 4xx (see --on-configuration-fault) (default: ${DEFAULT-VALUE})")
    OnWriteFailure onWriteFailure;

    @Option(
            names = "--on-configuration-fault",
            defaultValue = "hold",
            paramLabel = "hold|refuse",
            description =
                    "A configuration fault's 4xx (401, 403, 404, 405, 407, or a 400/413 an empty request gets too): hold = "
                            + "keep the data in Kafka and try again with backoff until the endpoint's flag is fixed (a deviation from "
                            + "the remote write specification, which says never to retry a 4xx but 429); refuse = the specification's rule, never retried: "
                            + "its records go to --dead-letter-topic, else its samples are counted refused and lost (exit 3). Redirects "
                            + "and answers without a status are held either way (default: ${DEFAULT-VALUE})")
    String onConfigurationFault;

    @Option(
            names = "--dead-letter-topic",
            paramLabel = "TOPIC",
            description =
                    "Topic for malformed records and the records of refused samples and given-up batches (default: none)")
    String deadLetterTopic;

    @Option(
            names = "--batch-samples",
            defaultValue = "10000",
            paramLabel = "SAMPLES",
            description = "Samples per write request (default: ${DEFAULT-VALUE})")
    int batchSamples;

    @Option(
            names = "--max-inflight-bytes",
            defaultValue = "256MiB",
            converter = Converters.SizeConverter.class,
            paramLabel = "SIZE",
            description =
                    "Request bytes buffered or in flight at most; poll threads wait beyond it (default: ${DEFAULT-VALUE})")
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
            description =
                    "Whole write request timeout; keep it above vminsert's 60s insert queue (default: ${DEFAULT-VALUE})")
    Duration callTimeout;

    @Option(
            names = "--commit-interval",
            defaultValue = "5s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "Longest time between commits of the watermark; it is also committed at every segment end (default: ${DEFAULT-VALUE})")
    Duration commitInterval;

    @Option(
            names = "--durability-window",
            defaultValue = "auto",
            converter = Converters.DurabilityWindowConverter.class,
            paramLabel = "auto|0|DURATION",
            description =
                    "How long after the TSDB's 2xx a write counts as stored: an offset is committed (and a --stop-at-end job "
                            + "exits 0) only once every write below it was acknowledged this long ago with no TSDB restart since; a restart "
                            + "rewinds every partition to its last commit. auto: from the TSDB's /metrics (VictoriaMetrics: "
                            + "2 x -inmemoryDataFlushInterval + 6s, 16s by default; Prometheus: 5s; anything else, vminsert alone included: 30s). "
                            + "0: commit on the 2xx, watch no restart (a TSDB crash can lose the last seconds) (default: ${DEFAULT-VALUE})")
    Duration durabilityWindow;

    @Option(
            names = "--tsdb-metrics-url",
            paramLabel = "URL|none",
            split = ",",
            splitSynopsisLabel = ",",
            description =
                    "A /metrics page of a TSDB process that holds acknowledged samples before storing them (a cluster's "
                            + "vmstorage nodes), watched for restarts and read for the durability window, besides each write target's "
                            + "own /metrics; repeatable. none: the writer reads no TSDB's /metrics at all, the write targets' included "
                            + "(a receiver that serves none, or records every request): no restart is watched, the window is "
                            + "--durability-window or 30s, auto write permits are 8 per target, no retention is read. A page that answers "
                            + "404 is asked once, not again (default: the write targets' only)")
    List<String> tsdbMetricsUrls = new ArrayList<>();

    @Option(
            names = "--target-metrics-url",
            paramLabel = "URL",
            split = ",",
            splitSynopsisLabel = ",",
            description =
                    "The /metrics page of each vminsert behind the write URL (several vminserts behind one Service or load "
                            + "balancer); repeatable. With --max-concurrent-writes auto their vm_concurrent_insert_capacity add up to the "
                            + "target's capacity (split evenly over several write URLs) (default: the write URL's host's /metrics only)")
    List<String> targetMetricsUrls = new ArrayList<>();

    @Option(
            names = "--drain-timeout",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "On shutdown or revocation, how long in-flight writes may finish and their durability window may pass "
                            + "before the stored watermark is committed; the window is waited inside it, not after (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    @Option(
            names = "--stop-at-end",
            description = "Record the end offset of every partition of the topic(s) at start, write up to them, "
                    + "and exit once the group's committed offset of every partition reached its recorded end (whichever member "
                    + "wrote it); until then keep the membership and take over what a rebalance hands this process")
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
            description =
                    "Port of /metrics, /health/live, /health/ready; 0 = any free port, -1 = off (default: ${DEFAULT-VALUE})")
    int metricsPort;

    @Option(
            names = "--metrics-address",
            defaultValue = "0.0.0.0",
            paramLabel = "ADDRESS",
            description =
                    "Address the metrics endpoint binds, e.g. 127.0.0.1 for loopback only (default: ${DEFAULT-VALUE})")
    String metricsAddress;

    @Option(
            names = "--series-cache-size",
            defaultValue = "1000000",
            paramLabel = "SERIES",
            description =
                    "Series whose prepared label lines the process keeps (one cache shared by every reader). Used when --instance-multiplier > 1 "
                            + "(the N instanceNo variants are built once per series), with --relabel-config and for records with escaped strings; otherwise at N = 1 lines are copied "
                            + "straight from the record, which is cheaper than a lookup (default: ${DEFAULT-VALUE})")
    int seriesCacheSize;

    @Option(
            names = "--write-mode",
            defaultValue = "async",
            paramLabel = "async|sync",
            description =
                    "async: writes run on virtual threads while polling goes on; sync: on the poll thread, which waits for "
                            + "each write (a baseline for benchmarks) (default: ${DEFAULT-VALUE})")
    String writeMode;

    @Option(
            names = "--group-instance-id",
            paramLabel = "ID",
            description =
                    "Static group membership (KIP-345, group.instance.id): a process restarted with the same id gets its "
                            + "partitions back at once instead of after the session timeout. Unique per process, stable across restarts "
                            + "(Kubernetes: the StatefulSet pod name) (default: none, a dynamic member)")
    String groupInstanceId;

    @Option(
            names = "--group-protocol",
            defaultValue = "classic",
            paramLabel = "classic|consumer",
            description =
                    "Consumer group protocol (group.protocol): classic, or consumer = Kafka 4's KIP-848 protocol, where the "
                            + "broker assigns partitions and owns session timeouts (then session.timeout.ms, heartbeat.interval.ms and "
                            + "partition.assignment.strategy are refused; group.remote.assignor picks the broker's assignor) (default: ${DEFAULT-VALUE})")
    String groupProtocol;

    @Option(
            names = "--kafka-timeout",
            defaultValue = "2m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "With --stop-at-end: how long Kafka may stay unreachable before the run exits 1; without it the writer "
                            + "keeps retrying (default: ${DEFAULT-VALUE})")
    Duration kafkaTimeout;

    @Option(
            names = "--write-fault-timeout",
            defaultValue = "2m",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "With --stop-at-end: how long a configuration fault of a write endpoint (a redirect, 401/403/404/405/407, "
                            + "TLS, DNS, a refused connection, a refusal an empty request gets too) may last before the run exits 1, "
                            + "nothing committed past unwritten data; without it the writer holds the data and keeps probing (default: ${DEFAULT-VALUE})")
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
        cfg.vmUrls()
                .forEach(
                        cfg.tenants().routes()
                                ? WriteTarget::tenantRouted
                                : WriteTarget::new); // validate URLs before starting
        cfg.remoteWriteUrls().forEach(WriteTarget::remoteWrite);
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
