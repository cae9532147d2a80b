package io.tsdbwriter.kafka;

import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * How a process takes its records from Kafka: as a member of its consumer group ({@code GroupMember}, the relay of
 * DESIGN §5: commits what was written) or as a replay of a window ({@code ReplayMember}: assigned partitions, no group,
 * no commits). {@link #run()} blocks on its own thread until the work ends or {@link #stop()} is called.
 *
 * <p>Thread-safety: {@link #run()} on one thread; every other method from any thread.
 */
public interface Intake extends Runnable {

    /** Asks the intake to stop: stop reading, drain in-flight writes (up to the drain timeout), commit. Idempotent. */
    void stop();

    /** True when the run has an end of its own ({@code --stop-at-end}, a replay's last pass), so a signal stops it short. */
    boolean hasEnd();

    /** True once the work reached its end (every recorded end committed, every pass written, {@code --replay-duration} over). */
    boolean reachedEnd();

    /** True when the run failed before any work began (missing topic, Kafka unreachable): nothing to report. */
    boolean startFailed();

    /** True when the stop drained everything (no write abandoned, no failure). */
    boolean cleanStop();

    /** False while Kafka cannot be reached; feeds {@code /health/ready}. */
    boolean kafkaReachable();

    /** Sum of the log end offsets of what is read, refreshed now and then (the input rate). */
    long logEndTotal();

    /** After a stop before the end: the partitions left short; null when not stopped early or not known. */
    Map<TopicPartition, Shortfall> shortfall();

    /**
     * Registers the one listener of this process's share of its group's work ({@link WorkShare}), which sizes its write
     * permits: told the share now (on the calling thread, before {@link #run()}) and on every change, on the intake's own
     * thread — a consumer group member inside its rebalance callbacks (a revocation waits for the listener, so the
     * partitions reach their next owner only once this process's part is lowered), a share group member after each
     * check of the group's members. The default, for an intake without a group (a replay): {@link WorkShare#WHOLE}, once.
     */
    default void onWorkShare(Consumer<WorkShare> listener) {
        listener.accept(WorkShare.WHOLE);
    }

    /**
     * After a stop before the end, what was left short in words when the partitions' shortfall does not say it all (a
     * replay's passes not begun, its last writes not yet known stored); null otherwise.
     */
    default String stoppedShort() {
        return null;
    }

    /** What a replay did, for the summary ({@code passes}, shifts, window); empty for a group member. */
    default Map<String, Object> summary() {
        return Map.of();
    }
}
