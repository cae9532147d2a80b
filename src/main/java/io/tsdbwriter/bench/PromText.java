package io.tsdbwriter.bench;

import java.util.OptionalDouble;

/** Reads one sample out of Prometheus text exposition (a {@code /metrics} page). Stateless; thread-safe. */
final class PromText {

    private PromText() {
    }

    /**
     * The value of the first line whose series is exactly {@code series} ({@code name} or
     * {@code name{label="v"}} as printed), or empty.
     */
    static OptionalDouble value(String text, String series) {
        int from = 0;
        while (from < text.length()) {
            int end = text.indexOf('\n', from);
            if (end < 0) {
                end = text.length();
            }
            if (text.startsWith(series, from) && from + series.length() < end && text.charAt(from + series.length()) == ' ') {
                String v = text.substring(from + series.length() + 1, end).trim();
                int space = v.indexOf(' ');
                if (space > 0) {
                    v = v.substring(0, space); // a timestamp follows
                }
                try {
                    return OptionalDouble.of(Double.parseDouble(v));
                } catch (NumberFormatException e) {
                    return OptionalDouble.empty();
                }
            }
            from = end + 1;
        }
        return OptionalDouble.empty();
    }

    /** The value of label {@code label} on the first line of metric {@code name}, or null. */
    static String label(String text, String name, String label) {
        int at = text.startsWith(name + "{") ? 0 : text.indexOf("\n" + name + "{");
        if (at < 0) {
            return null;
        }
        int lineEnd = text.indexOf('\n', at + 1);
        String line = text.substring(at, lineEnd < 0 ? text.length() : lineEnd);
        String key = label + "=\"";
        int k = line.indexOf(key);
        if (k < 0) {
            return null;
        }
        int close = line.indexOf('"', k + key.length());
        return close < 0 ? null : line.substring(k + key.length(), close);
    }
}
