package io.tsdbwriter.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * The efficiency report of DESIGN §7: one line every report interval and a final block at exit, from the
 * {@link WriterMeters} counters. <b>Efficiency</b> has one definition: samples written ÷ samples expected, expected =
 * points decoded × M × N, each sample once ({@link WriterMeters#expectedOnce()}: a write gone stale at a TSDB restart,
 * rewind or revoke is expected again in its records' re-read, so its unwritten samples are left out) — over the
 * report interval on each line (and the {@code efficiency.ratio} gauge), over the whole run in the summary. Whether
 * reading keeps up with the input is a separate figure: the input's demand
 * ({@code input_expected/min}: growth of the log end offsets × points per record × M × N) and {@code of_input}
 * (expected/min ÷ input_expected/min), printed only while the input grows (a backlog has no input rate).
 *
 * <p>A figure without meaning is never printed: with nothing expected the final efficiency is absent ({@code null}
 * in {@code --summary-json}, "n/a" in the text), and CPU seconds per million samples is left out when none was
 * written.
 *
 * <p>Thread-safe ({@link #tick()} is synchronized).
 */
public final class EfficiencyReport {

    private final WriterMeters meters;
    private final long samplesPerPoint;
    private final LongSupplier logEndTotal;
    private final LongSupplier inFlightBatches;
    private final long startNanos = System.nanoTime();
    private long lastNanos = startNanos;
    private double lastWritten;
    private double lastExpected;
    private long lastLogEnd = -1;
    private volatile double inputRecordsPerSecond;
    private volatile double expectedSamplesPerSecond;
    private volatile double efficiency = Double.NaN;
    private final double rateSet;
    private volatile double rateRatio = Double.NaN;
    private double lastSeriesCreated;

    /**
     * @param samplesPerPoint M × N
     * @param logEndTotal     sum of the assigned partitions' log end offsets
     * @param inFlightBatches batches handed to the writer and not finished
     */
    public EfficiencyReport(
            WriterMeters meters, long samplesPerPoint, LongSupplier logEndTotal, LongSupplier inFlightBatches) {
        this(meters, samplesPerPoint, logEndTotal, inFlightBatches, 0);
    }

    /**
     * @param rateSet {@code --max-samples-per-second} in samples per second (0 = none): each line then compares what was written with it
     *                ({@code of_rate}, the {@code rate.ratio} gauge)
     */
    public EfficiencyReport(
            WriterMeters meters,
            long samplesPerPoint,
            LongSupplier logEndTotal,
            LongSupplier inFlightBatches,
            double rateSet) {
        this.rateSet = rateSet;
        this.meters = meters;
        this.samplesPerPoint = samplesPerPoint;
        this.logEndTotal = logEndTotal;
        this.inFlightBatches = inFlightBatches;
        meters.gauge(
                "input.rate.records.per.second",
                "Growth rate of the input log end offsets",
                Tags.empty(),
                this,
                r -> r.inputRecordsPerSecond);
        meters.gauge(
                "expected.samples.per.second",
                "Samples per second the input demands: input rate x points per record x M x N",
                Tags.empty(),
                this,
                r -> r.expectedSamplesPerSecond);
        meters.gauge(
                "rate.ratio",
                "Samples written per second / the set rate (--max-samples-per-second) over the last report interval; NaN without a rate",
                Tags.empty(),
                this,
                r -> r.rateRatio);
        meters.gauge(
                "efficiency.ratio",
                "Samples written per minute / samples expected per minute over the last report interval",
                Tags.empty(),
                this,
                r -> r.efficiency);
    }

    /** Computes the interval figures and returns the report line. */
    public synchronized String tick() {
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
        double written = meters.samplesWritten.count();
        double expected = meters.expectedOnce();
        double writtenPerMin = (written - lastWritten) / seconds * 60;
        double expectedPerMin = (expected - lastExpected) / seconds * 60;
        long logEnd = logEndTotal.getAsLong();
        // 0 = not known yet (no partition assigned, or its end not read yet): its first reading is not input growth
        if (lastLogEnd > 0 && logEnd >= lastLogEnd) {
            inputRecordsPerSecond = (logEnd - lastLogEnd) / seconds;
            double records = meters.recordsConsumed.count();
            double pointsPerRecord = records > 0 ? meters.pointsDecoded.count() / records : 1;
            expectedSamplesPerSecond = inputRecordsPerSecond * pointsPerRecord * samplesPerPoint;
        }
        lastLogEnd = logEnd;
        efficiency = expectedPerMin > 0 ? writtenPerMin / expectedPerMin : (writtenPerMin > 0 ? 1 : Double.NaN);
        double seriesCreated = meters.seriesCreated.count();
        double seriesPerSecond = (seriesCreated - lastSeriesCreated) / seconds;
        lastSeriesCreated = seriesCreated;
        lastNanos = now;
        lastWritten = written;
        lastExpected = expected;
        String extra = "";
        if (expectedSamplesPerSecond > 0) { // reading vs the input's demand; a backlog (nothing arrives) has none
            extra += " of_input=" + percent(expectedPerMin / (expectedSamplesPerSecond * 60));
        }
        if (rateSet > 0) {
            rateRatio = writtenPerMin / 60 / rateSet;
            extra += String.format(Locale.ROOT, " rate_set/s=%.0f of_rate=%s", rateSet, percent(rateRatio));
        }
        long pass = meters.replayPass.get();
        if (pass > 0) {
            extra += " pass=" + pass;
        }
        if (seriesCreated > 0) {
            extra += String.format(Locale.ROOT, " series_created/s=%.0f", seriesPerSecond);
        }
        long limitDropped = meters.seriesLimitDropped().values().stream()
                .mapToLong(Long::longValue)
                .sum();
        if (limitDropped > 0) {
            extra += " series_limit_dropped=" + limitDropped;
        }
        return String.format(
                        Locale.ROOT,
                        "[report] elapsed=%.0fs records=%d points=%d decode_errors=%d samples expected=%d written=%d refused=%d dead_lettered=%d"
                                + " in_flight=%d batches | samples/s=%.0f samples/min=%.0f expected/min=%.0f input_expected/min=%.0f efficiency=%s",
                        (now - startNanos) / 1e9,
                        (long) meters.recordsConsumed.count(),
                        (long) meters.pointsDecoded.count(),
                        meters.decodeErrors(),
                        (long) expected,
                        (long) written,
                        (long) meters.samplesRefused.count(),
                        (long) meters.samplesDeadLettered.count(),
                        inFlightBatches.getAsLong(),
                        writtenPerMin / 60,
                        writtenPerMin,
                        expectedPerMin,
                        expectedSamplesPerSecond * 60,
                        percent(efficiency))
                + extra;
    }

    /** Per stage, the ingest delay's bucket counts at the last {@link #delays()}. */
    private final long[][] lastDelayCounts = new long[IngestDelay.Stage.values().length][];

    /**
     * The report line's last section: the ingest delay's p50 and p99 per stage over the interval since the last call
     * ({@link IngestDelay}), {@code " | ingest_delay p50/p99 acknowledged=0.120s/0.480s committed=5.100s/9.800s"}; a
     * stage no batch reached in the interval reads {@code n/a} (always so for {@code committed} in share mode and in a
     * replay, which commit no offsets).
     */
    public synchronized String delays() {
        StringBuilder b = new StringBuilder(" | ingest_delay p50/p99");
        for (IngestDelay.Stage stage : IngestDelay.Stage.values()) {
            long[] now = meters.ingestDelay.counts(stage);
            long[] last = lastDelayCounts[stage.ordinal()];
            long[] interval = now.clone();
            for (int i = 0; last != null && i < interval.length; i++) {
                interval[i] -= last[i];
            }
            lastDelayCounts[stage.ordinal()] = now;
            double p50 = IngestDelay.quantile(interval, 0.5);
            b.append(' ').append(stage.label()).append('=');
            b.append(
                    Double.isNaN(p50)
                            ? "n/a"
                            : String.format(Locale.ROOT, "%.3fs/%.3fs", p50, IngestDelay.quantile(interval, 0.99)));
        }
        return b.toString();
    }

    /** Efficiency over the last report interval (NaN before the first or when nothing was expected nor written). */
    public double efficiency() {
        return efficiency;
    }

    /** Final counters, as written to {@code --summary-json}. */
    public Map<String, Object> summary() {
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        double expected = meters.expectedOnce();
        double written = meters.samplesWritten.count();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("records", (long) meters.recordsConsumed.count());
        m.put("points", (long) meters.pointsDecoded.count());
        m.put("decode_errors", meters.decodeErrors());
        m.put("samples_expected", (long) expected); // each once: a stale write's samples are expected in the re-read
        m.put("samples_superseded", (long) meters.samplesSuperseded.count());
        m.put("samples_written", (long) written);
        m.put("histograms_written", meters.histogramsWritten.sum()); // native histograms, each one of samples_written
        m.put("histogram_buckets_written", meters.histogramBucketsWritten.sum());
        m.put("samples_refused", (long) meters.samplesRefused.count());
        m.put("samples_dead_lettered", (long) meters.samplesDeadLettered.count());
        m.put("retries", (long) meters.retries.count());
        m.put("request_bytes", (long) meters.requestBytes.count());
        m.put("kafka_fetched_bytes", meters.kafkaFetchedBytes.sum());
        m.put("elapsed_seconds", round(elapsed));
        long lastWrite = meters.lastWriteNanos.get();
        double writeSeconds = lastWrite == 0 ? elapsed : Math.min(elapsed, (lastWrite - startNanos) / 1e9);
        m.put(
                "write_seconds",
                round(writeSeconds)); // start to the last 2xx: a backlog's write time, without the window's wait
        m.put("samples_per_second", round(written / Math.max(elapsed, 1e-3)));
        m.put("efficiency", expected > 0 ? round(written / expected) : null); // nothing expected: no meaningful ratio
        m.put("cpu_seconds", round(processCpuSeconds()));
        m.put("peak_heap_bytes", peakHeapBytes());
        m.put("peak_rss_bytes", peakRssBytes());
        AotCacheStatus.current().ifPresent(a -> m.put("aot_cache", a.state().label())); // absent: no cache flag given
        m.put("samples_refused_by_reason", meters.samplesRefusedByReason());
        Map<String, Object> durability = new LinkedHashMap<>(); // written (2xx) vs stored: docs/delivery.md
        durability.put("window_seconds", meters.durabilityWindowSeconds.get());
        durability.put("tsdb_restarts", meters.tsdbRestarts());
        durability.put("records_reread", (long) meters.recordsReread.count());
        durability.put("samples_repeats_refused", (long) meters.samplesRepeatsRefused.count());
        durability.put("records_awaiting_durability", meters.recordsAwaitingDurability.get());
        durability.put(
                "wait_seconds", round(elapsed - writeSeconds)); // from the last 2xx to the end: the window's wait
        m.put("durability", durability);
        double seriesCreated = meters.seriesCreated.count();
        m.put("series_created", (long) seriesCreated);
        m.put("relabel_dropped", (long) meters.relabelDropped.count());
        Map<String, Long> limitDropped = meters.seriesLimitDropped(); // --max-hourly-series, --max-daily-series
        m.put(
                "series_limit_dropped",
                limitDropped.values().stream().mapToLong(Long::longValue).sum());
        m.put("series_limit_dropped_by_reason", limitDropped);
        m.put(
                "tenant_samples_written",
                meters.tenantSamples.written()); // --tenant-from: per tenant tag (at most 100, then "other")
        m.put("series_created_per_second", round(seriesCreated / Math.max(elapsed, 1e-3)));
        if (rateSet > 0) {
            m.put("rate_set", rateSet);
            m.put("of_rate", round(written / Math.max(elapsed, 1e-3) / rateSet));
        }
        List<WriterMeters.SkippedRange> skipped = meters.skippedRanges();
        m.put(
                "records_skipped",
                skipped.stream().mapToLong(WriterMeters.SkippedRange::records).sum());
        m.put(
                "skipped_ranges",
                skipped.stream()
                        .map(r -> {
                            Map<String, Object> e = new LinkedHashMap<>();
                            e.put("topic", r.topic());
                            e.put("partition", r.partition());
                            e.put("from", r.from());
                            e.put("to", r.to());
                            e.put("reason", r.reason());
                            return e;
                        })
                        .toList());
        // p50/p99 per stage over the run, null for a stage no batch reached (docs/metrics.md, "Ingest delay")
        m.put("ingest_delay_seconds", meters.ingestDelay.summary());
        Map<String, Object> end = outcome;
        if (end != null) {
            m.putAll(end);
        }
        return m;
    }

    private volatile Map<String, Object> outcome;

    /**
     * How the run ended, added to the summary: {@code exit_code}, {@code exit_reason} and, for a {@code --stop-at-end}
     * run stopped early, {@code partitions_short} (topic, partition, committed, end, records short).
     */
    public void outcome(int exitCode, String reason, List<Map<String, Object>> partitionsShort) {
        outcome(exitCode, reason, partitionsShort, Map.of());
    }

    /** As above, with what a replay did ({@code window}, {@code passes} with their shifts). */
    public void outcome(
            int exitCode, String reason, List<Map<String, Object>> partitionsShort, Map<String, Object> intake) {
        Map<String, Object> m = new LinkedHashMap<>(intake);
        m.put("exit_code", exitCode);
        m.put("exit_reason", reason);
        if (partitionsShort != null) {
            m.put("partitions_short", partitionsShort);
        }
        outcome = m;
    }

    /** Prints the final block. */
    public void printFinal(PrintStream out) {
        Map<String, Object> s = summary();
        double elapsed = (double) s.get("elapsed_seconds");
        out.println("=== tsdb-writer final report ===");
        s.forEach((k, v) -> {
            if (v instanceof Collection<?> c && c.isEmpty() || v instanceof Map<?, ?> mm && mm.isEmpty()) {
                return; // nothing to say: the final block stays short
            }
            out.printf(Locale.ROOT, "%-22s %s%n", k, v == null ? "n/a (nothing expected)" : v);
        });
        out.printf(
                Locale.ROOT,
                "%-22s %.0f%n",
                "samples_per_minute",
                (long) s.get("samples_written") / Math.max(elapsed, 1e-3) * 60);
        out.printf(
                Locale.ROOT,
                "%-22s %.0f%n",
                "expected_per_minute",
                (long) s.get("samples_expected") / Math.max(elapsed, 1e-3) * 60);
        out.printf(Locale.ROOT, "%-22s %d%n", "in_flight_batches", inFlightBatches.getAsLong());
        long writtenSamples = (long) s.get("samples_written");
        if (writtenSamples > 0) { // with no sample written the ratio has no meaning: left out
            out.printf(
                    Locale.ROOT,
                    "%-22s %.2f%n",
                    "cpu_s_per_million",
                    (double) s.get("cpu_seconds") / (writtenSamples / 1e6));
        }
    }

    /** Writes {@link #summary()} as JSON. */
    public void writeSummary(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), summary());
    }

    /** CPU time this process has used, in seconds (all threads), or NaN where the JVM cannot tell. */
    public static double processCpuSeconds() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            long ns = os.getProcessCpuTime();
            return ns < 0 ? Double.NaN : ns / 1e9;
        }
        return Double.NaN;
    }

    /** Sum of the heap memory pools' peak usage since start, in bytes. */
    public static long peakHeapBytes() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    /** Peak resident set size of this process ({@code VmHWM} of Linux {@code /proc/self/status}), in bytes; -1 elsewhere. */
    public static long peakRssBytes() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmHWM:"))
                    .findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
                    .orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    private static String percent(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", ratio * 100);
    }
}
