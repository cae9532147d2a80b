package io.tsdbwriter.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The catalogue of every meter tsdb-writer exports: each is declared here once, with its description, under one
 * name with tags (Micrometer naming; Prometheus names in brackets). Counters feed the efficiency report
 * (DESIGN §7) and the {@code --summary-json} file.
 *
 * <p>Thread-safe: meters are Micrometer's; tagged meters are created on first use and cached.
 */
public final class WriterMeters {

    /** Prefix of every tsdb-writer meter. */
    public static final String PREFIX = "tsdbwriter.";

    private final MeterRegistry registry;

    /** [tsdbwriter_records_consumed_total] Kafka records consumed. */
    public final Counter recordsConsumed;
    /** [tsdbwriter_points_decoded_total] valid source points decoded. */
    public final Counter pointsDecoded;
    /** [tsdbwriter_samples_expected_total] points decoded × M × N, less the points whose series relabeling dropped. */
    public final Counter samplesExpected;
    /** [tsdbwriter_samples_written_total] samples the TSDB answered 2xx for. */
    public final Counter samplesWritten;
    /** Samples written per tenant ({@code --tenant-from}): {@link TenantSamples}. */
    public final TenantSamples tenantSamples;
    /**
     * [tsdbwriter_samples_refused_total] samples the receiver refused (a 4xx not retried, e.g. 400/413/415) and no
     * dead-letter topic took.
     */
    public final Counter samplesRefused;
    /**
     * [tsdbwriter_samples_failed_total] the deprecated name of [tsdbwriter_samples_refused_total], the same count, kept
     * for one release so that dashboards and alerts on it go on working (CHANGELOG).
     */
    private final Counter samplesFailedDeprecated;
    /** [tsdbwriter_samples_dead_lettered_total] samples whose source records went to the dead-letter topic. */
    public final Counter samplesDeadLettered;
    /** [tsdbwriter_write_retries_total] write attempts retried. */
    public final Counter retries;
    /** Request body bytes sent, as on the wire (after compression), every attempt. */
    public final Counter requestBytes;
    /**
     * Bytes the segment readers' Kafka consumers received from the brokers ({@code incoming-byte-total}), added as each
     * reader ends; the summary's {@code kafka_fetched_bytes} (bench: fetched ÷ topic bytes). Not a meter.
     */
    public final LongAdder kafkaFetchedBytes = new LongAdder();
    /** [tsdbwriter_write_latency_seconds] duration of one write request. */
    public final Timer writeLatency;
    /** [tsdbwriter_write_permit_wait_seconds] time a poll thread waited for a write permit. */
    public final Timer permitWait;
    /** [tsdbwriter_segment_duration_seconds] time from a segment's first read to its completion. */
    public final Timer segmentDuration;
    /** [tsdbwriter_inflight_bytes] request bytes buffered or in flight. */
    public final AtomicLong inflightBytes = new AtomicLong();
    /**
     * [tsdbwriter_new_series_total] series the writer began: N per series (or churn generation of one) prepared in
     * the series cache — a first sight, a new {@code --churn-interval} generation, or again after an eviction.
     */
    public final Counter seriesCreated;
    /**
     * [tsdbwriter_relabel_dropped_total] source points not written because {@code --relabel-config} dropped their series
     * (a drop, keep, dropequal or keepequal rule, or labels left empty or without {@code __name__}); never an error.
     */
    public final Counter relabelDropped;
    /** [tsdbwriter_replay_pass] the replay pass being written, 1 for the first; 0 when not replaying. */
    public final AtomicLong replayPass = new AtomicLong();
    /** [tsdbwriter_rate_set_samples_per_second] {@code --max-samples-per-second}; 0 when unlimited. */
    public final AtomicLong rateSet = new AtomicLong();
    /**
     * [tsdbwriter_share_redeliveries_total] share-group records delivered to this process with a delivery count above 1
     * (a member died or released them, a lock expired): the records whose samples may be written twice.
     */
    public final Counter shareRedeliveries;

