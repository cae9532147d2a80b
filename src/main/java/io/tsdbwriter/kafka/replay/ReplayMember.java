package io.tsdbwriter.kafka.replay;

import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.KafkaReachability;
import io.tsdbwriter.kafka.MissingTopicException;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import io.tsdbwriter.kafka.segment.SegmentConsumer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replay of a window of a topic for a capacity test (docs/capacity-testing.md): no consumer group, no commit.
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
 * window, read before pass 0 (a probe of at most {@value WindowRebase#PROBE_RECORDS} records per partition).
 *
 * <p>Its parts: {@link ReplayWindow} (the topics' partitions and each one's window), {@link WindowRebase} (the window's
 * first sample, {@code shift₀}, the retention check) and {@link ReplayPasses} (the passes, their drain and "done means
 * stored"); this class is the {@link Intake}: it runs them in turn and answers how the replay went.
 *
 * <p>Threading as {@code KafkaConsumer}: {@link #run()} owns its consumers on one thread (the window reader, then the
 * probe's); {@link #stop()} from any thread sets the closed flag and calls {@code wakeup()} on each.
 */
public final class ReplayMember implements Intake {

    private static final Logger log = LoggerFactory.getLogger(ReplayMember.class);

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
    public record Settings(
            Map<String, Object> consumerProps,
            List<String> topics,
            Pattern topicPattern,
            ReplayConfig replay,
            long sourceIntervalMs,
            Duration drainTimeout,
            Duration kafkaTimeout,
            Duration retention) {}

    private final Settings settings;
    private final IntakeSettings workerSettings;
    private final KafkaReachability reachability;
    /** The topics' partitions and each one's window. */
    private final ReplayWindow window;
    /** The window's first sample and pass 0's shift. */
    private final WindowRebase rebase;
    /** The passes over the window. */
    private final ReplayPasses passes;

    private volatile boolean closed;
    private volatile boolean startFailed;
    private volatile boolean reachedEnd;
    private volatile boolean cleanStop = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Map<String, Object> windowSummary = Map.of();

    /**
     * @param settings       the replay
     * @param workerSettings what every partition's SegmentConsumers need
     */
    public ReplayMember(Settings settings, IntakeSettings workerSettings) {
        this.settings = settings;
        this.workerSettings = workerSettings;
        this.reachability = new KafkaReachability(bootstrap(), "a replay", settings.kafkaTimeout());
        this.window = new ReplayWindow(settings, workerSettings.meters(), reachability, () -> closed);
        this.rebase = new WindowRebase(settings, workerSettings, () -> closed);
        this.passes = new ReplayPasses(settings, workerSettings, window.windows(), () -> closed);
    }

    private String bootstrap() {
        return String.valueOf(settings.consumerProps().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    }

    /** The window reader's settings: a reader's (no group, no commits, read_committed, bytes), one client id. */
    private Map<String, Object> props() {
        return SegmentConsumer.readerProps(
                settings.consumerProps(),
                "tsdb-writer-replay-" + ProcessHandle.current().pid());
    }

    @Override
    public void run() {
        long restartsAtStart = workerSettings.durability().state().restarts();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props())) {
            consumer = c;
            long deadline = settings.replay().duration() == null
                    ? Long.MAX_VALUE
                    : System.nanoTime() + settings.replay().duration().toNanos();
            List<TopicPartition> partitions = window.resolve(c);
            if (partitions == null) {
                return; // stopped before Kafka answered
            }
            long records = window.read(c, partitions);
            if (records == 0) {
                log.warn(
                        "replay: the window holds no record on any of {} partition(s): nothing to write",
                        partitions.size());
                reachedEnd = true;
                return;
            }
            WindowRebase.Placement placement = rebase.place(window.windows());
            windowSummary = window.summary(records, placement.windowStartMs(), placement.shift0());
            passes.run(restartsAtStart, placement, deadline);
        } catch (MissingTopicException e) {
            log.error(
                    e.getMessage()); // troubleshooting: does not exist (the writer never creates topics): check --topic
            // | no topic matches --topic-pattern
            startFailed = true;
            cleanStop = false;
        } catch (KafkaReachability.GaveUp e) {
            log.error(e.getMessage()); // troubleshooting: unreachable for … (--kafka-timeout) in …: giving up | refused
            // this client:
            startFailed = !passes.started();
            cleanStop = false;
        } catch (WakeupException e) {
            // stopped
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanStop = false;
        } catch (AuthenticationException | AuthorizationException e) {
            log.error(KafkaReachability.refused(
                    bootstrap(), e)); // troubleshooting: refused this client: … (credentials or ACLs, not an outage
            startFailed = !passes.started();
            cleanStop = false;
        } catch (RuntimeException e) {
            log.error("replay failed", e); // troubleshooting: replay failed
            cleanStop = false;
        } finally {
            closed = true;
        }
    }

    @Override
    public void stop() {
        closed = true;
        passes.wake();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        rebase.wakeup();
    }

    /** A replay's end is its last pass; {@code --loop forever} has none: a signal is its normal end. */
    @Override
    public boolean hasEnd() {
        return settings.replay().loops() != ReplayConfig.FOREVER
                || settings.replay().duration() != null;
    }

    @Override
    public boolean reachedEnd() {
        return reachedEnd || passes.reachedEnd();
    }

    @Override
    public boolean startFailed() {
        return startFailed;
    }

    @Override
    public boolean cleanStop() {
        return cleanStop && passes.cleanStop();
    }

    @Override
    public boolean kafkaReachable() {
        return reachability.reachable() && !closed;
    }

    @Override
    public long logEndTotal() {
        return window.logEndTotal();
    }

    @Override
    public Map<TopicPartition, Shortfall> shortfall() {
        return passes.shortfall();
    }

    @Override
    public String stoppedShort() {
        return passes.stoppedShort();
    }

    @Override
    public Map<String, Object> summary() {
        Map<String, Object> m = new LinkedHashMap<>(windowSummary);
        m.put("passes", passes.summaries());
        return m;
    }
}
