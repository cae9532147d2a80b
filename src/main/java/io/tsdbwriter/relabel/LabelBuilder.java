package io.tsdbwriter.relabel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A label set being relabeled, with the semantics of Prometheus' {@code labels.Builder} that {@code model/relabel}
 * works on: the original labels (the base, sorted by name), the labels set since (in the order they were first set)
 * and the names deleted since. {@link #set} with an empty value deletes; {@link #get} of an absent label is
 * {@code ""}; {@link #snapshot()} lists the base labels neither deleted nor set, then the set ones in the order they
 * were set — the order in which {@code labelmap}, {@code labeldrop} and {@code labelkeep} visit labels, which decides
 * which of two labels mapped to one name wins; {@link #names()} / {@link #values()} are the result sorted by name in
 * UTF-8 byte order (by code point), as Go compares strings.
 *
 * <p>Not thread-safe: one per series being relabeled.
 */
final class LabelBuilder {

    private final String[] baseNames;
    private final String[] baseValues;
    private final List<String> addNames = new ArrayList<>();
    private final List<String> addValues = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private String[] outNames;
    private String[] outValues;

    /** @param names label names sorted by code point, unique; {@code values} alongside (both kept, not copied) */
    LabelBuilder(String[] names, String[] values) {
        this.baseNames = names;
        this.baseValues = values;
    }

    /** The label's current value, {@code ""} when absent. */
    String get(String name) {
        int a = addNames.indexOf(name);
        if (a >= 0) {
            return addValues.get(a);
        }
        if (deleted.contains(name)) {
            return "";
        }
        for (int i = 0; i < baseNames.length; i++) {
            if (baseNames[i].equals(name)) {
                return baseValues[i];
            }
        }
        return "";
    }

    /** Sets a label; an empty value deletes it. */
    void set(String name, String value) {
        if (value.isEmpty()) {
            delete(name);
            return;
        }
        int a = addNames.indexOf(name);
        if (a >= 0) {
            addValues.set(a, value);
        } else {
            addNames.add(name);
            addValues.add(value);
        }
    }

    /** Deletes a label (a later {@link #set} brings it back). */
    void delete(String name) {
        int a = addNames.indexOf(name);
        if (a >= 0) {
            addNames.remove(a);
            addValues.remove(a);
        }
        deleted.add(name);
    }

    /** The current labels as {@code {names, values}}: base labels neither deleted nor set, then the set ones in order. */
    String[][] snapshot() {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < baseNames.length; i++) {
            if (!deleted.contains(baseNames[i]) && !addNames.contains(baseNames[i])) {
                names.add(baseNames[i]);
                values.add(baseValues[i]);
            }
        }
        names.addAll(addNames);
        values.addAll(addValues);
        return new String[][] {names.toArray(String[]::new), values.toArray(String[]::new)};
    }

    /** The resulting label names, sorted by code point (UTF-8 byte order). */
    String[] names() {
        build();
        return outNames;
    }

    /** The resulting values, alongside {@link #names()}. */
    String[] values() {
        build();
        return outValues;
    }

    private void build() {
        String[][] s = snapshot();
        Integer[] order = new Integer[s[0].length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> compareCodePoints(s[0][x], s[0][y]));
        outNames = new String[order.length];
        outValues = new String[order.length];
        for (int i = 0; i < order.length; i++) {
            outNames[i] = s[0][order[i]];
            outValues[i] = s[1][order[i]];
        }
    }

    /** Compares by code point: the order of the strings' UTF-8 bytes, Go's string order. */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
