package io.tsdbwriter.kafka.segment;

import java.time.Duration;

/**
 * The wake-up a member thread (a relay's group member, a replay) waits on between its rounds: writer threads signal it
 * whenever an ack moved one of the partitions' watermarks ({@link PartitionWorkers}' {@code onAck}), so commits and
 * pass ends follow the acks closely instead of a fixed sleep. A signal given while nobody waits is kept for the next
 * wait (one flag, not a count).
 *
 * <p>Thread-safe: {@link #signal()} from any thread, {@link #await(Duration)} from the member's thread.
 */
public final class AckSignal {

    private final Object lock = new Object();
    private boolean signalled; // guarded by lock

    /** Wakes the waiting thread, or the next one to wait. */
    public void signal() {
        synchronized (lock) {
            signalled = true;
            lock.notifyAll();
        }
    }

    /**
     * Waits until a signal is given or {@code timeout} passes; clears the signal.
     *
     * @throws InterruptedException the waiting thread was interrupted
     */
    public void await(Duration timeout) throws InterruptedException {
        synchronized (lock) {
            if (!signalled) {
                lock.wait(timeout.toMillis());
            }
            signalled = false;
        }
    }
}
