package io.tsdbwriter.it.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@link Components} as child processes on free loopback ports: {@link KafkaBroker} (the {@code kafka_2.13} artifact
 * on the test classpath, in a child JVM), {@link VictoriaMetrics} and {@link PrometheusServer} (their binaries; see
 * each class for which and how to override). Stateless; thread-safe.
 */
public final class LocalComponents implements Components {

    static final LocalComponents INSTANCE = new LocalComponents();

    private LocalComponents() {}

    @Override
    public KafkaEndpoint startKafka(Path dir, KafkaOptions options) {
        return KafkaBroker.start(dir, options.saslSsl(), options.features());
    }

    @Override
    public VmEndpoint startVictoriaMetrics(Path dir, VmVersion version, List<String> flags) {
        String[] f = flags.toArray(String[]::new);
        return switch (version) {
            case CONFIGURED -> VictoriaMetrics.start(dir, f);
            case CURRENT -> VictoriaMetrics.startCurrent(dir, f);
        };
    }

    @Override
    public PrometheusEndpoint startPrometheus(
            Path dir,
            PrometheusVersion version,
            Duration outOfOrderWindow,
            boolean remoteWriteReceiver,
            String... acceptedMessages) {
        return switch (version) {
            case DEBIAN -> {
                if (acceptedMessages.length > 0) {
                    throw new IllegalArgumentException(
                            "Prometheus 2.42 takes Remote-Write 1.0 only: no accepted messages to set");
                }
                yield PrometheusServer.start(dir, outOfOrderWindow, remoteWriteReceiver);
            }
            case CURRENT -> {
                if (!remoteWriteReceiver) {
                    throw new IllegalArgumentException("Prometheus 3 is started as a remote write receiver only");
                }
                yield PrometheusServer.startCurrent(dir, outOfOrderWindow, acceptedMessages);
            }
        };
    }

    @Override
    public String unavailable(VmVersion version) {
        return switch (version) {
            case CONFIGURED -> null; // VictoriaMetrics.start says what is missing
            case CURRENT ->
                GoBuilds.built(VictoriaMetrics.CURRENT_BINARY)
                        ? null
                        : VictoriaMetrics.CURRENT_BINARY
                                + " not built (scripts/lib.sh ensure_victoria_metrics_current)";
        };
    }

    @Override
    public String unavailable(PrometheusVersion version) {
        return switch (version) {
            case DEBIAN -> null; // PrometheusServer.start says what is missing
            case CURRENT ->
                GoBuilds.built(PrometheusServer.CURRENT_BINARY)
                        ? null
                        : PrometheusServer.CURRENT_BINARY + " not built (scripts/lib.sh ensure_prometheus_current)";
        };
    }

    @Override
    public String toString() {
        return "local child processes";
    }
}
