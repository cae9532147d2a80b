package io.tsdbwriter.relabel;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code run --relabel-config FILE}: a YAML list of Prometheus {@code relabel_config} entries
 * (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config), applied in order to a
 * series' labels with the semantics of Prometheus 3's {@code model/relabel} ({@link RelabelRule}). The metric name
 * is the label {@code __name__} like any other: rules may read, rewrite or remove it.
 *
 * <p>Applied once per series, before amplification (the pipeline caches the result beside the prepared series):
 * {@link #apply} allocates and is never called per sample.
 *
 * <p>Immutable and thread-safe.
 */
public final class RelabelRules {

    /** The label that carries the metric name. */
    public static final String NAME_LABEL = "__name__";

    private final List<RelabelRule> rules;

    /** @param rules the entries in order */
    public RelabelRules(List<RelabelRule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** The entries in order. */
    public List<RelabelRule> rules() {
        return rules;
    }

    /**
     * Reads a relabel config file.
     *
     * @throws IllegalArgumentException one line that names the file and, for an invalid entry, its index (1-based) and
     *                                  field: {@code --relabel-config FILE: entry 2, field regex: ...}; also when the
     *                                  file cannot be read
     */
    public static RelabelRules load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("--relabel-config " + file + ": cannot be read: " + e.getMessage(), e);
        }
        return parse(text, file.toString());
    }

    /**
     * Parses the YAML text of a relabel config: a list of entries; an empty document is no entry.
     *
     * @param source names the text in messages (the file)
     * @throws IllegalArgumentException as {@link #load}
     */
    public static RelabelRules parse(String yaml, String source) {
        return new RelabelRules(RelabelConfigReader.read(yaml, "--relabel-config " + source));
    }

    /**
     * The labels a series has after the rules, or null when a rule drops it or it ends with no label or without
     * {@code __name__} (a series that cannot be written).
     *
     * @param metric the metric name (becomes {@code __name__})
     * @param names  label names, unique, in {@code [from, to)}; any order (one named {@code __name__} is ignored: the
     *               metric name is that label)
     * @param values label values alongside
     */
    public Relabeled apply(String metric, String[] names, String[] values, int from, int to) {
        List<String> inNames = new ArrayList<>(to - from + 1);
        List<String> inValues = new ArrayList<>(to - from + 1);
        inNames.add(NAME_LABEL);
        inValues.add(metric);
        for (int i = from; i < to; i++) {
            if (!names[i].equals(NAME_LABEL)) { // the metric name wins over a label that spells __name__
                inNames.add(names[i]);
                inValues.add(values[i]);
            }
        }
        String[] baseNames = inNames.toArray(String[]::new);
        String[] baseValues = inValues.toArray(String[]::new);
        String[][] out = process(baseNames, baseValues);
        if (out == null) {
            return null;
        }
        String[] outNames = out[0];
        String[] outValues = out[1];
        List<String> restNames = new ArrayList<>(outNames.length);
        List<String> restValues = new ArrayList<>(outNames.length);
        String name = null;
        for (int i = 0; i < outNames.length; i++) {
            if (outNames[i].equals(NAME_LABEL)) {
                name = outValues[i];
            } else {
                restNames.add(outNames[i]);
                restValues.add(outValues[i]);
            }
        }
        if (name == null || name.isEmpty()) {
            return null;
        }
        return new Relabeled(name, restNames.toArray(String[]::new), restValues.toArray(String[]::new));
    }

    /**
     * A series' labels after relabeling: its metric name and the other labels sorted by name (code point order).
     *
     * @param metric the value of {@code __name__}, non-empty
     * @param names  the other label names, sorted
     * @param values their values alongside
     */
    public record Relabeled(String metric, String[] names, String[] values) {

        /**
         * A 64-bit hash of the relabeled series (its name, then each label's name and value, each as its UTF-8 length and
         * bytes): equal label sets hash equal, whatever source series they came from. Allocates; once per series.
         */
        public long hash() {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            put(b, metric);
            for (int i = 0; i < names.length; i++) {
                put(b, names[i]);
                put(b, values[i]);
            }
            byte[] bytes = b.toByteArray();
            long h = 0xCBF29CE484222325L; // FNV-1a 64, then a final mix
            for (byte x : bytes) {
                h = (h ^ (x & 0xFF)) * 0x100000001B3L;
            }
            h ^= h >>> 33;
            h *= 0xFF51AFD7ED558CCDL;
            h ^= h >>> 33;
            return h;
        }

        /** {@code [hash(): 8 bytes, big-endian][state]}: a cached state that carries the relabeled series' hash. */
        public byte[] afterHash(byte[] state) {
            byte[] out = new byte[8 + state.length];
            long h = hash();
            for (int i = 0; i < 8; i++) {
                out[i] = (byte) (h >>> (56 - 8 * i));
            }
            System.arraycopy(state, 0, out, 8, state.length);
            return out;
        }

        /** The hash {@link #afterHash} put at {@code bytes[at, at + 8)}. */
        public static long hashAt(byte[] bytes, int at) {
            long h = 0;
            for (int i = at; i < at + 8; i++) {
                h = h << 8 | (bytes[i] & 0xFF);
            }
            return h;
        }

        private static void put(ByteArrayOutputStream b, String s) {
            byte[] u = s.getBytes(StandardCharsets.UTF_8);
            int n = u.length;
            while (n >= 0x80) {
                b.write(n & 0x7F | 0x80);
                n >>>= 7;
            }
            b.write(n);
            b.write(u, 0, u.length);
        }
    }

    /**
     * Prometheus' {@code relabel.ProcessBuilder} then {@code Labels()}: the rules applied in order to a label set.
     *
     * @param names  label names, unique, any order (sorted here, in place, with {@code values})
     * @param values their values alongside
     * @return {@code {names, values}} sorted by name, or null when a rule drops the label set
     */
    String[][] process(String[] names, String[] values) {
        sortByName(names, values);
        LabelBuilder lb = new LabelBuilder(names, values);
        for (RelabelRule r : rules) {
            if (!r.apply(lb)) {
                return null;
            }
        }
        return new String[][] {lb.names(), lb.values()};
    }

    private static void sortByName(String[] names, String[] values) {
        for (int i = 1; i < names.length; i++) {
            String n = names[i];
            String v = values[i];
            int k = i - 1;
            while (k >= 0 && LabelBuilder.compareCodePoints(names[k], n) > 0) {
                names[k + 1] = names[k];
                values[k + 1] = values[k];
                k--;
            }
            names[k + 1] = n;
            values[k + 1] = v;
        }
    }
}
