package io.tsdbwriter.kafka;

import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer-group member of a process (DESIGN §5): it subscribes with the cooperative-sticky assignor,
 * keeps every assigned partition paused (it only holds membership), starts a {@link PartitionWorkers} per
 * assigned partition from the committed offset, and commits each partition's {@link Watermark} — at every
 * segment end and at least every commit interval; never an offset above an unacked one. On revocation it stops
 * the partition's readers, waits up to the drain timeout for its writes, commits, and drops late completions.
 *
 * <p>Threading as {@code KafkaConsumer}: {@link #run()} owns the consumer on one thread; {@link #stop()} from any
 * thread sets the closed flag and calls {@code wakeup()}.
 */
public final class GroupMember implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(GroupMember.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration END_OFFSETS_EVERY = Duration.ofSeconds(5);

    /** How this member behaves. */
    public record Settings(Map<String, Object> consumerProps, List<String> topics, Duration commitInterval,
                           Duration drainTimeout, boolean stopAtEnd) {
    }

    private final Settings settings;
    private final PartitionWorkers.Settings workerSettings;
    private final Map<TopicPartition, PartitionWorkers> workers = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> stopOffsets = new HashMap<>();
    private final Map<TopicPartition, Long> logEnd = new ConcurrentHashMap<>();
    private final AtomicLong logEndTotal = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean cleanStop = true;
    private volatile boolean assignedOnce;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    /** Set by writer threads when an ack moved a watermark; the member loop then commits at once. */
    private final Object ackSignal = new Object();
    private boolean acked; // guarded by ackSignal

    /**
     * @param settings       membership and commit settings
     * @param workerSettings what every partition's SegmentConsumers need
     */
    public GroupMember(Settings settings, PartitionWorkers.Settings workerSettings) {
        this.settings = settings;
        this.workerSettings = workerSettings;
    }

    private void signalAck() {
        synchronized (ackSignal) {
            acked = true;
            ackSignal.notifyAll();
        }
    }

    /** Waits until an ack is signalled or {@code timeout} passes; clears the signal. */
    private void awaitAck(Duration timeout) throws InterruptedException {
        synchronized (ackSignal) {
            if (!acked) {
                ackSignal.wait(timeout.toMillis());
            }
            acked = false;
        }
    }

    static Map<String, Object> memberProps(Map<String, Object> base) {
        Map<String, Object> p = new HashMap<>(base);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return p;
    }

    @Override
    public void run() {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(memberProps(settings.consumerProps()))) {
            consumer = c;
            c.subscribe(settings.topics(), new Rebalance(c));
            long lastCommit = System.nanoTime();
            long lastEndOffsets = 0;
            while (!closed) {
                try {
                    if (workers.isEmpty()) {
                        c.poll(POLL); // joining or nothing assigned: let the poll wait
                    } else {
                        c.poll(Duration.ZERO); // paused partitions: returns nothing, keeps membership
                        awaitAck(POLL);        // ... and the wait is for acks, so commits follow them closely
                    }
                } catch (WakeupException e) {
                    break;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                if (System.nanoTime() - lastEndOffsets > END_OFFSETS_EVERY.toNanos()) {
                    refreshLogEnd(c);
                    lastEndOffsets = System.nanoTime();
                }
                boolean due = System.nanoTime() - lastCommit >= settings.commitInterval().toNanos();
                commit(c, due);
                if (due) {
                    lastCommit = System.nanoTime();
                }
                if (settings.stopAtEnd() && assignedOnce && allFinished()) {
                    log.info("stop-at-end: every assigned partition is written up to its end offset");
                    break;
                }
            }
            revokeAll(c, true);
        } catch (WakeupException e) {
            // closed while starting
        } catch (org.apache.kafka.common.errors.AuthenticationException | org.apache.kafka.common.errors.AuthorizationException e) {
            log.error("Kafka refused this client: {} (check the security settings of --kafka-config / --kafka-property)", e.getMessage());
            cleanStop = false;
            workers.values().forEach(PartitionWorkers::abandon);
        } catch (RuntimeException e) {
            log.error("group member failed", e);
            cleanStop = false;
            workers.values().forEach(PartitionWorkers::abandon);
        } finally {
            closed = true;
        }
    }

    private void refreshLogEnd(KafkaConsumer<byte[], byte[]> c) {
        Set<TopicPartition> assigned = c.assignment();
        if (assigned.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, Long> ends = c.endOffsets(assigned, Duration.ofSeconds(5));
            logEnd.putAll(ends);
            long total = 0;
            for (Long v : logEnd.values()) {
                total += v;
            }
            logEndTotal.set(total);
        } catch (RuntimeException e) {
            log.debug("end offsets not available now: {}", e.toString());
        }
    }

    private boolean allFinished() {
        if (workers.isEmpty()) {
            return false;
        }
        for (PartitionWorkers w : workers.values()) {
            if (!w.finished()) {
                return false;
            }
        }
        return true;
    }

    /** Commits every partition whose watermark crossed a segment end (or all advanced ones when {@code due}). */
    private void commit(KafkaConsumer<byte[], byte[]> c, boolean due) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionWorkers w : workers.values()) {
            long wm = w.watermark();
            long last = committed.getOrDefault(w.partition(), w.startOffset());
            if (wm > last) {
                boolean segmentEnd = wm / workerSettings.segmentSize() > last / workerSettings.segmentSize() || wm >= w.stopOffset();
                if (due || segmentEnd) {
                    offsets.put(w.partition(), new OffsetAndMetadata(wm));
                }
            }
        }
        commitSync(c, offsets);
    }

    private void commitSync(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            c.commitSync(offsets, Duration.ofSeconds(30));
            offsets.forEach((tp, om) -> {
                committed.put(tp, om.offset());
                PartitionWorkers w = workers.get(tp);
                if (w != null) {
                    w.committed(om.offset());
                }
            });
            log.debug("committed {}", offsets);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("commit of {} failed (will retry): {}", offsets, e.toString());
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> c;

        Rebalance(KafkaConsumer<byte[], byte[]> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                assignedOnce = true;
                return;
            }
            c.pause(partitions);
            Set<TopicPartition> set = new HashSet<>(partitions);
            Map<TopicPartition, OffsetAndMetadata> com = c.committed(set, Duration.ofSeconds(30));
            Map<TopicPartition, Long> begin = c.beginningOffsets(set, Duration.ofSeconds(30));
            Map<TopicPartition, Long> ends = c.endOffsets(set, Duration.ofSeconds(30));
            logEnd.putAll(ends);
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata om = com.get(tp);
                long start = Math.max(om == null ? 0 : om.offset(), begin.getOrDefault(tp, 0L));
                long stop = Long.MAX_VALUE;
                if (settings.stopAtEnd()) {
                    stop = stopOffsets.computeIfAbsent(tp, t -> ends.get(t));
                    stop = Math.max(stop, start);
                }
                committed.put(tp, start);
                // every ack that moves a watermark wakes this member's loop, so a segment end is committed at once
                // (a SegmentConsumer waits for segment k-P to be committed before it reads segment k)
                PartitionWorkers w = new PartitionWorkers(tp, start, stop, workerSettings, GroupMember.this::signalAck);
                workers.put(tp, w);
                registerGauges(tp);
                w.start();
                log.info("assigned {}: reading from offset {}{} with {} segment consumer(s)", tp, start,
                        stop == Long.MAX_VALUE ? "" : " to " + stop, workerSettings.parallelism());
            }
            assignedOnce = true;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            release(c, partitions, true);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            release(c, partitions, false);
        }
    }

    private void registerGauges(TopicPartition tp) {
        Tags tags = Tags.of("topic", tp.topic(), "partition", Integer.toString(tp.partition()));
        workerSettings.meters().removeGauge("committed.offset", tags);
        workerSettings.meters().removeGauge("consumer.lag.records", tags);
        workerSettings.meters().gauge("committed.offset", "Offset committed for the partition (its watermark)", tags, tp,
                t -> committed.getOrDefault(t, 0L));
        workerSettings.meters().gauge("consumer.lag.records", "Log end offset minus committed offset", tags, tp,
                t -> Math.max(0, logEnd.getOrDefault(t, 0L) - committed.getOrDefault(t, 0L)));
    }

    private void revokeAll(KafkaConsumer<byte[], byte[]> c, boolean commit) {
        release(c, new ArrayList<>(workers.keySet()), commit);
    }

    /** Stops readers, drains writes up to the drain timeout, commits the watermark, forgets the partitions. */
    private void release(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> partitions, boolean commit) {
        List<PartitionWorkers> leaving = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionWorkers w = workers.get(tp);
            if (w != null) {
                leaving.add(w);
            }
        }
        if (leaving.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        try {
            for (PartitionWorkers w : leaving) {
                w.stopReading(Duration.ofSeconds(10));
            }
            for (PartitionWorkers w : leaving) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                if (!w.awaitDrained(left)) {
                    cleanStop = false;
                    log.warn("{}: {} batch(es) still unwritten after the drain timeout; committing only below them",
                            w.partition(), w.pendingBatches());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanStop = false;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionWorkers w : leaving) {
            w.abandon();
            long wm = w.watermark();
            if (wm > committed.getOrDefault(w.partition(), w.startOffset())) {
                offsets.put(w.partition(), new OffsetAndMetadata(wm));
            }
        }
        if (commit) {
            try {
                commitSync(c, offsets);
            } catch (WakeupException e) {
                commitSync(c, offsets); // wakeup consumed; try once more
            }
        }
        for (PartitionWorkers w : leaving) {
            workers.remove(w.partition());
            log.info("released {} at watermark {}", w.partition(), w.watermark());
        }
    }

    /** Total log end offset of the assigned partitions, refreshed every few seconds (input rate). */
    public long logEndTotal() {
        return logEndTotal.get();
    }

    /** Offsets committed by this member, by partition. */
    public Map<TopicPartition, Long> committedOffsets() {
        return Map.copyOf(committed);
    }

    /** True when shutdown drained everything (no write abandoned, no failure). */
    public boolean cleanStop() {
        return cleanStop;
    }

    /** Whether the member loop has ended. */
    public boolean closed() {
        return closed;
    }

    /** Asks the member to stop: its loop then stops readers, drains, commits and leaves the group. Idempotent. */
    public void stop() {
        closed = true;
        signalAck();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }
}
