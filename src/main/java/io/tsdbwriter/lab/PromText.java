package io.tsdbwriter.lab;

import io.tsdbwriter.decode.Numbers;
import io.tsdbwriter.decode.prometheus.ExpositionLine;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;

/**
 * Reads one sample out of Prometheus text exposition (a {@code /metrics} page) with the format's one tokenizer
 * ({@link ExpositionLine}) and decimal parser ({@link Numbers}). Stateless; thread-safe.
 */
final class PromText {

    private PromText() {}

    /**
     * The value of the first line whose series is exactly {@code series} ({@code name} or
     * {@code name{label="v"}} as printed), or empty.
     */
    static OptionalDouble value(String text, String series) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ExpositionLine line = new ExpositionLine();
        for (int from = 0; from < b.length; from = ExpositionLine.nextLine(b, from, b.length)) {
            if (line.scan(b, from, ExpositionLine.lineEnd(b, from, b.length)) == ExpositionLine.Kind.SAMPLE
                    && ExpositionLine.text(b, line.metricStart(), line.seriesEnd())
                            .equals(series)) {
                Numbers numbers = new Numbers();
                return numbers.parseDouble(b, line.valueFrom(), line.valueTo())
                        ? OptionalDouble.of(numbers.doubleValue())
                        : OptionalDouble.empty();
            }
        }
        return OptionalDouble.empty();
    }

    /** The value of label {@code label} (as printed) on the first line of metric {@code name} with labels, or null. */
    static String label(String text, String name, String label) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ExpositionLine line = new ExpositionLine();
        for (int from = 0; from < b.length; from = ExpositionLine.nextLine(b, from, b.length)) {
            if (line.scan(b, from, ExpositionLine.lineEnd(b, from, b.length)) != ExpositionLine.Kind.SAMPLE
                    || line.labelsOpen() < 0
                    || !ExpositionLine.text(b, line.metricStart(), line.metricEnd())
                            .equals(name)) {
                continue;
            }
            for (int i = 0; i < line.labelCount(); i++) {
                if (ExpositionLine.text(b, line.nameStart(i), line.nameEnd(i)).equals(label)) {
                    return ExpositionLine.text(b, line.valueStart(i), line.valueEnd(i));
                }
            }
            return null;
        }
        return null;
    }
}
