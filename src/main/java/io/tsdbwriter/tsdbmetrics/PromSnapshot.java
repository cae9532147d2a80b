package io.tsdbwriter.tsdbmetrics;

import io.tsdbwriter.decode.Numbers;
import io.tsdbwriter.decode.prometheus.ExpositionLine;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One scrape of a Prometheus text exposition page ({@code /metrics}), kept as (name, labels, value) samples, with the
 * sums and histogram quantiles {@code capacity} and {@code run} read from it. Read with the format's one tokenizer
 * ({@link ExpositionLine}) and decimal parser ({@link Numbers}); comment lines are skipped, a line that does not parse
 * is ignored. Immutable; thread-safe.
 */
public final class PromSnapshot {

    /** One sample: {@code labels} is the text between the braces, as printed (empty when none). */
    record Sample(String name, String labels, double value) {}

    private final List<Sample> samples;
    private final long nanos;

    private PromSnapshot(List<Sample> samples, long nanos) {
        this.samples = samples;
        this.nanos = nanos;
    }

    /** Parses a page taken at {@code nanos} ({@link System#nanoTime()}) with the format's one tokenizer. */
    public static PromSnapshot parse(String text, long nanos) {
        List<Sample> out = new ArrayList<>();
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ExpositionLine line = new ExpositionLine();
        Numbers numbers = new Numbers();
        for (int from = 0; from < b.length; from = ExpositionLine.nextLine(b, from, b.length)) {
            int to = ExpositionLine.lineEnd(b, from, b.length);
            if (line.scan(b, from, to) != ExpositionLine.Kind.SAMPLE
                    || !numbers.parseDouble(b, line.valueFrom(), line.valueTo())) {
                continue; // a comment, or not a sample line
            }
            String labels = line.labelsOpen() < 0
                    ? ""
                    : ExpositionLine.text(b, line.labelsOpen() + 1, line.labelsClose())
                            .trim();
            out.add(new Sample(
                    ExpositionLine.text(b, line.metricStart(), line.metricEnd()), labels, numbers.doubleValue()));
        }
        return new PromSnapshot(List.copyOf(out), nanos);
    }

    /** When it was taken ({@link System#nanoTime()}). */
    public long nanos() {
        return nanos;
    }

    /** Whether any sample of {@code name} is present. */
    public boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }

    /** Whether any sample's name starts with {@code prefix} (e.g. {@code vm_}: a VictoriaMetrics page). */
    public boolean hasPrefix(String prefix) {
        return samples.stream().anyMatch(s -> s.name().startsWith(prefix));
    }

    /** Sum over every series of {@code name}; NaN when there is none. */
    public double sum(String name) {
        return sum(name, "");
    }

    /** Sum over the series of {@code name} whose labels contain {@code labelText} (e.g. {@code type="storage"}); NaN when none. */
    public double sum(String name, String labelText) {
        double sum = 0;
        boolean any = false;
        for (Sample s : samples) {
            if (s.name().equals(name) && s.labels().contains(labelText)) {
                sum += s.value();
                any = true;
            }
        }
        return any ? sum : Double.NaN;
    }

    /**
     * The value of label {@code label} on the first sample of {@code name} whose labels contain {@code labelText}
     * (e.g. the {@code value} of {@code flag{name="inmemoryDataFlushInterval"}}); null when there is none.
     */
    public String labelValue(String name, String labelText, String label) {
        String key = label + "=\"";
        for (Sample s : samples) {
            if (!s.name().equals(name) || !s.labels().contains(labelText)) {
                continue;
            }
            String l = s.labels();
            for (int at = l.indexOf(key); at >= 0; at = l.indexOf(key, at + 1)) {
                if (at == 0 || l.charAt(at - 1) == ',' || l.charAt(at - 1) == ' ') {
                    int close = l.indexOf('"', at + key.length());
                    return close < 0 ? null : l.substring(at + key.length(), close);
                }
            }
        }
        return null;
    }

    /** The first value of {@code a}, else of {@code b}; NaN when neither is present. */
    public double first(String a, String b) {
        double v = sum(a);
        return Double.isNaN(v) ? sum(b) : v;
    }

    /** Cumulative bucket counts of histogram {@code name} ({@code name_bucket{le=…}}), summed over series, by upper bound. */
    TreeMap<Double, Double> buckets(String name) {
        return buckets(name, "");
    }

    /** As {@link #buckets(String)}, over the series whose labels contain {@code labelText}. */
    TreeMap<Double, Double> buckets(String name, String labelText) {
        TreeMap<Double, Double> m = new TreeMap<>();
        String bucket = name + "_bucket";
        for (Sample s : samples) {
            if (!s.name().equals(bucket) || !s.labels().contains(labelText)) {
                continue;
            }
            int le = s.labels().indexOf("le=\"");
            if (le < 0) {
                continue;
            }
            int close = s.labels().indexOf('"', le + 4);
            String bound = s.labels().substring(le + 4, close);
            double b;
            try {
                b = PrometheusTextParser.parseValue(bound); // a Prometheus float: "+Inf" included
            } catch (NumberFormatException e) {
                continue;
            }
            m.merge(b, s.value(), Double::sum);
        }
        // A page read while an observation is being recorded can show it in its bucket and not yet in the count (+Inf):
        // Micrometer's Timer.record adds to the histogram, then to the count. A cumulative count never falls from one
        // bound to the next, so each bound carries at least the count below it.
        double below = 0;
        for (Map.Entry<Double, Double> e : m.entrySet()) {
            below = Math.max(below, e.getValue());
            e.setValue(below);
        }
        return m;
    }

    /**
     * The {@code q} quantile of histogram {@code name} over the observations between {@code before} and {@code after}, as
     * Prometheus' {@code histogram_quantile} computes it (linear within the bucket; the highest finite bound when it
     * falls into +Inf). NaN when nothing was observed or the histogram is missing.
     */
    public static double quantile(double q, String name, PromSnapshot before, PromSnapshot after) {
        return quantile(q, name, "", before, after);
    }

    /**
     * As {@link #quantile(double, String, PromSnapshot, PromSnapshot)}, over the series of {@code name} whose labels
     * contain {@code labelText} (e.g. {@code stage="acknowledged"}; empty: every series).
     */
    public static double quantile(double q, String name, String labelText, PromSnapshot before, PromSnapshot after) {
        TreeMap<Double, Double> b = after.buckets(name, labelText);
        TreeMap<Double, Double> a = before.buckets(name, labelText);
        if (b.isEmpty()) {
            return Double.NaN;
        }
        double total = b.lastEntry().getValue() - a.getOrDefault(b.lastKey(), 0.0);
        if (!(total > 0)) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> e : b.entrySet()) {
            double count = e.getValue() - a.getOrDefault(e.getKey(), 0.0);
            if (count >= rank) {
                if (Double.isInfinite(e.getKey())) {
                    return lowerBound;
                }
                double inBucket = count - lowerCount;
                return inBucket <= 0
                        ? e.getKey()
                        : lowerBound + (e.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
            }
            lowerBound = e.getKey();
            lowerCount = count;
        }
        return lowerBound;
    }
}
