package io.tsdbwriter.bench;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.Figures;

/**
 * The ceiling of one batch shape: VictoriaMetrics ingesting pre-serialized import bodies of that shape (the same
 * bytes the writer would send, {@code --batch-samples} samples each) from {@code concurrency} concurrent requests,
 * with nothing else to do for the client than send them.
 *
 * @param shape            M and N of the bodies
 * @param concurrency      concurrent requests (the writer's write permits)
 * @param samples          samples acknowledged (2xx) by requests started in the measured window
 * @param requests         such requests
 * @param failures         requests answered other than 2xx (or not at all) in the window
 * @param seconds          length of the measured window (until the last counted request finished)
 * @param vmCpuSeconds     VictoriaMetrics CPU time from the window's start until it settled after it
 * @param clientCpuSeconds CPU time of the bench process (the sending client) in the window
 * @param poolBodies       distinct pre-serialized bodies the client cycled through
 * @param poolSamples      samples in those bodies
 */
public record CeilingResult(
        BenchCell.Shape shape,
        int concurrency,
        long samples,
        long requests,
        long failures,
        double seconds,
        double vmCpuSeconds,
        double clientCpuSeconds,
        int poolBodies,
        long poolSamples) {

    /** Samples per second VictoriaMetrics ingested. */
    public double samplesPerSecond() {
        return seconds > 0 ? samples / seconds : Double.NaN;
    }

    /** Samples per minute VictoriaMetrics ingested. */
    public double perMinute() {
        return samplesPerSecond() * 60;
    }

    /** VictoriaMetrics CPU-seconds per million samples. */
    public double vmCpuPerMillion() {
        return Figures.perMillion(vmCpuSeconds, samples);
    }

    /** Client CPU-seconds per million samples. */
    public double clientCpuPerMillion() {
        return Figures.perMillion(clientCpuSeconds, samples);
    }
}
