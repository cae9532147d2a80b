package io.tsdbwriter.it.support;

import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

/**
 * Where the real components of the integration tests come from: the one seam between {@link Stack} (what a test
 * declares) and how a Kafka broker, a VictoriaMetrics or a Prometheus is brought up. Each method starts one
 * component and returns its endpoint once it answers; the endpoint's {@code close()} stops it and frees what it holds.
 *
 * <p>Two implementations: {@link LocalComponents}, the child processes of this package ({@link KafkaBroker},
 * {@link VictoriaMetrics}, {@link PrometheusServer}) on free loopback ports; and {@link ContainerComponents}, Kafka and
 * VictoriaMetrics as Docker containers through Testcontainers (Prometheus, a SASL_SSL or feature-formatted broker and a
 * VictoriaMetrics with host-bound flags still local: see its class doc). {@link #choose()} is the one place that picks.
 *
 * <p>What stays outside the seam: in-JVM helpers ({@link FaultProxy}, {@link MtlsProxy}), the writer itself
 * ({@link WriterProcess}, always the jar under test) and the special-purpose servers of a few scenarios
 * ({@link ChildServer}: vmauth, VictoriaMetrics with TLS on its listener).
 */
public interface Components {

    /**
     * The implementation for this run, decided once per JVM and said once on stderr ({@code [components] ...}):
     * <ul>
     *   <li>{@code -Dtsdbwriter.it.components=local}: {@link LocalComponents};</li>
     *   <li>{@code -Dtsdbwriter.it.components=containers}: {@link ContainerComponents}, failing every IT's start with
     *       the reason when no Docker engine answers or the images cannot be built;</li>
     *   <li>unset (or {@code auto}): {@link ContainerComponents} when a Docker engine answers and the local images exist
     *       or can be built ({@link ContainerImages#dockerAvailable()}, {@link ContainerImages#ensureImages()}),
     *       else {@link LocalComponents}.</li>
     * </ul>
     */
    static Components choose() {
        return ContainerComponents.Choice.components();
    }

    /**
     * Starts a single-node KRaft Kafka (broker and controller) with its files under {@code dir}.
     *
     * @param dir     a directory of its own (created; must not hold a broker yet)
     * @param options listeners and features beyond the plain PLAINTEXT broker
     */
    KafkaEndpoint startKafka(Path dir, KafkaOptions options);

    /**
     * Starts a single-node VictoriaMetrics with its data under {@code dir}.
     *
     * @param flags extra command-line flags, e.g. {@code -promscrape.config=...}
     */
    VmEndpoint startVictoriaMetrics(Path dir, VmVersion version, List<String> flags);

    /**
     * Starts a Prometheus with its data under {@code dir}.
     *
     * @param outOfOrderWindow    {@code storage.tsdb.out_of_order_time_window}, null = not set
     * @param remoteWriteReceiver false leaves the remote write receiver off ({@code /api/v1/write} answers 404)
     * @param acceptedMessages    {@link PrometheusVersion#CURRENT} only: the protobuf messages its receiver accepts
     */
    PrometheusEndpoint startPrometheus(
            Path dir,
            PrometheusVersion version,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            String... acceptedMessages);

    /** Why {@code version} cannot be started here (for an assumption), or null when it can. */
    String unavailable(VmVersion version);

    /** Why {@code version} cannot be started here (for an assumption), or null when it can. */
    String unavailable(PrometheusVersion version);

    // ---------------------------------------------------------------------------------------------------- options

    /** Which VictoriaMetrics build. */
    enum VmVersion {
        /**
         * The build this failsafe execution runs ({@code -Dtsdbwriter.vm.binary}, {@code tsdbwriter.vm.version}): the
         * Debian package (1.79.5) by default, today's release in the {@code vm-current} execution (pom.xml).
         */
        CONFIGURED,
        /** Today's release whatever the execution ({@link VictoriaMetrics#CURRENT_BINARY}): its OpenTelemetry endpoint. */
        CURRENT
    }