    private final ConcurrentHashMap<String, Counter> shareAcknowledgements = new ConcurrentHashMap<>();
    /**
     * When the last write was acknowledged ({@link System#nanoTime()}; 0: none yet): the summary's {@code write_seconds},
     * the time a backlog took to write, without the durability window a {@code --stop-at-end} job waits after it. Not a meter.
     */
    public final AtomicLong lastWriteNanos = new AtomicLong();
    /** [tsdbwriter_durability_window_seconds] the durability window W: how long after its 2xx a write counts as stored. */
    public final AtomicLong durabilityWindowSeconds = new AtomicLong();
    /**
     * [tsdbwriter_records_reread_total] records read again because a TSDB process restarted before their samples were
     * stored (each partition rewinds to its last commit): at-least-once, the repeats are duplicates, not loss.
     */
    public final Counter recordsReread;
    /**
     * [tsdbwriter_samples_repeats_refused_total] samples of records read again (a rewind, a rebalance, a restart) that
     * the receiver refused as out of order or duplicate: they were done before (stored, or refused and counted then),
     * so their refusal now is the repeat's, not a loss.
     */
    public final Counter samplesRepeatsRefused;
    /**
     * [tsdbwriter_samples_superseded_total] samples of {@link #samplesExpected} whose write went stale unwritten (a TSDB
     * restart seen, or the partition rewound or revoked, before their 2xx): their records are read again, and the
     * re-read's samples are expected and written in their place, so they are expected once ({@link #expectedOnce()}).
     */
    public final Counter samplesSuperseded;
    /**
     * Records acknowledged by the TSDB and not yet stored (waiting out the durability window), summed over the
     * partitions: [tsdbwriter_records_awaiting_durability]. Set by the member.
     */
    public final AtomicLong recordsAwaitingDurability = new AtomicLong();

    /**
     * [tsdbwriter_ingest_delay_seconds{stage}] per sample batch, the time from its oldest record's Kafka timestamp to
     * the TSDB's 2xx ({@code acknowledged}) and to the offset commit that covered it ({@code committed}):
     * {@link IngestDelay}.
     */
    public final IngestDelay ingestDelay;

    private final ConcurrentHashMap<String, Counter> tsdbRestarts = new ConcurrentHashMap<>();
    /** The {@code type} tags of [tsdbwriter_share_acknowledgements_total]. */
    public static final List<String> SHARE_ACKNOWLEDGEMENT_TYPES =
            List.of("accept", "reject", "release", "renew", "failed");

    private final AtomicLong decodeErrorsTotal = new AtomicLong();
    private final ConcurrentHashMap<String, Counter> decodeErrors = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> writeRequests = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> deadLetters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> deadLetterFailures = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> writeFaults = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> recordsSkipped = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> offsetResets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> samplesRefusedByReason = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<SkippedRange> skippedRanges = new ConcurrentLinkedQueue<>();

    /**
     * Offsets of a partition that were skipped, never read: {@code [from, to)}.
     *
     * @param reason {@code deleted}: below the log start offset (retention or deleteRecords)
     */
    public record SkippedRange(String topic, int partition, long from, long to, String reason) {
        /** Offsets in the range. */
        public long records() {
            return to - from;
        }
    }

    /** Native histograms the TSDB acknowledged (2xx), each also one of {@link #samplesWritten}: {@code --summary-json}. */
    public final LongAdder histogramsWritten = new LongAdder();

    /** Buckets of the native histograms the TSDB acknowledged (2xx): {@code --summary-json}. */
    public final LongAdder histogramBucketsWritten = new LongAdder();

    /** Native histograms of a batch the TSDB acknowledged (2xx) and their buckets; nothing when it had none. */
    public void histogramsWritten(int histograms, long buckets) {
        if (histograms > 0) {
            histogramsWritten.add(histograms);
            histogramBucketsWritten.add(buckets);
        }
    }

