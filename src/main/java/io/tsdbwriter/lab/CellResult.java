package io.tsdbwriter.lab;

/**
 * What one writer process achieved in one grid cell, from its {@code --summary-json} and the bench's own
 * measurements of VictoriaMetrics and the machine around it.
 *
 * <p>Backlog cells: expected and actual rates are the writer's samples expected and written over its elapsed time
 * (start of consumption to the last acknowledged write); efficiency = written ÷ expected. Live cells: expected is
 * what the producer sent during the window × M × N, actual is what the writer wrote by the end of the window;
 * both per minute of the window.
 *
 * @param cell              the grid cell
 * @param live              live mode (input produced at a rate while the writer ran) rather than a backlog
 * @param exitCode          the writer's exit code (-1: killed after the cell timeout)
 * @param points            source points consumed by the writer
 * @param samplesExpected   samples that should have been written (see above)
 * @param samplesWritten    samples VictoriaMetrics acknowledged (2xx)
 * @param seconds           the time base of the rates: the writer's write time (backlog: its summary's write_seconds, start to
 *                          the last 2xx, without the durability window it waits after) or the window (live)
 * @param writerCpuSeconds  CPU time of the writer process (all its threads, JVM start included)
 * @param vmCpuSeconds      growth of VictoriaMetrics' {@code process_cpu_seconds_total} from the writer's start until
 *                          VictoriaMetrics settled after it (background merges of the cell's data included)
 * @param peakHeapBytes     the writer's peak heap use
 * @param otherCpuSeconds   CPU time of everything else on the machine meanwhile (Kafka, the bench, other users):
 *                          busy time from {@code /proc/stat} minus writer and VictoriaMetrics; NaN where unknown
 * @param loadAverage       1-minute load average at the end of the cell
 * @param inputPointsPerSecond live cells: the rate the producer achieved; NaN for backlog cells
 * @param delays            the writer's ingest delay p50/p99 over its whole run, from its summary
 *                          ({@link IngestDelays#NONE} without one; a backlog's is measured from records produced before
 *                          the writer started, so it includes the wait for the writer)
 * @param histograms        the histogram share's figures ({@link HistogramShare}); {@link Histograms#NONE} without one
 */
