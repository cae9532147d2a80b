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
        double inputPointsPerSecond) {

    /** This result as the result of {@code other} (a cell run against a receiver started for it, reported as the grid's cell). */
    public CellResult withCell(BenchCell other) {
        return new CellResult(
                other,
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
                inputPointsPerSecond);
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
}
