package io.tsdbwriter.lab;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.util.Locale;

/**
 * A writer's ingest delay as {@code bench} and {@code capacity} report it beside samples/s: the p50 and p99, in seconds,
 * of the time from a sample batch's Kafka record timestamp to the TSDB's 2xx ({@code acknowledged}) and to the offset
 * commit that covered it ({@code committed}), as the writer measures them ({@link io.tsdbwriter.metrics.IngestDelay}).
 * Read from the writer's {@code --summary-json} (the whole run) or from two readings of its {@code /metrics} (the
 * observations between them). NaN where a stage saw no batch. Immutable; thread-safe.
 *
 * @param acknowledgedP50 median delay to the TSDB's 2xx, seconds
 * @param acknowledgedP99 99th percentile delay to the TSDB's 2xx, seconds
 * @param committedP50    median delay to the covering offset commit, seconds
 * @param committedP99    99th percentile delay to the covering offset commit, seconds
 */
public record IngestDelays(double acknowledgedP50, double acknowledgedP99, double committedP50, double committedP99) {

    /** Nothing measured: every figure NaN. */
    public static final IngestDelays NONE = new IngestDelays(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The writer's histogram on its {@code /metrics}. */
    static final String HISTOGRAM = "tsdbwriter_ingest_delay_seconds";

    /**
     * The figures of a writer's summary ({@code ingest_delay_seconds.<stage>.p50|p99}); NaN for a figure that is
     * missing or null, {@link #NONE} for a null summary.
     */
    public static IngestDelays ofSummary(JsonNode summary) {
        if (summary == null) {
            return NONE;
        }
        JsonNode d = summary.path("ingest_delay_seconds");
        return new IngestDelays(
                figure(d, "acknowledged", "p50"),
                figure(d, "acknowledged", "p99"),
                figure(d, "committed", "p50"),
                figure(d, "committed", "p99"));
    }

    /**
     * The figures of the batches observed between two readings of a writer's {@code /metrics} (the histogram's growth,
     * interpolated as {@code histogram_quantile}); {@link #NONE} when either reading is null.
     */
    public static IngestDelays between(PromSnapshot before, PromSnapshot after) {
        if (before == null || after == null) {
            return NONE;
        }
        return new IngestDelays(
                PromSnapshot.quantile(0.5, HISTOGRAM, "stage=\"acknowledged\"", before, after),
                PromSnapshot.quantile(0.99, HISTOGRAM, "stage=\"acknowledged\"", before, after),
                PromSnapshot.quantile(0.5, HISTOGRAM, "stage=\"committed\"", before, after),
                PromSnapshot.quantile(0.99, HISTOGRAM, "stage=\"committed\"", before, after));
    }

    /** Whether any figure was measured. */
    public boolean measured() {
        return Double.isFinite(acknowledgedP50)
                || Double.isFinite(acknowledgedP99)
                || Double.isFinite(committedP50)
                || Double.isFinite(committedP99);
    }

    /** The acknowledged stage as {@code p50/p99} in seconds, 3 decimals ({@code 0.120/0.480}; {@code –} for NaN). */
    public String acknowledged() {
        return pair(acknowledgedP50, acknowledgedP99);
    }

    /** The committed stage as {@code p50/p99} in seconds, 3 decimals. */
    public String committed() {
        return pair(committedP50, committedP99);
    }

    /** For a progress line: {@code ingest delay p50/p99 acknowledged 0.120/0.480 s, committed 5.100/9.800 s}. */
    public String text() {
        return "ingest delay p50/p99 acknowledged " + acknowledged() + " s, committed " + committed() + " s";
    }

    private static String pair(double p50, double p99) {
        return seconds(p50) + "/" + seconds(p99);
    }

    private static String seconds(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "–";
    }

    private static double figure(JsonNode d, String stage, String q) {
        JsonNode v = d.path(stage).path(q);
        return v.isNumber() ? v.asDouble() : Double.NaN;
    }
}
