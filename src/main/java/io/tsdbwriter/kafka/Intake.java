package io.tsdbwriter.kafka;


import java.util.Map;
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

    /** True once the work reached its end (every recorded end committed, every pass written, {@code --duration} over). */
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
