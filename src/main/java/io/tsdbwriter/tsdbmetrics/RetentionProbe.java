package io.tsdbwriter.tsdbmetrics;

import io.tsdbwriter.decode.prometheus.ExpositionLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import okhttp3.OkHttpClient;

/**
 * Reads a VictoriaMetrics target's retention, {@code -retentionPeriod}, from the {@code flag{name="retentionPeriod",
 * value="…"}} sample of its {@code /metrics}: samples older than it are answered 2xx and dropped (VictoriaMetrics docs,
 * "Retention"), so a replay refuses them before sending (docs/capacity-testing.md). vminsert, Prometheus, Mimir do
 * not export it: then nothing is known. Stateless; thread-safe.
 */
public final class RetentionProbe {

    /** The flag read. */
    public static final String FLAG = "retentionPeriod";
    /** VictoriaMetrics' month: 31 days ({@code lib/flagutil.Duration}). */
    static final Duration MONTH = Duration.ofDays(31);

    private RetentionProbe() {}

    /**
     * @param metricsUrl the target's {@code /metrics}
     * @return the retention, or empty when the page cannot be read or has no such flag
     */
    public static Optional<Duration> read(OkHttpClient client, String metricsUrl) {
        return MetricsPage.read(client, metricsUrl, RetentionProbe::parse);
    }

    /** Finds the flag in Prometheus text exposition (the format's one tokenizer, {@link ExpositionLine}). */
    static Optional<Duration> parse(BufferedReader r) throws IOException {
        ExpositionLine scanner = new ExpositionLine();
        String line;
        while ((line = r.readLine()) != null) {
            if (!line.startsWith("flag{") || !line.contains(FLAG)) {
                continue;
            }
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            if (scanner.scan(b, 0, b.length) != ExpositionLine.Kind.SAMPLE) {
                continue;
            }
            String name = null;
            String value = null;
            for (int i = 0; i < scanner.labelCount(); i++) {
                String n = ExpositionLine.text(b, scanner.nameStart(i), scanner.nameEnd(i));
                String v = ExpositionLine.text(b, scanner.valueStart(i), scanner.valueEnd(i));
                if (n.equals("name")) {
                    name = v;
                } else if (n.equals("value")) {
                    value = v;
                }
            }
            if (FLAG.equals(name) && value != null) {
                return parseRetention(value);
            }
        }
        return Optional.empty();
    }

    /**
     * A {@code -retentionPeriod} value as VictoriaMetrics reads it: a number with an optional unit {@code h}, {@code d},
     * {@code w}, {@code y}, or none = months (31 days); fractions allowed.
     *
     * @return empty when the text is not such a value
     */
    public static Optional<Duration> parseRetention(String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        char unit = v.charAt(v.length() - 1);
        long unitMs =
                switch (unit) {
                    case 'h' -> Duration.ofHours(1).toMillis();
                    case 'd' -> Duration.ofDays(1).toMillis();
                    case 'w' -> Duration.ofDays(7).toMillis();
                    case 'y' -> Duration.ofDays(365).toMillis();
                    default -> -1;
                };
        String number = unitMs < 0 ? v : v.substring(0, v.length() - 1);
        if (unitMs < 0) {
            unitMs = MONTH.toMillis();
        }
        try {
            double n = Double.parseDouble(number);
            if (!(n > 0) || Double.isInfinite(n)) {
                return Optional.empty();
            }
            return Optional.of(Duration.ofMillis((long) Math.min(Long.MAX_VALUE / 2.0, n * unitMs)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
