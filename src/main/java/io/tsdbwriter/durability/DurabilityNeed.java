package io.tsdbwriter.durability;

import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long one TSDB process may hold acknowledged samples in memory only, read from its {@code /metrics} page (the
 * default durability window, docs/delivery.md):
 * <ul>
 *   <li>a VictoriaMetrics process with storage (single-node, vmstorage): 2 × {@code -inmemoryDataFlushInterval} + the
 *       raw-row flush ({@value #RAW_ROWS_SECONDS} s) + a margin ({@value #MARGIN_SECONDS} s). The interval is read
 *       from the {@code flag{name="inmemoryDataFlushInterval"}} sample VictoriaMetrics exports (the same values as its
 *       {@code /flags}; the flag exists since v1.85); older releases hard-code ~5 s, taken as 5 s — 16 s by default.
 *       Measured (kill -9 after an import, restart, export): 1.79.5 lost rows acknowledged up to 10 s before the kill,
 *       v1.150.0 up to 13.5 s; a 1 s margin was too thin;</li>
 *   <li>a VictoriaMetrics process without storage (vminsert, vmagent): its buffers ship every ~200 ms, but the storage
 *       nodes behind it are not seen: {@link #UNKNOWN} unless their pages are watched too ({@code --tsdb-metrics-url});</li>
 *   <li>Prometheus ({@code prometheus_tsdb_head_samples_appended_total}): it appends to its WAL before it answers (no
 *       fsync: a process crash loses nothing, a host crash may): {@link #PROMETHEUS};</li>
 *   <li>anything else that answers (Mimir, Thanos receive, a proxy): {@link #UNKNOWN}.</li>
 * </ul>
 * Stateless; thread-safe.
 */
public final class DurabilityNeed {

    /** VictoriaMetrics' raw-row flush, seconds (rows go to in-memory parts every 1–2 s). */
    static final int RAW_ROWS_SECONDS = 2;
    /** Added to every VictoriaMetrics storage window, seconds (v1.150.0 lost rows 13.5 s old: see above). */
    static final int MARGIN_SECONDS = 4;
    /** {@code -inmemoryDataFlushInterval}'s default, and what releases before the flag hard-code. */
    static final Duration VM_INMEMORY_FLUSH_DEFAULT = Duration.ofSeconds(5);
    /** The window for Prometheus' remote-write receiver (WAL written before the answer). */
    public static final Duration PROMETHEUS = Duration.ofSeconds(5);
    /** The window where the process's persistence cannot be read (vminsert alone, a proxy, Mimir, Thanos). */
    public static final Duration UNKNOWN = Duration.ofSeconds(30);
    /** A storage-less VictoriaMetrics process (vminsert) whose storage nodes are watched as well. */
    static final Duration VM_NO_STORAGE = Duration.ofSeconds(2);

    private static final Pattern GO_DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    /**
     * What one process needs.
     *
     * @param window  how long it may hold acknowledged samples in memory only
     * @param kind    {@code victoriametrics-storage}, {@code victoriametrics-insert}, {@code prometheus} or {@code unknown}
     * @param why     the evidence, for the start line (e.g. {@code -inmemoryDataFlushInterval=5s})
     */
    public record Need(Duration window, String kind, String why) {

        /** Whether the process keeps the data itself (single-node, vmstorage, Prometheus), not only forwards it. */
        public boolean stores() {
            return kind.equals("victoriametrics-storage") || kind.equals("prometheus");
        }
    }

    private DurabilityNeed() {}

    /** What the process whose page is {@code page} needs; {@link #UNKNOWN} when the page says nothing known. */
    public static Need of(PromSnapshot page) {
        if (page.has("vm_app_start_timestamp") || page.has("vm_app_version")) {
            boolean storage = page.has("vm_data_size_bytes") || page.has("vm_rows");
            if (!storage) {
                return new Need(
                        UNKNOWN,
                        "victoriametrics-insert",
                        "VictoriaMetrics without storage (vminsert): its storage nodes are not seen");
            }
            String flag = page.labelValue("flag", "name=\"inmemoryDataFlushInterval\"", "value");
            Duration interval = flag == null ? null : parseGoDuration(flag).orElse(null);
            String why = interval == null
                    ? "VictoriaMetrics storage, in-memory parts flushed every ~5s (no -inmemoryDataFlushInterval flag before v1.85)"
                    : "VictoriaMetrics storage, -inmemoryDataFlushInterval=" + flag;
            if (interval == null) {
                interval = VM_INMEMORY_FLUSH_DEFAULT;
            }
            return new Need(
                    interval.multipliedBy(2).plusSeconds(RAW_ROWS_SECONDS + MARGIN_SECONDS),
                    "victoriametrics-storage",
                    why);
        }
        if (page.has("prometheus_build_info")
                || page.has("prometheus_tsdb_head_series")) { // appended_total: only after a sample
            return new Need(PROMETHEUS, "prometheus", "Prometheus, WAL written before its answer");
        }
        return new Need(UNKNOWN, "unknown", "persistence not known from its /metrics");
    }

    /** A Go duration ({@code 5s}, {@code 1m30s}, {@code 500ms}) as VictoriaMetrics' flags print it; empty when it is not one. */
    static Optional<Duration> parseGoDuration(String text) {
        String t = text.trim();
        if (t.equals("0")) {
            return Optional.of(Duration.ZERO);
        }
        Matcher m = GO_DURATION_PART.matcher(t);
        long nanos = 0;
        int at = 0;
        while (m.find() && m.start() == at) {
            double n = Double.parseDouble(m.group(1));
            double unit =
                    switch (m.group(2)) {
                        case "ns" -> 1;
                        case "us", "µs" -> 1e3;
                        case "ms" -> 1e6;
                        case "s" -> 1e9;
                        case "m" -> 60e9;
                        default -> 3600e9;
                    };
            nanos += (long) (n * unit);
            at = m.end();
        }
        return at == t.length() && at > 0 ? Optional.of(Duration.ofNanos(nanos)) : Optional.empty();
    }
}