    /**
     * Samples expected, each once: {@link #samplesExpected} less {@link #samplesSuperseded} (what a stale write left
     * unwritten is expected again when its records are read again). Efficiency is samples written ÷ this. Thread-safe.
     */
    public double expectedOnce() {
        return expectedOnce(samplesExpected.count(), samplesSuperseded.count());
    }

    /**
     * {@code expected} less {@code superseded}, never below 0 (the counters are read one after the other while writes
     * complete).
     */
    static double expectedOnce(double expected, double superseded) {
        return Math.max(0, expected - superseded);
    }

    /** Samples the TSDB acknowledged (2xx), counted in all and, with a tenant ({@code --tenant-from}), for it. */
    public void written(Tenant tenant, long samples) {
        samplesWritten.increment(samples);
        if (tenant != null) {
            tenantSamples.add(tenant, samples);
        }
    }

    /** Registers the fixed meters on {@code registry}. */
    public WriterMeters(MeterRegistry registry) {
        this.registry = registry;
        recordsConsumed = Counter.builder(PREFIX + "records.consumed")
                .description("Kafka records consumed")
                .register(registry);
        pointsDecoded = Counter.builder(PREFIX + "points.decoded")
                .description("Valid source points decoded from records")
                .register(registry);
        samplesExpected = Counter.builder(PREFIX + "samples.expected")
                .description(
                        "Samples expected: points decoded x time multiplier x instance multiplier, less the points relabeling dropped")
                .register(registry);
        samplesWritten = Counter.builder(PREFIX + "samples.written")
                .description("Samples the TSDB acknowledged with 2xx")
                .register(registry);
        tenantSamples = new TenantSamples(registry);
        samplesRefused = Counter.builder(PREFIX + "samples.refused")
                .description(
                        "Samples the receiver refused (a 4xx not retried, e.g. "
                                + "400/413/415) and no dead-letter topic took (--dead-letter-topic: they count as dead-lettered instead)")
                .register(registry);
        samplesFailedDeprecated = Counter.builder(PREFIX + "samples.failed")
                .description("Deprecated name of "
                        + "tsdbwriter_samples_refused_total (the same count), removed in the next release")
                .register(registry);
        samplesDeadLettered = Counter.builder(PREFIX + "samples.dead.lettered")
                .description("Samples whose source records were sent to the dead-letter topic")
                .register(registry);
        requestBytes = Counter.builder(PREFIX + "write.request.bytes")
                .baseUnit("bytes")
                .description("Request body bytes sent, as on the wire (after gzip/snappy), every attempt")
                .register(registry);
        retries = Counter.builder(PREFIX + "write.retries")
                .description("Write requests retried (429, 5xx, I/O errors, timeouts)")
                .register(registry);
        writeLatency = Timer.builder(PREFIX + "write.latency")
                .description("Duration of one write request (an import or a remote write)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(120))
                .register(registry);
        permitWait = Timer.builder(PREFIX + "write.permit.wait")
                .description("Time a poll thread waited for a write permit (backpressure)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(120))
                .register(registry);
        segmentDuration = Timer.builder(PREFIX + "segment.duration")
                .description("Time from a segment's first read to its completion")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofMinutes(30))
                .register(registry);
        Gauge.builder(PREFIX + "inflight", inflightBytes, AtomicLong::get)
                .baseUnit("bytes")
                .description("Write request bytes buffered or in flight")
                .register(registry);
        seriesCreated = Counter.builder(PREFIX + "new.series")
                .description(
                        "Series the writer began: N per series or churn "
                                + "generation prepared (a first sight, a new --churn-interval generation, or again after a series-cache eviction)")
                .register(registry);
        relabelDropped = Counter.builder(PREFIX + "relabel.dropped")
                .description("Source points not written because --relabel-config "
                        + "dropped their series (a drop/keep rule, or no labels or no __name__ left); never an error")
                .register(registry);
        Gauge.builder(PREFIX + "replay.pass", replayPass, AtomicLong::get)
                .description("The replay pass being written (--loop), 1 for the first; 0 when not replaying")
                .register(registry);
        Gauge.builder(PREFIX + "rate.set", rateSet, AtomicLong::get)
                .baseUnit("samples.per.second")
                .description("The set write rate (--max-samples-per-second); 0 when unlimited")
                .register(registry);
        shareRedeliveries = Counter.builder(PREFIX + "share.redeliveries")
                .description("Share-group records delivered "
                        + "again (delivery count above 1): a member died or released them, or a lock expired")
                .register(registry);
        Gauge.builder(PREFIX + "durability.window", durabilityWindowSeconds, AtomicLong::get)
                .baseUnit("seconds")
                .description("How long after its 2xx a write counts as stored (--durability-window; 0 = at once)")
                .register(registry);
        Gauge.builder(PREFIX + "records.awaiting.durability", recordsAwaitingDurability, AtomicLong::get)
                .description(
                        "Records acknowledged by the TSDB and not yet stored: they wait out the durability window before "
                                + "their offsets are committed (written vs durable)")
                .register(registry);
        recordsReread = Counter.builder(PREFIX + "records.reread")
                .description("Records read again after a TSDB restart "
                        + "(rewound to the last commit: written twice, never lost)")
                .register(registry);
        samplesRepeatsRefused = Counter.builder(PREFIX + "samples.repeats.refused")
                .description(
                        "Samples of records read again "
                                + "(rewind, rebalance, restart) that the receiver refused as out of order or duplicate: done before, so not lost")
                .register(registry);
        samplesSuperseded = Counter.builder(PREFIX + "samples.superseded")
                .description(
                        "Samples expected whose write went stale unwritten (a TSDB restart, rewind or revoke before "
                                + "its 2xx): their records are read again and expected again, so efficiency divides by "
                                + "samples expected less these")
                .register(registry);
        for (String type :
                SHARE_ACKNOWLEDGEMENT_TYPES) { // at 0 from the start: the dashboard's query has a series in either mode
            shareAcknowledgements.put(
                    type,
                    Counter.builder(PREFIX + "share.acknowledgements")
                            .description(
                                    "Share-group acknowledgements by type (accept, reject, release, renew; failed = refused by the broker)")
                            .tag("type", type)
                            .register(registry));
        }
        ingestDelay = new IngestDelay(registry);
    }

    /**
     * Counts share-group acknowledgements: [tsdbwriter_share_acknowledgements_total{type}], {@code type} one of
     * {@code accept}, {@code reject}, {@code release}, {@code renew}, or {@code failed} (a commit the broker refused:
     * the record comes again).
     */
    public void shareAcknowledgements(String type, long n) {
        Counter c = shareAcknowledgements.get(type);
        if (c == null) {
            throw new IllegalArgumentException(
                    "share acknowledgement type " + type + " is not one of " + SHARE_ACKNOWLEDGEMENT_TYPES);
        }
        if (n > 0) {
            c.increment(n);
        }
    }

    /** Share-group acknowledgements of one type so far (for the summary and tests). */
    public long shareAcknowledgements(String type) {
        Counter c = shareAcknowledgements.get(type);
        return c == null ? 0 : (long) c.count();
    }

    /** The registry the meters live in. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Counts one rejected json record: [tsdbwriter_decode_errors_total{format="json",reason}]. */
    public void decodeError(String reason) {
        decodeErrors("json", reason, 1);
    }

    /**
     * Counts {@code n} malformed records or lines of one input format:
     * [tsdbwriter_decode_errors_total{format,reason}] (a line-based format counts each broken line; a skipped
     * non-finite sample counts under {@code non_finite_value}).
     */
    public void decodeErrors(String format, String reason, long n) {
        decodeErrorsTotal.addAndGet(n);
        decodeErrors
                .computeIfAbsent(format + '|' + reason, k -> Counter.builder(PREFIX + "decode.errors")
                        .description(
                                "Records (json, promremotewrite) or lines (influx, prometheus, jsonline, graphite) the input format could not read (malformed), by format and reason")
                        .tags(Tags.of("format", format, "reason", reason))
                        .register(registry))
                .increment(n);
    }

    /** Records rejected so far, all reasons. */
    public long decodeErrors() {
        return decodeErrorsTotal.get();
    }

    /**
     * Counts one write request: [tsdbwriter_write_requests_total{outcome,status}].
     *
     * @param outcome {@code success}, {@code retry}, {@code failed}, {@code fault} (a configuration fault: held, tried
     *                again) or {@code probe} (the empty request that tells a data refusal from a misconfigured endpoint)
     * @param status  HTTP status code, or {@code io} / {@code timeout}
     */
    public void writeRequest(String outcome, String status) {
        writeRequests
                .computeIfAbsent(outcome + '|' + status, k -> Counter.builder(PREFIX + "write.requests")
                        .description("Write requests by outcome and HTTP status")
                        .tags(Tags.of("outcome", outcome, "status", status))
                        .register(registry))
                .increment();
    }

    /**
     * Counts one record stored in the dead-letter topic: [tsdbwriter_dead_letters_total{form}].
     *
     * @param form {@code whole} (key and value unchanged) or {@code stub} (value cut to fit, {@code truncated} header)
     */
    public void deadLettered(String form) {
        deadLetters
                .computeIfAbsent(form, f -> Counter.builder(PREFIX + "dead.letters")
                        .description("Records stored in the dead-letter topic, whole or as a stub")
                        .tag("form", f)
                        .register(registry))
                .increment();
    }

    /**
     * Counts one record that could not be dead-lettered (its partition is held below it):
     * [tsdbwriter_dead_letter_failures_total{reason}].
     *
     * @param reason {@code unknown_topic}, {@code authorization}, {@code authentication}, {@code invalid_config},
     *               {@code invalid_topic}, {@code too_large}, {@code retries_exhausted} or {@code error}
     */
    public void deadLetterFailure(String reason) {
        deadLetterFailures
                .computeIfAbsent(reason, r -> Counter.builder(PREFIX + "dead.letter.failures")
                        .description(
                                "Records that could not be sent to the dead-letter topic, by reason (their partition is held below them)")
                        .tag("reason", r)
                        .register(registry))
                .increment();
    }

    /**
     * Counts one write that met a configuration fault (DESIGN §6: redirect, 401/403/404/405/407, TLS, DNS, refused
     * connection, or a refusal an empty request gets too): [tsdbwriter_write_faults_total{endpoint,class}].
     *
     * @param endpoint the endpoint's URL without user info
     * @param statusClass {@code 3xx}, {@code 4xx}, {@code tls}, {@code dns} or {@code connect}
     */
    public void writeFault(String endpoint, String statusClass) {
        writeFaults
                .computeIfAbsent(endpoint + '|' + statusClass, k -> Counter.builder(PREFIX + "write.faults")
                        .description(
                                "Write requests that met a configuration fault (redirect, 401/403/404/405/407, TLS, DNS, refused connection, "
                                        + "a refusal an empty request gets too): the data is kept and the partition holds, by endpoint and status class")
                        .tags(Tags.of("endpoint", endpoint, "class", statusClass))
                        .register(registry))
                .increment();
    }

    /**
     * Counts samples refused for what they are and not dead-lettered (no {@code --dead-letter-topic}), by reason:
     * adds to [tsdbwriter_samples_refused_total] and to {@link #samplesRefusedByReason()}.
     *
     * @param reason the refusal: HTTP status and the receiver's words (cut at 120 characters; past 100 distinct
     *               reasons the rest are counted as {@code (other reasons)})
     */
    public void samplesRefused(String reason, long samples) {
        samplesRefused.increment(samples);
        samplesFailedDeprecated.increment(samples);
        String r = reason.length() > 120 ? reason.substring(0, 120) + "…" : reason;
        if (samplesRefusedByReason.size() >= 100 && !samplesRefusedByReason.containsKey(r)) {
            r = "(other reasons)"; // bounded: the receiver's words may name every refused line
        }
        samplesRefusedByReason.computeIfAbsent(r, k -> new LongAdder()).add(samples);
    }

    /** Samples refused and not dead-lettered, by reason (a snapshot, sorted by reason). */
    public Map<String, Long> samplesRefusedByReason() {
        Map<String, Long> m = new TreeMap<>();
        samplesRefusedByReason.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /**
     * Counts a range of offsets skipped unread: [tsdbwriter_records_skipped_total{reason}] by the range's size, and
     * keeps the range for the summary.
     */
    public void recordsSkipped(SkippedRange range) {
        skippedRanges.add(range);
        recordsSkipped
                .computeIfAbsent(range.reason(), r -> Counter.builder(PREFIX + "records.skipped")
                        .description(
                                "Offsets skipped unread, by reason: deleted = below the log start offset (retention, deleteRecords)")
                        .tag("reason", r)
                        .register(registry))
                .increment(range.records());
    }

    /**
     * Counts one offset reset (each is also a WARN line): [tsdbwriter_offset_resets_total{reason}].
     *
     * @param reason {@code deleted} (the position lay below the log start) or {@code beyond_end} (beyond the log end)
     */
    public void offsetReset(String reason) {
        offsetResets
                .computeIfAbsent(reason, r -> Counter.builder(PREFIX + "offset.resets")
                        .description(
                                "Positions Kafka no longer had, moved by the writer (each also a WARN line): deleted = below the log start, "
                                        + "beyond_end = beyond the log end")
                        .tag("reason", r)
                        .register(registry))
                .increment();
    }

    /**
     * Counts one restart of a TSDB process seen by the durability watch (each also a WARN line):
     * [tsdbwriter_tsdb_restarts_total{process}], {@code process} its {@code /metrics} URL without secrets.
     */
    public void tsdbRestart(String process) {
        tsdbRestarts
                .computeIfAbsent(process, p -> Counter.builder(PREFIX + "tsdb.restarts")
                        .description(
                                "Restarts of a TSDB process that may have lost acknowledged samples (each rewinds every partition to its last commit)")
                        .tag("process", p)
                        .register(registry))
                .increment();
    }

    /** TSDB restarts seen so far, every process. */
    public long tsdbRestarts() {
        return tsdbRestarts.values().stream().mapToLong(c -> (long) c.count()).sum();
    }

    /** Every range skipped so far, in the order they were met. */
    public List<SkippedRange> skippedRanges() {
        return List.copyOf(skippedRanges);
    }

    // --max-hourly-series / --max-daily-series (vmagent's -remoteWrite.maxHourlySeries / maxDailySeries)

    /** The {@code reason} tags of [tsdbwriter_series_limit_dropped_total]: the limit that dropped the series. */
    public static final List<String> SERIES_LIMIT_REASONS = List.of("hourly", "daily");

    private final ConcurrentHashMap<String, Counter> seriesLimitDropped = new ConcurrentHashMap<>();

    private Counter seriesLimitDropped(String reason) {
        return seriesLimitDropped.computeIfAbsent(reason, r -> Counter.builder(PREFIX + "series.limit.dropped")
                .description(
                        "Samples not written because their series was new past --max-hourly-series (reason=hourly) "
                                + "or --max-daily-series (reason=daily); their records are committed, never an error")
                .tag("reason", r)
                .register(registry));
    }

    /**
     * Counts samples whose series a series limit dropped: [tsdbwriter_series_limit_dropped_total{reason}] (registered
     * with the first drop of its reason), {@code reason}
     * {@code hourly} or {@code daily} (vmagent's {@code vmagent_hourly_series_limit_rows_dropped_total} and
     * {@code vmagent_daily_series_limit_rows_dropped_total}).
     */
    public void seriesLimitDropped(long hourlySamples, long dailySamples) {
        if (hourlySamples > 0) {
            seriesLimitDropped("hourly").increment(hourlySamples);
        }
        if (dailySamples > 0) {
            seriesLimitDropped("daily").increment(dailySamples);
        }
    }

    /** Samples a series limit dropped so far, by reason ({@link #SERIES_LIMIT_REASONS}, each present, 0 if none). */
    public Map<String, Long> seriesLimitDropped() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String r : SERIES_LIMIT_REASONS) {
            Counter c = seriesLimitDropped.get(r);
            m.put(r, c == null ? 0 : (long) c.count());
        }
        return m;
    }

