package io.tsdbwriter.tsdbmetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The figures TSDBs are compared on beside their capacity, for one target, each from the target's own
 * {@code /metrics} and each saying which metrics it came from:
 *
 * <ul>
 *   <li>{@code cpuSecondsPerMillion}: CPU seconds the TSDB process used per million samples written
 *       ({@link CpuPerSamples}: {@code process_cpu_seconds_total}'s growth over the measured windows ÷ the samples the
 *       writers wrote in them × 10⁶);</li>
 *   <li>{@code residentBytesPerSeries}: {@code process_resident_memory_bytes} ÷ the active series, bytes per series;
 *       the active series are VictoriaMetrics' {@value #VM_ACTIVE} (the series with a sample in the last hour,
 *       VictoriaMetrics' own definition) or Prometheus' and Thanos receive's {@value #PROM_ACTIVE} (the head's series);</li>
 *   <li>{@code bytesPerSample}: bytes on disk per sample stored, bytes per sample; VictoriaMetrics
 *       {@code sum(vm_data_size_bytes)} ÷ {@code sum(vm_rows{type=~"storage/.*"})} (the data and index parts ÷ the
 *       rows in the data parts), Prometheus and Thanos receive ({@value #PROM_BLOCKS} + {@value #PROM_WAL}, +
 *       {@value #PROM_HEAD_CHUNKS} when exposed) ÷ {@value #PROM_APPENDED}.</li>
 * </ul>
 *
 * <p>Memory and disk are read from one set of pages (one per process of the target, all taken at the search's end). A
 * figure whose metrics are absent, whose page was unreadable or whose divisor is 0 is NaN, and its {@link Figure}
 * says what was missing. Values are sums over the pages given (the processes of one target). Immutable; thread-safe.
 *
 * @param cpuSecondsPerMillion   CPU seconds per million samples written
 * @param residentBytesPerSeries resident memory bytes per active series
 * @param bytesPerSample         disk bytes per sample stored
 */
public record CostFigures(Figure cpuSecondsPerMillion, Figure residentBytesPerSeries, Figure bytesPerSample) {

    /** VictoriaMetrics' active series (the series with a sample in the current or the previous hour). */
    public static final String VM_ACTIVE = "vm_cache_entries{type=\"storage/hour_metric_ids\"}";
    /** Prometheus' (and Thanos receive's) series in the head block. */
    public static final String PROM_ACTIVE = "prometheus_tsdb_head_series";
    /**
     * VictoriaMetrics' series when {@link #VM_ACTIVE} counts none: the TSID cache's entries, one per series the process
     * registered or looked up since it started (samples whose timestamps lie outside the current hour, a replay's or
     * the capacity search's week-old data, make no hour entry).
     */
    public static final String VM_TSIDS = "vm_cache_entries{type=\"storage/tsid\"}";
    /** The process's resident memory, bytes (Go's and the Prometheus client's process collector). */
    public static final String RSS = "process_resident_memory_bytes";
    /** Prometheus' persisted blocks, bytes. */
    public static final String PROM_BLOCKS = "prometheus_tsdb_storage_blocks_bytes";
    /** Prometheus' write-ahead log, bytes. */
    public static final String PROM_WAL = "prometheus_tsdb_wal_storage_size_bytes";
    /** Prometheus' memory-mapped head chunks on disk ({@code chunks_head/}), bytes; not every version exposes it. */
    public static final String PROM_HEAD_CHUNKS = "prometheus_tsdb_head_chunks_storage_size_bytes";
    /** Samples Prometheus' head appended since the process started. */
    public static final String PROM_APPENDED = "prometheus_tsdb_head_samples_appended_total";
    /** VictoriaMetrics' parts on disk, bytes, by {@code type} (data and index parts). */
    public static final String VM_SIZE = "vm_data_size_bytes";
    /** VictoriaMetrics' rows, by {@code type}; those of {@code type="storage/…"} are the stored samples. */
    public static final String VM_ROWS = "vm_rows";

    private static final String VM_ROWS_SHOWN = "vm_rows{type=~\"storage/.*\"}";
    private static final String STORAGE_TYPE = "type=\"storage/";
    private static final String HOUR_METRIC_IDS = "type=\"storage/hour_metric_ids\"";
    private static final String TSIDS = "type=\"storage/tsid\"";
    private static final String NOT_THIS_HOUR = "no series with a sample in the current hour: the TSID cache's series";

    /**
     * One figure and where it came from.
     *
     * @param value   the figure in its unit (see {@link CostFigures}); NaN when unknown
     * @param metrics the metric expression it is (or would be) computed from, e.g.
     *                {@code process_resident_memory_bytes ÷ prometheus_tsdb_head_series}
     * @param missing the metric names that were absent (empty when none was)
     * @param note    a plain-text remark naming no metric (e.g. {@code 5 measured windows}, {@code page unreadable}),
     *                or null
     */
    public record Figure(double value, String metrics, List<String> missing, String note) {

        public Figure {
            Objects.requireNonNull(metrics, "metrics");
            missing = List.copyOf(missing);
        }

        /** A figure that is known. */
        static Figure of(double value, String metrics, String note) {
            return new Figure(value, metrics, List.of(), note);
        }

        /** A figure that is unknown (NaN). */
        static Figure unknown(String metrics, List<String> missing, String note) {
            return new Figure(Double.NaN, metrics, missing, note);
        }

        /** Whether the value is a finite number. */
        public boolean known() {
            return Double.isFinite(value);
        }

        /** Where it came from, in plain text: the metrics, what was missing, the note. */
        public String source() {
            return metrics
                    + (missing.isEmpty() ? "" : "; missing " + String.join(", ", missing))
                    + (note == null ? "" : " (" + note + ")");
        }
    }

    /**
     * The three figures of one target.
     *
     * @param cpu   the CPU over the search's measured windows
     * @param pages the target's pages at the search's end, one per process (an element null when unreadable)
     */
    public static CostFigures of(CpuPerSamples cpu, List<PromSnapshot> pages) {
        return new CostFigures(cpu.figure(), residentBytesPerSeries(pages), bytesPerSample(pages));
    }

    /**
     * {@value #RSS} ÷ the active series ({@value #VM_ACTIVE}; when that counts none, {@value #VM_TSIDS}, and the
     * figure's note says so; else {@value #PROM_ACTIVE}), bytes per series.
     */
    public static Figure residentBytesPerSeries(List<PromSnapshot> pages) {
        Family family = family(pages);
        if (pages.isEmpty() || pages.stream().anyMatch(Objects::isNull)) {
            return Figure.unknown(
                    RSS + " ÷ " + (family == Family.PROMETHEUS ? PROM_ACTIVE : VM_ACTIVE),
                    List.of(),
                    "page unreadable at the search's end");
        }
        double vmSeries = sum(pages, "vm_cache_entries", HOUR_METRIC_IDS);
        double vmTsids = sum(pages, "vm_cache_entries", TSIDS);
        double promSeries = sum(pages, PROM_ACTIVE, "");
        String active;
        double series;
        String note = null;
        if (!(vmSeries > 0) && vmTsids > 0) {
            active = VM_TSIDS;
            series = vmTsids;
            note = NOT_THIS_HOUR;
        } else if (!Double.isNaN(vmSeries) || family == Family.VICTORIA_METRICS && Double.isNaN(promSeries)) {
            active = VM_ACTIVE;
            series = vmSeries;
        } else if (!Double.isNaN(promSeries) || family == Family.PROMETHEUS) {
            active = PROM_ACTIVE;
            series = promSeries;
        } else {
            active = VM_ACTIVE + " or " + PROM_ACTIVE;
            series = Double.NaN;
        }
        String metrics = RSS + " ÷ " + active;
        double rss = sum(pages, RSS, "");
        List<String> missing = new ArrayList<>();
        if (Double.isNaN(rss)) {
            missing.add(RSS);
        }
        if (Double.isNaN(series)) {
            missing.add(active);
        }
        if (!missing.isEmpty()) {
            return Figure.unknown(metrics, missing, null);
        }
        return series > 0
                ? Figure.of(rss / series, metrics, note)
                : Figure.unknown(metrics, List.of(), "no active series");
    }

    /**
     * Disk bytes per stored sample: VictoriaMetrics {@code sum(vm_data_size_bytes) ÷ sum(vm_rows{type=~"storage/.*"})};
     * Prometheus and Thanos receive ({@value #PROM_BLOCKS} + {@value #PROM_WAL} [+ {@value #PROM_HEAD_CHUNKS}]) ÷
     * {@value #PROM_APPENDED}.
     */
    public static Figure bytesPerSample(List<PromSnapshot> pages) {
        String vm = "sum(" + VM_SIZE + ") ÷ sum(" + VM_ROWS_SHOWN + ")";
        Family family = family(pages);
        if (pages.isEmpty() || pages.stream().anyMatch(Objects::isNull)) {
            return Figure.unknown(
                    family == Family.PROMETHEUS ? promDisk(true) : vm,
                    List.of(),
                    "page unreadable at the search's end");
        }
        if (family == Family.PROMETHEUS) {
            return promBytesPerSample(pages);
        }
        List<String> missing = new ArrayList<>();
        double bytes = sum(pages, VM_SIZE, "");
        double rows = sum(pages, VM_ROWS, STORAGE_TYPE);
        if (Double.isNaN(bytes)) {
            missing.add(VM_SIZE);
        }
        if (Double.isNaN(rows)) {
            missing.add(VM_ROWS_SHOWN);
        }
        if (!missing.isEmpty()) {
            return Figure.unknown(
                    family == Family.VICTORIA_METRICS ? vm : vm + " or " + promDisk(true),
                    missing,
                    family == Family.VICTORIA_METRICS
                            ? null
                            : "neither VictoriaMetrics' nor Prometheus' storage metrics");
        }
        return rows > 0 ? Figure.of(bytes / rows, vm, null) : Figure.unknown(vm, List.of(), "no sample stored");
    }

    private static Figure promBytesPerSample(List<PromSnapshot> pages) {
        boolean chunks = sum(pages, PROM_HEAD_CHUNKS, "") >= 0;
        String metrics = promDisk(chunks);
        List<String> missing = new ArrayList<>();
        double bytes = 0;
        for (String m : chunks ? List.of(PROM_BLOCKS, PROM_WAL, PROM_HEAD_CHUNKS) : List.of(PROM_BLOCKS, PROM_WAL)) {
            double v = sum(pages, m, "");
            if (Double.isNaN(v)) {
                missing.add(m);
            }
            bytes += v;
        }
        double appended = sum(pages, PROM_APPENDED, "");
        if (Double.isNaN(appended)) {
            missing.add(PROM_APPENDED);
        }
        if (!missing.isEmpty()) {
            return Figure.unknown(metrics, missing, null);
        }
        return appended > 0
                ? Figure.of(bytes / appended, metrics, chunks ? null : "head chunks not exposed")
                : Figure.unknown(metrics, List.of(), "no sample appended");
    }

    private static String promDisk(boolean chunks) {
        return "(" + PROM_BLOCKS + " + " + PROM_WAL + (chunks ? " + " + PROM_HEAD_CHUNKS : "") + ") ÷ " + PROM_APPENDED;
    }

    /** Which TSDB's metric names the pages speak. */
    private enum Family {
        VICTORIA_METRICS,
        PROMETHEUS,
        UNKNOWN
    }

    private static Family family(List<PromSnapshot> pages) {
        for (PromSnapshot p : pages) {
            if (p != null && p.hasPrefix("vm_")) {
                return Family.VICTORIA_METRICS;
            }
        }
        for (PromSnapshot p : pages) {
            if (p != null && p.hasPrefix("prometheus_tsdb_")) {
                return Family.PROMETHEUS;
            }
        }
        return Family.UNKNOWN;
    }

    /** Sum over the pages of {@code name}'s series whose labels contain {@code labelText}; NaN when no page has one. */
    private static double sum(List<PromSnapshot> pages, String name, String labelText) {
        double sum = 0;
        boolean any = false;
        for (PromSnapshot p : pages) {
            double v = p == null ? Double.NaN : p.sum(name, labelText);
            if (!Double.isNaN(v)) {
                sum += v;
                any = true;
            }
        }
        return any ? sum : Double.NaN;
    }
}
