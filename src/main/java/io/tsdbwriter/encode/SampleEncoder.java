package io.tsdbwriter.encode;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.FamilyMetadata;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;

/**
 * The one seam between amplification and the wire (DESIGN §6): decoded points → amplification → an encoder per
 * output protocol. An encoder appends the M × N samples of one source point to a request body as one or more
 * self-contained chunks, so that a body is the concatenation of its points' chunks and any run of whole points
 * is itself a valid body (the write path splits refused batches at point boundaries). Implementations:
 * {@link io.tsdbwriter.encode.vmimport.ImportSampleEncoder} (VictoriaMetrics JSON lines for {@code /api/v1/import}) and
 * {@link io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder} (Prometheus Remote-Write 1.0 {@code TimeSeries}).
 *
 * <p>Per series, {@link #prepareSeries} builds the N variants' label encodings once (cached by the caller in a
 * {@link io.tsdbwriter.amplify.SeriesCache}); {@link #encodePoint} allocates nothing per point or sample.
 *
 * <p>Thread-safety: {@link #prepareSeries} and {@link #plan} are thread-safe and their results may be shared between
 * encoders of the same {@link #output()} and plan; {@link #encodePoint} and {@link #encodePointVerbatim} use per-instance
 * scratch state: one instance per consuming thread ({@link Factory#newEncoder()}).
 */
public interface SampleEncoder {

    /** Creates the per-thread encoders of one run; thread-safe. */
    @FunctionalInterface
    interface Factory {
        /** A new encoder for one consuming thread. */
        SampleEncoder newEncoder();
    }

    /** The output protocol this encoder writes. */
    Output output();

    /** The amplification plan whose M and N it encodes for. */
    AmplificationPlan plan();

    /**
     * The encoded labels of a series' N instance variants, built once per series: {@code [N: 4 bytes]} then per
     * variant {@code [length: 4 bytes][bytes]} (integers big-endian), read back by {@link #encodePoint}; an encoder may
     * keep bytes of its own after the last variant (remote write: the series' metadata id).
     *
     * @param metric      metric name (a valid Prometheus name; becomes {@code __name__})
     * @param labelNames  label names, sorted, valid and unique in {@code [from, to)}
     * @param labelValues label values alongside
     */
    default byte[] prepareSeries(String metric, String[] labelNames, String[] labelValues, int from, int to) {
        return prepareSeries(metric, labelNames, labelValues, from, to, null);
    }

    /**
     * {@link #prepareSeries(String, String[], String[], int, int)} in one churn generation: every variant's instance
     * value ends in {@code instanceSuffix} (docs/capacity-testing.md, {@code --churn-interval}).
     *
     * @param instanceSuffix the generation's suffix ({@code -g3}), or null for no churn
     */
    byte[] prepareSeries(
            String metric, String[] labelNames, String[] labelValues, int from, int to, String instanceSuffix);

    /**
     * {@link #prepareSeries(String, String[], String[], int, int, String)} with the record's metric families, for an
     * encoder that carries metadata (remote write: {@code TYPE}, {@code HELP}, {@code UNIT} of {@code metric}'s family,
     * kept in the prepared bytes); by default they are ignored (the import API carries none, design §6).
     *
     * @param families the record's families ({@link DecodedPoints#families()}), or null
     */
    default byte[] prepareSeries(
            String metric,
            String[] labelNames,
            String[] labelValues,
            int from,
            int to,
            String instanceSuffix,
            FamilyMetadata families) {
        return prepareSeries(metric, labelNames, labelValues, from, to, instanceSuffix);
    }

    /**
     * Appends the N × M samples of one source point to {@code out}, the series' variants read from {@code series}
     * at {@code at} (the layout of {@link #prepareSeries}); per variant the M samples in ascending timestamp order.
     *
     * @param timestampMs the source point's timestamp, epoch milliseconds
     * @param value       its value: any float64 for remote write (NaN, the staleness marker bit for bit, ±Inf); for the
     *                    import API no NaN arrives here (the amplifier's non-finite rule keeps only ±Inf for it)
     * @return samples appended (M × N)
     */
    int encodePoint(byte[] series, int at, long timestampMs, double value, ByteBuf out);

    /**
     * Tells the encoder which decoded point the next {@link #encodePoint} encodes, for what it carries beside its
     * value (remote write: its exemplar, {@link DecodedPoints#exemplars()}); by default ignored. Allocates nothing.
     */
    default void point(DecodedPoints points, int p) {}

    /** Whether {@link #encodePointVerbatim} can encode point records of {@code points} without a series lookup. */
    boolean canEncodeVerbatim(DecodedPoints points);

    /**
     * At N = 1, appends point {@code p}'s M samples with its labels copied straight from the decoded record.
     *
     * @return samples appended (M)
     * @throws IllegalStateException when {@link #canEncodeVerbatim} is false
     */
    int encodePointVerbatim(DecodedPoints points, int p, ByteBuf out);
}
