package io.tsdbwriter.config;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.ConfigurationFaultPolicy;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.Ordering;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.SafeUrl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything {@code tsdb-writer run} needs, validated when built (compact constructor): a bad value fails here
 * with an {@link IllegalArgumentException} naming the flag, never later in a worker thread.
 *
 * @param bootstrapServers     Kafka bootstrap servers ({@code host:port,…})
 * @param topics               topics to consume (≥ 1)
 * @param groupId              consumer group
 * @param vmUrls               VictoriaMetrics base URLs (DESIGN §6), ≥ 1
 * @param timeMultiplier       M (1..3600)
 * @param instanceMultiplier   N (1..100000); M × N at most {@value AmplificationPlan#MAX_SAMPLES_PER_POINT}
 * @param sourceInterval       interval of the source points (default 60 s)
 * @param parallelism          P, SegmentConsumers per partition, 1..{@value #MAX_PARALLELISM}
 * @param segmentSize          offsets per segment, 1..{@value #MAX_SEGMENT_SIZE}
 * @param maxConcurrentWrites  write permits; 0 = read {@code vm_concurrent_insert_capacity} from each target
 * @param maxRetries           retries per batch before the failure policy (0..100)
 * @param batchSamples         samples per import request (≥ 1)
 * @param batchSendDeadline    an open batch that is not full goes out when it is this old; zero = as soon as the
 *                             partition has no more records (not negative)
 * @param reportInterval       report period (≥ 1 s)
 * @param stopAtEnd            consume up to the end offsets seen at start, then exit
 * @param summaryJson          where to write the final counters, or null
 * @param commitInterval       longest time between commits (≥ 100 ms)
 * @param drainTimeout         how long shutdown and revocation wait for in-flight writes
 * @param callTimeout          whole import request timeout (above vminsert's 60 s queue by default)
 * @param gzip                 compress request bodies
 * @param metricsPort          Prometheus endpoint port; 0 = any free port; -1 = off
 * @param onWriteFailure       policy once retries run out
 * @param deadLetterTopic      topic for malformed records and the records of refused samples and given-up batches, or null
 * @param maxInflightBytes     request bytes buffered or in flight at most
 * @param maxRecordBytes       larger records are rejected
 * @param seriesCacheSize      series whose prepared lines the process keeps (one cache for all SegmentConsumers)
 * @param maxBackoff           cap of a retry delay, and how long a tripped circuit breaker waits before probing
 * @param consumerProperties   extra Kafka consumer settings (e.g. security, session.timeout.ms), applied to the group
 *                             member and every SegmentConsumer; the writer's own settings (no auto-commit, byte
 *                             deserializers, assignor) win
 * @param syncWrites           write on the poll thread (benchmark comparison only)
 * @param metricsAddress       address the metrics endpoint binds (default 0.0.0.0: every interface)
 * @param membership           static membership id, group protocol and Kafka timeout (DESIGN §5); the
 *                             {@code consumerProperties} are checked against its protocol
 * @param kafkaClient          settings of every Kafka client of the process ({@code --kafka-config},
 *                             {@code --kafka-property}); its bootstrap servers equal {@code bootstrapServers}
 * @param vmHttp               authentication and TLS of every request to the {@code vmUrls} (which may carry
 *                             {@code user:password@}; never print them, print {@link io.tsdbwriter.write.http.SafeUrl#redact})
 * @param input                record formats per topic and the instance label ({@link InputConfig})
 * @param output               the output protocol ({@code --output}, default {@link Output#IMPORT})
 * @param remoteWriteUrls      whole remote write URLs ({@code --remote-write-url}); ≥ 1 with {@link Output#REMOTE_WRITE},
 *                             ignored otherwise
 * @param writeFaultTimeout    with {@code stopAtEnd}: how long a configuration fault of a write endpoint (DESIGN §6)
 *                             may last before the job ends with exit 1 (≥ 1 s; default 2 m)
 * @param topicPattern         {@code --topic-pattern}: Kafka's pattern subscription instead of {@code topics} (then empty);
 *                             null = {@code topics}
 * @param replay               the window, rebase, loops, rate and churn of a capacity test ({@link ReplayConfig}); a
 *                             replay never uses the group {@code groupId}
 * @param remoteWriteVersion   the Remote-Write message of {@link Output#REMOTE_WRITE} ({@code --remote-write-version},
 *                             default {@link RemoteWriteVersion#V1}); version 2 needs {@link Output#REMOTE_WRITE}
 * @param consumerMode         {@code --consumer-mode} (default {@link ConsumerMode#SEGMENTS}); {@link ConsumerMode#SHARE}
 *                             takes neither a replay, {@code --stop-at-end}, {@code --topic-pattern} nor static membership
 * @param durabilityWindow     {@code --durability-window}: how long after its 2xx a write counts as stored (DESIGN §4);
 *                             null = read from the TSDB's {@code /metrics}; {@link Duration#ZERO} = at once, no restart watch
 * @param tsdbMetricsUrls      {@code --tsdb-metrics-url}: further TSDB processes' {@code /metrics} (vmstorage) watched for
 *                             restarts, besides the write targets'; or {@link #NO_TSDB_METRICS} alone: no TSDB
 *                             {@code /metrics} is read at all ({@link #readsTsdbMetrics()})
 * @param targetMetricsUrls    {@code --target-metrics-url}: the {@code /metrics} of every vminsert behind the write URLs,
 *                             whose {@code vm_concurrent_insert_capacity} add up to the targets' capacity (write permits
 *                             {@code auto}); empty = each write URL's own host's {@code /metrics}
 * @param ordering             {@code --ordering}: per-series order or none (default {@link Ordering#defaultFor}); series
 *                             needs {@link ConsumerMode#SEGMENTS}
 * @param onConfigurationFault {@code --on-configuration-fault}: hold a configuration fault's 4xx (default), or refuse
 *                             its batch without retry as the remote write specification says
 * @param relabel              {@code --relabel-config}: Prometheus relabel_config rules applied once per series before
 *                             amplification ({@link RelabelRules}); null = none
 * @param tenants              {@code --tenant-from}, {@code --default-tenant}, {@code --remote-write-tenant-header}
 *                             ({@link TenantRouting}; {@link TenantRouting#NONE}: requests are not split by tenant)
 * @param maxHourlySeries      {@code --max-hourly-series}: new series per UTC hour beyond which a series' samples are
 *                             dropped and counted ({@link io.tsdbwriter.amplify.SeriesLimiter}); 0 = no limit, else
 *                             at least {@code instanceMultiplier} (a source series' N variants are admitted together)
 * @param maxDailySeries       {@code --max-daily-series}: likewise per UTC day; 0 = no limit
 */
public record RunConfig(
        String bootstrapServers,
        List<String> topics,
        String groupId,
        List<String> vmUrls,
        int timeMultiplier,
        int instanceMultiplier,
        Duration sourceInterval,
        int parallelism,
        long segmentSize,
        int maxConcurrentWrites,
        int maxRetries,
        int batchSamples,
        Duration batchSendDeadline,
        Duration reportInterval,
        boolean stopAtEnd,
        Path summaryJson,
        Duration commitInterval,
        Duration drainTimeout,
        Duration callTimeout,
        boolean gzip,
        int metricsPort,
        OnWriteFailure onWriteFailure,
        String deadLetterTopic,
        long maxInflightBytes,
        int maxRecordBytes,
        int seriesCacheSize,
        Duration maxBackoff,
        Map<String, String> consumerProperties,
        boolean syncWrites,
        String metricsAddress,
        GroupMembership membership,
        KafkaClientConfig kafkaClient,
        HttpAuthConfig vmHttp,
        InputConfig input,
        Output output,
        List<String> remoteWriteUrls,
        Duration writeFaultTimeout,
        Pattern topicPattern,
        ReplayConfig replay,
        RemoteWriteVersion remoteWriteVersion,
        ConsumerMode consumerMode,
        Duration durabilityWindow,
        List<String> tsdbMetricsUrls,
        List<String> targetMetricsUrls,
        Ordering ordering,
        ConfigurationFaultPolicy onConfigurationFault,
        RelabelRules relabel,
        TenantRouting tenants,
        long maxHourlySeries,
        long maxDailySeries) {

    /**
     * Largest {@code --segment-size}: a billion offsets. Segment ends {@code (k+1)·S} then stay far from
     * {@code Long.MAX_VALUE} for any offset and P ≤ {@value #MAX_PARALLELISM} (with S near 2^63 they overflowed into
     * overlapping segments: two readers reading the same offsets).
     */
    public static final long MAX_SEGMENT_SIZE = 1_000_000_000L;
    /** Largest {@code --parallelism}. */
    public static final int MAX_PARALLELISM = 64;

    /** @throws IllegalArgumentException naming the flag whose value is out of range */
    public RunConfig {
        require(bootstrapServers != null && !bootstrapServers.isBlank(), "--bootstrap-servers must not be empty");
        topics = List.copyOf(Objects.requireNonNull(topics));
        require(topics.stream().noneMatch(String::isBlank), "--topic must not name an empty topic");
        require(
                topics.isEmpty() != (topicPattern == null),
                topicPattern == null ? "give --topic or --topic-pattern" : "give --topic or --topic-pattern, not both");
        Objects.requireNonNull(replay, "replay");
        require(groupId != null && !groupId.isBlank(), "--group-id must not be empty");
        vmUrls = List.copyOf(Objects.requireNonNull(vmUrls));
        require(!vmUrls.isEmpty(), "--vm-url must name at least one URL");
        AmplificationPlan.of(
                timeMultiplier, instanceMultiplier, sourceInterval); // M, N, M x N and the interval, each named
        require(
                parallelism >= 1 && parallelism <= MAX_PARALLELISM,
                "--parallelism must be in 1.." + MAX_PARALLELISM + ", got " + parallelism);
        require(
                segmentSize >= 1 && segmentSize <= MAX_SEGMENT_SIZE,
                "--segment-size must be in 1.." + MAX_SEGMENT_SIZE + " offsets, got " + segmentSize);
        require(
                maxConcurrentWrites >= 0 && maxConcurrentWrites <= 10_000,
                "--max-concurrent-writes must be in 0..10000 (0 = auto), got " + maxConcurrentWrites);
        require(maxRetries >= 0 && maxRetries <= 100, "--max-retries must be in 0..100, got " + maxRetries);
        require(
                batchSamples >= 1 && batchSamples <= 10_000_000,
                "--batch-samples must be in 1..10000000, got " + batchSamples);
        require(
                batchSendDeadline != null && !batchSendDeadline.isNegative(),
                "--batch-send-deadline must not be negative, got " + batchSendDeadline);
        require(
                reportInterval.toMillis() >= 1000,
                "--report-interval must be >= 1s, got " + reportInterval.toMillis() + "ms");
        require(
                commitInterval.toMillis() >= 100,
                "--commit-interval must be >= 100ms, got " + commitInterval.toMillis() + "ms");
        require(!drainTimeout.isNegative(), "--drain-timeout must not be negative");
        require(callTimeout.toMillis() >= 100, "--call-timeout must be >= 100ms, got " + callTimeout.toMillis() + "ms");
        require(metricsPort >= -1 && metricsPort <= 65535, "--metrics-port must be in -1..65535, got " + metricsPort);
        Objects.requireNonNull(onWriteFailure, "--on-write-failure");
        require(
                onWriteFailure != OnWriteFailure.DEAD_LETTER || (deadLetterTopic != null && !deadLetterTopic.isBlank()),
                "--on-write-failure=dead-letter needs --dead-letter-topic");
        require(
                maxInflightBytes >= 1024 * 1024 && maxInflightBytes <= Integer.MAX_VALUE,
                "--max-inflight-bytes must be in 1MiB..2GiB, got " + maxInflightBytes + " bytes");
        require(maxRecordBytes >= 1, "--max-record-bytes must be >= 1, got " + maxRecordBytes);
        require(seriesCacheSize >= 1, "--series-cache-size must be >= 1, got " + seriesCacheSize);
        require(maxBackoff.toMillis() >= 200, "--max-backoff must be >= 200ms, got " + maxBackoff.toMillis() + "ms");
        consumerProperties = Map.copyOf(consumerProperties);
        require(metricsAddress != null && !metricsAddress.isBlank(), "--metrics-address must not be empty");
        Objects.requireNonNull(membership, "membership");
        membership.checkConsumerProperties(consumerProperties);
        Objects.requireNonNull(kafkaClient, "kafkaClient");
        require(kafkaClient.bootstrapServers().equals(bootstrapServers), "kafkaClient must use --bootstrap-servers");
        Objects.requireNonNull(vmHttp, "vmHttp");
        Objects.requireNonNull(input, "input");
        for (String t : input.topicFormats().keySet()) {
            require(
                    topicPattern != null ? topicPattern.matcher(t).matches() : topics.contains(t),
                    "--topic-format names topic '" + t + "', which is not a --topic"
                            + (topicPattern == null ? "" : " nor matches --topic-pattern"));
        }
        Objects.requireNonNull(output, "--output");
        remoteWriteUrls = List.copyOf(Objects.requireNonNull(remoteWriteUrls));
        require(
                output != Output.REMOTE_WRITE || !remoteWriteUrls.isEmpty(),
                "--output remote-write needs --remote-write-url");
        require(
                writeFaultTimeout != null && writeFaultTimeout.toMillis() >= 1000,
                "--write-fault-timeout must be >= 1s, got "
                        + (writeFaultTimeout == null ? "none" : writeFaultTimeout.toMillis() + "ms"));
        require(
                output != Output.REMOTE_WRITE || !gzip,
                "--compression gzip applies to --output import only (remote write is always snappy)");
        Objects.requireNonNull(remoteWriteVersion, "--remote-write-version");
        require(
                remoteWriteVersion == RemoteWriteVersion.V1 || output == Output.REMOTE_WRITE,
                "--remote-write-version 2 applies to --output remote-write only");
        require(durabilityWindow == null || !durabilityWindow.isNegative(), "--durability-window must not be negative");
        require(
                durabilityWindow == null || durabilityWindow.compareTo(Duration.ofHours(1)) <= 0,
                "--durability-window must be at most 1h, got "
                        + (durabilityWindow == null ? "" : durabilityWindow.toSeconds() + "s"));
        tsdbMetricsUrls = List.copyOf(Objects.requireNonNull(tsdbMetricsUrls));
        require(
                !tsdbMetricsUrls.contains(NO_TSDB_METRICS) || tsdbMetricsUrls.size() == 1,
                "--tsdb-metrics-url none reads no /metrics page: it cannot be given with URLs");
        require(
                !tsdbMetricsUrls.contains(NO_TSDB_METRICS) || targetMetricsUrls == null || targetMetricsUrls.isEmpty(),
                "--tsdb-metrics-url none reads no /metrics page: it cannot be given with --target-metrics-url");
        for (String u : tsdbMetricsUrls) {
            if (u.equals(NO_TSDB_METRICS)) {
                continue;
            }
            require(
                    u.startsWith("http://") || u.startsWith("https://"),
                    "--tsdb-metrics-url must be an http(s) URL of a /metrics page, got '" + SafeUrl.redact(u) + "'");
        }
        targetMetricsUrls = List.copyOf(Objects.requireNonNull(targetMetricsUrls));
        for (String u : targetMetricsUrls) {
            require(
                    u.startsWith("http://") || u.startsWith("https://"),
                    "--target-metrics-url must be an http(s) URL of a /metrics page, got '" + SafeUrl.redact(u) + "'");
        }
        Objects.requireNonNull(consumerMode, "--consumer-mode");
        Objects.requireNonNull(ordering, "--ordering");
        Objects.requireNonNull(onConfigurationFault, "--on-configuration-fault");
        Objects.requireNonNull(tenants, "tenants");
        requireSeriesLimit("--max-hourly-series", maxHourlySeries, instanceMultiplier);
        requireSeriesLimit("--max-daily-series", maxDailySeries, instanceMultiplier);
        if (consumerMode == ConsumerMode.SHARE) {
            require(
                    ordering == Ordering.NONE,
                    "--ordering series needs --consumer-mode segments: a share group hands any record "
                            + "of a partition to any member, so no writer can keep a series' samples in order");
            require(
                    !stopAtEnd,
                    "--stop-at-end is not supported with --consumer-mode share: a share group has no end offsets per "
                            + "member; stop the writers with SIGTERM once the group's lag is 0 (kafka-share-groups.sh --describe --offsets)");
            require(
                    !replay.replay(),
                    "--from, --to, --rebase-time and --loop read assigned partitions: not with --consumer-mode share");
            require(
                    topicPattern == null,
                    "--topic-pattern is not supported with --consumer-mode share (a share consumer subscribes to topic names)");
            require(
                    membership.groupInstanceId() == null,
                    "--group-instance-id (static membership) does not apply to --consumer-mode share");
        }
    }

    /** A builder that names every value: {@code RunConfig.builder().bootstrapServers(…)…build()}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Names each value of a {@link RunConfig}; {@link #build()} validates them (the compact constructor). A value
     * not set is Java's default ({@code null}, 0, {@code false}), except the lists and the consumer properties,
     * which start empty; the values the constructor requires (e.g. the bootstrap servers, the group, the durations) must
     * be set. Not thread-safe; one instance per configuration.
     */
    public static final class Builder {
        private String bootstrapServers;
        private List<String> topics = List.of();
        private String groupId;
        private List<String> vmUrls = List.of();
        private int timeMultiplier;
        private int instanceMultiplier;
        private Duration sourceInterval;
        private int parallelism;
        private long segmentSize;
        private int maxConcurrentWrites;
        private int maxRetries;
        private int batchSamples;
        private Duration batchSendDeadline = Duration.ZERO;
        private Duration reportInterval;
        private boolean stopAtEnd;
        private Path summaryJson;
        private Duration commitInterval;
        private Duration drainTimeout;
        private Duration callTimeout;
        private boolean gzip;
        private int metricsPort;
        private OnWriteFailure onWriteFailure;
        private String deadLetterTopic;
        private long maxInflightBytes;
        private int maxRecordBytes;
        private int seriesCacheSize;
        private Duration maxBackoff;
        private Map<String, String> consumerProperties = Map.of();
        private boolean syncWrites;
        private String metricsAddress;
        private GroupMembership membership;
        private KafkaClientConfig kafkaClient;
        private HttpAuthConfig vmHttp;
        private InputConfig input;
        private Output output;
        private List<String> remoteWriteUrls = List.of();
        private Duration writeFaultTimeout;
        private Pattern topicPattern;
        private ReplayConfig replay;
        private RemoteWriteVersion remoteWriteVersion;
        private ConsumerMode consumerMode;
        private Duration durabilityWindow;
        private List<String> tsdbMetricsUrls = List.of();
        private List<String> targetMetricsUrls = List.of();
        private Ordering ordering;
        private ConfigurationFaultPolicy onConfigurationFault;
        private RelabelRules relabel;
        private TenantRouting tenants;
        private long maxHourlySeries;
        private long maxDailySeries;

        private Builder() {}

        /** @see RunConfig#bootstrapServers() */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
            return this;
        }

        /** @see RunConfig#topics() */
        public Builder topics(List<String> topics) {
            this.topics = topics;
            return this;
        }

        /** @see RunConfig#groupId() */
        public Builder groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        /** @see RunConfig#vmUrls() */
        public Builder vmUrls(List<String> vmUrls) {
            this.vmUrls = vmUrls;
            return this;
        }

        /** @see RunConfig#timeMultiplier() */
        public Builder timeMultiplier(int timeMultiplier) {
            this.timeMultiplier = timeMultiplier;
            return this;
        }

        /** @see RunConfig#instanceMultiplier() */
        public Builder instanceMultiplier(int instanceMultiplier) {
            this.instanceMultiplier = instanceMultiplier;
            return this;
        }

        /** @see RunConfig#sourceInterval() */
        public Builder sourceInterval(Duration sourceInterval) {
            this.sourceInterval = sourceInterval;
            return this;
        }

        /** @see RunConfig#parallelism() */
        public Builder parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** @see RunConfig#segmentSize() */
        public Builder segmentSize(long segmentSize) {
            this.segmentSize = segmentSize;
            return this;
        }

        /** @see RunConfig#maxConcurrentWrites() */
        public Builder maxConcurrentWrites(int maxConcurrentWrites) {
            this.maxConcurrentWrites = maxConcurrentWrites;
            return this;
        }

        /** @see RunConfig#maxRetries() */
        public Builder maxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
            return this;
        }

        /** @see RunConfig#batchSamples() */
        public Builder batchSamples(int batchSamples) {
            this.batchSamples = batchSamples;
            return this;
        }

        /** @see RunConfig#batchSendDeadline() */
        public Builder batchSendDeadline(Duration batchSendDeadline) {
            this.batchSendDeadline = batchSendDeadline;
            return this;
        }

        /** @see RunConfig#reportInterval() */
        public Builder reportInterval(Duration reportInterval) {
            this.reportInterval = reportInterval;
            return this;
        }

        /** @see RunConfig#stopAtEnd() */
        public Builder stopAtEnd(boolean stopAtEnd) {
            this.stopAtEnd = stopAtEnd;
            return this;
        }

        /** @see RunConfig#summaryJson() */
        public Builder summaryJson(Path summaryJson) {
            this.summaryJson = summaryJson;
            return this;
        }

        /** @see RunConfig#commitInterval() */
        public Builder commitInterval(Duration commitInterval) {
            this.commitInterval = commitInterval;
            return this;
        }

        /** @see RunConfig#drainTimeout() */
        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        /** @see RunConfig#callTimeout() */
        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = callTimeout;
            return this;
        }

        /** @see RunConfig#gzip() */
        public Builder gzip(boolean gzip) {
            this.gzip = gzip;
            return this;
        }

        /** @see RunConfig#metricsPort() */
        public Builder metricsPort(int metricsPort) {
            this.metricsPort = metricsPort;
            return this;
        }

        /** @see RunConfig#onWriteFailure() */
        public Builder onWriteFailure(OnWriteFailure onWriteFailure) {
            this.onWriteFailure = onWriteFailure;
            return this;
        }

        /** @see RunConfig#deadLetterTopic() */
        public Builder deadLetterTopic(String deadLetterTopic) {
            this.deadLetterTopic = deadLetterTopic;
            return this;
        }

        /** @see RunConfig#maxInflightBytes() */
        public Builder maxInflightBytes(long maxInflightBytes) {
            this.maxInflightBytes = maxInflightBytes;
            return this;
        }

        /** @see RunConfig#maxRecordBytes() */
        public Builder maxRecordBytes(int maxRecordBytes) {
            this.maxRecordBytes = maxRecordBytes;
            return this;
        }

        /** @see RunConfig#seriesCacheSize() */
        public Builder seriesCacheSize(int seriesCacheSize) {
            this.seriesCacheSize = seriesCacheSize;
            return this;
        }

        /** @see RunConfig#maxBackoff() */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        /** @see RunConfig#consumerProperties() */
        public Builder consumerProperties(Map<String, String> consumerProperties) {
            this.consumerProperties = consumerProperties;
            return this;
        }

        /** @see RunConfig#syncWrites() */
        public Builder syncWrites(boolean syncWrites) {
            this.syncWrites = syncWrites;
            return this;
        }

        /** @see RunConfig#metricsAddress() */
        public Builder metricsAddress(String metricsAddress) {
            this.metricsAddress = metricsAddress;
            return this;
        }

        /** @see RunConfig#membership() */
        public Builder membership(GroupMembership membership) {
            this.membership = membership;
            return this;
        }

        /** @see RunConfig#kafkaClient() */
        public Builder kafkaClient(KafkaClientConfig kafkaClient) {
            this.kafkaClient = kafkaClient;
            return this;
        }

        /** @see RunConfig#vmHttp() */
        public Builder vmHttp(HttpAuthConfig vmHttp) {
            this.vmHttp = vmHttp;
            return this;
        }

        /** @see RunConfig#input() */
        public Builder input(InputConfig input) {
            this.input = input;
            return this;
        }

        /** @see RunConfig#output() */
        public Builder output(Output output) {
            this.output = output;
            return this;
        }

        /** @see RunConfig#remoteWriteUrls() */
        public Builder remoteWriteUrls(List<String> remoteWriteUrls) {
            this.remoteWriteUrls = remoteWriteUrls;
            return this;
        }

        /** @see RunConfig#writeFaultTimeout() */
        public Builder writeFaultTimeout(Duration writeFaultTimeout) {
            this.writeFaultTimeout = writeFaultTimeout;
            return this;
        }

        /** @see RunConfig#topicPattern() */
        public Builder topicPattern(Pattern topicPattern) {
            this.topicPattern = topicPattern;
            return this;
        }

        /** @see RunConfig#replay() */
        public Builder replay(ReplayConfig replay) {
            this.replay = replay;
            return this;
        }

        /** @see RunConfig#remoteWriteVersion() */
        public Builder remoteWriteVersion(RemoteWriteVersion remoteWriteVersion) {
            this.remoteWriteVersion = remoteWriteVersion;
            return this;
        }

        /** @see RunConfig#consumerMode() */
        public Builder consumerMode(ConsumerMode consumerMode) {
            this.consumerMode = consumerMode;
            return this;
        }

        /** @see RunConfig#durabilityWindow() */
        public Builder durabilityWindow(Duration durabilityWindow) {
            this.durabilityWindow = durabilityWindow;
            return this;
        }

        /** @see RunConfig#tsdbMetricsUrls() */
        public Builder tsdbMetricsUrls(List<String> tsdbMetricsUrls) {
            this.tsdbMetricsUrls = tsdbMetricsUrls;
            return this;
        }

        /** @see RunConfig#targetMetricsUrls() */
        public Builder targetMetricsUrls(List<String> targetMetricsUrls) {
            this.targetMetricsUrls = targetMetricsUrls;
            return this;
        }

        /** @see RunConfig#ordering() */
        public Builder ordering(Ordering ordering) {
            this.ordering = ordering;
            return this;
        }

        /** @see RunConfig#onConfigurationFault() */
        public Builder onConfigurationFault(ConfigurationFaultPolicy onConfigurationFault) {
            this.onConfigurationFault = onConfigurationFault;
            return this;
        }

        /** @see RunConfig#relabel() */
        public Builder relabel(RelabelRules relabel) {
            this.relabel = relabel;
            return this;
        }

        /** @see RunConfig#tenants() */
        public Builder tenants(TenantRouting tenants) {
            this.tenants = tenants;
            return this;
        }

        /** @see RunConfig#maxHourlySeries() */
        public Builder maxHourlySeries(long maxHourlySeries) {
            this.maxHourlySeries = maxHourlySeries;
            return this;
        }

        /** @see RunConfig#maxDailySeries() */
        public Builder maxDailySeries(long maxDailySeries) {
            this.maxDailySeries = maxDailySeries;
            return this;
        }

        /**
         * The configuration of the values set.
         *
         * @throws IllegalArgumentException naming the flag whose value is out of range (as the constructor)
         * @throws NullPointerException when a required value is not set
         */
        public RunConfig build() {
            return new RunConfig(
                    bootstrapServers,
                    topics,
                    groupId,
                    vmUrls,
                    timeMultiplier,
                    instanceMultiplier,
                    sourceInterval,
                    parallelism,
                    segmentSize,
                    maxConcurrentWrites,
                    maxRetries,
                    batchSamples,
                    batchSendDeadline,
                    reportInterval,
                    stopAtEnd,
                    summaryJson,
                    commitInterval,
                    drainTimeout,
                    callTimeout,
                    gzip,
                    metricsPort,
                    onWriteFailure,
                    deadLetterTopic,
                    maxInflightBytes,
                    maxRecordBytes,
                    seriesCacheSize,
                    maxBackoff,
                    consumerProperties,
                    syncWrites,
                    metricsAddress,
                    membership,
                    kafkaClient,
                    vmHttp,
                    input,
                    output,
                    remoteWriteUrls,
                    writeFaultTimeout,
                    topicPattern,
                    replay,
                    remoteWriteVersion,
                    consumerMode,
                    durabilityWindow,
                    tsdbMetricsUrls,
                    targetMetricsUrls,
                    ordering,
                    onConfigurationFault,
                    relabel,
                    tenants,
                    maxHourlySeries,
                    maxDailySeries);
        }
    }

    /** The topics for logs: the {@code --topic}s, or the pattern. */
    public String topicsText() {
        return topicPattern == null ? String.join(",", topics) : "pattern " + topicPattern.pattern();
    }

    /** Where writes go: the {@code --remote-write-url}s for remote write, else the {@code --vm-url}s. */
    public List<String> writeUrls() {
        return output == Output.REMOTE_WRITE ? remoteWriteUrls : vmUrls;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private static void requireSeriesLimit(String flag, long max, int instanceMultiplier) {
        require(
                max >= 0 && max <= SeriesLimiter.MAX_LIMIT,
                flag + " must be in 0.." + SeriesLimiter.MAX_LIMIT + " (0 = no limit), got " + max);
        require(
                max == 0 || max >= instanceMultiplier,
                flag + " " + max + " is below --instance-multiplier " + instanceMultiplier
                        + ": a series' N instance variants are admitted together, so none would be written");
    }

    /** Whether {@code --max-hourly-series} or {@code --max-daily-series} is set. */
    public boolean limitsSeries() {
        return maxHourlySeries > 0 || maxDailySeries > 0;
    }

    /** {@code --tsdb-metrics-url none}: the writer reads no TSDB's {@code /metrics}, the write targets' included. */
    public static final String NO_TSDB_METRICS = "none";

    /**
     * Whether the writer reads the TSDB's {@code /metrics} pages (the targets' and {@code --tsdb-metrics-url}'s): false with
     * {@code --tsdb-metrics-url none} — then no restart is watched, the write permits are the fallback and no retention
     * is read (a receiver that records every request, or serves no such page, should not be probed).
     */
    public boolean readsTsdbMetrics() {
        return !tsdbMetricsUrls.contains(NO_TSDB_METRICS);
    }
}