public record CellResult(
        BenchCell cell,
        boolean live,
        int exitCode,
        long points,
        long samplesExpected,
        long samplesWritten,
        double seconds,
        double writerCpuSeconds,
        double vmCpuSeconds,
        long peakHeapBytes,
        double otherCpuSeconds,
        double loadAverage,
        double inputPointsPerSecond,
        IngestDelays delays,
        Histograms histograms) {

    /**
     * A cell's histogram share.
     *
     * @param samples samples of the histograms among {@link CellResult#samplesExpected()}: the samples its data points
     *                decode to, × M × N; 0 without a share, -1 when unknown (a histogram topic used as it was)
     * @param written native histograms the writer wrote (its summary's {@code histograms_written}), each one of
     *                {@link CellResult#samplesWritten()}; 0 through the import API, which writes {@code vmrange} bucket series
     * @param buckets the buckets in them ({@code histogram_buckets_written})
     */
    public record Histograms(long samples, long written, long buckets) {

        /** No histograms. */
        public static final Histograms NONE = new Histograms(0, 0, 0);

        /** These figures with {@code samples} as the samples of the histograms. */
        public Histograms withSamples(long samples) {
            return new Histograms(samples, written, buckets);
        }
    }

    /** This result as the result of {@code other} (a cell run against a receiver started for it, reported as the grid's cell). */
    public CellResult withCell(BenchCell other) {
        return toBuilder().cell(other).build();
    }

    /** A builder holding this result's values. */
    public Builder toBuilder() {
        return builder()
                .cell(cell)
                .live(live)
                .exitCode(exitCode)
                .points(points)
                .samplesExpected(samplesExpected)
                .samplesWritten(samplesWritten)
                .seconds(seconds)
                .writerCpuSeconds(writerCpuSeconds)
                .vmCpuSeconds(vmCpuSeconds)
                .peakHeapBytes(peakHeapBytes)
                .otherCpuSeconds(otherCpuSeconds)
                .loadAverage(loadAverage)
                .inputPointsPerSecond(inputPointsPerSecond)
                .delays(delays)
                .histograms(histograms);
    }

    /** Samples expected per minute. */
    public double expectedPerMinute() {
        return seconds > 0 ? samplesExpected / seconds * 60 : Double.NaN;
    }

    /** Samples written per minute. */
    public double actualPerMinute() {
        return seconds > 0 ? samplesWritten / seconds * 60 : Double.NaN;
    }

    /** Samples written per second. */
    public double samplesPerSecond() {
        return seconds > 0 ? samplesWritten / seconds : Double.NaN;
    }

    /** Source points per second the writer got through (its capacity, on a backlog). */
    public double pointsPerSecond() {
        return samplesPerSecond() / cell.samplesPerPoint();
    }

    /** Written ÷ expected; NaN when nothing was expected. */
    public double efficiency() {
        return samplesExpected > 0 ? (double) samplesWritten / samplesExpected : Double.NaN;
    }

    /** Writer CPU-seconds per million samples written. */
    public double writerCpuPerMillion() {
        return Figures.perMillion(writerCpuSeconds, samplesWritten);
    }

    /** VictoriaMetrics CPU-seconds per million samples written. */
    public double vmCpuPerMillion() {
        return Figures.perMillion(vmCpuSeconds, samplesWritten);
    }

    /** Writer CPU ÷ VictoriaMetrics CPU for the same samples. */
    public double writerToVmCpu() {
        return vmCpuSeconds > 0 ? writerCpuSeconds / vmCpuSeconds : Double.NaN;
    }

    /** The writer finished cleanly (exit 0). */
    public boolean ok() {
        return exitCode == 0;
    }

    /** The mode column: {@code async}, {@code sync}, {@code async live}. */
    public String modeLabel() {
        return live ? cell.modeLabel() + " live" : cell.modeLabel();
    }

    /** A builder that names every value. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Names each value of a {@link CellResult}; {@code otherCpuSeconds} and {@code inputPointsPerSecond} start NaN
     * (unknown; a backlog cell), the delays {@link IngestDelays#NONE}, the histograms {@link Histograms#NONE}, the rest
     * null, false or 0 until set. Not thread-safe.
     */
    public static final class Builder {
        private BenchCell cell;
        private boolean live;
        private int exitCode;
        private long points;
        private long samplesExpected;
        private long samplesWritten;
        private double seconds;
        private double writerCpuSeconds;
        private double vmCpuSeconds;
        private long peakHeapBytes;
        private double otherCpuSeconds = Double.NaN;
        private double loadAverage;
        private double inputPointsPerSecond = Double.NaN;
        private IngestDelays delays = IngestDelays.NONE;
        private Histograms histograms = Histograms.NONE;

        private Builder() {}

        /** @see CellResult#cell() */
        public Builder cell(BenchCell cell) {
            this.cell = cell;
            return this;
        }

        /** @see CellResult#live() */
        public Builder live(boolean live) {
            this.live = live;
            return this;
        }

        /** @see CellResult#exitCode() */
        public Builder exitCode(int exitCode) {
            this.exitCode = exitCode;
            return this;
        }

        /** @see CellResult#points() */
        public Builder points(long points) {
            this.points = points;
            return this;
        }

        /** @see CellResult#samplesExpected() */
        public Builder samplesExpected(long samplesExpected) {
            this.samplesExpected = samplesExpected;
            return this;
        }

        /** @see CellResult#samplesWritten() */
        public Builder samplesWritten(long samplesWritten) {
            this.samplesWritten = samplesWritten;
            return this;
        }

        /** @see CellResult#seconds() */
        public Builder seconds(double seconds) {
            this.seconds = seconds;
            return this;
        }

        /** @see CellResult#writerCpuSeconds() */
        public Builder writerCpuSeconds(double writerCpuSeconds) {
            this.writerCpuSeconds = writerCpuSeconds;
            return this;
        }

        /** @see CellResult#vmCpuSeconds() */
        public Builder vmCpuSeconds(double vmCpuSeconds) {
            this.vmCpuSeconds = vmCpuSeconds;
            return this;
        }

        /** @see CellResult#peakHeapBytes() */
        public Builder peakHeapBytes(long peakHeapBytes) {
            this.peakHeapBytes = peakHeapBytes;
            return this;
        }

        /** @see CellResult#otherCpuSeconds() */
        public Builder otherCpuSeconds(double otherCpuSeconds) {
            this.otherCpuSeconds = otherCpuSeconds;
            return this;
        }

        /** @see CellResult#loadAverage() */
        public Builder loadAverage(double loadAverage) {
            this.loadAverage = loadAverage;
            return this;
        }

        /** @see CellResult#inputPointsPerSecond() */
        public Builder inputPointsPerSecond(double inputPointsPerSecond) {
            this.inputPointsPerSecond = inputPointsPerSecond;
            return this;
        }

        /** @see CellResult#delays(); null reads as {@link IngestDelays#NONE} */
        public Builder delays(IngestDelays delays) {
            this.delays = delays == null ? IngestDelays.NONE : delays;
            return this;
        }

        /** @see CellResult#histograms(); null reads as {@link Histograms#NONE} */
        public Builder histograms(Histograms histograms) {
            this.histograms = histograms == null ? Histograms.NONE : histograms;
            return this;
        }

        /** The CellResult of the values set. */
        public CellResult build() {
            return new CellResult(
                    cell,
                    live,
                    exitCode,
                    points,
                    samplesExpected,
                    samplesWritten,
                    seconds,
                    writerCpuSeconds,
                    vmCpuSeconds,
                    peakHeapBytes,
                    otherCpuSeconds,
                    loadAverage,
                    inputPointsPerSecond,
                    delays,
                    histograms);
        }
    }
}