    /** Which Prometheus build. */
    enum PrometheusVersion {
        /** The Debian package, 2.42 ({@code -Dtsdbwriter.prometheus.binary} overrides). */
        DEBIAN,
        /** Prometheus 3 ({@link PrometheusServer#CURRENT_BINARY}), the Remote-Write 2.0 receiver. */
        CURRENT
    }

    /**
     * A broker beyond the plain one.
     *
     * @param saslSsl  an extra SASL_SSL listener, or null
     * @param features features finalized at format time, e.g. {@code share.version=0}
     */
    record KafkaOptions(KafkaBroker.SaslSsl saslSsl, List<String> features) {
        /** The plain broker: PLAINTEXT only, default features. */
        public static final KafkaOptions PLAIN = new KafkaOptions(null, List.of());

        public KafkaOptions {
            features = List.copyOf(features);
        }

        /** With features finalized at format time. */
        public static KafkaOptions features(String... features) {
            return new KafkaOptions(null, List.of(features));
        }

        /** With a SASL_SSL listener. */
        public static KafkaOptions saslSsl(KafkaBroker.SaslSsl saslSsl) {
            return new KafkaOptions(saslSsl, List.of());
        }
    }

    // ---------------------------------------------------------------------------------------------------- endpoints

    /** A running Kafka broker. Lifecycle methods keep its address and data. */
    interface KafkaEndpoint extends AutoCloseable {
        /** {@code host:port} of the PLAINTEXT listener. */
        String bootstrapServers();

        /** {@code host:port} of the SASL_SSL listener. @throws IllegalStateException when started without one */
        String saslSslBootstrapServers();

        /** Admin client properties (short timeouts). */
        Properties adminProperties();

        /** Creates a topic (replication factor 1) and waits for its leaders. */
        void createTopic(String name, int partitions);

        /** As {@link #createTopic(String, int)}, with topic configs. */
        void createTopic(String name, int partitions, Map<String, String> configs);

        /** Clean shutdown. */
        void stop();

        /** Crash (kill -9). */
        void kill();

        /** Starts it again on the same address and data; waits until it answers. */
        void restart();

        /** Stops it and frees its address. Idempotent. */
        @Override
        void close();
    }

    /** A running single-node VictoriaMetrics. Lifecycle methods keep its address and data. */
    interface VmEndpoint extends AutoCloseable {
        /** Base URL, no trailing slash. */
        String url();

        /** The HTTP port. */
        int port();

        /** {@code /internal/force_flush}. */
        void forceFlush();

        /** {@code /api/v1/export} lines over the whole time range (no flush first). */
        List<String> export(String match);

        /** Force-flush and export until {@code done} accepts the lines or the timeout passes; the last export. */
        List<String> awaitExport(String match, Predicate<List<String>> done, Duration timeout);

        /** POSTs JSON lines to {@code /api/v1/import}; the status. */
        int importLines(String jsonLines);

        /** GET {@code url() + pathAndQuery}. */
        HttpResponse<String> get(String pathAndQuery);

        /** Graceful stop. */
        void stop();

        /** Crash (kill -9). */
        void kill();

        /** Starts it again on the same address and data; waits for health. */
        void restart();

        /** Stops it and frees its address. Idempotent. */
        @Override
        void close();
    }

    /** A running Prometheus (remote write receiver). Lifecycle methods keep its address and data. */
    interface PrometheusEndpoint extends AutoCloseable {
        /** Base URL. */
        String url();

        /** {@code <url>/api/v1/write}. */
        String remoteWriteUrl();

        /** Exact read-back of {@code expected} from the series matching {@code selector}. */
        VerificationResult readBack(String selector, ExpectedSamples expected) throws IOException, InterruptedException;

        /** {@link #readBack} until it passes or the timeout passes; the last result. */
        VerificationResult readBackWithin(String selector, ExpectedSamples expected, Duration timeout)
                throws IOException, InterruptedException;

        /** Crash (kill -9). */
        void kill();

        /** Starts it again on the same address and data (WAL replayed). */
        void restart();

        /** Stops it and frees its address. Idempotent. */
        @Override
        void close();
    }
}