    /**
     * Registers the gauges of a series limit as vmagent names them: [tsdbwriter_hourly_series_limit_max_series] and
     * [tsdbwriter_hourly_series_limit_current_series] (likewise {@code daily}), read at scrape time.
     *
     * @param period  {@code hourly} or {@code daily}
     * @param max     the limit (series per window)
     * @param current series admitted in the current window; thread-safe
     */
    public void seriesLimit(String period, long max, LongSupplier current) {
        Gauge.builder(PREFIX + period + ".series.limit.max.series", () -> max)
                .description("The series limit of the current " + (period.equals("hourly") ? "hour" : "day")
                        + " (--max-" + period + "-series)")
                .register(registry);
        Gauge.builder(PREFIX + period + ".series.limit.current.series", current, c -> c.getAsLong())
                .description("Series admitted in the current " + (period.equals("hourly") ? "hour (UTC)" : "day (UTC)")
                        + " under --max-" + period + "-series (a Bloom filter's count: see docs/run.md)")
                .strongReference(true)
                .register(registry);
    }

    /** Registers a gauge under the catalogue's prefix (used for per-endpoint and per-partition gauges). */
    public <T> void gauge(String name, String description, Tags tags, T obj, ToDoubleFunction<T> f) {
        Gauge.builder(PREFIX + name, obj, f)
                .description(description)
                .tags(tags)
                .strongReference(true)
                .register(registry);
    }

