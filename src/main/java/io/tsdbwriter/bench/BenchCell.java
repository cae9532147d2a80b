package io.tsdbwriter.bench;

/**
 * One cell of the benchmark grid: how one writer process is run.
 *
 * @param parallelism        P, SegmentConsumers per partition ({@code run --parallelism})
 * @param timeMultiplier     M ({@code run --time-multiplier})
 * @param instanceMultiplier N ({@code run --instance-multiplier})
 * @param writeMode          {@code async} or {@code sync} ({@code run --write-mode})
 * @param output             {@code import} or {@code remote-write} ({@code run --output})
 */
public record BenchCell(int parallelism, int timeMultiplier, int instanceMultiplier, String writeMode, String output) {

    /** A cell of the import output. */
    public BenchCell(int parallelism, int timeMultiplier, int instanceMultiplier, String writeMode) {
        this(parallelism, timeMultiplier, instanceMultiplier, writeMode, "import");
    }

    /** True for {@code --output remote-write}. */
    public boolean remoteWrite() {
        return "remote-write".equals(output);
    }

    /** Samples per source point: M × N. */
    public long samplesPerPoint() {
        return (long) timeMultiplier * instanceMultiplier;
    }

    /** The batch shape this cell writes (what its ceiling is measured for). */
    public Shape shape() {
        return new Shape(timeMultiplier, instanceMultiplier);
    }

    /** {@code async P=3 M=12 N=1}. */
    public String label() {
        return writeMode + (remoteWrite() ? " remote-write" : "") + " P=" + parallelism + " M=" + timeMultiplier + " N=" + instanceMultiplier;
    }

    /**
     * The shape of the import requests of a cell: M samples per line, N lines per source point. The ceiling is
     * measured once per shape.
     */
    public record Shape(int timeMultiplier, int instanceMultiplier) {

        /** {@code M=12 N=1}. */
        public String label() {
            return "M=" + timeMultiplier + " N=" + instanceMultiplier;
        }
    }
}
