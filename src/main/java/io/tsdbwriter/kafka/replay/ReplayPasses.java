package io.tsdbwriter.kafka.replay;

import io.tsdbwriter.config.ReplayConfig;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.kafka.segment.AckSignal;
import io.tsdbwriter.kafka.segment.PartitionWorkers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The passes of a replay (docs/capacity-testing.md): the window written {@code --loop} times with the partitions'
 * {@link PartitionWorkers} — the same P SegmentConsumers, permits and acks as a relay, the commit gate fed by the
 * local watermark instead of the group's commits. Pass k's samples are shifted by {@code shift₀ + k × L}, {@code L}
 * the window's length (its source timestamps' range plus one source interval, measured in pass 0), so no pass lands
 * on another's timestamps. The next pass starts as soon as one's records are read; a pass is complete once every
 * write is acknowledged; the replay is done once the last pass's writes count as stored (DESIGN §4). A stop or
 * {@code --replay-duration} releases the readers and drains what is in flight, up to the drain timeout.
 *
 * <p>Threading: {@link #run} runs on the replay thread (the passes' bookkeeping is its own); the partitions' writer
 * threads call the ack signal; {@link #wake()} (the replay's stop), {@link #cleanStop()}, {@link #reachedEnd()},
 * {@link #shortfall()}, {@link #started()} and {@link #summaries()} may be called from any thread.
 */
final class ReplayPasses {

    private static final Logger log = LoggerFactory.getLogger(ReplayPasses.class);
    private static final Duration WAIT = Duration.ofMillis(100);
    /** {@link #awaitStored}'s deadline while no stop came. */
    private static final long NO_DEADLINE = Long.MIN_VALUE;

    private final ReplayMember.Settings settings;
    private final IntakeSettings workerSettings;
    private final Map<TopicPartition, long[]> windows;
    private final BooleanSupplier closed;
    private final List<Map<String, Object>> passes = new ArrayList<>();
    /** Passes read and not yet written, oldest first (replay thread only). */
    private final List<Pass> draining = new ArrayList<>();

    private final AckSignal ackSignal = new AckSignal();
    /** TSDB restarts seen before the replay began (replay thread). */
    private long restartsAtStart;

    private volatile boolean cleanStop = true;
    private volatile boolean reachedEnd;
    private volatile Map<TopicPartition, Shortfall> shortfall;
    /** After a stop before the end, what the shortfall does not say (passes not begun, writes not yet stored); else null. */
    private volatile String stoppedShort;

    /**
     * @param settings       the replay: loops, duration, source interval, drain timeout
     * @param workerSettings what every partition's SegmentConsumers need
     * @param windows        each partition's window {@code [start, stop)}, filled before {@link #run}
     * @param closed         true once the replay is stopping
     */
    ReplayPasses(
            ReplayMember.Settings settings,
            IntakeSettings workerSettings,
            Map<TopicPartition, long[]> windows,
            BooleanSupplier closed) {
        this.settings = settings;
        this.workerSettings = workerSettings;
        this.windows = windows;
        this.closed = closed;
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

    /**
     * Every pass in turn, until the last, {@code --replay-duration} or a stop; then what is still in flight is written.
     *
     * @param restartsAtStart the TSDB restarts seen before the replay began
     * @param placement       pass 0's shift and where the window's first sample lands
     * @param deadline        {@code System.nanoTime()} when {@code --replay-duration} is over ({@link Long#MAX_VALUE}: none)
     */
    void run(long restartsAtStart, WindowRebase.Placement placement, long deadline) throws InterruptedException {
        this.restartsAtStart = restartsAtStart;
        long shift0 = placement.shift0();
        long loops = settings.replay().loops();
        long lengthMs = 0;
        long pass = 0;
        for (; pass < loops && !closed.getAsBoolean(); pass++) {
            long shift = shift0 + pass * lengthMs;
            workerSettings.meters().replayPass.set(pass + 1);
            long[] range =
                    runPass(pass, shift, placement.origin(), lengthMs == 0 ? Long.MAX_VALUE : lengthMs, deadline);
            if (range == null) {
                return; // stopped, or --replay-duration over: released
            }
            if (pass == 0) {
                lengthMs = range[1] - range[0] + settings.sourceIntervalMs();
                log.info(
                        "replay: the window spans {} .. {} ({} s with one source interval); pass k is written k x {} s later",
                        Instant.ofEpochMilli(range[0]),
                        Instant.ofEpochMilli(range[1]),
                        lengthMs / 1000,
                        lengthMs / 1000);
            }
        }
        if (pass < loops) { // stopped between two passes: the next one never began, every partition short by its window
            release(List.of(), true, System.nanoTime() + settings.drainTimeout().toNanos());
            Map<TopicPartition, Shortfall> s = new LinkedHashMap<>(shortfall);
            windows.forEach((tp, w) -> {
                if (w[0] < w[1]) {
                    s.putIfAbsent(tp, new Shortfall(tp, w[0], w[1]));
                }
            });
            shortfall = s;
            stoppedShort = "pass " + (pass + 1) + (loops == ReplayConfig.FOREVER ? "" : " of " + loops) + " not begun";
            return;
        }
        while (!draining.isEmpty() && !closed.getAsBoolean()) { // the last passes' writes
            ackSignal.await(WAIT);
            settle();
        }
        long stopDeadline = NO_DEADLINE;
        if (!draining.isEmpty()) { // stopped while the last pass's writes drain: the stop finishes them, if it can
            stopDeadline = System.nanoTime() + settings.drainTimeout().toNanos();
            release(List.of(), true, stopDeadline);
            if (!cleanStop || !shortfall.isEmpty()) {
                return;
            }
            shortfall =
                    null; // every pass written: what remains is the durability window, within the same --drain-timeout
        }
        reachedEnd = awaitStored(stopDeadline);
    }

    /**
     * "Done" means stored (DESIGN §4): once every write of the last pass is acknowledged, waits out the durability
     * window. A replay has no commits to rewind to, so a TSDB restart seen at any time during it ends the replay not
     * done (exit 1) with one line: what the TSDB acknowledged just before it may be lost, and the replay must run again
     * (its repeats collapse under {@code -dedup.minScrapeInterval}). A stop (a signal) during the wait, as one during
     * the last pass's drain, waits the rest of the window out within {@code --drain-timeout}: every pass written and
     * stored is the end reached (exit 0), not a stop short of it; the drain timeout ending first is one.
     *
     * @param stopDeadline {@link System#nanoTime()} when the stop's drain timeout ends; {@link #NO_DEADLINE} while no
     *                     stop came (a stop during the wait then starts its own)
     * @return true when everything written counts as stored
     */
    private boolean awaitStored(long stopDeadline) throws InterruptedException {
        DurabilityClock durability = workerSettings.durability();
        if (durability.off()) {
            return true;
        }
        long lastAck = System.nanoTime(); // every write is acknowledged by now
        if (!durability.state().durable(lastAck)) {
            log.info(
                    "replay: every write acknowledged; waiting {}s for the TSDB to persist them",
                    durability.window().toSeconds());
        }
        long deadline = stopDeadline;
        while (true) {
            if (deadline == NO_DEADLINE && closed.getAsBoolean()) {
                deadline = System.nanoTime() + settings.drainTimeout().toNanos();
                log.info(
                        "replay: stopping while every write waits out the durability window: waiting for the rest (up to {})",
                        settings.drainTimeout());
            }
            DurabilityClock.State state = durability.state();
            if (state.restarts() != restartsAtStart) {
                log.error(
                        "replay: the TSDB restarted during the replay ({} restart(s), the last: {}); samples it acknowledged just before may "
                                + "not have been stored, and a replay has no commit to rewind to: run the replay again (repeats collapse "
                                + "under -dedup.minScrapeInterval)",
                        state.restarts() - restartsAtStart,
                        durability.lastRestart());
                cleanStop = false;
                return false;
            }
            if (state.durable(lastAck)) {
                return true;
            }
            if (deadline != NO_DEADLINE && System.nanoTime() - deadline > 0) {
                stoppedShort = "every pass written, but not yet known stored: the durability window ("
                        + durability.window().toSeconds() + "s) had not passed when --drain-timeout ended";
                return false;
            }
            Thread.sleep(100);
        }
    }

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
     *         (stopped, or {@code --replay-duration} over, which then ends the replay)
     */
    private long[] runPass(long pass, long shiftMs, long origin, long churnKeepMs, long deadline)
            throws InterruptedException {
        Map<TopicPartition, PartitionWorkers> workers = new LinkedHashMap<>();
        IntakeSettings.Timeline timeline = new IntakeSettings.Timeline(shiftMs, origin, churnKeepMs);
        windows.forEach((tp, w) -> {
            if (w[0] < w[1]) {
                workers.put(tp, new PartitionWorkers(tp, w[0], w[1], workerSettings, timeline, ackSignal::signal));
            }
        });
        long loops = settings.replay().loops();
        log.info(
                "replay pass {}{}: {} partition(s), timestamps shifted by {} s",
                pass + 1,
                loops == ReplayConfig.FOREVER ? " (loop forever)" : " of " + loops,
                workers.size(),
                shiftMs / 1000);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("pass", pass + 1);
        summary.put("shift_ms", shiftMs);
        summary.put("complete", false);
        passes.add(summary);
        long t0 = System.nanoTime();
        workers.values().forEach(PartitionWorkers::start);
        boolean durationOver = false;
        boolean read = false;
        while (!closed.getAsBoolean()) {
            ackSignal.await(WAIT);
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
                log.info(
                        "replay: --replay-duration {} is over: stopping in pass {} after draining",
                        settings.replay().duration(),
                        pass + 1);
                break;
            }
        }
        summary.put("seconds", Math.round((System.nanoTime() - t0) / 1e6) / 1e3);
        if (!read) {
            release(
                    workers.values(),
                    !durationOver,
                    System.nanoTime() + settings.drainTimeout().toNanos());
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
     * Stops the current pass's readers and those of the passes still draining, drains every write until
     * {@code deadline} ({@link System#nanoTime()}); a signal's stop records the partitions left short (the oldest
     * pass's, per partition).
     */
    private void release(Collection<PartitionWorkers> current, boolean recordShortfall, long deadline)
            throws InterruptedException {
        List<PartitionWorkers> workers = new ArrayList<>();
        draining.forEach(p -> workers.addAll(p.workers()));
        workers.addAll(current);
        PartitionWorkers.stopReaders(workers, deadline);
        for (PartitionWorkers w : workers) {
            if (!w.awaitDrained(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                cleanStop = false;
                if (!w.writesHeldAtStop()) { // held at the stop: the exit line says so, once
                    log.warn(
                            "{}: {} batch(es) still unwritten at the stop (drain timeout, or given up on a configuration fault)",
                            w.partition(),
                            w.pendingBatches());
                }
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

    /** Wakes the replay thread if it waits for an ack (the replay's stop; any thread). */
    void wake() {
        ackSignal.signal();
    }

    /** False once a write was left unwritten at a stop, or the TSDB restarted during the replay. */
    boolean cleanStop() {
        return cleanStop;
    }

    /** True once the last pass's writes count as stored, or {@code --replay-duration} ended the replay cleanly. */
    boolean reachedEnd() {
        return reachedEnd;
    }

    /** After a signal's stop: the partitions left short; else null. */
    Map<TopicPartition, Shortfall> shortfall() {
        return shortfall;
    }

    /** After a stop before the end: what the shortfall does not say in words (passes not begun, writes not yet stored). */
    String stoppedShort() {
        return stoppedShort;
    }

    /** True once pass 1 has begun. */
    boolean started() {
        return !passes.isEmpty();
    }

    /** Each pass's summary so far. */
    List<Map<String, Object>> summaries() {
        return List.copyOf(passes);
    }
}
