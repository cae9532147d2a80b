package io.tsdbwriter.amplify;

import java.io.ByteArrayOutputStream;

/**
 * A series' N instance variants (DESIGN §3: variant 0 keeps the instance label's value, or {@value
 * AmplificationPlan#UNKNOWN_INSTANCE} when it has none; variant j appends {@code -j}; at N = 1 a series without one is
 * copied as it is) and the layout in which both encoders keep their encodings, built once per series and read per
 * point:
 * <pre>[N: 4 bytes] then per variant [length: 4 bytes][the variant's encoded labels]      (integers big-endian)</pre>
 * {@link #build} hands the encoder each variant's labels in name order, the instance label in its place; the encoder
 * writes its protocol's bytes for them (JSON-line prefix, remote write {@code Label} entries). {@link #count},
 * {@link #length} and {@link #next} walk the layout without allocating.
 *
 * <p>Stateless; all methods are static and thread-safe.
 */
public final class SeriesVariants {

    /** Writes one variant's labels in an encoder's protocol. */
    @FunctionalInterface
    public interface VariantWriter {
        /**
         * @param names  the variant's label names, sorted (UTF-16 order, which is byte order for the ASCII names a
         *               label may have), in {@code [0, count)}; {@code __name__} is not among them
         * @param values their values alongside, the instance label's being this variant's
         * @param out    where the variant's bytes go
         */
        void write(String[] names, String[] values, int count, ByteArrayOutputStream out);
    }

    private SeriesVariants() {}

    /**
     * Builds the layout of one series' variants: called once per series.
     *
     * @param labelNames  label names, sorted, valid and unique in {@code [from, to)}
     * @param labelValues label values alongside
     * @return {@code [N][length][bytes]…} as above
     */
    public static byte[] build(
            AmplificationPlan plan, String[] labelNames, String[] labelValues, int from, int to, VariantWriter writer) {
        return build(plan, labelNames, labelValues, from, to, null, writer);
    }

    /**
     * {@link #build(AmplificationPlan, String[], String[], int, int, VariantWriter)} for one churn generation: every
     * variant's instance value ends in {@code instanceSuffix} ({@link AmplificationPlan#instanceVariants(String, String)}).
     *
     * @param instanceSuffix the generation's suffix ({@code -g3}), or null for no churn
     */
    public static byte[] build(
            AmplificationPlan plan,
            String[] labelNames,
            String[] labelValues,
            int from,
            int to,
            String instanceSuffix,
            VariantWriter writer) {
        String instanceLabel = plan.instanceLabel();
        String original = null;
        for (int i = from; i < to; i++) {
            if (instanceLabel.equals(labelNames[i])) {
                original = labelValues[i];
            }
        }
        String[] variants = plan.instanceVariants(original, instanceSuffix);
        String[] names = new String[to - from + 1];
        String[] values = new String[names.length];
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 160 * variants.length);
        writeInt(out, variants.length);
        ByteArrayOutputStream one = new ByteArrayOutputStream(160);
        for (String variant : variants) {
            int n = labels(labelNames, labelValues, from, to, instanceLabel, variant, names, values);
            one.reset();
            writer.write(names, values, n, one);
            writeInt(out, one.size());
            out.writeBytes(one.toByteArray());
        }
        return out.toByteArray();
    }

    /**
     * One variant's labels into {@code names}/{@code values}: the series' own, with the instance label set to
     * {@code variant} where name order puts it (none added when {@code variant} is null).
     *
     * @return how many
     */
    private static int labels(
            String[] labelNames,
            String[] labelValues,
            int from,
            int to,
            String instanceLabel,
            String variant,
            String[] names,
            String[] values) {
        int n = 0;
        boolean instanceWritten = variant == null; // N = 1 and no instance label: none is added (DESIGN §3)
        for (int i = from; i < to; i++) {
            String name = labelNames[i];
            if (!instanceWritten && name.compareTo(instanceLabel) >= 0) {
                names[n] = instanceLabel;
                values[n++] = variant;
                instanceWritten = true;
                if (name.equals(instanceLabel)) {
                    continue;
                }
            }
            names[n] = name;
            values[n++] = labelValues[i];
        }
        if (!instanceWritten) {
            names[n] = instanceLabel;
            values[n++] = variant;
        }
        return n;
    }

    /** The number of variants (N) of the layout at {@code at}. */
    public static int count(byte[] layout, int at) {
        return readInt(layout, at);
    }

    /** The position of the first variant of the layout at {@code at}. */
    public static int first(int at) {
        return at + 4;
    }

    /** The length of the variant at {@code pos}; its bytes start at {@code pos + 4}. */
    public static int length(byte[] layout, int pos) {
        return readInt(layout, pos);
    }

    /** The position of the variant after the one at {@code pos}. */
    public static int next(byte[] layout, int pos) {
        return pos + 4 + readInt(layout, pos);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }
}
