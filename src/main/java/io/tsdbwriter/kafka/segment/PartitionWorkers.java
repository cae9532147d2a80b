package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.write.BatchWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The P SegmentConsumers of one assigned partition and their ack trackers: starts them from the committed offset,
 * computes the partition's {@link Watermark}, and stops them. Thread-safe.
 */
public final class PartitionWorkers {

    /** How long stopping readers may take to hand over their open batches before they are interrupted: 10 s. */
    static final Duration READERS_STOP = Duration.ofSeconds(10);

    private final List<PointAmplifier> amplifiers = new ArrayList<>();

    private final TopicPartition tp;
    private final BatchWriter writer;
    private final long startOffset;
    private final long stopOffset;
    private final List<AckTracker> trackers = new ArrayList<>();
    private final List<SegmentConsumer> consumers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Object gateLock = new Object();
    private long gateWatermark;
    private boolean stopping;
    /** The acknowledged watermarks waiting out the durability window (the member's thread). */
    private final DurableOffsets durable;
    /** The reorder step under per-series order (open {@link io.tsdbwriter.write.OrderedLanes}), else null. */
    private final SegmentOrder order;
    /** Acknowledged batches waiting for the commit that covers them (the ingest delay's committed stage). */
    private final CommitDelays commitDelays;
    /** Watermark rises timed at the acknowledgement that moved them (a member's partition). */
    private final AckedRises rises = new AckedRises(this::watermark);

    /** @param onAck called (on a writer thread) whenever an ack moved one of this partition's trackers */
    /** {@link #doneBelow(long)}: read by the writer threads' refusal path. */
    private volatile long doneBelow = -1;
    /** {@link #rewoundOnRestart()}: read by the writer threads. */
    private volatile boolean rewoundOnRestart;

    public PartitionWorkers(TopicPartition tp, long startOffset, long stopOffset, IntakeSettings s, Runnable onAck) {
        this(tp, startOffset, stopOffset, s, IntakeSettings.Timeline.NONE, onAck);
    }

    /** @param timeline the shift and churn origin of the samples these readers write */
    public PartitionWorkers(
            TopicPartition tp,
            long startOffset,
            long stopOffset,
            IntakeSettings s,
            IntakeSettings.Timeline timeline,
            Runnable onAck) {
        this.tp = tp;
        this.writer = s.writer();
        this.startOffset = startOffset;
        this.stopOffset = stopOffset;
        this.gateWatermark = startOffset;
        this.durable = new DurableOffsets(startOffset);
        this.commitDelays = new CommitDelays(s.meters().ingestDelay);
        SegmentPlan plan = new SegmentPlan(s.segmentSize(), s.parallelism(), startOffset);
        this.order = s.lanes() != null && s.lanes().size() > 0
                ? new SegmentOrder(s.lanes(), plan.segmentOf(startOffset))
                : null;
        long restartsAtStart = s.durability().state().restarts();
        BooleanSupplier restartedSince =
                () -> rewoundOnRestart && s.durability().state().restarts() != restartsAtStart;
        for (int i = 0; i < s.parallelism(); i++) {
            AckTracker tracker = new AckTracker(plan.start(plan.firstSegment(i)));
            PointAmplifier amplifier = s.amplifier(tp.topic(), timeline);
            amplifiers.add(amplifier);
            RecordProcessor processor = RecordProcessor.builder(amplifier, s.writer(), s.meters(), tracker)
                    .batchSamples(s.batchSamples())
                    .batchSendDeadlineNanos(s.batchSendDeadline().toNanos())
                    .decodeErrors(s.decodeErrors())
                    .onAck(() -> {
                        rises.ackMoved();
                        onAck.run();
                    })
                    .deadLetters(s.deadLetters())
                    .rate(s.rate())
                    .order(order, s.lanes())
                    .doneBelow(() -> doneBelow)
                    .tenants(s.tenants())
                    .restartedSince(restartedSince)
                    .commitDelays(commitDelays)
                    .build();
            trackers.add(tracker);
            consumers.add(new SegmentConsumer(
                    tp, i, plan, stopOffset, s.consumerProps(), processor, tracker, s.meters(), this::awaitWatermark));
        }
    }

