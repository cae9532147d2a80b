package io.tsdbwriter.lab;

import java.net.URI;

/**
 * One cell of the benchmark grid: how one writer process is run.
 *
 * @param parallelism        P, SegmentConsumers per partition ({@code run --parallelism})
 * @param timeMultiplier     M ({@code run --time-multiplier})
 * @param instanceMultiplier N ({@code run --instance-multiplier})
 * @param writeMode          {@code async} or {@code sync} ({@code run --write-mode})
 * @param output             {@code import}, {@code remote-write} or {@code remote-write-2} ({@code run --output}, the
 *                           last with {@code --remote-write-version 2})
 * @param receiver           the remote write URL of a remote-write cell ({@code run --remote-write-url}), or the base URL
 *                           of an import cell's own VictoriaMetrics ({@code run --vm-url}, bench
 *                           {@code --victoria-metrics-binary}); null for a cell whose receiver the runner's default names
 * @param shareProcesses     0: one writer process in a consumer group ({@code --consumer-mode segments}); K &gt; 0: K writer
 *                           processes at once in one share group ({@code --consumer-mode share}), each with
 *                           {@code parallelism} share consumers
 */
public record BenchCell(
        int parallelism,
        int timeMultiplier,
        int instanceMultiplier,
        String writeMode,
        String output,
        String receiver,
        int shareProcesses) {

    /** The lab's name of remote write cells in Remote-Write 2.0 ({@code run --output remote-write --remote-write-version 2}). */
    public static final String REMOTE_WRITE_2 = "remote-write-2";

    /** A segments-mode cell of the given output and receiver. */
    public BenchCell(
            int parallelism,
            int timeMultiplier,
            int instanceMultiplier,
            String writeMode,
            String output,
            String receiver) {
        this(parallelism, timeMultiplier, instanceMultiplier, writeMode, output, receiver, 0);
    }

    /** This cell run by {@code processes} writer processes in share mode, {@code parallelism} share consumers each. */
    public BenchCell share(int processes, int parallelismPerProcess) {
        return new BenchCell(
                parallelismPerProcess, timeMultiplier, instanceMultiplier, writeMode, output, receiver, processes);
    }

    /**
     * This cell writing to {@code url}, a receiver started for it: a remote write URL, or for an import cell its
     * VictoriaMetrics' base URL.
     */
    public BenchCell withReceiver(String url) {
        return new BenchCell(parallelism, timeMultiplier, instanceMultiplier, writeMode, output, url, shareProcesses);
    }

    /** True for a share-mode cell. */
    public boolean shareMode() {
        return shareProcesses > 0;
    }

    /** A cell of the import output. */
    public BenchCell(int parallelism, int timeMultiplier, int instanceMultiplier, String writeMode) {
        this(parallelism, timeMultiplier, instanceMultiplier, writeMode, "import");
    }

    /** A cell of the given output, its receiver the runner's default. */
    public BenchCell(int parallelism, int timeMultiplier, int instanceMultiplier, String writeMode, String output) {
        this(parallelism, timeMultiplier, instanceMultiplier, writeMode, output, null);
    }

    /**
     * {@code async}, {@code sync remote-write}, {@code async remote-write → host:port}, {@code async share×3}: write
     * mode, output, mode.
     */
    public String modeLabel() {
        String share = shareMode() ? " share×" + shareProcesses : "";
        return (remoteWrite() ? writeMode + " " + outputLabel() : writeMode) + share;
    }

    /** {@code remote-write}, or {@code remote-write → host:port} when the cell names its receiver; {@code import}. */
    public String outputLabel() {
        if (!remoteWrite() || receiver == null) {
            return output;
        }
        URI u = URI.create(receiver);
        return output + " → "
                + (u.getHost() == null ? receiver : u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort()));
    }

    /** True for {@code --output remote-write}, either version. */
    public boolean remoteWrite() {
        return output.startsWith("remote-write");
    }

    /** The {@code run --remote-write-version} of a remote write cell: 2 for {@code remote-write-2}, else 1. */
    public String remoteWriteVersion() {
        return REMOTE_WRITE_2.equals(output) ? "2" : "1";
    }

    /** Samples per source point: M × N. */
    public long samplesPerPoint() {
        return (long) timeMultiplier * instanceMultiplier;
    }

    /** The batch shape this cell writes (what its ceiling is measured for). */
    public Shape shape() {
        return new Shape(timeMultiplier, instanceMultiplier, output, remoteWrite() ? receiver : null);
    }

    /** {@code async P=3 M=12 N=1}. */
    public String label() {
        return modeLabel() + " P=" + parallelism + " M=" + timeMultiplier + " N=" + instanceMultiplier;
    }

    /**
     * The shape of a cell's requests: M samples per series, N series per source point, in the cell's protocol to its
     * receiver. The ceiling is measured once per shape, in the same protocol to the same receiver, so a remote write
     * cell is compared with what its receiver ingests of pre-serialized remote write requests, not import bodies.
     *
     * @param output   {@code import}, {@code remote-write} or {@code remote-write-2} (as {@link BenchCell#output})
     * @param receiver the remote write URL, or null for import and for the runner's default receiver
     */
    public record Shape(int timeMultiplier, int instanceMultiplier, String output, String receiver) {

        /** An import shape. */
        public Shape(int timeMultiplier, int instanceMultiplier) {
            this(timeMultiplier, instanceMultiplier, "import", null);
        }

        /** True for either remote write version. */
        public boolean remoteWrite() {
            return output.startsWith("remote-write");
        }

        /** {@code M=12 N=1}, then the protocol when it is not import: {@code M=12 N=1 remote-write}. */
        public String label() {
            return "M=" + timeMultiplier + " N=" + instanceMultiplier + (remoteWrite() ? " " + output : "");
        }
    }
}
