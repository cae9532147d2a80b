package io.tsdbwriter.encode.vmimport;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;

/**
 * {@link SampleEncoder} for VictoriaMetrics' JSON-lines import API: today's {@link ImportLineEncoder} (shared,
 * immutable) plus this thread's {@link ValueText}, which formats a point's value once per point.
 *
 * <p>Not thread-safe (the value text buffer): one per consuming thread.
 */
public final class ImportSampleEncoder implements SampleEncoder {

    private final ImportLineEncoder lines;
    private final ValueText valueText = new ValueText();

    /** @param lines the run's import line encoder (may be shared by every thread) */
    public ImportSampleEncoder(ImportLineEncoder lines) {
        this.lines = lines;
    }

    /** The wrapped line encoder. */
    public ImportLineEncoder lines() {
        return lines;
    }

    @Override
    public Output output() {
        return Output.IMPORT;
    }

    @Override
    public AmplificationPlan plan() {
        return lines.plan();
    }

    @Override
    public byte[] prepareSeries(
            String metric, String[] labelNames, String[] labelValues, int from, int to, String instanceSuffix) {
        return lines.prepareLines(metric, labelNames, labelValues, from, to, instanceSuffix);
    }

    @Override
    public int encodePoint(byte[] series, int at, long timestampMs, double value, ByteBuf out) {
        ValueText v = valueText.set(value);
        return lines.encodePoint(series, at, timestampMs, v.bytes(), v.length(), out);
    }

    @Override
    public boolean canEncodeVerbatim(DecodedPoints points) {
        return lines.plan().instanceMultiplier() == 1 && points.jsonSafe();
    }

    @Override
    public int encodePointVerbatim(DecodedPoints points, int p, ByteBuf out) {
        int textLength = points.valueTextLength(p);
        if (textLength > 0
                && Double.isFinite(points.value(
                        p))) { // ±Inf in its one accepted spelling, never "Infinity" // the record's own number
            // text: no formatting (DoubleToDecimal was ~9 % of the relay's hot path)
            return lines.encodePointVerbatim(points, p, points.arena(), points.valueTextOffset(p), textLength, out);
        }
        ValueText v = valueText.set(points.value(p));
        return lines.encodePointVerbatim(points, p, v.bytes(), 0, v.length(), out);
    }
}