    /**
     * The offset below which every record of this partition was done before these readers read it again (a rewind to
     * the last commit, a rebalance, a restart: the acknowledged watermark then; -1 = none). Call before {@link #start}.
     */
    public void doneBelow(long offset) {
        this.doneBelow = offset;
    }

    /**
     * Says that a TSDB restart rewinds this partition (a group member's, DESIGN §4): from the moment one is seen after
     * these readers were made, their batches are stale — not sent, not retried, their answers dropped — as the rewind
     * reads them again. Without it (a replay, which ends on a restart instead) a restart changes nothing here. Call
     * before {@link #start}.
     */
    public void rewoundOnRestart() {
        this.rewoundOnRestart = true;
    }

    /**
     * Says that this partition's offsets are committed (a group member's): each acknowledged batch waits for the commit
     * that covers it ({@link #committed}), which records its ingest delay's {@code committed} stage. Without it (a
     * replay, which commits nothing) that stage is not measured. The watermark's rises are then also timed at the
     * acknowledgement that moved them ({@link AckedRises}), so the member's late rounds do not delay durability. Call
     * before {@link #start}.
     */
    public void measureCommits() {
        commitDelays.measure();
        rises.enable();
    }

    /**
     * Offset {@code offset} of this partition was committed: the ingest delay's {@code committed} stage is recorded for
     * every acknowledged batch below it ({@link #measureCommits}). Member thread.
     */
    public void committed(long offset) {
        commitDelays.committed(offset);
    }

    public void start() {
        for (int i = 0; i < consumers.size(); i++) {
            threads.add(Thread.ofPlatform().name("segment-" + tp + "-" + i).start(consumers.get(i)));
        }
    }

    public TopicPartition partition() {
        return tp;
    }

    public long startOffset() {
        return startOffset;
    }

    public long stopOffset() {
        return stopOffset;
    }

    /** The lowest offset not yet acknowledged: everything below it got a 2xx (or was dead-lettered). */
    public long watermark() {
        return Watermark.of(trackers, stopOffset);
    }

    /**
     * The watermark as stored by {@code state}: the highest watermark seen at least the durability window before the
     * clock's bound; the only offset ever committed. Samples the watermark now (feeding the readers' gate). Member thread.
     */
    public long durableWatermark(DurabilityClock.State state) {
        rises.drainTo(durable);
        long wm = watermark();
        durable.acked(System.nanoTime(), wm);
        watermarkReached(wm);
        return durable.durable(state);
    }

    /**
     * The furthest any reader of this partition has read (the start offset when none has read): what may have been sent
     * to the TSDB. Under per-series order no record above an unread one was sent (segment k's batches go before k+1's).
     */
    public long readSoFar() {
        long max = startOffset;
        for (AckTracker t : trackers) {
            max = Math.max(max, t.readPosition());
        }
        return max;
    }

    /** The acknowledged watermark as last sampled by {@link #durableWatermark}. Member thread. */
    public long ackedSoFar() {
        return durable.acked();
    }

    /** The durable watermark as last computed, without sampling the watermark again. Member thread. */
    public long durableSoFar() {
        return durable.durableSoFar();
    }

    /** Records acknowledged whose storage is not yet known (watermark seen minus durable watermark). Member thread. */
    public long awaitingDurability() {
        return durable.acked() - durable.durableSoFar();
    }

    /** With a stop offset: every reader is done and everything up to it is acked. */
    public boolean finished() {
        for (SegmentConsumer c : consumers) {
            if (!c.finished()) {
                return false;
            }
        }
        return watermark() >= stopOffset;
    }

    /** Every reader is done: the records below the stop offset are read and handed on (their writes may be in flight). */
    public boolean readersFinished() {
        for (SegmentConsumer c : consumers) {
            if (!c.finished()) {
                return false;
            }
        }
        return true;
    }

    /** Batches handed to the writer and not yet done. */
    public int pendingBatches() {
        int n = 0;
        for (AckTracker t : trackers) {
            n += t.pendingBatches();
        }
        return n;
    }

