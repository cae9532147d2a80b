package io.tsdbwriter.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.config.ConsumerMode;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.durability.DurabilityNeed;
import io.tsdbwriter.durability.TsdbWatch;
import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteOutcome;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.SafeUrl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@code tsdb-writer check}: what a {@code run} of a {@link RunConfig} would meet at start, looked at without writing a
 * sample or committing an offset. Kafka through one Admin client only (the cluster, each topic or the
 * {@code --topic-pattern}'s, the consumer group's committed offsets read back, the dead-letter topic): no consumer joins
 * a group, no topic is created. Each write target through {@code run}'s own write client and start-up probes: the empty
 * request {@code run} sends to tell a data refusal from a misconfigured endpoint (it writes nothing), the insert
 * capacity it sizes its write permits from ({@link PermitSizing#preview()}) and the {@code /metrics} pages whose
 * durability window it would use ({@link TsdbWatch}, read once, not started). Each check is one {@link CheckResult};
 * every exception of a check becomes its FAIL. Not thread-safe: one check per instance, on the calling thread.
 */
// java.util.concurrent.TimeoutException (caught) and Kafka's TimeoutException (a cause) share a simple name
@SuppressWarnings("checkstyle:inlineQualifiedName")
public final class ConfigCheck {

    /** How long each Kafka Admin call may take. */
    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(15);

    private final RunConfig cfg;
    private final Consumer<CheckResult> each;
    private final List<CheckResult> results = new ArrayList<>();

    /** @param each told of every result as it is found (to print it at once) */
    public ConfigCheck(RunConfig cfg, Consumer<CheckResult> each) {
        this.cfg = cfg;
        this.each = each;
    }

    /** Runs every check: Kafka's, then the write targets'. @return the results, in the order found */
    public List<CheckResult> run() {
        kafka();
        targets();
        return List.copyOf(results);
    }

    private void add(CheckResult r) {
        results.add(r);
        each.accept(r);
    }

    // ---- Kafka

    private void kafka() {
        String bootstrap = cfg.kafkaClient().bootstrapServers();
        Map<String, Object> props = new HashMap<>(cfg.kafkaClient().clientProperties());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-check");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) KAFKA_TIMEOUT.toMillis());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) KAFKA_TIMEOUT.toMillis());
        Admin admin;
        try {
            admin = Admin.create(props);
        } catch (RuntimeException e) {
            add(CheckResult.fail("kafka", "no client for " + bootstrap + ": " + reason(e)));
            return;
        }
        try (admin) {
            try {
                Collection<Node> nodes = get(admin.describeCluster().nodes());
                add(CheckResult.ok(
                        "kafka", nodes.size() + (nodes.size() == 1 ? " broker" : " brokers") + " at " + bootstrap));
            } catch (Failed e) {
                add(CheckResult.fail("kafka", kafkaFailure(bootstrap, e)));
                return;
            }
            List<String> existing = new ArrayList<>();
            for (String t : topics(admin)) {
                if (topic(admin, "topic " + t, t, MissingTopicException::new)) {
                    existing.add(t);
                }
            }
            if (!existing.isEmpty()) {
                group(admin, existing);
            }
            if (cfg.deadLetterTopic() != null && !cfg.deadLetterTopic().isBlank()) {
                topic(
                        admin,
                        "dead-letter topic " + cfg.deadLetterTopic(),
                        cfg.deadLetterTopic(),
                        t -> new IllegalStateException(
                                "topic '" + t
                                        + "' does not exist (the writer never creates topics): create it or check --dead-letter-topic"));
            }
        }
    }

    /** The topics {@code run} would read: {@code --topic}, or those matching {@code --topic-pattern} now. */
    private List<String> topics(Admin admin) {
        if (cfg.topicPattern() == null) {
            if (cfg.topics().isEmpty()) {
                add(CheckResult.fail("topic", "no --topic nor --topic-pattern given"));
            }
            return cfg.topics();
        }
        String subject = "topic pattern " + cfg.topicPattern().pattern();
        try {
            List<String> matching = get(admin.listTopics().names()).stream()
                    .filter(t -> cfg.topicPattern().matcher(t).matches())
                    .sorted()
                    .toList();
            if (matching.isEmpty()) {
                add(CheckResult.fail(
                        subject,
                        MissingTopicException.noMatch(cfg.topicPattern()).getMessage()));
            } else {
                add(CheckResult.ok(subject, "matches " + String.join(", ", matching)));
            }
            return matching;
        } catch (Failed e) {
            add(CheckResult.fail(subject, "topics not listed: " + kafkaFailure(cfg.bootstrapServers(), e)));
            return List.of();
        }
    }

    /** One topic described: its partitions, or why not. @return whether it exists */
    private boolean topic(Admin admin, String subject, String topic, Function<String, RuntimeException> missing) {
        try {
            TopicDescription d =
                    get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
            int partitions = d.partitions().size();
            add(CheckResult.ok(subject, partitions + (partitions == 1 ? " partition" : " partitions")));
            return true;
        } catch (Failed e) {
            add(CheckResult.fail(
                    subject,
                    e.getCause() instanceof UnknownTopicOrPartitionException
                            ? missing.apply(topic).getMessage()
                            : "not described: " + kafkaFailure(cfg.bootstrapServers(), e)));
            return false;
        }
    }

    /**
     * The group's committed offsets, read back (an OffsetFetch: the group is neither joined nor created): where a
     * {@code run} would start. A replay joins no group; a share group is not read.
     */
    private void group(Admin admin, List<String> topics) {
        if (cfg.replay().replay() || cfg.consumerMode() == ConsumerMode.SHARE) {
            return;
        }
        String subject = "group " + cfg.groupId();
        try {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    get(admin.listConsumerGroupOffsets(cfg.groupId()).partitionsToOffsetAndMetadata());
            long ours = committed.entrySet().stream()
                    .filter(e ->
                            e.getValue() != null && topics.contains(e.getKey().topic()))
                    .count();
            add(CheckResult.ok(
                    subject,
                    ours == 0
                            ? "no committed offset on the topics (a first run starts where auto.offset.reset says)"
                            : "committed offsets on " + ours + (ours == 1 ? " partition" : " partitions")
                                    + " of the topics (a run goes on from them)"));
        } catch (Failed e) {
            add(CheckResult.fail(subject, "offsets not read: " + kafkaFailure(cfg.bootstrapServers(), e)));
        }
    }

    /** A Kafka call that did not succeed: its cause (an {@link ExecutionException}'s) or the timeout. */
    private static final class Failed extends Exception {
        Failed(Throwable cause) {
            super(cause);
        }
    }

    private static <T> T get(KafkaFuture<T> f) throws Failed {
        try {
            return f.get(KAFKA_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new Failed(e.getCause());
        } catch (TimeoutException e) {
            throw new Failed(new org.apache.kafka.common.errors.TimeoutException(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failed(e);
        } catch (RuntimeException e) {
            throw new Failed(e);
        }
    }

    private static String kafkaFailure(String bootstrap, Failed e) {
        Throwable c = e.getCause();
        if (c instanceof AuthenticationException || c instanceof AuthorizationException) {
            return KafkaReachability.refused(bootstrap, (RuntimeException) c);
        }
        if (c instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "bootstrap servers " + bootstrap + " unreachable (no answer within " + KAFKA_TIMEOUT.toSeconds()
                    + "s)";
        }
        return reason(c);
    }

    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    // ---- the write targets

    private void targets() {
        List<WriteTarget> endpoints;
        HttpClientSecurity security;
        try {
            endpoints = WriterService.endpoints(cfg);
            security = HttpClientSecurity.of(cfg.vmHttp(), cfg.writeUrls());
        } catch (RuntimeException e) {
            add(CheckResult.fail("target", reason(e)));
            return;
        }
        try (WriteClient client = WriterService.writeClient(cfg, security)) {
            boolean reachable = true;
            for (WriteTarget t : endpoints) {
                reachable &= emptyRequest(client, t);
            }
            if (!reachable) {
                return; // the permits and the window are read from the targets' hosts
            }
            permits(client, endpoints);
            durability(client, endpoints);
        }
    }

    /** The empty request {@code run} sends to tell a data refusal from a misconfigured endpoint: it writes nothing. */
    private boolean emptyRequest(WriteClient client, WriteTarget t) {
        String subject = "target " + SafeUrl.redact(t.baseUrl());
        WriteOutcome o = client.probeEmpty(t, cfg.tenants().defaultTenant());
        if (o.isSuccess()) {
            add(CheckResult.ok(
                    subject,
                    "answered " + o.status() + " to an empty " + cfg.output().flag() + " request"
                            + (cfg.tenants().defaultTenant() != null
                                    ? " of tenant "
                                            + cfg.tenants().defaultTenant().id()
                                    : "")));
            return true;
        }
        add(CheckResult.fail(
                subject,
                (o.status() > 0 ? "answered " + o.status() : "no answer") + " to an empty request: " + o.detail()));
        return false;
    }

    private void permits(WriteClient client, List<WriteTarget> endpoints) {
        WritePermits permits = new WritePermits(PermitSizing.FALLBACK_PERMITS, (int) cfg.maxInflightBytes());
        try {
            List<String> sized =
                    WriterService.permitSizing(cfg, client, endpoints, permits).preview();
            add(CheckResult.ok("write permits", String.join("; ", sized)));
        } catch (RuntimeException e) {
            add(CheckResult.fail("write permits", reason(e)));
        }
    }

    /** The durability window {@code run} would use, and every {@code /metrics} page it would watch answering. */
    private void durability(WriteClient client, List<WriteTarget> endpoints) {
        Duration window = cfg.durabilityWindow();
        if (window != null && window.isZero()) {
            add(CheckResult.warn(
                    "durability",
                    "--durability-window 0: offsets committed on the TSDB's 2xx, no TSDB restart watched"));
            return;
        }
        if (!cfg.readsTsdbMetrics()) {
            add(CheckResult.warn(
                    "durability",
                    "window " + (window != null ? window : DurabilityNeed.UNKNOWN).toSeconds()
                            + "s, no TSDB /metrics read (--tsdb-metrics-url none): no TSDB restart watched"));
            return;
        }
        try (TsdbWatch watch =
                WriterService.tsdbWatch(cfg, client, endpoints, new WriterMeters(new SimpleMeterRegistry()))) {
            for (String page : watch.unanswered()) {
                add(CheckResult.fail(
                        "metrics " + page,
                        "no answer: run would commit nothing until it answers (--tsdb-metrics-url says which pages"
                                + " are watched)"));
            }
            add(CheckResult.ok(
                    "durability",
                    "window " + watch.window().toSeconds() + "s"
                            + (window != null ? " (--durability-window)" : "") + "; watching "
                            + watch.describe()));
        } catch (RuntimeException e) {
            add(CheckResult.fail("durability", reason(e)));
        }
    }
}