    /**
     * Registers [tsdbwriter_write_permits_limit_reached_total]: acquisitions of a write permit that found every permit
     * (or the in-flight byte budget) taken and waited — how often vminsert's concurrency limit, kept on our side,
     * held a poll thread back (as VictoriaMetrics' {@code vm_concurrent_insert_limit_reached_total} does inside it).
     * The count is read from {@code obj} at scrape time; thread-safe as {@code count} is.
     */
    public <T> void permitLimitReached(T obj, ToDoubleFunction<T> count) {
        FunctionCounter.builder(PREFIX + "write.permits.limit.reached", obj, count)
                .description(
                        "Write permit acquisitions that found every permit or the in-flight byte budget taken and waited")
                .register(registry);
    }

    /**
     * Registers [tsdbwriter_limited_by{resource}]: 1 for the resource that binds throughput now, 0 for the others
     * (one series per {@link io.tsdbwriter.tsdbmetrics.Bottleneck.Resource}, so every one exists from the start; rules in
     * docs/capacity.md). Read from {@code current} at scrape time.
     */
    public void limitedBy(Supplier<Bottleneck.Resource> current) {
        for (Bottleneck.Resource r : Bottleneck.Resource.values()) {
            Gauge.builder(PREFIX + "limited.by", current, c -> c.get() == r ? 1 : 0)
                    .description(
                            "1 for the resource that limits throughput now (writer-cpu, writer-permits, target-insert-concurrency,"
                                    + " target-cpu, storage, machine-cpu, kafka-fetch, input, unknown), else 0")
                    .tag("resource", r.label())
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** Removes a gauge registered with {@link #gauge} (e.g. for a revoked partition). */
    public void removeGauge(String name, Tags tags) {
        var g = registry.find(PREFIX + name).tags(tags).gauge();
        if (g != null) {
            registry.remove(g);
        }
    }
}