    /** Records that the watermark reached {@code offset} and wakes readers waiting for it. */
    public void watermarkReached(long offset) {
        synchronized (gateLock) {
            if (offset > gateWatermark) {
                gateWatermark = offset;
                gateLock.notifyAll();
            }
        }
    }

    /**
     * Waits until the watermark is at least {@code offset}: a SegmentConsumer may start segment k only once segment
     * k − P is acknowledged, so readers never run unboundedly ahead of the writes, and a crash replays at most P
     * segments of a partition plus what was acknowledged within the durability window (DESIGN §4). The gate follows
     * the acknowledgements, not the commits, so the window delays commits, never reads or writes.
     *
     * @return false when the partition is being stopped
     */
    boolean awaitWatermark(long offset) throws InterruptedException {
        synchronized (gateLock) {
            while (gateWatermark < offset && !stopping) {
                gateLock.wait(1000);
            }
            return !stopping;
        }
    }

    /**
     * Starts stopping: readers waiting at the commit gate are released and every SegmentConsumer is closed. Returns at
     * once; {@link #awaitReaders} waits for their threads. Idempotent.
     */
    void closeReaders() {
        synchronized (gateLock) {
            stopping = true;
            gateLock.notifyAll();
        }
        if (order != null) {
            order.stop(); // what waits for its turn is dropped: read again by the partition's next reader
        }
        consumers.forEach(SegmentConsumer::close);
    }

    /**
     * Waits for the reader threads until {@code deadlineNanos} ({@link System#nanoTime()} scale); a thread still alive
     * then (blocked handing a batch to the writer) is interrupted and given one more second.
     */
    void awaitReaders(long deadlineNanos) throws InterruptedException {
        for (Thread t : threads) {
            long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (left > 0) {
                t.join(left);
            }
        }
        for (Thread t : threads) {
            if (t.isAlive()) {
                t.interrupt();
            }
        }
        for (Thread t : threads) {
            t.join(1000);
        }
    }

    /**
     * Stops the readers of all {@code workers} at once ({@link #closeReaders}) and waits for their threads until
     * {@code deadlineNanos} ({@link System#nanoTime()} scale) or {@link #READERS_STOP} from now, whichever comes first
     * ({@link #awaitReaders}): a stop of many partitions is bounded as a stop of one. Their writes may still be in
     * flight. Called by the member thread that owns {@code workers}.
     */
    public static void stopReaders(Collection<PartitionWorkers> workers, long deadlineNanos)
            throws InterruptedException {
        workers.forEach(PartitionWorkers::closeReaders);
        long readersDeadline = Math.min(deadlineNanos, System.nanoTime() + READERS_STOP.toNanos());
        for (PartitionWorkers w : workers) {
            w.awaitReaders(readersDeadline);
        }
    }

    /**
     * Waits until no batch is pending, at most {@code timeout}; returns true when drained. Returns false sooner once the
     * writer gave up (a configuration fault given up, or writes held at the stop) and nothing is in flight any more.
     */
    public boolean awaitDrained(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pendingBatches() > 0) {
            if (System.nanoTime() > deadline || (writer.givingUp() && writer.inFlight() == 0)) {
                return false; // past the deadline, or given up (a configuration fault, a stop during a write fault)
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** True when the stop held writes, of any partition (the TSDB failing at the stop, {@link BatchWriter#stopping()}). */
    public boolean writesHeldAtStop() {
        return writer.batchesHeld() > 0;
    }

    /**
     * The range of source timestamps (before the shift) these readers decoded, {@code [min, max]}; null when none.
     * Read once the readers finished.
     */
    public long[] sourceRange() {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (PointAmplifier a : amplifiers) {
            min = Math.min(min, a.minSourceTimestampMs());
            max = Math.max(max, a.maxSourceTimestampMs());
        }
        return min > max ? null : new long[] {min, max};
    }

    /** Freezes the watermark: completions arriving after this never move it (partition revoked). */
    public void abandon() {
        trackers.forEach(AckTracker::abandon);
    }
}
