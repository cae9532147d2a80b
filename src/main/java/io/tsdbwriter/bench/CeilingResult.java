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

    /** A builder that names every value. */
    public static Builder builder() {
        return new Builder();
    }

    /** Names each value of a {@link CeilingResult}; each is null or 0 until set. Not thread-safe. */
    public static final class Builder {
        private BenchCell.Shape shape;
        private int concurrency;
        private long samples;
        private long requests;
        private long failures;
        private double seconds;
        private double vmCpuSeconds;
        private double clientCpuSeconds;
        private int poolBodies;
        private long poolSamples;

        private Builder() {}

        /** @see CeilingResult#shape() */
        public Builder shape(BenchCell.Shape shape) {
            this.shape = shape;
            return this;
        }

        /** @see CeilingResult#concurrency() */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /** @see CeilingResult#samples() */
        public Builder samples(long samples) {
            this.samples = samples;
            return this;
        }

        /** @see CeilingResult#requests() */
        public Builder requests(long requests) {
            this.requests = requests;
            return this;
        }

        /** @see CeilingResult#failures() */
        public Builder failures(long failures) {
            this.failures = failures;
            return this;
        }

        /** @see CeilingResult#seconds() */
        public Builder seconds(double seconds) {
            this.seconds = seconds;
            return this;
        }

        /** @see CeilingResult#vmCpuSeconds() */
        public Builder vmCpuSeconds(double vmCpuSeconds) {
            this.vmCpuSeconds = vmCpuSeconds;
            return this;
        }

        /** @see CeilingResult#clientCpuSeconds() */
        public Builder clientCpuSeconds(double clientCpuSeconds) {
            this.clientCpuSeconds = clientCpuSeconds;
            return this;
        }

        /** @see CeilingResult#poolBodies() */
        public Builder poolBodies(int poolBodies) {
            this.poolBodies = poolBodies;
            return this;
        }

        /** @see CeilingResult#poolSamples() */
        public Builder poolSamples(long poolSamples) {
            this.poolSamples = poolSamples;
            return this;
        }

        /** The CeilingResult of the values set. */
        public CeilingResult build() {
            return new CeilingResult(
                    shape,
                    concurrency,
                    samples,
                    requests,
                    failures,
                    seconds,
                    vmCpuSeconds,
                    clientCpuSeconds,
                    poolBodies,
                    poolSamples);
        }
    }
}
