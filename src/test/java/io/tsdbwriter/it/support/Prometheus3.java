package io.tsdbwriter.it.support;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Prometheus 3 ({@link PrometheusServer#CURRENT_BINARY}) as the oracle tests start it: waited for while the test command
 * builds it, the tests skipped where it is not built, a remote write receiver of both versions for the writer, and
 * its own OTLP receiver fed the requests that the writer's output is compared with. Stateless; thread-safe.
 */
public final class Prometheus3 {

    private Prometheus3() {}

    /**
     * For a {@code @BeforeAll}: waits while the test command still builds Prometheus 3 ({@link GoBuilds#built}), so
     * outside the tests' timeouts, and skips the class (an assumption) when it is not built.
     */
    public static void assumeBuilt() {
        Assumptions.assumeTrue(GoBuilds.built(PrometheusServer.CURRENT_BINARY), "Prometheus 3 is not built");
    }

    /**
     * Prometheus 3 in {@code workDir}, ready, as a remote write receiver of both 1.0 ({@code prometheus.WriteRequest})
     * and 2.0 ({@code io.prometheus.write.v2.Request}), {@code --enable-feature} set to {@code features} (none when
     * empty). The caller closes it.
     *
     * @throws IllegalStateException when the binary is missing or it does not become ready
     */
    public static PrometheusServer receiver(Path workDir, List<String> features) {
        return PrometheusServer.startCurrent(
                workDir, null, features, "prometheus.WriteRequest", "io.prometheus.write.v2.Request");
    }

    /**
     * Prometheus 3 in {@code workDir}, ready, with its OTLP receiver ({@code --web.enable-otlp-receiver}),
     * {@code --enable-feature} set to {@code features} ({@code exemplar-storage}, …; none when empty) and {@code config}
     * appended to its configuration ({@link PrometheusServer#startCurrentWith(Path, Duration, List, String)}; empty for
     * none), each of {@code requests} POSTed to its {@code /api/v1/otlp/v1/metrics} in order. The caller closes it.
     *
     * @throws AssertionError when a request is not answered 200 (the server is closed then)
     * @throws IllegalStateException when the binary is missing or it does not become ready
     */
    public static PrometheusServer otlpOracle(
            Path workDir, List<String> features, String config, List<ExportMetricsServiceRequest> requests)
            throws Exception {
        List<String> flags = new ArrayList<>(List.of("--web.enable-otlp-receiver"));
        if (!features.isEmpty()) {
            flags.add("--enable-feature=" + String.join(",", features));
        }
        PrometheusServer oracle = PrometheusServer.startCurrentWith(workDir, null, flags, config);
        try {
            for (ExportMetricsServiceRequest r : requests) {
                OtlpRequests.post(oracle.url() + "/api/v1/otlp/v1/metrics", r, 200);
            }
            return oracle;
        } catch (Exception | AssertionError e) {
            oracle.close();
            throw e;
        }
    }
}
