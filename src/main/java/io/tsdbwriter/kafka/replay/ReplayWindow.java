package io.tsdbwriter.kafka.replay;

import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.metrics.WriterMeters;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The window a replay writes: the topics' partitions ({@code --topic}, each of which must exist, or every topic
 * matching {@code --topic-pattern}) and each partition's window {@code [from, to)} — {@code --from}/{@code --to} as
 * offsets (clamped to the log) or times (Kafka's {@code offsetsForTimes}), by default the log start and the log end at
 * start. Offsets of the window below the log start were deleted (retention, {@code deleteRecords}): one WARN line and
 * the skip counted. It also keeps the log ends' total (the input rate) and writes the window's part of the summary.
 *
 * <p>Threading: {@link #resolve} and {@link #read} run on the replay thread with its window reader (the
 * {@code KafkaConsumer} {@link ReplayMember} owns); {@link #windows()} is filled there before pass 0 and only read
 * after; {@link #logEndTotal()} may be read from any thread.
 */
final class ReplayWindow {

    private static final Logger log = LoggerFactory.getLogger(ReplayWindow.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final ReplayMember.Settings settings;
    private final WriterMeters meters;
    private final KafkaReachability reachability;
    private final BooleanSupplier closed;
    private final Map<TopicPartition, long[]> windows =
            new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                    ? Integer.compare(a.partition(), b.partition())
                    : a.topic().compareTo(b.topic()));
    private volatile long logEndTotal;

    /**
     * @param settings     the replay: topics or pattern, {@code --from}/{@code --to}
     * @param meters       where skipped (deleted) records are counted
     * @param reachability told whether Kafka answered the topics' listing
     * @param closed       true once the replay is stopping
     */
    ReplayWindow(
            ReplayMember.Settings settings,
            WriterMeters meters,
            KafkaReachability reachability,
            BooleanSupplier closed) {
        this.settings = settings;
        this.meters = meters;
        this.reachability = reachability;
        this.closed = closed;
    }

    /**
     * The partitions of {@code --topic} (each must exist) or of every topic matching {@code --topic-pattern}; retries
     * while Kafka does not answer, up to {@code --kafka-timeout}.
     *
     * @return null when stopped first
     */
    List<TopicPartition> resolve(KafkaConsumer<byte[], byte[]> c) {
        while (!closed.getAsBoolean()) {
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
                all.keySet().stream()
                        .filter(t -> settings.topicPattern().matcher(t).matches())
                        .sorted()
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
    long read(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
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
                log.warn(
                        "{}: offsets {} to {} of the window were deleted (retention or deleteRecords): skipping {} record(s)",
                        tp,
                        start,
                        logStart,
                        gone);
                meters.recordsSkipped(
                        new WriterMeters.SkippedRange(tp.topic(), tp.partition(), start, start + gone, "deleted"));
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
    private static Map<TopicPartition, Long> bound(
            KafkaConsumer<byte[], byte[]> c,
            ReplayConfig.WindowBound b,
            List<TopicPartition> partitions,
            Map<TopicPartition, Long> begin,
            Map<TopicPartition, Long> end,
            Map<TopicPartition, Long> absent) {
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

    /** Each partition's window {@code [start, stop)}, by topic then partition (filled by {@link #read}). */
    Map<TopicPartition, long[]> windows() {
        return windows;
    }

    /** The sum of the windows' ends, read at start (the input rate's base). */
    long logEndTotal() {
        return logEndTotal;
    }

    /** The window's part of the summary: its records, first sample, where it was rebased to, and each partition's window. */
    Map<String, Object> summary(long records, long windowStartMs, long shift0) {
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
}
