package io.tsdbwriter.write.http;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.internal.concurrent.TaskRunner;
import okhttp3.internal.connection.RealConnectionPool;

/**
 * An OkHttp {@link ConnectionPool} whose idle-connection sweep runs on a clock, not after every request.
 *
 * <p>Why: OkHttp (4.12) reschedules its pool's cleanup task to run <em>now</em> each time a call returns its
 * connection ({@code RealConnectionPool.connectionBecameIdle} → {@code TaskQueue.schedule(cleanupTask)}), while the
 * returning call still holds the connection's monitor; the task runner's thread wakes, and its sweep takes each
 * connection's monitor. At the write path's request rates that is one wake-up and a round of monitor contention per
 * request: a JFR profile of remote write at M=12, P=3 had 14 % of the writer's samples in that {@code schedule} call
 * (docs/benchmarks.md §15f), and 1,452 contended monitor entries of the sweep in a 2 M-point run. Here the pool gets a
 * {@link TaskRunner} of its own whose coordinator ignores those "run now" notifications and wakes on its own at most
 * every {@link #SWEEP_INTERVAL}: an idle connection is closed up to that much later than its keep-alive, and nothing
 * else changes (which connections are reused, how many stay idle).
 *
 * <p>This reaches into OkHttp's internal packages ({@code okhttp3.internal.concurrent.TaskRunner},
 * {@code RealConnectionPool}, the pool's internal constructor), which carry no compatibility promise:
 * {@code PooledConnectionsTest} fails at compile or run time when an upgrade changes them. Thread-safe.
 */
public final class PooledConnections {

    /** How often the sweep may run at most while requests keep returning connections. */
    public static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

    private PooledConnections() {
    }

    /**
     * A pool of at most {@code maxIdle} idle connections, each closed after {@code keepAlive} idle (plus up to
     * {@link #SWEEP_INTERVAL}); one task runner (its threads daemon, named {@code OkHttp pool sweep}) per pool.
     */
    public static ConnectionPool create(int maxIdle, Duration keepAlive) {
        TaskRunner runner = new TaskRunner(new ClockedBackend());
        return new ConnectionPool(new RealConnectionPool(runner, maxIdle, keepAlive.toNanos(), TimeUnit.NANOSECONDS));
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T rethrow(Throwable t) throws T {
        throw (T) t;
    }

    /** OkHttp's {@code RealBackend}, except that a notification does not wake the coordinator early. */
    static final class ClockedBackend implements TaskRunner.Backend {
        private final ThreadPoolExecutor executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "OkHttp pool sweep");
                    t.setDaemon(true);
                    return t;
                });

        @Override
        public void beforeTask(TaskRunner taskRunner) {
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        /** Not woken: the coordinator runs what is due when it wakes, at most {@link #SWEEP_INTERVAL} later. */
        @Override
        public void coordinatorNotify(TaskRunner taskRunner) {
        }

        /** Waits {@code nanos}, at most {@link #SWEEP_INTERVAL} (0 = do not wait, as in OkHttp's backend). */
        @Override
        public void coordinatorWait(TaskRunner taskRunner, long nanos) {
            long wait = Math.min(nanos, SWEEP_INTERVAL.toNanos());
            if (wait > 0) {
                try {
                    taskRunner.wait(wait / 1_000_000L, (int) (wait % 1_000_000L));
                } catch (InterruptedException e) {
                    throw PooledConnections.<RuntimeException>rethrow(e); // the runner catches it (Kotlin has no checked exceptions)
                }
            }
        }

        @Override
        public void execute(Runnable runnable) {
            executor.execute(runnable);
        }
    }
}
