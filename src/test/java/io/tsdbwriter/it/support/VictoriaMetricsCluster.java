package io.tsdbwriter.it.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import okhttp3.OkHttpClient;

/**
 * A real VictoriaMetrics cluster as child processes on free loopback ports: {@code storageNodes} vmstorage, one
 * vminsert and one vmselect, the release's {@code -cluster} build ({@code pom.xml victoriametrics.cluster.version},
 * built by {@code scripts/lib.sh ensure_victoria_metrics_cluster} into {@code ~/.cache/tsdb-writer/bin}; another
 * directory with {@code -Dtsdbwriter.vmcluster.dir}). {@link #unavailable()} says when the binaries are missing.
 *
 * <p>What it starts: each vmstorage with {@code -storageDataPath=<dir>/vmstorage-<i> -retentionPeriod=100y
 * -dedup.minScrapeInterval=1ms} and its own {@code -vminsertAddr} and {@code -vmselectAddr}; vminsert and vmselect with
 * {@code -storageNode} naming every vmstorage, vmselect with {@code -dedup.minScrapeInterval=1ms -search.disableCache}:
 * as docker-compose.yml runs them. Logs: {@code <dir>/<name>.log}. Each process waits for its {@code /health}.
 *
 * <p>URLs: {@link #insertUrl()} (tenant 0's Prometheus path of vminsert: the writer's {@code --vm-url}),
 * {@link #selectUrl()} (tenant 0's Prometheus path of vmselect: {@code verify --vm-url}), {@link #storageUrls()} (each
 * vmstorage's base URL, which serves {@code /internal/force_flush}). {@link #close()} stops vmselect, vminsert, then the
 * vmstorage nodes (SIGTERM) and releases every port. Thread-safe lifecycle (synchronized).
 */
public final class VictoriaMetricsCluster implements AutoCloseable {

    /** Where the cluster's binaries are looked for. */
    public static final Path BIN_DIR = Path.of(System.getProperty(
            "tsdbwriter.vmcluster.dir",
            Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin").toString()));

    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<String> storageUrls = new ArrayList<>();
    private String insertUrl;
    private String selectUrl;
    private boolean closed;

    private VictoriaMetricsCluster() {}

    /** Null when the three binaries are there, else why not (for an assumption). */
    public static String unavailable() {
        for (String app : List.of("vmstorage", "vminsert", "vmselect")) {
            if (!GoBuilds.built(BIN_DIR.resolve(app))) {
                return BIN_DIR.resolve(app) + " not built: scripts/test.sh builds the cluster (scripts/lib.sh "
                        + "ensure_victoria_metrics_cluster, go install of VictoriaMetrics' -cluster tag)";
            }
        }
        return null;
    }

    /**
     * Starts the cluster under {@code dir} and returns once every process answers {@code /health}.
     *
     * @throws IllegalStateException when a binary is missing or a process does not become healthy (with its log's tail)
     */
    public static VictoriaMetricsCluster start(Path dir, int storageNodes) {
        String why = unavailable();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        VictoriaMetricsCluster c = new VictoriaMetricsCluster();
        OkHttpClient health = new OkHttpClient();
        try {
            List<String> insertNodes = new ArrayList<>();
            List<String> selectNodes = new ArrayList<>();
            for (int i = 0; i < storageNodes; i++) {
                FreePorts.Reservation insertPort = c.own(FreePorts.reserve());
                FreePorts.Reservation selectPort = c.own(FreePorts.reserve());
                Path data = dir.resolve("vmstorage-" + i);
                ChildServer storage = c.own(ChildServer.start(
                        BIN_DIR.resolve("vmstorage"),
                        dir,
                        "vmstorage-" + i,
                        false,
                        health,
                        port -> List.of(
                                "-storageDataPath=" + data,
                                "-vminsertAddr=127.0.0.1:" + insertPort.port(),
                                "-vmselectAddr=127.0.0.1:" + selectPort.port(),
                                "-retentionPeriod=100y",
                                "-dedup.minScrapeInterval=1ms")));
                c.storageUrls.add(storage.url());
                insertNodes.add("127.0.0.1:" + insertPort.port());
                selectNodes.add("127.0.0.1:" + selectPort.port());
            }
            ChildServer insert = c.own(ChildServer.start(
                    BIN_DIR.resolve("vminsert"),
                    dir,
                    "vminsert",
                    false,
                    health,
                    port -> List.of("-storageNode=" + String.join(",", insertNodes))));
            ChildServer select = c.own(ChildServer.start(
                    BIN_DIR.resolve("vmselect"),
                    dir,
                    "vmselect",
                    false,
                    health,
                    port -> List.of(
                            "-storageNode=" + String.join(",", selectNodes),
                            "-dedup.minScrapeInterval=1ms",
                            "-search.disableCache",
                            "-cacheDataPath=" + dir.resolve("vmselect-cache"))));
            c.insertUrl = insert.url() + "/insert/0/prometheus";
            c.selectUrl = select.url() + "/select/0/prometheus";
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    /** vminsert's {@code http://127.0.0.1:<port>/insert/0/prometheus}. */
    public synchronized String insertUrl() {
        return insertUrl;
    }

    /** vmselect's {@code http://127.0.0.1:<port>/select/0/prometheus}. */
    public synchronized String selectUrl() {
        return selectUrl;
    }

    /** Each vmstorage's {@code http://127.0.0.1:<port>}, in start order. */
    public synchronized List<String> storageUrls() {
        return List.copyOf(storageUrls);
    }

    /** Stops every process (the last started first) and releases the ports. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private synchronized <T extends AutoCloseable> T own(T resource) {
        started.add(resource);
        return resource;
    }
}
