package io.tsdbwriter.kafka.replay;

import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import io.tsdbwriter.kafka.segment.SegmentConsumer;

import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.pipeline.RecordDecoders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replay of a window of a topic for a capacity test (README "Capacity testing"): no consumer group, no commit.
 * It resolves the topics ({@code --topic} or {@code --topic-pattern}), each partition's window {@code [from, to)} (an
 * offset, or Kafka's {@code offsetsForTimes} for a time; by default the log start and the log end at start), and
 * writes the window {@code --loop} times with the partitions' {@link PartitionWorkers} — the same P SegmentConsumers,
 * permits and acks as a relay, the commit gate fed by the local watermark instead of the group's commits. Pass k's
 * samples are shifted by {@code shift₀ + k × L}: {@code shift₀} puts the window's first sample at
 * {@code --rebase-time} (0 without it), {@code L} is the window's length (its source timestamps' range plus one source
 * interval, measured in pass 0), so no pass lands on another's timestamps. The group named by {@code --group-id} is
 * never read nor written.
 *
 * <p>The window's first sample is the smallest source timestamp of the first decodable record of each partition's
 * window, read before pass 0 (a probe of at most {@value #PROBE_RECORDS} records per partition).
 *
 * <p>Threading as {@code KafkaConsumer}: {@link #run()} owns its consumer on one thread; {@link #stop()} from any
 * thread sets the closed flag and calls {@code wakeup()}.
 */
public final class ReplayMember implements Intake {

    private static final Logger log = LoggerFactory.getLogger(ReplayMember.class);
    private static final Duration WAIT = Duration.ofMillis(100);
    private static final Duration READERS_STOP = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    /** Records read per partition, at most, to find the window's first sample. */
    static final int PROBE_RECORDS = 100;
    /** Without a readable retention: a window older than this gets a warning at start. */
    static final Duration DEFAULT_RETENTION = Duration.ofDays(31);

    /**
     * How the replay runs.
     *
     * @param consumerProps    the Kafka client settings (security, bootstrap); group settings are dropped
     * @param topics           {@code --topic}, or empty with a pattern
     * @param topicPattern     {@code --topic-pattern}, or null
     * @param replay           the window, rebase, loops, duration
     * @param sourceIntervalMs the source interval (a window's length is its timestamps' range plus one)
     * @param drainTimeout     how long a stop waits for in-flight writes
     * @param kafkaTimeout     how long Kafka may not answer at start before the run exits 1
     * @param retention        the target's retention when it could be read, else null
     */
    public record Settings(Map<String, Object> consumerProps, List<String> topics, Pattern topicPattern, ReplayConfig replay,
                           long sourceIntervalMs, Duration drainTimeout, Duration kafkaTimeout, Duration retention) {
    }

    private final Settings settings;
    private final IntakeSettings workerSettings;
    private final KafkaReachability reachability;
    private final Map<TopicPartition, long[]> windows = new TreeMap<>(
            (a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
    private final List<Map<String, Object>> passes = new ArrayList<>();
    private final Object ackSignal = new Object();
    private boolean acked; // guarded by ackSignal
    private volatile boolean closed;
    /** TSDB restarts seen before the replay began (replay thread). */
    private long restartsAtStart;
    private volatile boolean startFailed;
    private volatile boolean reachedEnd;
    private volatile boolean cleanStop = true;
    private volatile long logEndTotal;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile KafkaConsumer<byte[], byte[]> probe;
    private volatile Map<TopicPartition, Shortfall> shortfall;
    private volatile Map<String, Object> windowSummary = Map.of();

    /**
     * @param settings       the replay
     * @param workerSettings what every partition's SegmentConsumers need
     */
    public ReplayMember(Settings settings, IntakeSettings workerSettings) {
        this.settings = settings;
        this.workerSettings = workerSettings;
        this.reachability = new KafkaReachability(bootstrap(), "a replay", settings.kafkaTimeout());
    }

    private String bootstrap() {
        return String.valueOf(settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    }

    /** The window reader's settings: a reader's (no group, no commits, read_committed, bytes), one client id. */
    private Map<String, Object> props() {
        return SegmentConsumer.readerProps(settings.consumerProps(), "tsdb-writer-replay-" + ProcessHandle.current().pid());
    }

    @Override
    public void run() {
        restartsAtStart = workerSettings.durability().state().restarts();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props())) {
            consumer = c;
            long deadline = settings.replay().duration() == null ? Long.MAX_VALUE
                    : System.nanoTime() + settings.replay().duration().toNanos();
            List<TopicPartition> partitions = resolve(c);
            if (partitions == null) {
                return; // stopped before Kafka answered
            }
            long records = window(c, partitions);
            if (records == 0) {
                log.warn("replay: the window holds no record on any of {} partition(s): nothing to write", partitions.size());
                reachedEnd = true;
                return;
            }
            long windowStartMs = probeFirstSample();
            long shift0 = 0;
            ReplayConfig r = settings.replay();
            if (r.rebase() != null) {
                if (windowStartMs == Long.MAX_VALUE) {
                    log.warn("replay: no decodable sample at the window's start: --rebase-time cannot place it; writing at the records' own times");
                } else {
                    shift0 = r.rebase().resolve(System.currentTimeMillis()) - windowStartMs;
                }
            }
            long origin = windowStartMs == Long.MAX_VALUE ? 0 : windowStartMs + shift0;
            checkRetention(windowStartMs, shift0);
            windowSummary = windowSummary(records, windowStartMs, shift0);
            runPasses(shift0, origin, deadline);
        } catch (MissingTopicException e) {
            log.error(e.getMessage());
            startFailed = true;
            cleanStop = false;
        } catch (KafkaReachability.GaveUp e) {
            log.error(e.getMessage());
            startFailed = passes.isEmpty();
            cleanStop = false;
        } catch (WakeupException e) {
            // stopped
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanStop = false;
        } catch (AuthenticationException | AuthorizationException e) {
            log.error(KafkaReachability.refused(bootstrap(), e));
            startFailed = passes.isEmpty();
            cleanStop = false;
        } catch (RuntimeException e) {
            log.error("replay failed", e);
            cleanStop = false;
        } finally {
            closed = true;
        }
    }

    /** Every pass in turn, until the last, {@code --duration} or a stop; then what is still in flight is written. */
    private void runPasses(long shift0, long origin, long deadline) throws InterruptedException {
        long loops = settings.replay().loops();
        long lengthMs = 0;
        for (long pass = 0; pass < loops && !closed; pass++) {
            long shift = shift0 + pass * lengthMs;
            workerSettings.meters().replayPass.set(pass + 1);
            long[] range = runPass(pass, shift, origin, lengthMs == 0 ? Long.MAX_VALUE : lengthMs, deadline);
            if (range == null) {
                return; // stopped, or --duration over: released
            }
            if (pass == 0) {
                lengthMs = range[1] - range[0] + settings.sourceIntervalMs();
                log.info("replay: the window spans {} .. {} ({} s with one source interval); pass k is written k x {} s later",
                        Instant.ofEpochMilli(range[0]), Instant.ofEpochMilli(range[1]), lengthMs / 1000, lengthMs / 1000);
            }
        }
        while (!draining.isEmpty() && !closed) { // the last passes' writes
            awaitAck(WAIT);
            settle();
        }
        if (!draining.isEmpty()) {
            release(List.of(), true);
            return;
        }
        reachedEnd = !closed && awaitStored();
    }

    /**
     * "Done" means stored (DESIGN §4): once every write of the last pass is acknowledged, waits out the durability
     * window. A replay has no commits to rewind to, so a TSDB restart seen at any time during it ends the replay not
     * done (exit 1) with one line: what the TSDB acknowledged just before it may be lost, and the replay must run again
     * (its repeats collapse under {@code -dedup.minScrapeInterval}).
     *
     * @return true when everything written counts as stored
     */
    private boolean awaitStored() throws InterruptedException {
        DurabilityClock durability = workerSettings.durability();
        if (durability.off()) {
            return true;
        }
        long lastAck = System.nanoTime(); // every write is acknowledged by now
        if (!durability.state().durable(lastAck)) {
            log.info("replay: every write acknowledged; waiting {}s for the TSDB to persist them", durability.window().toSeconds());
        }
        while (!closed) {
            DurabilityClock.State state = durability.state();
            if (state.restarts() != restartsAtStart) {
                log.error("replay: the TSDB restarted during the replay ({} restart(s), the last: {}); samples it acknowledged just before may "
                        + "not have been stored, and a replay has no commit to rewind to: run the replay again (repeats collapse "
                        + "under -dedup.minScrapeInterval)", state.restarts() - restartsAtStart, durability.lastRestart());
                cleanStop = false;
                return false;
            }
            if (state.durable(lastAck)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** A pass whose records are read and whose writes may still be in flight. */
    private record Pass(Map<String, Object> summary, Collection<PartitionWorkers> workers) {
        boolean written() {
            for (PartitionWorkers w : workers) {
                if (!w.finished()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Passes read and not yet written, oldest first (replay thread only). */
    private final List<Pass> draining = new ArrayList<>();

    /** Marks the passes whose every write is acknowledged complete, and forgets them. */
    private void settle() {
        draining.removeIf(p -> {
            if (p.written()) {
                p.summary().put("complete", true);
                return true;
            }
            return false;
        });
    }

    /**
     * Reads the window once, shifted by {@code shiftMs}. The next pass starts as soon as this one's records are read —
     * its last writes still in flight, as a relay's next segment would — so a soak at a set rate has no gap between
     * passes; a pass is complete once every write is acknowledged.
     *
     * @return the source timestamps' range {@code [min, max]} of the pass; null when it was not read to its end
     *         (stopped, or {@code --duration} over, which then ends the replay)
     */
    private long[] runPass(long pass, long shiftMs, long origin, long churnKeepMs, long deadline) throws InterruptedException {
        Map<TopicPartition, PartitionWorkers> workers = new LinkedHashMap<>();
        IntakeSettings.Timeline timeline = new IntakeSettings.Timeline(shiftMs, origin, churnKeepMs);
        windows.forEach((tp, w) -> {
            if (w[0] < w[1]) {
                workers.put(tp, new PartitionWorkers(tp, w[0], w[1], workerSettings, timeline, this::signalAck));
            }
        });
        long loops = settings.replay().loops();
        log.info("replay pass {}{}: {} partition(s), timestamps shifted by {} s", pass + 1,
                loops == ReplayConfig.FOREVER ? " (loop forever)" : " of " + loops, workers.size(), shiftMs / 1000);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("pass", pass + 1);
        summary.put("shift_ms", shiftMs);
        summary.put("complete", false);
        passes.add(summary);
        long t0 = System.nanoTime();
        workers.values().forEach(PartitionWorkers::start);
        boolean durationOver = false;
        boolean read = false;
        while (!closed) {
            awaitAck(WAIT);
            boolean all = true;
            for (PartitionWorkers w : workers.values()) {
                w.watermarkReached(w.watermark()); // the watermark gate: segment k waits for k - P to be written
                all &= w.readersFinished();
            }
            settle();
            if (all) {
                read = true;
                break;
            }
            if (System.nanoTime() > deadline) {
                durationOver = true;
                log.info("replay: --duration {} is over: stopping in pass {} after draining", settings.replay().duration(), pass + 1);
                break;
            }
        }
        summary.put("seconds", Math.round((System.nanoTime() - t0) / 1e6) / 1e3);
        if (!read) {
            release(workers.values(), !durationOver);
            if (durationOver) {
                reachedEnd = cleanStop;
            }
            return null;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (PartitionWorkers w : workers.values()) {
            long[] r = w.sourceRange();
            if (r != null) {
                min = Math.min(min, r[0]);
                max = Math.max(max, r[1]);
            }
        }
        if (min <= max) {
            summary.put("first_sample", Instant.ofEpochMilli(min + shiftMs).toString());
            summary.put("last_sample", Instant.ofEpochMilli(max + shiftMs).toString());
        }
        draining.add(new Pass(summary, workers.values()));
        log.info("replay pass {} read in {} s", pass + 1, summary.get("seconds"));
        return min <= max ? new long[] {min, max} : new long[] {0, -settings.sourceIntervalMs()};
    }

    /**
     * Stops the current pass's readers and those of the passes still draining, drains every write up to the drain
     * timeout; a signal's stop records the partitions left short (the oldest pass's, per partition).
     */
    private void release(Collection<PartitionWorkers> current, boolean recordShortfall) throws InterruptedException {
        List<PartitionWorkers> workers = new ArrayList<>();
        draining.forEach(p -> workers.addAll(p.workers()));
        workers.addAll(current);
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        workers.forEach(PartitionWorkers::closeReaders);
        long readersDeadline = Math.min(deadline, System.nanoTime() + READERS_STOP.toNanos());
        for (PartitionWorkers w : workers) {
            w.awaitReaders(readersDeadline);
        }
        for (PartitionWorkers w : workers) {
            if (!w.awaitDrained(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                cleanStop = false;
                log.warn("{}: {} batch(es) still unwritten at the stop (drain timeout, or given up on a configuration fault)",
                        w.partition(), w.pendingBatches());
            }
        }
        settle();
        workers.forEach(PartitionWorkers::abandon);
        if (recordShortfall) {
            Map<TopicPartition, Shortfall> s = new LinkedHashMap<>();
            for (PartitionWorkers w : workers) {
                if (w.watermark() < w.stopOffset()) {
                    s.putIfAbsent(w.partition(), new Shortfall(w.partition(), w.watermark(), w.stopOffset()));
                }
            }
            shortfall = s;
        }
        draining.clear();
    }

    /**
     * The partitions of {@code --topic} (each must exist) or of every topic matching {@code --topic-pattern}; retries
     * while Kafka does not answer, up to {@code --kafka-timeout}.
     *
     * @return null when stopped first
     */
    private List<TopicPartition> resolve(KafkaConsumer<byte[], byte[]> c) {
        while (!closed) {
            Map<String, List<PartitionInfo>> all;
            try {
                all = c.listTopics(REQUEST_TIMEOUT);
                reachability.ok();
            } catch (TimeoutException e) {
                reachability.unreachable(e);
                continue;
            }
            List<TopicPartition> out = new ArrayList<>();
            if (settings.topicPattern() != null) {
                all.keySet().stream().filter(t -> settings.topicPattern().matcher(t).matches()).sorted()
                        .forEach(t -> all.get(t).forEach(p -> out.add(new TopicPartition(t, p.partition()))));
                if (out.isEmpty()) {
                    throw MissingTopicException.noMatch(settings.topicPattern());
                }
            } else {
                for (String t : settings.topics()) {
                    List<PartitionInfo> ps = all.get(t);
                    if (ps == null || ps.isEmpty()) {
                        throw new MissingTopicException(t);
                    }
                    ps.forEach(p -> out.add(new TopicPartition(t, p.partition())));
                }
            }
            return out;
        }
        return null;
    }

    /**
     * Each partition's window {@code [start, stop)}: {@code --from}/{@code --to} as offsets (clamped to the log) or times
     * ({@code offsetsForTimes}: the first record at or after the time; none = the log end), by default the log start and
     * the log end now. Offsets below the log start are gone (retention): a WARN line and the skip counted.
     *
     * @return the records in all windows
     */
    private long window(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
        Map<TopicPartition, Long> begin = c.beginningOffsets(partitions, REQUEST_TIMEOUT);
        Map<TopicPartition, Long> end = c.endOffsets(partitions, REQUEST_TIMEOUT);
        Map<TopicPartition, Long> from = bound(c, settings.replay().from(), partitions, begin, end, begin);
        Map<TopicPartition, Long> to = bound(c, settings.replay().to(), partitions, begin, end, end);
        long total = 0;
        long endTotal = 0;
        for (TopicPartition tp : partitions) {
            long logStart = begin.getOrDefault(tp, 0L);
            long logEnd = end.getOrDefault(tp, 0L);
            long start = from.get(tp);
            long stop = Math.max(start, Math.min(to.get(tp), logEnd));
            if (start < logStart) {
                long gone = Math.min(logStart, stop) - start;
                log.warn("{}: offsets {} to {} of the window were deleted (retention or deleteRecords): skipping {} record(s)",
                        tp, start, logStart, gone);
                workerSettings.meters().recordsSkipped(new io.tsdbwriter.metrics.WriterMeters.SkippedRange(
                        tp.topic(), tp.partition(), start, start + gone, "deleted"));
                start = Math.min(logStart, stop);
            }
            windows.put(tp, new long[] {start, stop});
            total += stop - start;
            endTotal += stop;
            log.info("replay window {}: offsets {} to {} ({} record(s))", tp, start, stop, stop - start);
        }
        logEndTotal = endTotal;
        return total;
    }

    /** One bound per partition: the default when absent, an offset as given, a time through {@code offsetsForTimes}. */
    private static Map<TopicPartition, Long> bound(KafkaConsumer<byte[], byte[]> c, ReplayConfig.WindowBound b,
                                                   List<TopicPartition> partitions, Map<TopicPartition, Long> begin,
                                                   Map<TopicPartition, Long> end, Map<TopicPartition, Long> absent) {
        Map<TopicPartition, Long> out = new HashMap<>();
        if (b == null) {
            partitions.forEach(tp -> out.put(tp, absent.getOrDefault(tp, 0L)));
        } else if (b.kind() == ReplayConfig.WindowBound.Kind.OFFSET) {
            partitions.forEach(tp -> out.put(tp, Math.min(b.value(), end.getOrDefault(tp, 0L))));
        } else {
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(tp -> query.put(tp, b.value()));
            Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(query, REQUEST_TIMEOUT);
            partitions.forEach(tp -> {
                OffsetAndTimestamp o = found.get(tp);
                out.put(tp, o == null ? end.getOrDefault(tp, 0L) : Math.max(o.offset(), begin.getOrDefault(tp, 0L)));
            });
        }
        return out;
    }

    /**
     * The window's first sample: the smallest source timestamp of the first decodable record at each partition's
     * window start (up to {@value #PROBE_RECORDS} records each).
     *
     * @return epoch ms, or {@link Long#MAX_VALUE} when no record of the window start decodes
     */
    private long probeFirstSample() {
        long first = Long.MAX_VALUE;
        DecodedPoints points = new DecodedPoints();
        Rejections rejections = new Rejections();
        TimestampWindow any = new TimestampWindow(0, Long.MAX_VALUE);
        Map<TopicPartition, Integer> left = new HashMap<>(); // partitions still probed: records they may still read
        windows.forEach((tp, w) -> {
            if (w[0] < w[1]) {
                left.put(tp, PROBE_RECORDS);
            }
        });
        // a consumer of its own, closed after: reassigning the window reader would leave its offset fetches dangling
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(SegmentConsumer.readerProps(settings.consumerProps(),
                "tsdb-writer-replay-probe-" + ProcessHandle.current().pid()))) {
            probe = c;
            if (closed) {
                return first;
            }
            c.assign(left.keySet());
            left.keySet().forEach(tp -> c.seek(tp, windows.get(tp)[0]));
            long deadline = System.nanoTime() + PROBE_TIMEOUT.toNanos();
            while (!left.isEmpty() && !closed && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(WAIT)) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Integer n = left.get(tp);
                    if (n == null) {
                        continue;
                    }
                    if (r.offset() >= windows.get(tp)[1] || n <= 0) {
                        left.remove(tp);
                        continue;
                    }
                    left.put(tp, n - 1);
                    RecordDecoders.create(workerSettings.input().formatOf(tp.topic()), workerSettings.maxRecordBytes(),
                            workerSettings.input().influxPrecision(), any)
                            .decode(r.value(), r.timestamp() >= 0 ? r.timestamp() : System.currentTimeMillis(), points, rejections);
                    if (points.count() > 0) {
                        first = Math.min(first, points.shiftTimestamps(0));
                        left.remove(tp);
                    }
                }
                c.pause(c.assignment().stream().filter(tp -> !left.containsKey(tp)).toList());
            }
        } finally {
            probe = null;
        }
        return first;
    }

    /**
     * Samples older than the target's retention are answered 2xx and dropped by VictoriaMetrics; the decoders refuse
     * them (TimestampWindow) — here the one line at start that says so, or a warning when the retention is unknown.
     */
    private void checkRetention(long windowStartMs, long shiftMs) {
        if (windowStartMs == Long.MAX_VALUE) {
            return;
        }
        long first = windowStartMs + shiftMs;
        long now = System.currentTimeMillis();
        Duration retention = settings.retention();
        if (retention != null && first < now - retention.toMillis()) {
            log.error("replay: the window's first sample ({}) is older than the target's retention ({} days): VictoriaMetrics "
                    + "would answer 2xx and drop such samples, so they are refused (implausible_timestamp); replay with "
                    + "--rebase-time now", Instant.ofEpochMilli(first), retention.toDays());
        } else if (retention == null && first < now - DEFAULT_RETENTION.toMillis()) {
            log.warn("replay: the window's first sample ({}) is older than a month, VictoriaMetrics' default retention; "
                    + "the target's retention could not be read: if it is shorter, its samples are dropped - replay with "
                    + "--rebase-time now", Instant.ofEpochMilli(first));
        }
    }

    private Map<String, Object> windowSummary(long records, long windowStartMs, long shift0) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("window_records", records);
        if (windowStartMs != Long.MAX_VALUE) {
            m.put("window_first_sample", Instant.ofEpochMilli(windowStartMs).toString());
            m.put("rebased_to", Instant.ofEpochMilli(windowStartMs + shift0).toString());
        }
        List<Map<String, Object>> ws = new ArrayList<>();
        windows.forEach((tp, w) -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("topic", tp.topic());
            e.put("partition", tp.partition());
            e.put("from", w[0]);
            e.put("to", w[1]);
            ws.add(e);
        });
        m.put("window", ws);
        return m;
    }

    private void signalAck() {
        synchronized (ackSignal) {
            acked = true;
            ackSignal.notifyAll();
        }
    }

    private void awaitAck(Duration timeout) throws InterruptedException {
        synchronized (ackSignal) {
            if (!acked) {
                ackSignal.wait(timeout.toMillis());
            }
            acked = false;
        }
    }

    @Override
    public void stop() {
        closed = true;
        signalAck();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        KafkaConsumer<byte[], byte[]> p = probe;
        if (p != null) {
            p.wakeup();
        }
    }

    /** A replay's end is its last pass; {@code --loop forever} has none: a signal is its normal end. */
    @Override
    public boolean hasEnd() {
        return settings.replay().loops() != ReplayConfig.FOREVER || settings.replay().duration() != null;
    }

    @Override
    public boolean reachedEnd() {
        return reachedEnd;
    }

    @Override
    public boolean startFailed() {
        return startFailed;
    }

    @Override
    public boolean cleanStop() {
        return cleanStop;
    }

    @Override
    public boolean kafkaReachable() {
        return reachability.reachable() && !closed;
    }

    @Override
    public long logEndTotal() {
        return logEndTotal;
    }

    @Override
    public Map<TopicPartition, Shortfall> shortfall() {
        return shortfall;
    }

    @Override
    public Map<String, Object> summary() {
        Map<String, Object> m = new LinkedHashMap<>(windowSummary);
        m.put("passes", List.copyOf(passes));
        return m;
    }
}
