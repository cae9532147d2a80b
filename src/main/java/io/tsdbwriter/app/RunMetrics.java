package io.tsdbwriter.app;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.metrics.MetricsServer;
import io.tsdbwriter.metrics.WriterMeters;
import java.io.IOException;
import java.net.BindException;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of one {@code run} and the endpoint that serves them: a Prometheus registry with the JVM's memory, thread,
 * processor and GC meters and the writer's own ({@link WriterMeters}), and, unless {@code --metrics-port -1}, the
 * {@code /metrics} and {@code /health} server ({@link MetricsServer}).
 *
 * <p>Made, started and closed by the thread of {@link WriterService#run()}, once each; the registry and the meters it
 * hands out are thread-safe, this holder is not.
 */
final class RunMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RunMetrics.class);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc;
    private final WriterMeters meters;
    private MetricsServer server;

    RunMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        gc = new JvmGcMetrics();
        gc.bindTo(registry);
        meters = new WriterMeters(registry);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    WriterMeters meters() {
        return meters;
    }

    /**
     * Serves {@code /metrics} and {@code /health} on {@code address:port}: a taken port is a fault (exit 1), an address not
     * of this host a usage error (2).
     *
     * @param ready what {@code /health/ready} answers
     */
    void startServer(String address, int port, BooleanSupplier ready) throws StartFailed {
        try {
            server = new MetricsServer(address, port, registry, ready);
        } catch (BindException e) {
            boolean inUse =
                    String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("in use");
            log.error(
                    "--metrics-port {} on --metrics-address {}: {} ({})",
                    port,
                    address,
                    e.getMessage(), // troubleshooting: another process holds it: pick another port, 0 = any free
                    // one, -1 = no metrics endpoint | not an address of this host
                    inUse
                            ? "another process holds it: pick another port, 0 = any free one, -1 = no metrics endpoint"
                            : "not an address of this host");
            throw new StartFailed(inUse ? ExitCodes.FAULT : ExitCodes.USAGE);
        } catch (IOException | RuntimeException e) {
            log.error(
                    "--metrics-address {} cannot be bound: {} (give an address of this host, e.g. 0.0.0.0 or 127.0.0.1)",
                    address,
                    e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            throw new StartFailed(ExitCodes.USAGE);
        }
        log.info("metrics on http://{}:{}/metrics", address, server.port());
    }

    /** Stops the server (when started), then the GC meters, then the registry. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        gc.close();
        registry.close();
    }
}
